//! Order reporting 2021-01-08 (getOrdersByOrderId) and shipment line item reporting 2025-06-09 (getShipmentLineItemReports and its pager).

use std::ffi::c_char;

use abws_core::api::reporting::{OrderIncludes, ShipmentLineItemParams};

use super::{run, run_pager};
use crate::abws_error;
use crate::client::abws_client;
use crate::pager::abws_pager;
use crate::params::to_json;
use crate::status::abws_status;

/// getOrdersByOrderId: one order, with the parts asked for (needs `user_email` in the
/// settings).
///
/// Params: `order_id` (required), `include_line_items`, `include_shipments`,
/// `include_charges` (booleans, default false).
///
/// Result: `{"orders":[...],"size":1}` in wire form.
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
pub unsafe extern "C" fn abws_reporting_get_orders_by_order_id(
    client: *const abws_client,
    params_json: *const c_char,
    result_json: *mut *mut c_char,
    err: *mut *mut abws_error,
) -> abws_status {
    // SAFETY: forwarded contract.
    unsafe {
        run(client, params_json, result_json, err, |c, p| {
            p.allow(&[
                "order_id",
                "include_line_items",
                "include_shipments",
                "include_charges",
            ])?;
            let id = p.required_string("order_id")?;
            let includes: OrderIncludes = p.parse_except(&["order_id"])?;
            to_json(&c.reporting().get_orders_by_order_id(&id, includes)?)
        })
    }
}

/// getShipmentLineItemReports: one page of shipped order lines.
///
/// Params: `order_start_date` and `order_end_date` (required, ISO 8601, at most 366 days
/// apart), `purchase_order_numbers` (1-30), `order_ids` (1-30), `region`,
/// `next_page_token`.
///
/// Result: the page in wire form.
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
pub unsafe extern "C" fn abws_reporting_get_shipment_line_item_reports(
    client: *const abws_client,
    params_json: *const c_char,
    result_json: *mut *mut c_char,
    err: *mut *mut abws_error,
) -> abws_status {
    // SAFETY: forwarded contract.
    unsafe {
        run(client, params_json, result_json, err, |c, p| {
            let params: ShipmentLineItemParams = p.parse()?;
            to_json(&c.reporting().get_shipment_line_item_reports(&params)?)
        })
    }
}

/// A pager over every page of getShipmentLineItemReports.
///
/// Params: as `abws_reporting_get_shipment_line_item_reports`.
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
pub unsafe extern "C" fn abws_reporting_iter_shipment_line_item_reports(
    client: *const abws_client,
    params_json: *const c_char,
    pager: *mut *mut abws_pager,
    err: *mut *mut abws_error,
) -> abws_status {
    // SAFETY: forwarded contract.
    unsafe {
        run_pager(client, params_json, pager, err, |c, p| {
            let params: ShipmentLineItemParams = p.parse()?;
            Ok(Box::new(
                c.reporting().iter_shipment_line_item_reports(&params)?,
            ))
        })
    }
}
