//! Product search 2020-08-26: searchProductsRequest, productsRequest, searchOffersRequest, getProductsByAsins, getOffersByOfferIds and the two pagers.
//!
//! The core's parameter structs flatten the shared product context, which disables serde's
//! unknown-key check; the accepted keys are therefore listed here and checked first.

use std::ffi::c_char;

use abws_core::api::products::{ByIdsParams, OffersParams, ProductParams, SearchProductsParams};

use super::{run, run_pager};
use crate::abws_error;
use crate::client::abws_client;
use crate::pager::abws_pager;
use crate::params::to_json;
use crate::status::abws_status;

/// The product context every product operation takes.
macro_rules! context_keys {
    ($($k:literal),* $(,)?) => {
        &["product_region", "locale", "shipping_region", "shipping_postal_code", "group_tag", $($k),*]
    };
}

const SEARCH_KEYS: &[&str] = context_keys![
    "keywords",
    "facets",
    "page_number",
    "page_size",
    "category",
    "sub_category",
    "availability",
    "delivery_day",
    "eligible_for_free_shipping",
    "prime_eligible",
    "upc",
    "isbn",
    "sku",
    "ean",
    "part_number",
    "oem_part_number",
    "search_refinements",
    "product_filters",
    "inclusions_for_products",
    "inclusions_for_offers",
    "sort_key",
    "min_price",
    "max_price",
];
const PRODUCT_KEYS: &[&str] = context_keys![
    "product_id",
    "quantity",
    "facets",
    "inclusions_for_products",
    "inclusions_for_offers",
];
const OFFERS_KEYS: &[&str] = context_keys![
    "product_id",
    "page_number",
    "page_size",
    "filter_ids",
    "quantity",
    "inclusions_for_offers",
];
const BY_IDS_KEYS: &[&str] = context_keys![
    "ids",
    "quantity",
    "facets",
    "inclusions_for_products",
    "inclusions_for_offers",
];

/// searchProductsRequest: one page of products matching keywords or identifiers, with the
/// featured offer of each (needs `user_email` in the settings).
///
/// Params: `product_region` and `locale` (required, e.g. "JP", "ja-JP"),
/// `shipping_region`, `shipping_postal_code`, `group_tag`, `keywords` (array), `facets`
/// (array: OFFERS, IMAGES), `page_number` (0-13), `page_size` (1-24), `category`,
/// `sub_category`, `availability`, `delivery_day`, `eligible_for_free_shipping`,
/// `prime_eligible`, `upc`, `isbn`, `sku`, `ean`, `part_number`, `oem_part_number`,
/// `search_refinements`, `product_filters`, `inclusions_for_products`,
/// `inclusions_for_offers` (arrays), `sort_key`, `min_price`, `max_price` (integers).
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
pub unsafe extern "C" fn abws_products_search_products_request(
    client: *const abws_client,
    params_json: *const c_char,
    result_json: *mut *mut c_char,
    err: *mut *mut abws_error,
) -> abws_status {
    // SAFETY: forwarded contract.
    unsafe {
        run(client, params_json, result_json, err, |c, p| {
            p.allow(SEARCH_KEYS)?;
            let params: SearchProductsParams = p.parse()?;
            to_json(&c.products().search_products_request(&params)?)
        })
    }
}

/// productsRequest: one product.
///
/// Params: `product_id` (required, the ASIN), `product_region` and `locale` (required),
/// `shipping_region`, `shipping_postal_code`, `group_tag`, `quantity`, `facets`,
/// `inclusions_for_products`, `inclusions_for_offers`.
///
/// Result: the product in wire form.
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
pub unsafe extern "C" fn abws_products_products_request(
    client: *const abws_client,
    params_json: *const c_char,
    result_json: *mut *mut c_char,
    err: *mut *mut abws_error,
) -> abws_status {
    // SAFETY: forwarded contract.
    unsafe {
        run(client, params_json, result_json, err, |c, p| {
            p.allow(PRODUCT_KEYS)?;
            let id = p.required_string("product_id")?;
            let params: ProductParams = p.parse_except(&["product_id"])?;
            to_json(&c.products().products_request(&id, &params)?)
        })
    }
}

/// searchOffersRequest: one page of a product's offers.
///
/// Params: `product_id` (required), `product_region` and `locale` (required),
/// `shipping_region`, `shipping_postal_code`, `group_tag`, `page_number`, `page_size`,
/// `filter_ids`, `quantity`, `inclusions_for_offers`.
///
/// Result: the page in wire form, `{"numberOfPages","offerCount","offers":[...]}`.
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
pub unsafe extern "C" fn abws_products_search_offers_request(
    client: *const abws_client,
    params_json: *const c_char,
    result_json: *mut *mut c_char,
    err: *mut *mut abws_error,
) -> abws_status {
    // SAFETY: forwarded contract.
    unsafe {
        run(client, params_json, result_json, err, |c, p| {
            p.allow(OFFERS_KEYS)?;
            let id = p.required_string("product_id")?;
            let params: OffersParams = p.parse_except(&["product_id"])?;
            to_json(&c.products().search_offers_request(&id, &params)?)
        })
    }
}

/// getProductsByAsins: up to 30 products by ASIN.
///
/// Params: `ids` (required array of 1-30 ASINs), `product_region` and `locale`
/// (required), `shipping_region`, `shipping_postal_code`, `group_tag`, `quantity`,
/// `facets`, `inclusions_for_products`, `inclusions_for_offers`.
///
/// Result: `{"products":[...]}` in wire form.
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
pub unsafe extern "C" fn abws_products_get_products_by_asins(
    client: *const abws_client,
    params_json: *const c_char,
    result_json: *mut *mut c_char,
    err: *mut *mut abws_error,
) -> abws_status {
    // SAFETY: forwarded contract.
    unsafe {
        run(client, params_json, result_json, err, |c, p| {
            p.allow(BY_IDS_KEYS)?;
            let params: ByIdsParams = p.parse()?;
            to_json(&c.products().get_products_by_asins(&params)?)
        })
    }
}

/// getOffersByOfferIds: up to 30 offers by offer id.
///
/// Params: `ids` (required array of 1-30 offer ids), `inclusions_for_offers` (required
/// array), `product_region` and `locale` (required), `shipping_region`,
/// `shipping_postal_code`, `group_tag`, `quantity`.
///
/// Result: `{"offers":[...]}` in wire form.
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
pub unsafe extern "C" fn abws_products_get_offers_by_offer_ids(
    client: *const abws_client,
    params_json: *const c_char,
    result_json: *mut *mut c_char,
    err: *mut *mut abws_error,
) -> abws_status {
    // SAFETY: forwarded contract.
    unsafe {
        run(client, params_json, result_json, err, |c, p| {
            p.allow(BY_IDS_KEYS)?;
            let params: ByIdsParams = p.parse()?;
            to_json(&c.products().get_offers_by_offer_ids(&params)?)
        })
    }
}

/// A pager over every page of searchProductsRequest (at most 14 pages).
///
/// Params: as `abws_products_search_products_request` (`page_number` is the first page).
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
pub unsafe extern "C" fn abws_products_iter_search_products(
    client: *const abws_client,
    params_json: *const c_char,
    pager: *mut *mut abws_pager,
    err: *mut *mut abws_error,
) -> abws_status {
    // SAFETY: forwarded contract.
    unsafe {
        run_pager(client, params_json, pager, err, |c, p| {
            p.allow(SEARCH_KEYS)?;
            let params: SearchProductsParams = p.parse()?;
            Ok(Box::new(c.products().iter_search_products(&params)?))
        })
    }
}

/// A pager over every page of a product's offers (searchOffersRequest).
///
/// Params: as `abws_products_search_offers_request`.
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
pub unsafe extern "C" fn abws_products_iter_search_offers(
    client: *const abws_client,
    params_json: *const c_char,
    pager: *mut *mut abws_pager,
    err: *mut *mut abws_error,
) -> abws_status {
    // SAFETY: forwarded contract.
    unsafe {
        run_pager(client, params_json, pager, err, |c, p| {
            p.allow(OFFERS_KEYS)?;
            let id = p.required_string("product_id")?;
            let params: OffersParams = p.parse_except(&["product_id"])?;
            Ok(Box::new(c.products().iter_search_offers(&id, &params)?))
        })
    }
}
