//! Ordering 2022-10-30: placeOrder.

use std::ffi::c_char;

use abws_core::api::ordering::PlaceOrderRequest;

use super::run;
use crate::abws_error;
use crate::client::abws_client;
use crate::params::to_json;
use crate::status::abws_status;

/// placeOrder: places an order. Resent (with the same externalId) only when it surely did
/// not reach the service or was refused before processing; an ambiguous failure gives
/// `ABWS_STATUS_OUTCOME_UNKNOWN` with the externalId (`abws_error_external_id`), never a
/// resend.
///
/// Params: the request in the specification's wire form, `{"externalId",
/// "lineItems":[{"externalId", "quantity", "attributes":[...], "expectations":[...]}],
/// "attributes":[...], "expectations":[...]}`, plus `"e_invoicing": true` when the buying
/// group is enabled for e-invoicing (line externalIds must then be numeric; checked
/// before sending, never sent). Rules that can be checked locally (lengths, counts,
/// unique line ids, numeric e-invoicing ids, attribute values) give
/// `ABWS_STATUS_VALIDATION` naming the field, e.g. `line_items[0].external_id`.
///
/// Result: the outcome in wire form, with accepted and rejected items and artifacts; a
/// rejection is a result, not an error.
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
pub unsafe extern "C" fn abws_ordering_place_order(
    client: *const abws_client,
    params_json: *const c_char,
    result_json: *mut *mut c_char,
    err: *mut *mut abws_error,
) -> abws_status {
    // SAFETY: forwarded contract.
    unsafe {
        run(client, params_json, result_json, err, |c, p| {
            let order: PlaceOrderRequest = p.parse()?;
            to_json(&c.ordering().place_order(&order)?)
        })
    }
}
