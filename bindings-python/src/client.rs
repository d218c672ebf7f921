//! `_abws.Client`: settings in, one method per operation dispatched by name, results out.
//! The Python package (`abws/client.py`) gives every operation its own signature and
//! passes the arguments here as JSON text, read straight into the core's parameter structs.

use std::time::Duration;

use pyo3::prelude::*;
use pyo3::types::PyDict;
use serde::de::DeserializeOwned;
use serde::Deserialize;

use abws::api::{
    cart as crt, documents as doc, invoices as inv, ordering as ord, products as prd,
    reconciliation as rec, reporting as rpt,
};
use abws::{blocking, Credentials};

use crate::bytes_buffer::BytesBuffer;
use crate::convert::to_py;
use crate::errors::to_py_err;
use crate::pager::{DynPager, PyPager};
use crate::py_writer::PyWriter;
use crate::runtime::wait;

/// Reads an operation's arguments; a shape the core does not accept is a validation error.
pub fn parse<T: DeserializeOwned>(op: &str, args: &str) -> PyResult<T> {
    serde_json::from_str(args).map_err(|e| {
        to_py_err(abws::Error::validation(
            op.to_string(),
            format!("the arguments do not fit the operation: {e}"),
        ))
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct InvoiceArgs {
    invoice_number: String,
    region: String,
    #[serde(default)]
    next_page_token: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LineItemsArgs {
    items: Vec<rec::OrderLineItemRef>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct IdArg {
    id: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WaitArgs {
    report_id: String,
    poll_interval: f64,
    #[serde(default)]
    timeout: Option<f64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FetchPdfArgs {
    params: doc::FetchPdfParams,
    poll_interval: f64,
    #[serde(default)]
    timeout: Option<f64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ListCartsArgs {
    region: String,
    #[serde(default)]
    page_size: Option<i64>,
    #[serde(default)]
    page_token: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CartArgs {
    cart_id: String,
    region: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CartItemsArgs<T> {
    cart_id: String,
    region: String,
    items: Vec<T>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CostArgs {
    cart_id: String,
    region: String,
    address: crt::PhysicalAddress,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ProductArgs<T> {
    product_id: String,
    params: T,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OrdersArgs {
    order_id: String,
    #[serde(default)]
    includes: rpt::OrderIncludes,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TrackingArgs {
    order_id: String,
    shipment_id: String,
    package_id: String,
    region: String,
    #[serde(default)]
    locale: Option<String>,
}

fn seconds(name: &str, v: f64) -> PyResult<Duration> {
    Duration::try_from_secs_f64(v).map_err(|_| {
        to_py_err(abws::Error::validation(
            name.to_string(),
            "must be a non-negative number of seconds",
        ))
    })
}

/// The compiled client. Safe to share between threads; rebuilt in a forked child.
#[pyclass(name = "Client", module = "abws._abws", frozen)]
pub struct PyClient {
    inner: blocking::Client,
}

#[pymethods]
impl PyClient {
    /// Builds a client from the settings as JSON text (see `abws.Client`).
    #[new]
    fn new(settings_json: &str) -> PyResult<PyClient> {
        let value: serde_json::Value = parse("settings", settings_json)?;
        let settings = abws::settings_json::from_json(&value, "settings").map_err(to_py_err)?;
        let inner = blocking::Client::new(settings).map_err(to_py_err)?;
        Ok(PyClient { inner })
    }

    /// The settings in force, without secrets.
    fn settings<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = self.inner.settings();
        let e = s.endpoints();
        let d = PyDict::new(py);
        d.set_item("region", s.region.as_str())?;
        d.set_item("user_email", s.user_email.as_deref())?;
        d.set_item("endpoint", s.endpoint.as_deref())?;
        d.set_item("auth_endpoint", s.auth_endpoint.as_deref())?;
        d.set_item("consent_endpoint", s.consent_endpoint.as_deref())?;
        d.set_item("connect_timeout", s.timeouts.connect.as_secs_f64())?;
        d.set_item("attempt_timeout", s.timeouts.attempt.as_secs_f64())?;
        d.set_item("operation_timeout", s.timeouts.operation.as_secs_f64())?;
        d.set_item("max_attempts", s.max_attempts)?;
        d.set_item("rate_limiting", s.rate_limiting)?;
        d.set_item("max_response_bytes", s.max_response_bytes)?;
        d.set_item("max_document_bytes", s.max_document_bytes)?;
        d.set_item("app_name", s.app_name.as_deref())?;
        d.set_item("api_address", e.api)?;
        match &s.credentials {
            Credentials::RefreshToken { client_id, .. } => {
                d.set_item("client_id", client_id)?;
                d.set_item("auth", "refresh_token")?;
            }
            Credentials::AccessToken(_) => d.set_item("auth", "access_token")?,
        }
        Ok(d)
    }

    /// The credentials in force (a rotated refresh token included), secrets exposed.
    /// Private: used only when the caller opts in to pickling secrets.
    fn _credentials<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let c = self.inner.credentials().map_err(to_py_err)?;
        let d = PyDict::new(py);
        match &c {
            Credentials::RefreshToken {
                client_id,
                client_secret,
                refresh_token,
            } => {
                d.set_item("client_id", client_id)?;
                d.set_item("client_secret", client_secret.expose())?;
                d.set_item("refresh_token", refresh_token.expose())?;
            }
            Credentials::AccessToken(t) => d.set_item("access_token", t.expose())?,
        }
        Ok(d)
    }

    /// Runs one operation by its snake_case name with JSON arguments.
    fn call(&self, py: Python<'_>, op: &str, args: &str) -> PyResult<Py<PyAny>> {
        let c = self.inner.inner().map_err(to_py_err)?;
        macro_rules! run {
            ($ty:ty, |$a:ident| $body:expr) => {{
                let $a: $ty = parse(op, args)?;
                let r = wait(py, move || async move { $body.await })?;
                to_py(py, &r)
            }};
        }
        match op {
            "get_invoices" => run!(inv::GetInvoicesParams, |a| c.invoices().get_invoices(&a)),
            "get_invoice_detail_by_invoice_number" => run!(InvoiceArgs, |a| c
                .invoices()
                .get_invoice_detail_by_invoice_number(&a.invoice_number, &a.region)),
            "get_invoice_line_items_by_invoice_number" => run!(InvoiceArgs, |a| c
                .invoices()
                .get_invoice_line_items_by_invoice_number(
                    &a.invoice_number,
                    &a.region,
                    a.next_page_token.as_deref()
                )),
            "get_transactions" => run!(rec::GetTransactionsParams, |a| c
                .reconciliation()
                .get_transactions(&a)),
            "get_invoice_details_by_order_line_items" => run!(LineItemsArgs, |a| c
                .reconciliation()
                .get_invoice_details_by_order_line_items(&a.items)),
            "invoice_details_for" => run!(LineItemsArgs, |a| c
                .reconciliation()
                .invoice_details_for(&a.items)),
            "create_report" => run!(doc::CreateReportParams, |a| c.documents().create_report(&a)),
            "get_report" => run!(IdArg, |a| c.documents().get_report(&a.id)),
            "get_report_document" => run!(IdArg, |a| c.documents().get_report_document(&a.id)),
            "wait_for_report" => {
                let a: WaitArgs = parse(op, args)?;
                let poll = seconds("poll_interval", a.poll_interval)?;
                let timeout = a.timeout.map(|t| seconds("timeout", t)).transpose()?;
                let r = wait(py, move || async move {
                    c.documents()
                        .wait_for_report(&a.report_id, poll, timeout)
                        .await
                })?;
                to_py(py, &r)
            }
            "download" => {
                let a: IdArg = parse(op, args)?;
                let mut out = BytesBuffer::default();
                let buffer = &mut out;
                wait(py, move || async move {
                    c.documents().download_into(&a.id, buffer).await
                })?;
                Ok(out.into_bytes(py).into_any())
            }
            "fetch_pdf" => {
                let a: FetchPdfArgs = parse(op, args)?;
                let poll = seconds("poll_interval", a.poll_interval)?;
                let timeout = a.timeout.map(|t| seconds("timeout", t)).transpose()?;
                let mut out = BytesBuffer::default();
                let buffer = &mut out;
                wait(py, move || async move {
                    c.documents()
                        .fetch_pdf_into(&a.params, poll, timeout, buffer)
                        .await
                })?;
                Ok(out.into_bytes(py).into_any())
            }
            "list_carts" => run!(ListCartsArgs, |a| c.cart().list_carts(
                &a.region,
                a.page_size,
                a.page_token.as_deref()
            )),
            "get_cart" => run!(CartArgs, |a| c.cart().get_cart(&a.cart_id, &a.region)),
            "get_items" => run!(CartArgs, |a| c.cart().get_items(&a.cart_id, &a.region)),
            "add_items" => run!(CartItemsArgs<crt::AddItem>, |a| c
                .cart()
                .add_items(&a.cart_id, &a.region, &a.items)),
            "modify_items" => run!(CartItemsArgs<crt::ModifyItem>, |a| c
                .cart()
                .modify_items(&a.cart_id, &a.region, &a.items)),
            "delete_items" => run!(CartArgs, |a| c.cart().delete_items(&a.cart_id, &a.region)),
            "get_estimated_total_purchase_cost" => run!(CostArgs, |a| c
                .cart()
                .get_estimated_total_purchase_cost(&a.cart_id, &a.region, &a.address)),
            "search_products_request" => run!(prd::SearchProductsParams, |a| c
                .products()
                .search_products_request(&a)),
            "products_request" => run!(ProductArgs<prd::ProductParams>, |a| c
                .products()
                .products_request(&a.product_id, &a.params)),
            "search_offers_request" => run!(ProductArgs<prd::OffersParams>, |a| c
                .products()
                .search_offers_request(&a.product_id, &a.params)),
            "get_products_by_asins" => {
                run!(prd::ByIdsParams, |a| c.products().get_products_by_asins(&a))
            }
            "get_offers_by_offer_ids" => run!(prd::ByIdsParams, |a| c
                .products()
                .get_offers_by_offer_ids(&a)),
            "place_order" => run!(ord::PlaceOrderRequest, |a| c.ordering().place_order(&a)),
            "get_orders_by_order_id" => run!(OrdersArgs, |a| c
                .reporting()
                .get_orders_by_order_id(&a.order_id, a.includes)),
            "get_shipment_line_item_reports" => run!(rpt::ShipmentLineItemParams, |a| c
                .reporting()
                .get_shipment_line_item_reports(&a)),
            "get_package_tracking_details" => {
                run!(TrackingArgs, |a| c.tracking().get_package_tracking_details(
                    &a.order_id,
                    &a.shipment_id,
                    &a.package_id,
                    &a.region,
                    a.locale.as_deref()
                ))
            }
            other => Err(to_py_err(abws::Error::internal(format!(
                "no operation named {other}"
            )))),
        }
    }

    /// Streams a report document's PDF into `writer` (anything with `write(bytes)`);
    /// returns its size.
    fn download_to(
        &self,
        py: Python<'_>,
        report_document_id: &str,
        writer: Py<PyAny>,
    ) -> PyResult<u64> {
        let c = self.inner.inner().map_err(to_py_err)?;
        let mut out = PyWriter::new(writer);
        let sink = &mut out;
        let r = wait(py, move || async move {
            c.documents().download_to(report_document_id, sink).await
        });
        match (r, out.failure.take()) {
            // The writer's own exception (disk full, ...) is the one the caller can act on.
            (Err(_), Some(raised)) => Err(raised),
            (r, _) => r,
        }
    }

    /// Streams a report document's PDF into the file `path` (via `<path>.part`, see the
    /// core's `download_to_path`); `progress(bytes_so_far)` is called after each piece.
    #[pyo3(signature = (report_document_id, path, progress=None))]
    fn download_to_path(
        &self,
        py: Python<'_>,
        report_document_id: &str,
        path: std::path::PathBuf,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<u64> {
        let c = self.inner.inner().map_err(to_py_err)?;
        let report = progress.map(|f| {
            move |n: u64| {
                // A failing progress callback must not fail the download.
                Python::attach(|py| {
                    let _ = f.call1(py, (n,));
                })
            }
        });
        let report = report.as_ref().map(|f| f as &(dyn Fn(u64) + Send + Sync));
        wait(py, move || async move {
            c.documents()
                .download_to_path(report_document_id, &path, report)
                .await
        })
    }

    /// Starts a listing by its pager name (`iter_invoices`, ...) with JSON arguments.
    fn pager(&self, op: &str, args: &str) -> PyResult<PyPager> {
        let c = self.inner.inner().map_err(to_py_err)?;
        macro_rules! pager {
            ($ty:ty, |$a:ident| $body:expr) => {{
                let $a: $ty = parse(op, args)?;
                let p = $body.map_err(to_py_err)?;
                Box::new(p) as Box<dyn DynPager>
            }};
        }
        let boxed = match op {
            "iter_invoices" => pager!(inv::GetInvoicesParams, |a| c.invoices().iter_invoices(&a)),
            "iter_invoice_line_items" => pager!(InvoiceArgs, |a| c
                .invoices()
                .iter_invoice_line_items(&a.invoice_number, &a.region)),
            "iter_transactions" => pager!(rec::GetTransactionsParams, |a| c
                .reconciliation()
                .iter_transactions(&a)),
            "iter_carts" => pager!(ListCartsArgs, |a| c
                .cart()
                .iter_carts(&a.region, a.page_size)),
            "iter_search_products" => pager!(prd::SearchProductsParams, |a| c
                .products()
                .iter_search_products(&a)),
            "iter_search_offers" => pager!(ProductArgs<prd::OffersParams>, |a| c
                .products()
                .iter_search_offers(&a.product_id, &a.params)),
            "iter_shipment_line_item_reports" => pager!(rpt::ShipmentLineItemParams, |a| c
                .reporting()
                .iter_shipment_line_item_reports(&a)),
            other => {
                return Err(to_py_err(abws::Error::internal(format!(
                    "no pager named {other}"
                ))))
            }
        };
        Ok(PyPager::new(boxed))
    }

    fn __repr__(&self) -> String {
        let s = self.inner.settings();
        format!(
            "<abws._abws.Client region={} endpoint={}>",
            s.region,
            s.endpoints().api
        )
    }
}
