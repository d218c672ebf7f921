//! B. Server errors.

use abws::api::cart::{AddItem, AddItemsParams};
use abws::api::ordering::{LineItem, PlaceOrderRequest};
use abws::api::products::SearchProductsRequestParams;
use abws::retry::{classify_status, decide, FailureClass, OperationKind};
use abws::{ErrorKind, Region};
use abws_sandbox::{FaultAction, FaultRule};

use super::{figure, n, Figure};
use crate::common;
use crate::common::calls::{cart_items, empty_cart, first_invoice, invoice_detail, set_quantity};

fn status(status: u16) -> FaultAction {
    FaultAction::Status {
        status,
        body: None,
        headers: Default::default(),
    }
}

/// A purchasable (asin, offer).
pub fn an_offer(client: &abws::blocking::Client) -> (String, String) {
    let r = client
        .products()
        .search_products_request(&SearchProductsRequestParams {
            product_region: "JP".into(),
            locale: "ja-JP".into(),
            facets: Some(vec!["OFFERS".into()]),
            availability: Some("InStockOnly".into()),
            ..Default::default()
        })
        .unwrap();
    for p in r.products.unwrap().into_iter().flatten() {
        if p.asin_type.as_deref() == Some("VARIATION_PARENT") {
            continue;
        }
        if let Some(o) = p.included_data_types.and_then(|d| d.offers).and_then(|o| {
            o.into_iter()
                .flatten()
                .find(|o| o.quantity_in_stock.unwrap_or(0) > 100)
        }) {
            return (p.asin.unwrap(), o.offer_id.unwrap());
        }
    }
    panic!("no offer in stock")
}

pub fn valid_order(client: &abws::blocking::Client, external_id: &str) -> PlaceOrderRequest {
    let (asin, offer) = an_offer(client);
    PlaceOrderRequest::new(external_id).line(LineItem::new("1", asin, offer, 1))
}

pub fn run() -> Vec<Figure> {
    let mut out = vec![];
    let budget = || abws::process::context();

    // B1: 503 with p = 0.3 on a safe read. The plan's 1,000 calls put its 96 % bar 2.5 σ
    // below the theory's 97.3 %: about 1 run in 110 missed it by chance (one CI run did).
    // Five times the calls put the same bar 5.7 σ below (odds about 1 in 10^8).
    let started = std::time::Instant::now();
    let sb = common::sandbox();
    let (calls, threads) = (n(5000, 5000), 64);
    sb.inject(FaultRule::new("getInvoiceDetailByInvoiceNumber", status(503)).probability(0.3));
    let client = std::sync::Arc::new(common::client(&sb, Region::JP));
    let number = first_invoice(&sb);
    budget().retry_budget.reset();
    let ok = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let why = std::sync::Arc::new(std::sync::Mutex::new(std::collections::BTreeMap::<
        String,
        usize,
    >::new()));
    let hs: Vec<_> = (0..threads)
        .map(|_| {
            let (c, nn, ok, why) = (client.clone(), number.clone(), ok.clone(), why.clone());
            std::thread::spawn(move || {
                for _ in 0..calls / threads {
                    match invoice_detail(&c, &nn) {
                        Ok(_) => {
                            ok.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                        }
                        Err(e) => {
                            let key = format!("{:?} after {} attempts", e.kind(), e.attempts());
                            *why.lock().unwrap().entry(key).or_default() += 1;
                        }
                    }
                }
            })
        })
        .collect();
    for h in hs {
        h.join().unwrap();
    }
    let total = calls / threads * threads;
    let ok = ok.load(std::sync::atomic::Ordering::SeqCst);
    let rate = ok as f64 / total as f64;
    let requests = common::requests(&sb, "getInvoiceDetailByInvoiceNumber");
    out.push(figure(
        "B1",
        rate >= 0.96,
        format!(
            "{:.1} % of {total} calls succeeded with 503 at p = 0.3 (theory 97.3 %); {requests} attempts in all; failures: {:?}; {:.1} s",
            rate * 100.0,
            why.lock().unwrap(),
            started.elapsed().as_secs_f64()
        ),
    ));

    // B2: a total outage: bounded retries, the process budget drains, then fails fast.
    let sb = common::sandbox();
    sb.inject(FaultRule::new("getInvoiceDetailByInvoiceNumber", status(503)).times(100_000));
    let client = common::client(&sb, Region::JP);
    budget().retry_budget.reset();
    let storm_calls = 150;
    let mut max_attempts = 0;
    for _ in 0..storm_calls {
        let e = invoice_detail(&client, &number).unwrap_err();
        max_attempts = max_attempts.max(e.attempts());
    }
    let requests = common::requests(&sb, "getInvoiceDetailByInvoiceNumber") as usize;
    let retries = requests - storm_calls;
    let bound =
        (abws::retry::RetryBudget::CAPACITY / abws::retry::RetryBudget::RETRY_COST) as usize;
    let before = common::requests(&sb, "getInvoiceDetailByInvoiceNumber");
    let _ = invoice_detail(&client, &number);
    let after_empty = common::requests(&sb, "getInvoiceDetailByInvoiceNumber") - before - 1;
    out.push(figure(
        "B2",
        retries <= bound && after_empty == 0 && max_attempts <= 3,
        format!("{storm_calls} calls in a 100 % 503 storm: {retries} retries vs quota bound {bound}; retries after the quota emptied = {after_empty}"),
    ));
    budget().retry_budget.reset();

    // B3: 500/503 on placeOrder and addItems: nothing resent, every failure says so.
    let (sb, client) = common::sandbox_and_client();
    let trials = n(100, 500);
    let order_template = valid_order(&client, "x");
    sb.inject(FaultRule::new("placeOrder", status(503)).times(trials as u32));
    let mut unknown = 0;
    for i in 0..trials {
        let mut o = order_template.clone();
        o.external_id = format!("B3-{i}");
        match client.ordering().place_order(&o) {
            Err(e)
                if e.kind() == ErrorKind::OutcomeUnknown
                    && e.external_id() == Some(o.external_id.as_str()) =>
            {
                unknown += 1
            }
            _ => {}
        }
    }
    let sent = common::requests(&sb, "placeOrder") as usize;
    let cart = sb.dataset()["carts"][5]["id"].as_str().unwrap().to_string();
    let line = &order_template.line_items[0];
    let pid = match &line.attributes[0] {
        abws::api::ordering::Attribute::SelectedProductReference { id } => id.clone(),
        _ => unreachable!(),
    };
    let oid = match &line.attributes[1] {
        abws::api::ordering::Attribute::SelectedBuyingOptionReference { id } => id.clone(),
        _ => unreachable!(),
    };
    sb.inject(FaultRule::new("addItems", status(500)).times(trials as u32));
    let mut cart_unknown = 0;
    for i in 0..trials {
        let item = AddItem {
            product_identifier: pid.clone(),
            buying_option_identifier: oid.clone(),
            quantity: 1,
            external_id: Some(format!("c{i}")),
        };
        if matches!(client.cart().add_items(&AddItemsParams { cart_id: cart.to_string(), region: Some("JP".into()), items: vec![item] }), Err(e) if e.kind() == ErrorKind::OutcomeUnknown)
        {
            cart_unknown += 1;
        }
    }
    let cart_sent = common::requests(&sb, "addItems") as usize;
    out.push(figure(
        "B3",
        sent == trials && cart_sent == trials && unknown == trials && cart_unknown == trials,
        format!(
            "0 duplicate orders and 0 duplicate cart lines in {} ambiguous failures ({sent} placeOrder and {cart_sent} addItems requests for {trials} + {trials} calls); {} of {} surfaced as OutcomeUnknown with the externalId",
            2 * trials,
            unknown + cart_unknown,
            2 * trials
        ),
    ));

    // B4: the decision table, every status × kind × class.
    let mut cells = 0;
    let mut matching = 0;
    for status in 100u16..600 {
        for kind in OperationKind::ALL {
            for expired in [false, true] {
                cells += 1;
                let class = classify_status(status, expired);
                let ok = match (status, class) {
                    (200..=299, None) => true,
                    (_, Some(c)) => {
                        let d = decide(kind, c, 1, 3, 0);
                        let resend = matches!(
                            c,
                            FailureClass::NotSent | FailureClass::RejectedBeforeProcessing
                        ) || (c == FailureClass::Ambiguous
                            && !matches!(
                                kind,
                                OperationKind::UnsafeWrite | OperationKind::CodeExchange
                            ));
                        (d == abws::retry::Decision::Retry) == resend
                    }
                    _ => false,
                };
                if ok {
                    matching += 1;
                }
            }
        }
    }
    out.push(figure(
        "B4",
        matching == cells,
        format!("{matching}/{cells} cells of the status × kind decision table match §4"),
    ));

    // B5: final statuses are never retried.
    let (sb, client) = common::sandbox_and_client();
    let mut calls = 0;
    let mut single = 0;
    for op in abws::operations::ALL.iter() {
        for st in [400u16, 404, 413, 415] {
            sb.inject(FaultRule::new(op.id, status(st)).times(1));
            let mut call = abws::Call::new(op).query("region", "JP");
            for seg in op.path.split('/') {
                if let Some(name) = seg.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
                    call = call.path(name, "X1");
                }
            }
            let before = common::requests(&sb, op.id);
            let r = client.run(|c| async move { c.execute(&call).await });
            calls += 1;
            let sent = common::requests(&sb, op.id) - before;
            if sent == 1
                && r.as_ref()
                    .err()
                    .is_some_and(|e| e.status() == Some(st) && e.request_id().is_some())
            {
                single += 1;
            }
            sb.clear_faults();
        }
    }
    out.push(figure("B5", single == calls, format!("{single}/{calls} calls (24 operations × 400/404/413/415) made exactly 1 attempt and carry the request id")));

    // B6: 500 on idempotent writes and createReport: retried; the cart converges.
    let (sb, client) = common::sandbox_and_client();
    let cart = sb.dataset()["carts"][0]["id"].as_str().unwrap().to_string();
    let items = cart_items(&client, &cart).unwrap().items.unwrap();
    let item_id = items[0].as_ref().unwrap().item_id.clone().unwrap();
    sb.inject(FaultRule::new("modifyItems", status(500)).times(2));
    set_quantity(&client, &cart, &item_id, 7).unwrap();
    let now_qty = cart_items(&client, &cart)
        .unwrap()
        .items
        .unwrap()
        .into_iter()
        .flatten()
        .find(|i| i.item_id.as_deref() == Some(&item_id))
        .unwrap()
        .quantity;
    sb.inject(FaultRule::new("deleteItems", status(503)).times(1));
    empty_cart(&client, &cart).unwrap();
    let emptied = cart_items(&client, &cart)
        .unwrap()
        .items
        .unwrap_or_default()
        .is_empty();
    out.push(figure(
        "B6",
        now_qty == Some(7) && emptied,
        format!(
            "final cart == intended after 500s on modifyItems and deleteItems: {}",
            now_qty == Some(7) && emptied
        ),
    ));
    out
}
