//! Reports and documents 2021-09-30: createReport, getReport, getReportDocument and the wait helper (downloads are in `download.rs`).

use std::ffi::c_char;

use std::time::Duration;

use abws_core::api::documents::CreateReportParams;

use super::run;
use crate::abws_error;
use crate::client::abws_client;
use crate::params::to_json;
use crate::status::abws_status;

/// createReport: asks for the PDF of an invoice or credit note (report type
/// GET_AB_INVOICE_PDF).
///
/// Params: `report_type` (default "GET_AB_INVOICE_PDF"), `marketplace_ids` (default: the
/// client region's), `report_options` (required object: `order_id`, `order_line_item_id`,
/// `shipment_id`, `document_type` "Invoice" or "Credits"; or `invoice_id` of a
/// consolidated invoice with `document_type` "Invoice").
///
/// Result: `{"reportId":"..."}`. Then `abws_documents_wait_for_report`.
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
pub unsafe extern "C" fn abws_documents_create_report(
    client: *const abws_client,
    params_json: *const c_char,
    result_json: *mut *mut c_char,
    err: *mut *mut abws_error,
) -> abws_status {
    // SAFETY: forwarded contract.
    unsafe {
        run(client, params_json, result_json, err, |c, p| {
            let params: CreateReportParams = p.parse()?;
            to_json(&c.documents().create_report(&params)?)
        })
    }
}

/// getReport: a report's processing status (IN_QUEUE, IN_PROGRESS, DONE, CANCELLED,
/// FATAL) and, when DONE, its `reportDocumentId`.
///
/// Params: `report_id` (required). Result: the report in wire form.
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
pub unsafe extern "C" fn abws_documents_get_report(
    client: *const abws_client,
    params_json: *const c_char,
    result_json: *mut *mut c_char,
    err: *mut *mut abws_error,
) -> abws_status {
    // SAFETY: forwarded contract.
    unsafe {
        run(client, params_json, result_json, err, |c, p| {
            p.allow(&["report_id"])?;
            let id = p.required_string("report_id")?;
            to_json(&c.documents().get_report(&id)?)
        })
    }
}

/// getReportDocument: where a report document can be downloaded (a presigned address
/// valid five minutes). Usually `abws_documents_download` is what you want.
///
/// Params: `report_document_id` (required). Result:
/// `{"reportDocumentId","url","compressionAlgorithm"}`.
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
pub unsafe extern "C" fn abws_documents_get_report_document(
    client: *const abws_client,
    params_json: *const c_char,
    result_json: *mut *mut c_char,
    err: *mut *mut abws_error,
) -> abws_status {
    // SAFETY: forwarded contract.
    unsafe {
        run(client, params_json, result_json, err, |c, p| {
            p.allow(&["report_document_id"])?;
            let id = p.required_string("report_document_id")?;
            to_json(&c.documents().get_report_document(&id)?)
        })
    }
}

/// Polls getReport until the report ends. DONE returns the report (with its
/// `reportDocumentId`); CANCELLED and FATAL give `ABWS_STATUS_REPORT_FAILED`; the end of
/// `timeout` gives `ABWS_STATUS_TIMEOUT`.
///
/// Params: `report_id` (required), `poll_interval` (seconds, default 15), `timeout`
/// (seconds, default: no bound).
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
        run(client, params_json, result_json, err, |c, p| {
            p.allow(&["report_id", "poll_interval", "timeout"])?;
            let id = p.required_string("report_id")?;
            let poll = p
                .seconds("poll_interval")?
                .unwrap_or(Duration::from_secs(15));
            let timeout = p.seconds("timeout")?;
            to_json(&c.documents().wait_for_report(&id, poll, timeout)?)
        })
    }
}
