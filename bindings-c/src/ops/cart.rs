//! Cart 2025-04-30: listCarts, getCart, getItems, addItems, modifyItems, deleteItems, getEstimatedTotalPurchaseCost and the carts pager.

use std::ffi::c_char;

use abws_core::api::cart::{AddItem, ModifyItem, PhysicalAddress};

use super::{region_or_default, run, run_pager};
use crate::abws_error;
use crate::client::abws_client;
use crate::pager::abws_pager;
use crate::params::to_json;
use crate::status::abws_status;

/// listCarts: one page of the user's carts (needs `user_email` in the settings).
///
/// Params: `region` (default: the client's region), `page_size` (1-10), `page_token`
/// (optional).
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
pub unsafe extern "C" fn abws_cart_list_carts(
    client: *const abws_client,
    params_json: *const c_char,
    result_json: *mut *mut c_char,
    err: *mut *mut abws_error,
) -> abws_status {
    // SAFETY: forwarded contract.
    unsafe {
        run(client, params_json, result_json, err, |c, p| {
            p.allow(&["region", "page_size", "page_token"])?;
            let region = region_or_default(c, p)?;
            let size = p.integer("page_size")?;
            let token = p.string("page_token")?;
            to_json(&c.cart().list_carts(&region, size, token.as_deref())?)
        })
    }
}

/// getCart: a cart's summary with its subtotal.
///
/// Params: `cart_id` (required), `region` (default: the client's region). Result: the
/// cart in wire form.
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
pub unsafe extern "C" fn abws_cart_get_cart(
    client: *const abws_client,
    params_json: *const c_char,
    result_json: *mut *mut c_char,
    err: *mut *mut abws_error,
) -> abws_status {
    // SAFETY: forwarded contract.
    unsafe {
        run(client, params_json, result_json, err, |c, p| {
            p.allow(&["cart_id", "region"])?;
            let id = p.required_string("cart_id")?;
            let region = region_or_default(c, p)?;
            to_json(&c.cart().get_cart(&id, &region)?)
        })
    }
}

/// getItems: a cart's items with current price and availability.
///
/// Params: `cart_id` (required), `region` (default: the client's region). Result: the
/// items in wire form.
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
pub unsafe extern "C" fn abws_cart_get_items(
    client: *const abws_client,
    params_json: *const c_char,
    result_json: *mut *mut c_char,
    err: *mut *mut abws_error,
) -> abws_status {
    // SAFETY: forwarded contract.
    unsafe {
        run(client, params_json, result_json, err, |c, p| {
            p.allow(&["cart_id", "region"])?;
            let id = p.required_string("cart_id")?;
            let region = region_or_default(c, p)?;
            to_json(&c.cart().get_items(&id, &region)?)
        })
    }
}

/// addItems: adds items to a cart. Never resent after an ambiguous failure (it could add
/// the quantity twice): that is `ABWS_STATUS_OUTCOME_UNKNOWN`; read the cart with
/// `abws_cart_get_items` and converge with `abws_cart_modify_items`.
///
/// Params: `cart_id` (required), `region` (default: the client's region), `items`
/// (required array of `{"product_identifier", "buying_option_identifier", "quantity",
/// "external_id"?}`).
///
/// Result: the items result in wire form (accepted and rejected items).
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
pub unsafe extern "C" fn abws_cart_add_items(
    client: *const abws_client,
    params_json: *const c_char,
    result_json: *mut *mut c_char,
    err: *mut *mut abws_error,
) -> abws_status {
    // SAFETY: forwarded contract.
    unsafe {
        run(client, params_json, result_json, err, |c, p| {
            p.allow(&["cart_id", "region", "items"])?;
            let id = p.required_string("cart_id")?;
            let region = region_or_default(c, p)?;
            let items: Vec<AddItem> = p.required("items")?;
            to_json(&c.cart().add_items(&id, &region, &items)?)
        })
    }
}

/// modifyItems: sets absolute quantities (0 removes the item); idempotent.
///
/// Params: `cart_id` (required), `region` (default: the client's region), `items`
/// (required array of `{"item_id", "quantity"}`).
///
/// Result: the items result in wire form.
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
pub unsafe extern "C" fn abws_cart_modify_items(
    client: *const abws_client,
    params_json: *const c_char,
    result_json: *mut *mut c_char,
    err: *mut *mut abws_error,
) -> abws_status {
    // SAFETY: forwarded contract.
    unsafe {
        run(client, params_json, result_json, err, |c, p| {
            p.allow(&["cart_id", "region", "items"])?;
            let id = p.required_string("cart_id")?;
            let region = region_or_default(c, p)?;
            let items: Vec<ModifyItem> = p.required("items")?;
            to_json(&c.cart().modify_items(&id, &region, &items)?)
        })
    }
}

/// deleteItems: empties a cart.
///
/// Params: `cart_id` (required), `region` (default: the client's region). Result: `null`
/// (the service answers with no content).
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
pub unsafe extern "C" fn abws_cart_delete_items(
    client: *const abws_client,
    params_json: *const c_char,
    result_json: *mut *mut c_char,
    err: *mut *mut abws_error,
) -> abws_status {
    // SAFETY: forwarded contract.
    unsafe {
        run(client, params_json, result_json, err, |c, p| {
            p.allow(&["cart_id", "region"])?;
            let id = p.required_string("cart_id")?;
            let region = region_or_default(c, p)?;
            c.cart().delete_items(&id, &region)?;
            Ok("null".to_string())
        })
    }
}

/// getEstimatedTotalPurchaseCost: principal, shipping and tax of a cart for a delivery
/// address, or the rejection artifacts (a result, not an error).
///
/// Params: `cart_id` (required), `region` (default: the client's region), `address`
/// (required object: `full_name`, `address_line1`, `city`, `state_or_region`,
/// `postal_code`, `country_code`, optional `phone_number`, `company_name`,
/// `address_line2`).
///
/// Result: the cost estimation in wire form.
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
pub unsafe extern "C" fn abws_cart_get_estimated_total_purchase_cost(
    client: *const abws_client,
    params_json: *const c_char,
    result_json: *mut *mut c_char,
    err: *mut *mut abws_error,
) -> abws_status {
    // SAFETY: forwarded contract.
    unsafe {
        run(client, params_json, result_json, err, |c, p| {
            p.allow(&["cart_id", "region", "address"])?;
            let id = p.required_string("cart_id")?;
            let region = region_or_default(c, p)?;
            let address: PhysicalAddress = p.required("address")?;
            to_json(
                &c.cart()
                    .get_estimated_total_purchase_cost(&id, &region, &address)?,
            )
        })
    }
}

/// A pager over every page of listCarts.
///
/// Params: `region` (default: the client's region), `page_size` (1-10).
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
pub unsafe extern "C" fn abws_cart_iter_carts(
    client: *const abws_client,
    params_json: *const c_char,
    pager: *mut *mut abws_pager,
    err: *mut *mut abws_error,
) -> abws_status {
    // SAFETY: forwarded contract.
    unsafe {
        run_pager(client, params_json, pager, err, |c, p| {
            p.allow(&["region", "page_size"])?;
            let region = region_or_default(c, p)?;
            let size = p.integer("page_size")?;
            Ok(Box::new(c.cart().iter_carts(&region, size)?))
        })
    }
}
