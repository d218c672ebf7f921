//! `abws_client`: creation from a settings JSON object, and freeing.

use std::ffi::c_char;
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

/// The client behind a handle, or `INVALID_HANDLE`.
pub(crate) fn lookup(client: *const abws_client) -> FfiResult<Arc<ClientData>> {
    if client.is_null() {
        return Err(Failure::null("client"));
    }
    CLIENTS
        .get(client)
        .ok_or_else(|| Failure::invalid_handle("client", "abws_client"))
}

/// Converts a settings object into core `Settings` (the core's reader, shared with the
/// Python binding; the rules on the values are `Settings::check`'s, run when the client
/// is built).
pub(crate) fn settings_from_json(v: &Value) -> FfiResult<Settings> {
    abws_core::settings_json::from_json(v, "settings_json").map_err(Failure::Core)
}

/// Creates a client from a settings JSON object.
///
/// Settings (snake_case keys; unknown keys are a validation error naming the key):
/// `region` (required, e.g. "JP"; its regional group picks the address), credentials as
/// `client_id` + `client_secret` + `refresh_token` or as `access_token` alone,
/// `user_email` (default `x-svc-user-email`), `endpoint` (API base address override,
/// e.g. the sandbox), `auth_endpoint`, `consent_endpoint`, `rate_limiting` (bool, default
/// true), `max_attempts` (1-10, default 3), `connect_timeout`, `attempt_timeout`,
/// `operation_timeout` (seconds; values past a year are cut to a year), `max_response_bytes`,
/// `max_document_bytes`, `app_name` (appended to the user agent), `proxy` (the proxy of
/// remote https addresses, `http://[user:password@]host:port`, in place of
/// `https_proxy`/`all_proxy`/`no_proxy` of the environment; plain-http loopback addresses
/// never go through a proxy). No request is sent here.
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
        let inner = blocking::Client::new(settings)?;
        let handle = CLIENTS.insert(ClientData { client: inner });
        // SAFETY: `client` is non-NULL and writable per this function's contract.
        unsafe { write_out(client, handle) };
        Ok(())
    })
}

/// Frees a client. `client` may be NULL (nothing happens, `ABWS_STATUS_OK`).
///
/// Returns `ABWS_STATUS_OK`, or `ABWS_STATUS_INVALID_HANDLE` (and frees nothing) when
/// `client` is not a live client (already freed, or another kind of handle).
/// Calls still running on other threads finish normally; pagers created from the client
/// keep working (they hold their own reference). Afterwards every use of the handle
/// gives `ABWS_STATUS_INVALID_HANDLE`. Thread safety: any thread.
#[no_mangle]
pub extern "C" fn abws_client_free(client: *mut abws_client) -> abws_status {
    crate::ffi::boundary_value(abws_status::Panic, || {
        if client.is_null() {
            return abws_status::Ok;
        }
        match CLIENTS.remove(client) {
            Some(_) => abws_status::Ok,
            None => abws_status::InvalidHandle,
        }
    })
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
