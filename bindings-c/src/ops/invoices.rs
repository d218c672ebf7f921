//! Invoices 2026-02-01: getInvoices, getInvoiceDetailByInvoiceNumber, getInvoiceLineItemsByInvoiceNumber, and their pagers.

use std::ffi::c_char;

use abws_core::api::invoices::GetInvoicesParams;

use super::{region_or_default, run, run_pager};
use crate::abws_error;
use crate::client::abws_client;
use crate::pager::abws_pager;
use crate::params::to_json;
use crate::status::abws_status;

/// getInvoices: one page of the invoices and credit memos issued in a date range.
///
/// Params: `invoice_issue_start_date` and `invoice_issue_end_date` (required, ISO 8601;
/// at most 366 days apart, the end not in the future), `region` (optional: only that
/// region's invoices), `payment_method_types` (optional array, e.g. ["BCA"]),
/// `next_page_token` (the previous page's `nextPageToken`, sent with the same other
/// parameters).
///
/// Result: the page in wire form, `{"invoices":[...],"nextPageToken":"..."}`; no
/// `nextPageToken` on the last page. For every page, prefer
/// `abws_invoices_iter_invoices`.
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
pub unsafe extern "C" fn abws_invoices_get_invoices(
    client: *const abws_client,
    params_json: *const c_char,
    result_json: *mut *mut c_char,
    err: *mut *mut abws_error,
) -> abws_status {
    // SAFETY: forwarded contract.
    unsafe {
        run(client, params_json, result_json, err, |c, p| {
            let params: GetInvoicesParams = p.parse()?;
            to_json(&c.invoices().get_invoices(&params)?)
        })
    }
}

/// getInvoiceDetailByInvoiceNumber: one invoice or credit memo in full (parties, billing
/// details, tax breakdown, artifacts).
///
/// Params: `invoice_number` (required), `region` (default: the client's region).
///
/// Result: the `invoiceDetail` object in wire form.
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
pub unsafe extern "C" fn abws_invoices_get_invoice_detail_by_invoice_number(
    client: *const abws_client,
    params_json: *const c_char,
    result_json: *mut *mut c_char,
    err: *mut *mut abws_error,
) -> abws_status {
    // SAFETY: forwarded contract.
    unsafe {
        run(client, params_json, result_json, err, |c, p| {
            p.allow(&["invoice_number", "region"])?;
            let number = p.required_string("invoice_number")?;
            let region = region_or_default(c, p)?;
            to_json(
                &c.invoices()
                    .get_invoice_detail_by_invoice_number(&number, &region)?,
            )
        })
    }
}

/// getInvoiceLineItemsByInvoiceNumber: one page of an invoice's line items (then the
/// reversal units of its credit memos).
///
/// Params: `invoice_number` (required), `region` (default: the client's region),
/// `next_page_token` (optional).
///
/// Result: the page in wire form, `{"lineItems":[...],"nextPageToken":"..."}`.
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
pub unsafe extern "C" fn abws_invoices_get_invoice_line_items_by_invoice_number(
    client: *const abws_client,
    params_json: *const c_char,
    result_json: *mut *mut c_char,
    err: *mut *mut abws_error,
) -> abws_status {
    // SAFETY: forwarded contract.
    unsafe {
        run(client, params_json, result_json, err, |c, p| {
            p.allow(&["invoice_number", "region", "next_page_token"])?;
            let number = p.required_string("invoice_number")?;
            let region = region_or_default(c, p)?;
            let token = p.string("next_page_token")?;
            to_json(&c.invoices().get_invoice_line_items_by_invoice_number(
                &number,
                &region,
                token.as_deref(),
            )?)
        })
    }
}

/// A pager over every page of getInvoices. Any date range is accepted: it is walked in
/// windows of at most 366 days, oldest first.
///
/// Params: as `abws_invoices_get_invoices` (`next_page_token` resumes a listing of at
/// most 366 days). Pages: as `abws_invoices_get_invoices` returns them.
///
/// Ownership: on success `*pager` receives a new pager the caller reads with
/// `abws_pager_next` and frees with `abws_pager_free`; on failure it is not written and
/// `*err` (when `err` is not NULL) receives an error the caller frees with
/// `abws_error_free`. No request is sent until the first `abws_pager_next`.
/// NULL `client`, `params_json` or `pager`: `ABWS_STATUS_NULL_ARGUMENT`; a freed client:
/// `ABWS_STATUS_INVALID_HANDLE`; bad params: `ABWS_STATUS_INVALID_JSON` or
/// `ABWS_STATUS_VALIDATION` naming the key.
/// Thread safety: any thread, concurrently on one client.
///
/// # Safety
/// `params_json` is NULL or a NUL-terminated string; `pager` and `err` are NULL or valid
/// for one pointer write.
#[no_mangle]
pub unsafe extern "C" fn abws_invoices_iter_invoices(
    client: *const abws_client,
    params_json: *const c_char,
    pager: *mut *mut abws_pager,
    err: *mut *mut abws_error,
) -> abws_status {
    // SAFETY: forwarded contract.
    unsafe {
        run_pager(client, params_json, pager, err, |c, p| {
            let params: GetInvoicesParams = p.parse()?;
            Ok(Box::new(c.invoices().iter_invoices(&params)?))
        })
    }
}

/// A pager over every page of an invoice's line items
/// (getInvoiceLineItemsByInvoiceNumber).
///
/// Params: `invoice_number` (required), `region` (default: the client's region).
///
/// Ownership: on success `*pager` receives a new pager the caller reads with
/// `abws_pager_next` and frees with `abws_pager_free`; on failure it is not written and
/// `*err` (when `err` is not NULL) receives an error the caller frees with
/// `abws_error_free`. No request is sent until the first `abws_pager_next`.
/// NULL `client`, `params_json` or `pager`: `ABWS_STATUS_NULL_ARGUMENT`; a freed client:
/// `ABWS_STATUS_INVALID_HANDLE`; bad params: `ABWS_STATUS_INVALID_JSON` or
/// `ABWS_STATUS_VALIDATION` naming the key.
/// Thread safety: any thread, concurrently on one client.
///
/// # Safety
/// `params_json` is NULL or a NUL-terminated string; `pager` and `err` are NULL or valid
/// for one pointer write.
#[no_mangle]
pub unsafe extern "C" fn abws_invoices_iter_invoice_line_items(
    client: *const abws_client,
    params_json: *const c_char,
    pager: *mut *mut abws_pager,
    err: *mut *mut abws_error,
) -> abws_status {
    // SAFETY: forwarded contract.
    unsafe {
        run_pager(client, params_json, pager, err, |c, p| {
            p.allow(&["invoice_number", "region"])?;
            let number = p.required_string("invoice_number")?;
            let region = region_or_default(c, p)?;
            Ok(Box::new(
                c.invoices().iter_invoice_line_items(&number, &region)?,
            ))
        })
    }
}
