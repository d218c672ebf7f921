//! One exported function per operation of both specification documents, grouped as the
//! core groups them. Each converts: params JSON → the core's parameter types → the
//! blocking facade → the result's wire-form JSON. No business logic lives here.

pub mod cart;
pub mod documents;
pub mod invoices;
pub mod ordering;
pub mod products;
pub mod reconciliation;
pub mod reporting;
pub mod tracking;

use std::ffi::c_char;

use abws_core::blocking;

use crate::abws_error;
use crate::client::{self, abws_client};
use crate::ffi::{boundary, not_null, write_string, FfiResult};
use crate::pager::{abws_pager, write_pager, JsonPages};
use crate::params::Params;
use crate::status::abws_status;

/// The body of every single-call operation: checks, handle lookup, params, the call,
/// and the result written only on success.
///
/// # Safety
/// As the exported operation: `params_json` NULL or NUL-terminated; `result_json` and
/// `err` NULL or writable.
pub(crate) unsafe fn run(
    client: *const abws_client,
    params_json: *const c_char,
    result_json: *mut *mut c_char,
    err: *mut *mut abws_error,
    call: impl FnOnce(&blocking::Client, &Params) -> FfiResult<String>,
) -> abws_status {
    boundary(err, || {
        not_null!(client, params_json, result_json);
        let c = client::lookup(client)?;
        // SAFETY: per the exported function's contract.
        let p = unsafe { Params::from_c(params_json) }?;
        let json = call(&c.client, &p)?;
        // SAFETY: non-NULL and writable per the exported function's contract.
        unsafe { write_string(result_json, json) };
        Ok(())
    })
}

/// The body of every pager constructor.
///
/// # Safety
/// As `run`, with `pager` NULL or writable.
pub(crate) unsafe fn run_pager(
    client: *const abws_client,
    params_json: *const c_char,
    pager: *mut *mut abws_pager,
    err: *mut *mut abws_error,
    make: impl FnOnce(&blocking::Client, &Params) -> FfiResult<Box<dyn JsonPages>>,
) -> abws_status {
    boundary(err, || {
        not_null!(client, params_json, pager);
        let c = client::lookup(client)?;
        // SAFETY: per the exported function's contract.
        let p = unsafe { Params::from_c(params_json) }?;
        let pages = make(&c.client, &p)?;
        // SAFETY: non-NULL and writable per the exported function's contract.
        unsafe { write_pager(pager, pages) };
        Ok(())
    })
}

/// The `region` key, or the client's region (the settings' default region).
pub(crate) fn region_or_default(c: &blocking::Client, p: &Params) -> FfiResult<String> {
    Ok(match p.string("region")? {
        Some(r) => r,
        None => c.settings().region.as_str().to_string(),
    })
}
