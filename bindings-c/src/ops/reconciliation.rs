//! Reconciliation 2021-01-08: getTransactions, getInvoiceDetailsByOrderLineItems, the batching helper and the transactions pager.

use std::ffi::c_char;

use abws_core::api::reconciliation::{GetTransactionsParams, OrderLineItemRef};

use super::{run, run_pager};
use crate::abws_error;
use crate::client::abws_client;
use crate::pager::abws_pager;
use crate::params::to_json;
use crate::status::abws_status;

/// getTransactions: one page of the payment transactions (charges, refunds) of a feed-
/// date range.
///
/// Params: `feed_start_date` and `feed_end_date` (required, ISO 8601), `next_page_token`
/// (optional; sent alone, as the service wants).
///
/// Result: the page in wire form, `{"transactions":[...],"nextPageToken":"..."}`.
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
pub unsafe extern "C" fn abws_reconciliation_get_transactions(
    client: *const abws_client,
    params_json: *const c_char,
    result_json: *mut *mut c_char,
    err: *mut *mut abws_error,
) -> abws_status {
    // SAFETY: forwarded contract.
    unsafe {
        run(client, params_json, result_json, err, |c, p| {
            let params: GetTransactionsParams = p.parse()?;
            to_json(&c.reconciliation().get_transactions(&params)?)
        })
    }
}

/// getInvoiceDetailsByOrderLineItems: the invoice data of 1 to 25 order line items.
///
/// Params: `order_line_items` (required array of `{"order_id", "order_line_item_id",
/// "shipment_id"}`; the camelCase names are accepted too).
///
/// Result: the body in wire form, `{"invoiceDetailsByOrderLineItems":[...]}`.
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
pub unsafe extern "C" fn abws_reconciliation_get_invoice_details_by_order_line_items(
    client: *const abws_client,
    params_json: *const c_char,
    result_json: *mut *mut c_char,
    err: *mut *mut abws_error,
) -> abws_status {
    // SAFETY: forwarded contract.
    unsafe {
        run(client, params_json, result_json, err, |c, p| {
            p.allow(&["order_line_items"])?;
            let items: Vec<OrderLineItemRef> = p.required("order_line_items")?;
            to_json(
                &c.reconciliation()
                    .get_invoice_details_by_order_line_items(&items)?,
            )
        })
    }
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
        run(client, params_json, result_json, err, |c, p| {
            p.allow(&["line_items"])?;
            let items: Vec<OrderLineItemRef> = p.required("line_items")?;
            to_json(&c.reconciliation().invoice_details_for(&items)?)
        })
    }
}

/// A pager over every page of getTransactions.
///
/// Params: as `abws_reconciliation_get_transactions`.
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
pub unsafe extern "C" fn abws_reconciliation_iter_transactions(
    client: *const abws_client,
    params_json: *const c_char,
    pager: *mut *mut abws_pager,
    err: *mut *mut abws_error,
) -> abws_status {
    // SAFETY: forwarded contract.
    unsafe {
        run_pager(client, params_json, pager, err, |c, p| {
            let params: GetTransactionsParams = p.parse()?;
            Ok(Box::new(c.reconciliation().iter_transactions(&params)?))
        })
    }
}
