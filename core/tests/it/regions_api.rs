//! Every region group through the client, each at its regional sandbox address
//! (`Sandbox::group_url`): NA (US; card orders have no PDF and the report says why), EU
//! (UK, DE; every document by orderId alone) and FE (JP). Also: values go out in the
//! spec's form (one normalisation in core), the cost-estimation addressType, and the last
//! search page.

use crate::common;
use crate::common::calls::{add_offer, cart_line};

use std::collections::BTreeSet;
use std::time::Duration;

use abws::api::cart::{
    DeleteItemsParams, GetCartParams, GetEstimatedTotalPurchaseCostParams, GetItemsParams,
    ListCartsParams, ModifyItem, ModifyItemsParams, PhysicalAddress,
};
use abws::api::documents::{CreateReportParams, GetReportParams, ReportOptionsParams};
use abws::api::invoices::{
    GetInvoiceDetailByInvoiceNumberParams, GetInvoiceLineItemsByInvoiceNumberParams,
    GetInvoicesParams,
};
use abws::api::ordering::{Attribute, LineItem, PlaceOrderRequest};
use abws::api::products::{
    GetOffersByOfferIdsParams, GetProductsByAsinsParams, ProductsRequestParams,
    SearchOffersRequestParams, SearchProductsRequestParams,
};
use abws::api::reconciliation::{GetTransactionsParams, InvoiceDetailsForParams, OrderLineItemRef};
use abws::api::reporting::{GetOrdersByOrderIdParams, GetShipmentLineItemReportsParams};
use abws::api::tracking::GetPackageTrackingDetailsParams;
use abws::{blocking, normalize, Decimal, ErrorKind, Region};
use abws_sandbox::Sandbox;

const POLL: Duration = Duration::from_millis(50);
const WAIT: Option<Duration> = Some(Duration::from_secs(60));

/// (region, currency, locale as a user might type it, the locale sent, ISO country)
const GROUPS: [(Region, &str, &str, &str, &str); 3] = [
    (Region::US, "USD", "en_us", "en-US", "US"),
    (Region::UK, "GBP", "EN-gb", "en-GB", "GB"),
    (Region::JP, "JPY", "ja_jp", "ja-JP", "JP"),
];

fn fast() -> Sandbox {
    common::sandbox_with(|c| c.time_scale = 200.0)
}

/// A client of `region` at its group's address, as the service's regional addresses work.
fn client_at(sb: &Sandbox, region: Region) -> blocking::Client {
    let mut s = common::settings(sb, region);
    s.endpoint = Some(sb.group_url(region.as_str()));
    blocking::Client::new(s).expect("client")
}

fn report_for(order: &str, line: Option<&str>, document_type: Option<&str>) -> CreateReportParams {
    CreateReportParams {
        report_options: ReportOptionsParams {
            order_id: Some(order.into()),
            order_line_item_id: line.map(String::from),
            document_type: document_type.map(String::from),
            ..Default::default()
        },
        ..Default::default()
    }
}

/// Request targets (path and query) the sandbox received for an operation.
fn targets(sb: &Sandbox, path_part: &str) -> Vec<String> {
    sb.counters()["headersSeen"]["api"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|h| h["path"].as_str())
        .filter(|p| p.contains(path_part))
        .map(String::from)
        .collect()
}

#[test]
fn each_group_lists_and_adds_up_its_month() {
    let sb = common::sandbox();
    let ds = sb.dataset();
    let (start, end) = common::previous_month(&sb);
    for region in [Region::US, Region::CA, Region::UK, Region::DE, Region::JP] {
        let client = client_at(&sb, region);
        let info = &ds["regions"][region.as_str()];
        let cur = info["currency"].as_str().unwrap();
        let want: BTreeSet<String> = common::texts(&info["previousMonthInvoices"])
            .into_iter()
            .collect();
        assert!(!want.is_empty(), "{region}");
        let got: BTreeSet<String> = client
            .invoices()
            .iter_invoices(&GetInvoicesParams {
                invoice_issue_start_date: start.clone().into(),
                invoice_issue_end_date: end.clone().into(),
                region: Some(region.as_str().to_lowercase()),
                ..Default::default()
            })
            .unwrap()
            .items()
            .map(|r| {
                let m = r.unwrap().invoice_metadata.unwrap();
                assert_eq!(m.region.as_deref(), Some(region.as_str()));
                m.invoice_number.unwrap()
            })
            .collect();
        assert_eq!(got, want, "{region}");
        for n in got.iter().take(4) {
            let d = client
                .invoices()
                .get_invoice_detail_by_invoice_number(&GetInvoiceDetailByInvoiceNumberParams {
                    invoice_number: n.clone(),
                    region: None,
                })
                .unwrap();
            let total = d.total_amount.as_ref().unwrap();
            assert_eq!(total.currency(), cur);
            let inclusive: Decimal = d
                .artifacts
                .iter()
                .flatten()
                .flatten()
                .filter_map(|a| a.tax_breakdown())
                .flatten()
                .flatten()
                .map(|t| t.inclusive_total.as_ref().unwrap().value().unwrap())
                .sum();
            assert_eq!(inclusive, total.value().unwrap(), "{region} {n}");
            let lines: Vec<_> = common::every_item(client.invoices().iter_invoice_line_items(
                &GetInvoiceLineItemsByInvoiceNumberParams {
                    invoice_number: n.clone(),
                    ..Default::default()
                },
            ));
            assert!(!lines.is_empty());
        }
        // The month's transactions at this address are of this group's marketplaces;
        // the invoice data of the region's line items comes back in its currency.
        let txs: Vec<_> = common::every_item(client.reconciliation().iter_transactions(
            &GetTransactionsParams {
                feed_start_date: start.clone().into(),
                feed_end_date: end.clone().into(),
                ..Default::default()
            },
        ));
        let group_markets: BTreeSet<&str> = Region::ALL
            .iter()
            .filter(|r| r.group() == region.group())
            .map(|r| r.marketplace_id())
            .collect();
        assert!(txs
            .iter()
            .all(|t| group_markets.contains(t.marketplace_id.as_deref().unwrap())));
        let refs: Vec<OrderLineItemRef> = txs
            .iter()
            .filter(|t| t.marketplace_id.as_deref() == Some(region.marketplace_id()))
            .flat_map(|t| t.transaction_line_items.clone().unwrap_or_default())
            .flatten()
            .take(30)
            .map(|l| OrderLineItemRef {
                order_id: l.order_id.unwrap(),
                order_line_item_id: l.order_line_item_id.unwrap(),
                shipment_id: l.shipment_id.unwrap(),
            })
            .collect();
        assert!(!refs.is_empty(), "{region}");
        let data = client
            .reconciliation()
            .invoice_details_for(&InvoiceDetailsForParams { line_items: refs })
            .unwrap();
        for d in data
            .iter()
            .flat_map(|e| e.invoice_details.clone().unwrap_or_default())
            .flatten()
        {
            assert_eq!(d.currency_code.as_deref(), Some(cur));
            // The JP-only fields are returned for JP only.
            assert_eq!(d.invoice_type.is_some(), region == Region::JP, "{region}");
        }
    }
}

#[test]
fn a_na_card_order_has_no_pdf_and_the_error_says_why() {
    let sb = fast();
    let ds = sb.dataset();
    let client = client_at(&sb, Region::US);
    // The invoice PDF of a line of the data set.
    let invoice_pdf = |line: &serde_json::Value| {
        let order = line["orderId"].as_str().unwrap();
        let item = line["orderLineItemId"].as_str().unwrap();
        let p = report_for(order, Some(item), Some("Invoice"));
        client.documents().fetch_pdf(&p, POLL, WAIT)
    };
    let card = &ds["regions"]["US"]["cardLine"];
    let e = invoice_pdf(card).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ReportFailed, "{e}");
    assert_eq!(e.report().unwrap().1, "CANCELLED");
    let text = e.to_string();
    assert!(
        text.contains("Pay by Invoice")
            && text.contains("card")
            && text.contains(card["orderId"].as_str().unwrap()),
        "{text}"
    );
    // The report itself keeps the reason among its unknown fields.
    let report = client
        .documents()
        .get_report(&GetReportParams {
            report_id: e.report().unwrap().0.to_string(),
        })
        .unwrap();
    assert!(report.status_message().unwrap().contains("Pay by Invoice"));
    // A Pay-by-Invoice order of the same marketplace has its PDF.
    let pbi = &ds["regions"]["US"]["payByInvoiceLine"];
    let pdf = invoice_pdf(pbi).unwrap();
    assert!(pdf.starts_with(b"%PDF-1.4"));
    assert!(String::from_utf8_lossy(&pdf).contains("USD"));
    // Outside the EU the line item is required, checked before sending.
    let before = common::all_requests(&sb);
    let e = client
        .documents()
        .create_report(&report_for(pbi["orderId"].as_str().unwrap(), None, None))
        .unwrap_err();
    assert_eq!(e.parameter(), Some("report_options.order_line_item_id"));
    assert_eq!(common::all_requests(&sb), before);
}

#[test]
fn an_eu_order_id_alone_gives_every_document() {
    let sb = fast();
    let ds = sb.dataset();
    for region in [Region::UK, Region::DE] {
        let client = client_at(&sb, region);
        let cm = &ds["regions"][region.as_str()]["creditMemoLine"];
        let order = cm["orderId"].as_str().unwrap();
        let created = client
            .documents()
            .create_report(&report_for(order, None, None))
            .unwrap();
        let report = client
            .documents()
            .wait_for_report(created.report_id.as_deref().unwrap(), POLL, WAIT)
            .unwrap();
        let docs = client
            .documents()
            .download_all(report.report_document_id.as_deref().unwrap())
            .unwrap();
        assert!(docs.len() >= 2, "{region}: invoice and credit note");
        let texts: Vec<String> = docs
            .iter()
            .map(|d| String::from_utf8_lossy(&d.data).to_string())
            .collect();
        assert!(texts.iter().any(|t| t.contains("(VAT Invoice ")));
        assert!(texts.iter().any(|t| t.contains("(VAT Credit Note ")));
        // The credit note alone, still by orderId alone.
        let pdf =
            client
                .documents()
                .fetch_pdf(&report_for(order, None, Some("Credits")), POLL, WAIT);
        match pdf {
            Ok(pdf) => assert!(String::from_utf8_lossy(&pdf).contains("(VAT Credit Note ")),
            // Several credit notes: `download` refuses to pick one.
            Err(e) => assert_eq!(e.kind(), ErrorKind::Document, "{e}"),
        }
    }
    // A digital EU order has none, and says so.
    let client = client_at(&sb, Region::UK);
    let digital = ds["regions"]["UK"]["digitalOrderIds"][0].as_str().unwrap();
    let e = client
        .documents()
        .fetch_pdf(&report_for(digital, None, None), POLL, WAIT)
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ReportFailed);
    assert!(e.to_string().contains("digital"), "{e}");
}

#[test]
fn carts_products_orders_reports_and_tracking_in_each_group() {
    let sb = common::sandbox();
    for (region, cur, typed_locale, locale, country) in GROUPS {
        let client = client_at(&sb, region);
        // Products: productRegion and locale as a user might type them.
        let typed_region = if region == Region::UK {
            "gb".to_string()
        } else {
            region.as_str().to_lowercase()
        };
        let found = client
            .products()
            .search_products_request(&SearchProductsRequestParams {
                product_region: typed_region.clone(),
                locale: typed_locale.into(),
                keywords: Some(vec!["paper".into(), "gloves".into(), "coffee".into()]),
                facets: Some(vec!["OFFERS".into()]),
                availability: Some("InStockOnly".into()),
                ..Default::default()
            })
            .unwrap();
        let sent = targets(&sb, "/products/2020-08-26/products?");
        let last = sent.last().unwrap();
        assert!(
            last.contains(&format!("productRegion={}", region.as_str()))
                && last.contains(&format!("locale={locale}")),
            "{last}"
        );
        let (asin, offer, price) = found
            .products
            .unwrap()
            .into_iter()
            .flatten()
            .filter(|p| p.asin_type.as_deref() == Some("STANDARD"))
            .find_map(|p| {
                let o = p.included_data_types?.offers?.into_iter().next()??;
                (o.quantity_in_stock.unwrap_or(0) > 20).then(|| {
                    (
                        p.asin.unwrap(),
                        o.offer_id.unwrap(),
                        o.price.unwrap().value.unwrap(),
                    )
                })
            })
            .unwrap();
        assert_eq!(price.currency(), cur);
        let context = |p: &mut SearchOffersRequestParams| {
            p.product_region = typed_region.clone();
            p.locale = typed_locale.into();
        };
        let mut op = SearchOffersRequestParams {
            product_id: asin.clone(),
            ..Default::default()
        };
        context(&mut op);
        // The price of an answer's first offer.
        let first_price = |offers: Option<Vec<Option<abws::api::products::Offer>>>| {
            offers.unwrap()[0]
                .clone()
                .unwrap()
                .price
                .unwrap()
                .value
                .unwrap()
        };
        let offers = client.products().search_offers_request(&op).unwrap();
        assert_eq!(first_price(offers.offers).value(), price.value());
        let product = client
            .products()
            .products_request(&ProductsRequestParams {
                product_id: asin.clone(),
                product_region: typed_region.clone(),
                locale: typed_locale.into(),
                ..Default::default()
            })
            .unwrap();
        assert_eq!(product.asin.as_deref(), Some(asin.as_str()));
        let by_asin = client
            .products()
            .get_products_by_asins(&GetProductsByAsinsParams {
                product_ids: vec![asin.clone()],
                product_region: typed_region.clone(),
                locale: typed_locale.into(),
                ..Default::default()
            })
            .unwrap();
        assert_eq!(by_asin.products.unwrap().len(), 1);
        let by_offer = client
            .products()
            .get_offers_by_offer_ids(&GetOffersByOfferIdsParams {
                offer_ids: vec![offer.clone()],
                inclusions_for_offers: vec!["price".into()],
                product_region: typed_region.clone(),
                locale: typed_locale.into(),
                ..Default::default()
            })
            .unwrap();
        assert_eq!(first_price(by_offer.offers).currency(), cur);

        // The user's cart of the marketplace, and an estimate without an addressType:
        // PhysicalAddress is sent (the sandbox refuses an address without it).
        let lower = Some(region.as_str().to_lowercase());
        let carts = client
            .cart()
            .list_carts(&ListCartsParams {
                region: lower.clone(),
                ..Default::default()
            })
            .unwrap();
        let cart_id = carts.cart_details_list.unwrap()[0]
            .as_ref()
            .unwrap()
            .id
            .clone()
            .unwrap();
        let cart = client
            .cart()
            .get_cart(&GetCartParams {
                cart_id: cart_id.clone(),
                region: lower.clone(),
            })
            .unwrap();
        assert_eq!(
            cart.attributes.unwrap()[0]
                .as_ref()
                .unwrap()
                .amount
                .as_ref()
                .unwrap()
                .currency(),
            cur
        );
        let added = add_offer(
            &client,
            &cart_id,
            lower.as_deref().unwrap(),
            (&asin, &offer),
            1,
            Some("r-1"),
        )
        .unwrap();
        let item = cart_line(added.items, &offer);
        client
            .cart()
            .modify_items(&ModifyItemsParams {
                cart_id: cart_id.clone(),
                region: lower.clone(),
                items: vec![ModifyItem {
                    item_id: item.item_id.clone().unwrap(),
                    quantity: 2,
                }],
            })
            .unwrap();
        let items = client
            .cart()
            .get_items(&GetItemsParams {
                cart_id: cart_id.clone(),
                region: lower.clone(),
            })
            .unwrap();
        assert!(items.items.unwrap().iter().flatten().all(|i| i
            .price
            .as_ref()
            .unwrap()
            .currency()
            == cur));
        let est = client
            .cart()
            .get_estimated_total_purchase_cost(&GetEstimatedTotalPurchaseCostParams {
                cart_id: cart_id.clone(),
                region: lower.clone(),
                address: common::calls::address([
                    "Accounts Payable",
                    "1 Main Street",
                    "City",
                    "State",
                    "12345",
                    &country.to_lowercase(),
                ]),
            })
            .unwrap();
        assert!(!est.is_rejected(), "{region}: {est:?}");
        let charges = est.charges.unwrap();
        assert!(charges
            .iter()
            .flatten()
            .all(|c| c.amount.as_ref().unwrap().currency() == cur));
        client
            .cart()
            .delete_items(&DeleteItemsParams {
                cart_id,
                region: lower.clone(),
            })
            .unwrap();

        // An order in the marketplace (Region attribute typed in lower case; GB for UK).
        let order = PlaceOrderRequest::new(format!("regions-{region}-{}", std::process::id()))
            .attribute(Attribute::Region {
                region: typed_region.clone(),
            })
            .line(LineItem::new("1", asin.clone(), offer.clone(), 1));
        let placed = client.ordering().place_order(&order).unwrap();
        assert!(!placed.has_rejections(), "{placed:?}");
        let order_id = placed.order_id().unwrap().to_string();
        let report = client
            .reporting()
            .get_orders_by_order_id(&GetOrdersByOrderIdParams {
                order_id: order_id.clone(),
                include_line_items: Some(true),
                include_shipments: Some(true),
                ..Default::default()
            })
            .unwrap();
        let orders = report.orders.unwrap();
        let o = orders[0].as_ref().unwrap();
        assert_eq!(o.order_net_total.as_ref().unwrap().currency(), cur);
        let now = chrono::Utc::now();
        let slis: Vec<_> = common::every_item(client.reporting().iter_shipment_line_item_reports(
            &GetShipmentLineItemReportsParams {
                order_start_date: (now - chrono::Duration::days(1)).into(),
                order_end_date: now.into(),
                order_ids: Some(vec![order_id.clone()]),
                ..Default::default()
            },
        ));
        let sli = &slis[0];
        assert_eq!(
            sli.order_metadata.as_ref().unwrap().region.as_deref(),
            Some(region.as_str())
        );
        let pkg = sli.packages.as_ref().unwrap()[0].as_ref().unwrap();
        let tracking = client
            .tracking()
            .get_package_tracking_details(&GetPackageTrackingDetailsParams {
                order_id: order_id.clone(),
                shipment_id: sli
                    .shipment_metadata
                    .as_ref()
                    .unwrap()
                    .shipment_id
                    .clone()
                    .unwrap(),
                package_id: pkg.package_id.clone().unwrap(),
                region: lower.clone(),
                locale: Some(typed_locale.into()),
            })
            .unwrap();
        let sent = targets(&sb, "/ab-tracking/");
        assert!(
            sent.last().unwrap().contains(&format!("locale={locale}")),
            "{sent:?}"
        );
        let events = tracking.package_tracking_events.unwrap();
        let event = events[0].as_ref().unwrap();
        assert_eq!(
            event.location.as_ref().unwrap().country.as_deref(),
            Some(country)
        );
    }
    // Every value went out upper-cased, whatever was typed.
    let seen = sb.counters()["headersSeen"]["api"].to_string();
    for bad in [
        "region=us",
        "region=uk",
        "region=jp",
        "productRegion=gb",
        "locale=en_us",
    ] {
        assert!(!seen.contains(bad), "{bad} was sent");
    }
}

#[test]
fn values_are_normalised_in_one_place() {
    // Locales: any case, `_` or `-`, sent as language-COUNTRY.
    for (typed, sent) in [
        ("en_us", "en-US"),
        ("EN-us", "en-US"),
        ("en_US", "en-US"),
        ("ja-JP", "ja-JP"),
        ("fil_ph", "fil-PH"),
    ] {
        assert_eq!(normalize::locale("locale", typed).unwrap(), sent);
    }
    for bad in ["english", "en", "en-USA", "en-US-x", "e1-US", ""] {
        let e = normalize::locale("locale", bad).unwrap_err();
        assert_eq!(e.parameter(), Some("locale"));
        assert!(
            e.to_string().contains("language-COUNTRY such as en-US"),
            "{e}"
        );
    }
    // Regions: upper-cased; GB is UK; anything else refused naming the codes.
    assert_eq!(normalize::region("region", " gb ").unwrap(), Region::UK);
    assert_eq!(normalize::region("region", "jp").unwrap(), Region::JP);
    assert_eq!(Region::parse("Gb").unwrap(), Region::UK);
    let e = normalize::region("product_region", "EUR").unwrap_err();
    assert_eq!(e.parameter(), Some("product_region"));
    assert!(e.to_string().contains("UK, US"));
    assert_eq!(
        normalize::region_or_group("shipping_region", "eu")
            .unwrap()
            .0,
        "EU"
    );
    assert_eq!(
        normalize::region_or_group("shipping_region", "gb")
            .unwrap()
            .0,
        "UK"
    );
    // Marketplace ids: a region code becomes the marketplace id; ids stay as given.
    assert_eq!(
        normalize::marketplace_id("m", "gb").unwrap(),
        Region::UK.marketplace_id()
    );
    assert_eq!(
        normalize::marketplace_id("m", " A1VC38T7YXB528 ").unwrap(),
        "A1VC38T7YXB528"
    );
    // The cost-estimation address type.
    assert_eq!(
        normalize::physical_address_type("t", None).unwrap(),
        "PhysicalAddress"
    );
    assert_eq!(
        normalize::physical_address_type("t", Some("physicaladdress")).unwrap(),
        "PhysicalAddress"
    );
    assert!(normalize::physical_address_type("t", Some("ExternalAddress")).is_err());
}

#[test]
fn refused_forms_and_foreign_regions_send_nothing() {
    let sb = common::sandbox();
    let client = client_at(&sb, Region::US);
    let address = PhysicalAddress {
        address_type: Some("ExternalAddress".into()),
        ..common::calls::address(["A", "1 Main St", "Austin", "TX", "78701", "US"])
    };
    let est = client
        .cart()
        .get_estimated_total_purchase_cost(&GetEstimatedTotalPurchaseCostParams {
            cart_id: "cart-0007".into(),
            region: None,
            address,
        })
        .unwrap_err();
    assert_eq!(est.parameter(), Some("address.address_type"), "{est}");
    let search = client
        .products()
        .search_products_request(&SearchProductsRequestParams {
            product_region: "US".into(),
            locale: "american".into(),
            ..Default::default()
        })
        .unwrap_err();
    assert!(
        search
            .to_string()
            .contains("language-COUNTRY such as en-US"),
        "{search}"
    );
    let mut p = report_for("111-0000000-0000000", Some("1"), None);
    p.marketplace_ids = Some(vec!["jp".into()]);
    let e = client.documents().create_report(&p).unwrap_err();
    assert_eq!(e.parameter(), Some("marketplace_ids"), "{e}");
    let order = PlaceOrderRequest::new("x-1")
        .attribute(Attribute::Region {
            region: "de".into(),
        })
        .line(LineItem::new("1", "B0X", "O-1", 1));
    let e = client.ordering().place_order(&order).unwrap_err();
    assert_eq!(e.parameter(), Some("attributes[0].region"), "{e}");
    assert_eq!(common::all_requests(&sb), 0);
    // A region code given as a marketplace id is sent as the marketplace id.
    let uk = client_at(&sb, Region::UK);
    let ds = sb.dataset();
    let mut p = report_for(
        ds["regions"]["UK"]["payByInvoiceLine"]["orderId"]
            .as_str()
            .unwrap(),
        None,
        None,
    );
    p.marketplace_ids = Some(vec!["gb".into()]);
    let id = uk.documents().create_report(&p).unwrap().report_id.unwrap();
    let r = uk
        .documents()
        .get_report(&GetReportParams { report_id: id })
        .unwrap();
    assert_eq!(
        r.marketplace_ids.unwrap(),
        vec![Some(Region::UK.marketplace_id().to_string())]
    );
}

#[test]
fn page_number_12_is_the_last_search_page() {
    let sb = common::sandbox();
    let client = client_at(&sb, Region::US);
    let params = |n: Option<i64>| SearchProductsRequestParams {
        product_region: "US".into(),
        locale: "en-US".into(),
        page_size: Some(1),
        page_number: n,
        ..Default::default()
    };
    let page = client
        .products()
        .search_products_request(&params(Some(12)))
        .unwrap();
    assert!(page.number_of_pages.unwrap() > 13);
    assert_eq!(page.products.unwrap().len(), 1);
    let before = common::all_requests(&sb);
    let e = client
        .products()
        .search_products_request(&params(Some(13)))
        .unwrap_err();
    assert_eq!(e.parameter(), Some("page_number"));
    assert!(e.to_string().contains("between 0 and 12"), "{e}");
    let e = client
        .products()
        .search_offers_request(&SearchOffersRequestParams {
            product_id: "B0X".into(),
            product_region: "US".into(),
            locale: "en-US".into(),
            page_number: Some(13),
            ..Default::default()
        })
        .unwrap_err();
    assert_eq!(e.parameter(), Some("page_number"));
    assert_eq!(common::all_requests(&sb), before);
    // The pager walks pages 0 to 12: 13 pages however many the search has.
    let all: Vec<_> = common::every_item(client.products().iter_search_products(&params(None)));
    assert_eq!(all.len(), 13);
    assert_eq!(common::requests(&sb, "searchProductsRequest"), 1 + 13);
}
