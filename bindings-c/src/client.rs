//! `abws_client`: creation from a settings JSON object, and freeing.

use std::ffi::{c_char, c_void, CString};
use std::sync::Arc;

use abws_core::{blocking, Settings};
use serde_json::Value;

use crate::abws_error;
use crate::ffi::{boundary, input_str, not_null, parse_json, write_out, Failure, FfiResult};
use crate::handles::Registry;
use crate::status::abws_status;

/// A client of the service: settings, credentials, token cache, connection pool.
///
/// Created by `abws_client_new`, freed by `abws_client_free`. Thread safety: one
/// client may be shared by any number of threads and used concurrently; it refreshes
/// its access token once for all of them and paces all of them with one set of rate
/// limits. Create one per set of credentials and keep it for the life of the plugin.
pub struct abws_client {
    _opaque: [u8; 0],
}

pub(crate) struct ClientData {
    pub(crate) client: blocking::Client,
}

/// How many handles are live (for `abws_live_objects`).
pub(crate) fn live() -> usize {
    CLIENTS.len()
}

static CLIENTS: Registry<ClientData> = Registry::new();

/// The client behind a handle, or `INVALID_HANDLE`; `RUNTIME` inside a callback of the
/// library (every function that takes a client goes through here).
pub(crate) fn lookup(client: *const abws_client) -> FfiResult<Arc<ClientData>> {
    if client.is_null() {
        return Err(Failure::null("client"));
    }
    crate::ffi::not_inside_callback()?;
    CLIENTS
        .get(client)
        .ok_or_else(|| Failure::invalid_handle("client", "abws_client"))
}

/// Converts a settings object into core `Settings` (the core's reader, shared with the
/// Python binding; the rules on the values are `Settings::check`'s, run when the client
/// is built).
pub(crate) fn settings_from_json(v: &Value) -> FfiResult<Settings> {
    // Every client of this library is built from a settings object: its user agent says C.
    abws_core::config::set_binding_language("C");
    abws_core::settings_json::from_json(v, "settings_json").map_err(Failure::Core)
}

/// Builds the client of `settings` and writes its handle to `*client`.
///
/// # Safety
/// `client` is non-NULL and valid for one pointer write.
unsafe fn build(settings: Settings, client: *mut *mut abws_client) -> FfiResult<()> {
    let inner = blocking::Client::new(settings)?;
    let handle = CLIENTS.insert(ClientData { client: inner });
    // SAFETY: per this function's contract.
    unsafe { write_out(client, handle) };
    Ok(())
}

/// Creates a client from a settings JSON object.
///
// BEGIN GENERATED: settings (cargo run -p xtask -- gen; do not edit)
/// Settings (snake_case keys; unknown keys are a validation error naming the key;
/// credentials are `client_id` + `client_secret` + `refresh_token`, or `access_token`
/// alone):
/// - `region`: required: the default region of calls that take one, one of AU CA DE ES FR
///   IN IT JP MX UK US (GB reads as UK).
/// - `client_id`: the app's client id; with `client_secret` and `refresh_token` the client
///   obtains and refreshes access tokens.
/// - `client_secret`: the app's client secret (a secret: never shown).
/// - `refresh_token`: the refresh token of the customer's consent (a secret).
/// - `access_token`: a fixed access token, in place of the three above (a secret; not
///   refreshed).
/// - `user_email`: the default `x-svc-user-email` of the operations that send it.
/// - `endpoint`: required unless `use_sandbox`: the API's regional base address (there is
///   no default: the specification names no address).
/// - `auth_endpoint`: required with `refresh_token`: the authorization server's address.
/// - `consent_endpoint`: the address of the consent page (the consent flow only).
/// - `sandbox_endpoint`: the platform's regional sandbox address.
/// - `use_sandbox`: bool, default false: send every operation to `sandbox_endpoint` instead
///   of `endpoint` (the same requests).
/// - `rate_limiting`: bool, default true: pace calls with the client-side token buckets.
/// - `max_attempts`: 1-10, default 3: attempts per operation (the one replay after a
///   refreshed token or a renewed download address not counted).
/// - `connect_timeout`: seconds, default 3.1.
/// - `attempt_timeout`: seconds, default 30: one attempt.
/// - `operation_timeout`: seconds, default 120: one operation, retries included (timeouts
///   past a year are cut to a year).
/// - `max_response_bytes`: default 32 MiB, at least 64 KiB: the largest JSON response
///   accepted.
/// - `max_document_bytes`: default 1 GiB: the largest unpacked layer of a document
///   accepted.
/// - `app_name`: printable ASCII put before the library's own user agent, e.g. "MyErp/2.1".
/// - `proxy`: the proxy of remote https addresses, `http://[user:password@]host:port`, in
///   place of `https_proxy`/`all_proxy`/`no_proxy` of the environment; plain-http loopback
///   addresses never go through a proxy (a secret: shown redacted).
/// - `shared_state`: a Redis shared by every process of the account,
///   `redis://[:password@]host:port/db` (`rediss://` for TLS): one rate limit, one access
///   token and one write ledger for all of them (a secret: shown redacted).
/// - `shared_state_required`: bool, default false: refuse to build the client when
///   `shared_state` cannot be used (wrong password, unreachable), instead of pacing this
///   process alone.
// END GENERATED: settings
///
/// No request is sent here.
///
/// Ownership: on success `*client` receives a new client the caller frees with
/// `abws_client_free`; on failure `*client` is not written and `*err` (when `err` is not
/// NULL) receives an error the caller frees with `abws_error_free`. Error messages never
/// contain the secrets. NULL `settings_json` or `client`: `ABWS_STATUS_NULL_ARGUMENT`.
/// Thread safety: any thread.
///
/// # Safety
/// `settings_json` is NULL or a NUL-terminated string; `client` and `err` are NULL or
/// valid for one pointer write.
#[no_mangle]
pub unsafe extern "C" fn abws_client_new(
    settings_json: *const c_char,
    client: *mut *mut abws_client,
    err: *mut *mut abws_error,
) -> abws_status {
    boundary(err, || {
        not_null!(settings_json, client);
        // SAFETY: per this function's contract.
        let text = unsafe { input_str(settings_json, "settings_json") }?;
        let value = parse_json(text, "settings_json")?;
        let settings = settings_from_json(&value)?;
        // SAFETY: `client` is non-NULL and writable per this function's contract.
        unsafe { build(settings, client) }
    })
}

/// Creates a client from the `ABWS_*` environment variables, one per setting (see
/// `abws_client_new` for what each does), with `overrides_json` (NULL, or a JSON object of
/// settings) on top:
///
// BEGIN GENERATED: environment (cargo run -p xtask -- gen; do not edit)
/// `ABWS_REGION` (region), `ABWS_CLIENT_ID` (client_id), `ABWS_CLIENT_SECRET`
/// (client_secret), `ABWS_REFRESH_TOKEN` (refresh_token), `ABWS_ACCESS_TOKEN`
/// (access_token), `ABWS_USER_EMAIL` (user_email), `ABWS_ENDPOINT` (endpoint),
/// `ABWS_AUTH_ENDPOINT` (auth_endpoint), `ABWS_CONSENT_ENDPOINT` (consent_endpoint),
/// `ABWS_SANDBOX_ENDPOINT` (sandbox_endpoint), `ABWS_USE_SANDBOX` (use_sandbox),
/// `ABWS_RATE_LIMITING` (rate_limiting), `ABWS_MAX_ATTEMPTS` (max_attempts),
/// `ABWS_CONNECT_TIMEOUT` (connect_timeout), `ABWS_ATTEMPT_TIMEOUT` (attempt_timeout),
/// `ABWS_OPERATION_TIMEOUT` (operation_timeout), `ABWS_MAX_RESPONSE_BYTES`
/// (max_response_bytes), `ABWS_MAX_DOCUMENT_BYTES` (max_document_bytes), `ABWS_APP_NAME`
/// (app_name), `ABWS_PROXY` (proxy), `ABWS_SHARED_STATE` (shared_state),
/// `ABWS_SHARED_STATE_REQUIRED` (shared_state_required); empty ones are ignored; booleans
/// are true/false (or 1/0), timeouts seconds.
// END GENERATED: environment
///
/// `ABWS_REGION` (or a `region` override) is required: no region is picked by itself, and
/// the error names it with the accepted codes; so are the addresses `abws_client_new`
/// requires. No request is sent here.
///
/// Ownership: as `abws_client_new`: on success `*client` receives a new client the caller
/// frees with `abws_client_free`; on failure `*client` is not written and `*err` (when `err`
/// is not NULL) receives an error the caller frees with `abws_error_free`. Error messages
/// never contain the secrets. NULL `client`: `ABWS_STATUS_NULL_ARGUMENT`.
/// Thread safety: any thread (the environment is read while the call runs; do not change it
/// from another thread meanwhile).
///
/// # Safety
/// `overrides_json` is NULL or a NUL-terminated string; `client` and `err` are NULL or
/// valid for one pointer write.
#[no_mangle]
pub unsafe extern "C" fn abws_client_from_env(
    overrides_json: *const c_char,
    client: *mut *mut abws_client,
    err: *mut *mut abws_error,
) -> abws_status {
    boundary(err, || {
        not_null!(client);
        let overrides = if overrides_json.is_null() {
            None
        } else {
            // SAFETY: per this function's contract.
            let text = unsafe { input_str(overrides_json, "overrides_json") }?;
            Some(parse_json(text, "overrides_json")?)
        };
        abws_core::config::set_binding_language("C");
        let settings =
            abws_core::settings_json::from_env(overrides.as_ref()).map_err(Failure::Core)?;
        // SAFETY: `client` is non-NULL and writable per this function's contract.
        unsafe { build(settings, client) }
    })
}

/// Receives a refresh token the server rotated to, before the client uses it: persist it
/// here (the token it replaces no longer works, so a plugin that restarts with the old one
/// must run the consent flow again).
///
/// `user_data` is the pointer given to `abws_client_set_refresh_token_callback`, passed
/// through untouched; `refresh_token` is a NUL-terminated string valid only during the call
/// (copy it; the library wipes its copy afterwards). Called on the thread of whichever call
/// of this client performs the refresh, before that call returns, while the other calls of
/// the client wait for the refresh: keep it short, make `user_data` safe to use from any
/// thread, and call no function of this library that takes a client or a pager from it
/// (such a call returns `ABWS_STATUS_RUNTIME`: the call that refreshes is still in
/// progress on this thread). Must not unwind (no C++ exception or longjmp may leave it).
///
/// Lifetime: a pager made from the client shares its credentials and refreshes them too,
/// also after `abws_client_free`, so the callback may run until the client AND every pager
/// created from it are freed: `user_data` must stay valid until then. (The library does
/// not drop the callback when the client is freed: a pager's refresh would then consume
/// the old refresh token at the server and the rotated one would be lost.)
pub type abws_refresh_token_callback =
    Option<unsafe extern "C" fn(user_data: *mut c_void, refresh_token: *const c_char)>;

/// The caller's callback and its pointer, called from the core's rotation callback.
struct RotationTarget {
    callback: unsafe extern "C" fn(*mut c_void, *const c_char),
    user_data: *mut c_void,
}

// SAFETY: the pointer is the caller's and is only passed back to the caller's callback; the
// callback's documentation makes the caller responsible for `user_data` being usable from
// any thread that calls the client.
unsafe impl Send for RotationTarget {}
unsafe impl Sync for RotationTarget {}

impl RotationTarget {
    fn call(&self, token: &str) {
        // A token has no NUL byte; should one hold one anyway, it is cut there.
        let cut = token.split('\0').next().unwrap_or("");
        let Ok(text) = CString::new(cut) else { return };
        let mut bytes = text.into_bytes_with_nul();
        // SAFETY: the callback is the caller's, with the documented signature; the string
        // is NUL-terminated and valid during the call.
        unsafe { (self.callback)(self.user_data, bytes.as_ptr().cast()) };
        for b in bytes.iter_mut() {
            // SAFETY: a valid, exclusively borrowed byte; volatile so the wipe is kept.
            unsafe { std::ptr::write_volatile(b, 0) };
        }
    }
}

/// Sets the function that receives every refresh token the server rotates to (see
/// `abws_refresh_token_callback`), or removes it when `callback` is NULL. Set it right
/// after `abws_client_new`, before the first call: no refresh happens before a call.
///
/// Returns `ABWS_STATUS_OK`; `ABWS_STATUS_NULL_ARGUMENT` for a NULL `client`;
/// `ABWS_STATUS_INVALID_HANDLE` when `client` is not a live client (`*err` filled when
/// `err` is not NULL). `user_data` may be NULL; the library never dereferences it. The
/// callback replaces any earlier one, for the client and for the pagers created from it.
/// Thread safety: any thread; a refresh already running may still call the previous
/// callback. `user_data` must stay valid until the client and every pager created from it
/// are freed (see `abws_refresh_token_callback`, "Lifetime").
///
/// # Safety
/// `err` is NULL or valid for one pointer write; `callback`, when not NULL, follows
/// `abws_refresh_token_callback`'s rules for as long as it is set.
#[no_mangle]
pub unsafe extern "C" fn abws_client_set_refresh_token_callback(
    client: *const abws_client,
    callback: abws_refresh_token_callback,
    user_data: *mut c_void,
    err: *mut *mut abws_error,
) -> abws_status {
    boundary(err, || {
        let data = lookup(client)?;
        let on_rotate: Option<abws_core::auth::RotationCallback> = callback.map(|callback| {
            let target = RotationTarget {
                callback,
                user_data,
            };
            Arc::new(move |token: &str| target.call(token)) as abws_core::auth::RotationCallback
        });
        data.client.set_rotation_callback(on_rotate)?;
        Ok(())
    })
}

/// Checks that the client's shared state (settings key `shared_state`) can be used now:
/// Redis answers, accepts the address's user and password, and lets this account's keys be
/// written. A client built with `"shared_state_required": true` ran this check in
/// `abws_client_new`, which failed with its error; without it, calls go on unshared while
/// the shared state cannot be used, and this function says why.
///
/// Returns `ABWS_STATUS_OK` when it works or when no shared state is configured;
/// `ABWS_STATUS_VALIDATION` naming `shared_state` for a refusal that lasts until someone
/// fixes it (a wrong password, missing ACL rights, Redis out of memory, a read-only
/// replica); `ABWS_STATUS_TRANSPORT` when Redis is unreachable (within 2 s);
/// `ABWS_STATUS_NULL_ARGUMENT` for a NULL `client`; `ABWS_STATUS_INVALID_HANDLE` when
/// `client` is not a live client. `*err` is filled on failure when `err` is not NULL; the
/// message never quotes the address (it may hold a password). Thread safety: any thread.
///
/// # Safety
/// `err` is NULL or valid for one pointer write.
#[no_mangle]
pub unsafe extern "C" fn abws_client_check_shared_state(
    client: *const abws_client,
    err: *mut *mut abws_error,
) -> abws_status {
    boundary(err, || {
        let data = lookup(client)?;
        data.client.check_shared_state()?;
        Ok(())
    })
}

/// Frees a client. `client` may be NULL (nothing happens, `ABWS_STATUS_OK`).
///
/// Returns `ABWS_STATUS_OK`, or `ABWS_STATUS_INVALID_HANDLE` (and frees nothing) when
/// `client` is not a live client (already freed, or another kind of handle).
/// Calls still running on other threads finish normally; pagers created from the client
/// keep working (they hold their own reference to its connections and credentials, and
/// its refresh-token callback, which they may still call: see
/// `abws_refresh_token_callback`). Afterwards every use of the handle gives
/// `ABWS_STATUS_INVALID_HANDLE`. Thread safety: any thread.
#[no_mangle]
pub extern "C" fn abws_client_free(client: *mut abws_client) -> abws_status {
    CLIENTS.free(client)
}

#[cfg(test)]
mod tests {
    use super::*;

    // The rules themselves are tested in core (settings_json); this checks they are the
    // ones the C entry point applies, errors as core validation errors naming the key.
    #[test]
    fn settings_go_through_the_core_reader() {
        let ok = settings_from_json(&serde_json::json!({"region": "JP", "access_token": "at"}));
        assert!(ok.is_ok_and(|s| s.region == abws_core::Region::JP));
        match settings_from_json(&serde_json::json!({"region": "JP", "colour": 1})) {
            Err(Failure::Core(e)) => assert_eq!(e.parameter(), Some("colour")),
            _ => panic!("expected a validation error"),
        }
    }
}
