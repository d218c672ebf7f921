//! One attempt loop for every operation, against the sandbox over real loopback HTTP:
//! a direct call given an expired page token fails as a pager does (`PageTokenExpired`),
//! and document fetches stop at the operation's deadline, spend the retry budget and renew
//! an expired presigned address exactly once.
//!
//! Each test's clients are built on a context of their own (`Client::with_context`): the
//! retry budget they drain and measure is theirs, so the tests run beside any other.

use crate::common;
use crate::common::faults;

use std::sync::Arc;
use std::time::{Duration, Instant};

use abws::api::cart::ListCartsParams;
use abws::operation::Operation;
use abws::paging::Page;
use abws::process::Context;
use abws::retry::RetryBudget;
use abws::{ErrorKind, Region, Settings};
use abws_sandbox::{FaultAction, FaultRule, Sandbox};

/// A blocking client on `context` (its retry budget, rate limits and rotations).
fn client_on(context: &Arc<Context>, settings: Settings) -> abws::blocking::Client {
    abws::blocking::Client::with_context(settings, context.clone()).expect("client")
}

/// A client of the sandbox (JP) on a context of its own.
fn own_client(sb: &Sandbox) -> abws::blocking::Client {
    client_on(&Context::new(), common::settings(sb, Region::JP))
}

/// A sandbox whose page tokens last 300 ms.
fn short_tokens() -> Sandbox {
    common::sandbox_with(|c| c.page_token_lifetime = Duration::from_millis(300))
}

/// On a sandbox of short page tokens, calls the listing `params` for its first page, then,
/// once the page token has expired (600 ms, the sandbox's 300 ms), for the next page
/// (`with_token` sets the token): that call is refused as PageTokenExpired, naming `op`.
/// The sandbox, for more checks.
fn next_page_after_expiry<P: Operation>(
    params: impl FnOnce(&Sandbox) -> P,
    with_token: impl FnOnce(&mut P, String),
    op: &str,
) -> Sandbox
where
    P::Output: Page,
{
    let sb = short_tokens();
    let client = own_client(&sb);
    let mut p = params(&sb);
    let first = client.call(&p).unwrap();
    let token = first.next_page_token().expect("a second page").to_string();
    with_token(&mut p, token);
    std::thread::sleep(Duration::from_millis(600));
    let e = match client.call(&p) {
        Ok(_) => panic!("{op}: the page of an expired token was read"),
        Err(e) => e,
    };
    assert_eq!(e.kind(), ErrorKind::PageTokenExpired, "{e}");
    assert_eq!(e.items_yielded(), Some(0), "{e}");
    assert_eq!(e.operation(), Some(op), "{e}");
    assert!(e.request_id().is_some(), "{e}");
    assert!(e.to_string().contains("expired"), "{e}");
    sb
}

#[test]
fn get_invoices_with_an_expired_token_raises_page_token_expired() {
    let sb = next_page_after_expiry(
        common::previous_month_invoices_params,
        |p, t| p.next_page_token = Some(t),
        "getInvoices",
    );
    assert_eq!(sb.counters()["pageTokenExpired"].as_u64(), Some(1));
}

#[test]
fn get_transactions_with_an_expired_token_raises_page_token_expired() {
    next_page_after_expiry(
        common::previous_month_transactions_params,
        |p, t| p.next_page_token = Some(t),
        "getTransactions",
    );
}

#[test]
fn list_carts_with_an_expired_token_raises_page_token_expired() {
    next_page_after_expiry(|_| carts(None), |p, t| p.page_token = Some(t), "listCarts");
}

#[test]
fn an_invalid_page_token_stays_a_bad_request() {
    let sb = short_tokens();
    let client = own_client(&sb);
    let e = client
        .cart()
        .list_carts(&carts(Some("pt-no-such-token".into())))
        .unwrap_err();
    // An invalid (not expired) token is the server's 400 as it is.
    assert_eq!(e.kind(), ErrorKind::Api, "{e}");
    assert_eq!(e.status(), Some(400), "{e}");
}

/// A sandbox whose clock runs fast (reports finish at once) and whose download addresses
/// last 2 real seconds (240 s of its 120x clock): a fetch delayed by `PAST_EXPIRY` arrives
/// after its address expired; one that is not has room for a stall.
fn documents_sandbox() -> Sandbox {
    common::sandbox_with(|c| {
        c.time_scale = 120.0;
        c.presigned_lifetime = Duration::from_secs(240);
    })
}

const PAST_EXPIRY: FaultAction = FaultAction::Delay { delay_ms: 2500 };

fn on_documents(action: FaultAction, times: u32) -> FaultRule {
    faults::on_documents(action).times(times)
}

fn document_requests(sb: &Sandbox) -> usize {
    sb.counters()["headersSeen"]["documents"]
        .as_array()
        .map(Vec::len)
        .unwrap_or(0)
}

fn unavailable() -> FaultAction {
    faults::status(503)
}

#[test]
fn a_failing_document_host_stops_at_the_operation_deadline_and_spends_the_budget() {
    let sb = documents_sandbox();
    let mut settings = common::settings(&sb, Region::JP);
    settings.max_attempts = 10;
    settings.timeouts.operation = Duration::from_millis(1500);
    let ctx = Context::new();
    let client = client_on(&ctx, settings);
    let (_, doc) = common::ready_document(&sb, &client);
    sb.inject(on_documents(unavailable(), 10_000));
    ctx.retry_budget.reset();
    let before = document_requests(&sb);
    let started = Instant::now();
    let e = client.documents().download(&doc).unwrap_err();
    let took = started.elapsed();
    let attempts = (document_requests(&sb) - before) as u32;
    // getReportDocument and every fetch fit in the operation's deadline, backoffs included.
    assert!(took < Duration::from_millis(1500 + 400), "{took:?}: {e}");
    assert!(
        e.hint().is_some_and(|h| h.contains("deadline")),
        "stopped by the deadline: {e}"
    );
    assert!((2..10).contains(&attempts), "{attempts} attempts: {e}");
    assert_eq!(e.attempts(), attempts, "{e}");
    assert_eq!(e.kind(), ErrorKind::Document, "{e}");
    assert!(e.to_string().contains("503"), "{e}");
    // Every retry was paid for from the client's context's budget.
    assert_eq!(
        ctx.retry_budget.available(),
        RetryBudget::CAPACITY - RetryBudget::RETRY_COST * i64::from(attempts - 1)
    );
}

#[test]
fn an_empty_retry_budget_stops_document_retries() {
    let sb = documents_sandbox();
    let mut settings = common::settings(&sb, Region::JP);
    settings.max_attempts = 10;
    let ctx = Context::new();
    let client = client_on(&ctx, settings);
    let (_, doc) = common::ready_document(&sb, &client);
    sb.inject(on_documents(unavailable(), 10_000));
    // Room for two retries (getReportDocument's success refunds one token more).
    ctx.retry_budget.reset();
    assert!(ctx
        .retry_budget
        .try_spend(ctx.retry_budget.available() - 2 * RetryBudget::RETRY_COST));
    let before = document_requests(&sb);
    let e = client
        .documents()
        .download_to(&doc, &mut Vec::new())
        .unwrap_err();
    assert_eq!(document_requests(&sb) - before, 3, "{e}");
    assert_eq!(e.attempts(), 3, "{e}");
    assert!(
        e.hint().is_some_and(|h| h.contains("retry budget")),
        "stopped by the budget: {e}"
    );
    assert!(ctx.retry_budget.available() < RetryBudget::RETRY_COST);
}

#[test]
fn an_expired_presigned_address_is_renewed_exactly_once() {
    let sb = documents_sandbox();
    let client = own_client(&sb);
    let (_, doc) = common::ready_document(&sb, &client);

    // The first fetch arrives after its address expired (the sandbox's own 403
    // AccessDenied): one renewal, then the document.
    sb.inject(on_documents(PAST_EXPIRY, 1));
    let (reports, fetches) = (
        common::requests(&sb, "getReportDocument"),
        document_requests(&sb),
    );
    let pdf = client.documents().download(&doc).unwrap();
    assert!(pdf.starts_with(b"%PDF-"));
    assert_eq!(common::requests(&sb, "getReportDocument") - reports, 2);
    assert_eq!(document_requests(&sb) - fetches, 2);

    // A client of one attempt renews it too: the renewal is not one of its attempts.
    let mut settings = common::settings(&sb, Region::JP);
    settings.max_attempts = 1;
    let one = client_on(&Context::new(), settings);
    sb.inject(on_documents(PAST_EXPIRY, 1));
    let fetches = document_requests(&sb);
    assert!(one
        .documents()
        .download(&doc)
        .unwrap()
        .starts_with(b"%PDF-"));
    assert_eq!(document_requests(&sb) - fetches, 2);

    // The renewed address expires too: no second renewal, a DocumentError.
    for streamed in [false, true] {
        sb.inject(on_documents(PAST_EXPIRY, 2));
        let (reports, fetches) = (
            common::requests(&sb, "getReportDocument"),
            document_requests(&sb),
        );
        let e = if streamed {
            client
                .documents()
                .download_to(&doc, &mut Vec::new())
                .unwrap_err()
        } else {
            client.documents().download_all(&doc).unwrap_err()
        };
        assert_eq!(e.kind(), ErrorKind::Document, "{e}");
        assert!(e.to_string().contains("expired"), "{e}");
        assert_eq!(common::requests(&sb, "getReportDocument") - reports, 2);
        assert_eq!(document_requests(&sb) - fetches, 2);
        sb.clear_faults();
    }
}

#[test]
fn another_403_from_the_document_host_is_not_renewed() {
    let sb = documents_sandbox();
    let client = own_client(&sb);
    let (_, doc) = common::ready_document(&sb, &client);
    sb.inject(on_documents(
        faults::expired_address("SignatureDoesNotMatch"),
        1,
    ));
    let reports = common::requests(&sb, "getReportDocument");
    let e = client.documents().download(&doc).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Document, "{e}");
    assert_eq!(e.attempts(), 1, "{e}");
    // The code decides, not the message's words.
    assert_eq!(common::requests(&sb, "getReportDocument") - reports, 1);
}

fn carts(page_token: Option<String>) -> ListCartsParams {
    ListCartsParams {
        region: Some("JP".into()),
        page_size: Some(2),
        page_token,
        ..Default::default()
    }
}
