//! Per-call options (`Client::with_options`: `timeout`, `max_attempts`) and a listing
//! resumed from the cursor of an earlier one (`next_token`, `start_at`), against the
//! sandbox over real loopback HTTP.

use crate::common;

use std::time::{Duration, Instant};

use abws::api::reconciliation::GetTransactionsParams;
use abws::{CallOptions, ErrorKind, Region};
use abws_sandbox::{FaultAction, FaultRule};

fn status(op: &str, status: u16) -> FaultRule {
    FaultRule::new(
        op,
        FaultAction::Status {
            status,
            body: None,
            headers: Default::default(),
        },
    )
}

use common::previous_month_invoices_params as invoices_params;

#[test]
fn max_attempts_of_one_call_replaces_the_clients() {
    let (sb, client) = common::sandbox_and_client();
    let p = invoices_params(&sb);
    sb.inject(status("getInvoices", 503).times(2));
    let once = client
        .with_options(CallOptions::new().max_attempts(1))
        .unwrap();
    let e = once.invoices().get_invoices(&p).unwrap_err();
    assert_eq!(e.status(), Some(503), "{e}");
    assert_eq!(common::requests(&sb, "getInvoices"), 1, "sent once: {e}");
    // The client itself keeps its three attempts: the second 503, then the page.
    client.invoices().get_invoices(&p).unwrap();
    assert_eq!(common::requests(&sb, "getInvoices"), 3);
    // Raised above the client's (a client of one attempt, a call of three).
    let strict = common::client_with(&sb, Region::JP, |s| s.max_attempts = 1);
    sb.inject(status("getInvoices", 503).times(2));
    strict
        .with_options(CallOptions::new().max_attempts(3))
        .unwrap()
        .invoices()
        .get_invoices(&p)
        .unwrap();
    assert_eq!(common::requests(&sb, "getInvoices"), 6);
}

#[test]
fn timeout_of_one_call_bounds_it_whole() {
    let (sb, client) = common::sandbox_and_client();
    let p = invoices_params(&sb);
    sb.inject(FaultRule::new(
        "getInvoices",
        FaultAction::Delay { delay_ms: 3000 },
    ));
    let quick = client
        .with_options(CallOptions::new().timeout(Duration::from_millis(700)))
        .unwrap();
    let started = Instant::now();
    let e = quick.invoices().get_invoices(&p).unwrap_err();
    let took = started.elapsed();
    assert_eq!(e.kind(), ErrorKind::Timeout, "{e}");
    assert!(took < Duration::from_millis(2000), "took {took:?}: {e}");
    // A listing's view bounds each page the same way.
    let started = Instant::now();
    let e = quick
        .invoices()
        .iter_invoices(&p)
        .unwrap()
        .next()
        .unwrap()
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Timeout, "{e}");
    assert!(started.elapsed() < Duration::from_millis(2000), "{e}");
}

#[test]
fn bad_options_are_refused_naming_them_before_any_request() {
    let (sb, client) = common::sandbox_and_client();
    for (opts, name) in [
        (CallOptions::new().timeout(Duration::ZERO), "timeout"),
        (CallOptions::new().max_attempts(0), "max_attempts"),
        (CallOptions::new().max_attempts(11), "max_attempts"),
    ] {
        let e = client.with_options(opts).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Validation, "{e}");
        assert!(e.to_string().contains(name), "{e}");
    }
    assert_eq!(common::all_requests(&sb), 0);
}

#[test]
fn max_attempts_never_resends_an_order_after_an_ambiguous_failure() {
    let (sb, client) = common::sandbox_and_client();
    let order = crate::server::valid_order(&client, "percall-1");
    sb.inject(status("placeOrder", 500).times(1));
    let e = client
        .with_options(CallOptions::new().max_attempts(5))
        .unwrap()
        .ordering()
        .place_order(&order)
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::OutcomeUnknown, "{e}");
    assert_eq!(common::requests(&sb, "placeOrder"), 1, "{e}");
}

#[test]
fn a_listing_resumes_in_a_new_client_from_the_saved_token() {
    let sb = common::sandbox();
    let (start, end) = common::previous_month(&sb);
    let p = GetTransactionsParams {
        feed_start_date: start.into(),
        feed_end_date: end.into(),
        ..Default::default()
    };
    let id = |t: &abws::api::reconciliation::Transaction| serde_json::to_string(t).unwrap();
    let all: Vec<String> = common::client(&sb, Region::JP)
        .reconciliation()
        .iter_transactions(&p)
        .unwrap()
        .items()
        .map(|t| id(&t.unwrap()))
        .collect();
    let mut first = common::client(&sb, Region::JP)
        .reconciliation()
        .iter_transactions(&p)
        .unwrap();
    assert_eq!(first.next_token(), None);
    let page = first.next_page().unwrap().unwrap();
    let seen = page.transactions.iter().flatten().count();
    assert!(seen > 0 && seen < all.len(), "{seen} of {}", all.len());
    let token = first.next_token().expect("a second page").to_string();
    drop(first);

    let mut rest = common::client(&sb, Region::JP)
        .reconciliation()
        .iter_transactions(&p)
        .unwrap();
    rest.start_at(&token).unwrap();
    let rest: Vec<String> = rest.items().map(|t| id(&t.unwrap())).collect();
    assert_eq!(rest, all[seen..], "exactly the items after the first page");
}

/// A search of several pages.
fn products() -> abws::api::products::SearchProductsRequestParams {
    abws::api::products::SearchProductsRequestParams {
        product_region: "JP".into(),
        locale: "ja-JP".into(),
        page_size: Some(10),
        ..Default::default()
    }
}

#[test]
fn a_page_numbered_listing_resumes_from_its_next_token() {
    let (_sb, client) = common::sandbox_and_client();
    let p = products();
    let pages: Vec<_> = client
        .products()
        .iter_search_products(&p)
        .unwrap()
        .map(|r| serde_json::to_string(&r.unwrap()).unwrap())
        .collect();
    assert!(pages.len() >= 2, "{} pages", pages.len());
    let mut first = client.products().iter_search_products(&p).unwrap();
    first.next_page().unwrap().unwrap();
    let token = first.next_token().expect("a second page").to_string();
    assert_eq!(token, "1");
    let mut rest = client.products().iter_search_products(&p).unwrap();
    rest.start_at(&token).unwrap();
    let rest: Vec<_> = rest
        .map(|r| serde_json::to_string(&r.unwrap()).unwrap())
        .collect();
    assert_eq!(rest, pages[1..]);
}

#[test]
fn start_at_is_refused_where_it_cannot_resume() {
    let (sb, client) = common::sandbox_and_client();
    let mut p = invoices_params(&sb);
    let mut started = client.invoices().iter_invoices(&p).unwrap();
    started.next_page().unwrap();
    let mut both = {
        p.next_page_token = Some("abc".into());
        client.invoices().iter_invoices(&p).unwrap()
    };
    p.next_page_token = None;
    let mut numbered = client.products().iter_search_products(&products()).unwrap();
    let before = common::all_requests(&sb);
    for (e, rule) in [
        (started.start_at("abc").unwrap_err(), "before"),
        (both.start_at("abc").unwrap_err(), "one of them"),
        (numbered.start_at("abc").unwrap_err(), "page number"),
        (
            client
                .invoices()
                .iter_invoices(&p)
                .unwrap()
                .start_at("")
                .unwrap_err(),
            "empty",
        ),
    ] {
        assert_eq!(e.kind(), ErrorKind::Validation, "{e}");
        let text = e.to_string();
        assert!(
            text.contains("start_token") && text.contains(rule),
            "{text}"
        );
    }
    assert_eq!(common::all_requests(&sb), before);
}
