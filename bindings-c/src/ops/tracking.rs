//! Package tracking 2025-07-02: getPackageTrackingDetails.

use std::ffi::c_char;

use super::{region_or_default, run};
use crate::abws_error;
use crate::client::abws_client;
use crate::params::to_json;
use crate::status::abws_status;

/// getPackageTrackingDetails: the carrier events and milestones of one package (packages
/// shipped more than 90 days ago have none: `ABWS_STATUS_API` with HTTP 404).
///
/// Params: `order_id`, `shipment_id`, `package_id` (required), `region` (default: the
/// client's region), `locale` (optional, one of the specification's locales).
///
/// Result: the `packageTrackingDetails` object in wire form.
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
pub unsafe extern "C" fn abws_tracking_get_package_tracking_details(
    client: *const abws_client,
    params_json: *const c_char,
    result_json: *mut *mut c_char,
    err: *mut *mut abws_error,
) -> abws_status {
    // SAFETY: forwarded contract.
    unsafe {
        run(client, params_json, result_json, err, |c, p| {
            p.allow(&["order_id", "shipment_id", "package_id", "region", "locale"])?;
            let order = p.required_string("order_id")?;
            let shipment = p.required_string("shipment_id")?;
            let package = p.required_string("package_id")?;
            let region = region_or_default(c, p)?;
            let locale = p.string("locale")?;
            to_json(&c.tracking().get_package_tracking_details(
                &order,
                &shipment,
                &package,
                &region,
                locale.as_deref(),
            )?)
        })
    }
}
