//! The conveniences that are not one operation and answer with JSON:
//! `invoice_details_for` (batches of getInvoiceDetailsByOrderLineItems) and
//! `wait_for_report` (getReport until the report ends). Their arguments are read by the
//! core's reader into the core's parameter structs; defaults (the poll interval) are the
//! core's. The downloads are in `../download.rs`.

use std::ffi::c_char;

use abws_core::api::documents::WaitForReportParams;
use abws_core::api::reconciliation::InvoiceDetailsForParams;
use abws_core::blocking;
use serde::de::DeserializeOwned;

use crate::abws_error;
use crate::client::{self, abws_client};
use crate::ffi::{boundary, not_null, write_string, FfiResult};
use crate::params::to_json;
use crate::status::abws_status;

/// The body of a convenience: checks, handle lookup, the arguments read by the core's
/// reader into `P`, the call, and the result written only on success.
///
/// # Safety
/// As the exported function: `params_json` NULL or NUL-terminated; `result_json` and
/// `err` NULL or writable.
unsafe fn run<P: DeserializeOwned>(
    client: *const abws_client,
    params_json: *const c_char,
    result_json: *mut *mut c_char,
    err: *mut *mut abws_error,
    body: impl FnOnce(&blocking::Client, P) -> FfiResult<String>,
) -> abws_status {
    boundary(err, || {
        not_null!(client, params_json, result_json);
        let c = client::lookup(client)?;
        // SAFETY: per the exported function's contract.
        let params: P = unsafe { crate::params::read(params_json) }?;
        let json = body(&c.client, params)?;
        // SAFETY: non-NULL and writable per the exported function's contract.
        unsafe { write_string(result_json, json) };
        Ok(())
    })
}

/// The invoice data of any number of order line items with the fewest requests: batches
/// of 25, one representative per (order, shipment), since line items of one shipment
/// share their invoice.
///
/// Params: `line_items` (required array of `{"order_id", "order_line_item_id",
/// "shipment_id"}`).
///
/// Result: a JSON array with one `{"orderLineItem":{...},"invoiceDetails":[...]}` per
/// input, in input order.
///
/// Ownership: on success `*result_json` receives a new string the caller frees with
/// `abws_string_free`; on failure it is not written and `*err` (when `err` is not NULL)
/// receives an error the caller frees with `abws_error_free`.
/// NULL `client`, `params_json` or `result_json`: `ABWS_STATUS_NULL_ARGUMENT`; a freed
/// client: `ABWS_STATUS_INVALID_HANDLE`; bad params: `ABWS_STATUS_INVALID_JSON` or
/// `ABWS_STATUS_VALIDATION` naming the key, before any request.
/// Thread safety: any thread, concurrently on one client; blocks until the answer.
///
/// # Safety
/// `params_json` is NULL or a NUL-terminated string; `result_json` and `err` are NULL or
/// valid for one pointer write.
#[no_mangle]
pub unsafe extern "C" fn abws_reconciliation_invoice_details_for(
    client: *const abws_client,
    params_json: *const c_char,
    result_json: *mut *mut c_char,
    err: *mut *mut abws_error,
) -> abws_status {
    // SAFETY: forwarded contract.
    unsafe {
        run(
            client,
            params_json,
            result_json,
            err,
            |c, p: InvoiceDetailsForParams| to_json(&c.reconciliation().invoice_details_for(&p)?),
        )
    }
}

/// Polls getReport until the report ends. DONE returns the report (with its
/// `reportDocumentId`); CANCELLED and FATAL give `ABWS_STATUS_REPORT_FAILED`; the end of
/// `timeout` gives `ABWS_STATUS_TIMEOUT`. To cancel the wait from another thread, use
/// `abws_documents_wait_for_report_cancellable`.
///
/// Params: `report_id` (required), `poll_interval` (seconds, default 15), `timeout`
/// (seconds, default 1800: 30 minutes), `no_timeout` (true: no bound; not with `timeout`).
///
/// Result: the final report in wire form.
///
/// Ownership: on success `*result_json` receives a new string the caller frees with
/// `abws_string_free`; on failure it is not written and `*err` (when `err` is not NULL)
/// receives an error the caller frees with `abws_error_free`.
/// NULL `client`, `params_json` or `result_json`: `ABWS_STATUS_NULL_ARGUMENT`; a freed
/// client: `ABWS_STATUS_INVALID_HANDLE`; bad params: `ABWS_STATUS_INVALID_JSON` or
/// `ABWS_STATUS_VALIDATION` naming the key, before any request.
/// Thread safety: any thread, concurrently on one client; blocks until the answer.
///
/// # Safety
/// `params_json` is NULL or a NUL-terminated string; `result_json` and `err` are NULL or
/// valid for one pointer write.
#[no_mangle]
pub unsafe extern "C" fn abws_documents_wait_for_report(
    client: *const abws_client,
    params_json: *const c_char,
    result_json: *mut *mut c_char,
    err: *mut *mut abws_error,
) -> abws_status {
    // SAFETY: forwarded contract.
    unsafe {
        run(
            client,
            params_json,
            result_json,
            err,
            |c, p: WaitForReportParams| wait_for_report(c, p, None),
        )
    }
}

fn wait_for_report(
    c: &blocking::Client,
    p: WaitForReportParams,
    cancel: Option<std::sync::Arc<crate::cancel::CancelData>>,
) -> FfiResult<String> {
    let (poll, timeout) = p.durations()?;
    let report = crate::cancel::run(c, cancel, |ac| async move {
        ac.documents()
            .wait_for_report(&p.report_id, poll, timeout)
            .await
    })?;
    to_json(&report)
}

/// `abws_documents_wait_for_report` that another thread can end at once with
/// `abws_cancel_signal(cancel)`: the call then returns `ABWS_STATUS_CANCELLED`. `cancel`
/// may be NULL (not cancellable). The deadline is the `timeout` key of the params, as
/// there (default 30 minutes).
///
/// Ownership, NULL behaviour and thread rules: as `abws_documents_wait_for_report`; a
/// freed or foreign `cancel`: `ABWS_STATUS_INVALID_HANDLE`. `cancel` stays the caller's.
///
/// # Safety
/// As `abws_documents_wait_for_report`.
#[no_mangle]
pub unsafe extern "C" fn abws_documents_wait_for_report_cancellable(
    client: *const abws_client,
    params_json: *const c_char,
    cancel: *const crate::cancel::abws_cancel,
    result_json: *mut *mut c_char,
    err: *mut *mut abws_error,
) -> abws_status {
    // SAFETY: forwarded contract.
    unsafe {
        run(
            client,
            params_json,
            result_json,
            err,
            |c, p: WaitForReportParams| wait_for_report(c, p, crate::cancel::lookup(cancel)?),
        )
    }
}
