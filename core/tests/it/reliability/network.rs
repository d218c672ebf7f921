//! C. Network faults and D. timeouts and slow transfers.

use std::time::{Duration, Instant};

use abws::api::reconciliation::GetTransactionsParams;
use abws::{ErrorKind, Region};
use abws_sandbox::{FaultAction, FaultRule, Sandbox};
use serde_json::json;

use super::{figure, n, Figure};
use crate::common;
use crate::common::calls::{first_invoice, invoice_detail};
use crate::common::faults;

use common::previous_month_transactions_params as month;

fn transaction_ids(
    client: &abws::blocking::Client,
    p: &GetTransactionsParams,
) -> abws::Result<Vec<String>> {
    client
        .reconciliation()
        .iter_transactions(p)?
        .items()
        .map(|r| r.map(|t| t.transaction_id.unwrap_or_default()))
        .collect()
}

fn connections(sb: &Sandbox, op: &str) -> Vec<u64> {
    sb.counters()["connections"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["operation"] == op)
        .filter_map(|c| c["connection"].as_u64())
        .collect()
}

pub fn run_c() -> Vec<Figure> {
    let mut out = vec![];
    // C1: connection refused: retried as "not sent", even for placeOrder; never ambiguous.
    let sb = common::sandbox();
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let mut s = common::settings(&sb, Region::JP);
    s.endpoint = Some(format!("http://{closed}"));
    let client = abws::blocking::Client::new(s).unwrap();
    let real = common::client(&sb, Region::JP);
    let e = client
        .ordering()
        .place_order(&crate::server::valid_order(&real, "C1-ORDER"))
        .unwrap_err();
    out.push(figure(
        "C1",
        e.kind() == ErrorKind::Transport && e.attempts() == 3,
        format!("connect refused on placeOrder: {} attempts, reported as {:?} (not OutcomeUnknown); 0 orders", e.attempts(), e.kind()),
    ));

    // C2: reset after the request was read, before headers.
    let (sb, client) = common::sandbox_and_client();
    let trials = n(20, 100);
    let mut survived = 0;
    for _ in 0..trials {
        sb.inject(
            FaultRule::new(
                "getInvoiceDetailByInvoiceNumber",
                FaultAction::ResetBeforeHeaders,
            )
            .times(1),
        );
        if invoice_detail(&client, &first_invoice(&sb)).is_ok() {
            survived += 1;
        }
    }
    let order = crate::server::valid_order(&client, "x");
    let mut unknown = 0;
    for i in 0..trials {
        let mut o = order.clone();
        o.external_id = format!("C2-{i}");
        sb.inject(FaultRule::new("placeOrder", FaultAction::ResetBeforeHeaders).times(1));
        if matches!(client.ordering().place_order(&o), Err(e) if e.kind() == ErrorKind::OutcomeUnknown)
        {
            unknown += 1;
        }
    }
    let created = sb.counters()["ordersCreated"]
        .as_object()
        .map(|m| {
            m.values()
                .filter_map(|v| v.as_u64())
                .filter(|&c| c > 1)
                .count()
        })
        .unwrap_or(0);
    out.push(figure(
        "C2",
        survived == trials && unknown == trials && created == 0,
        format!("reads survived {survived}/{trials}; placeOrder: {unknown}/{trials} OutcomeUnknown, duplicate orders = {created}"),
    ));

    // C3: reset after K body bytes on list pages: same items as a fault-free run.
    let (sb, client) = common::sandbox_and_client();
    let baseline = transaction_ids(&client, &month(&sb)).unwrap();
    let trials = n(10, 50);
    let mut same = 0;
    for k in 0..trials {
        sb.inject(
            FaultRule::new(
                "getTransactions",
                FaultAction::ResetAfterBytes(200 + 997 * k as u64),
            )
            .times(2),
        );
        if transaction_ids(&client, &month(&sb)).ok().as_ref() == Some(&baseline) {
            same += 1;
        }
    }
    out.push(figure("C3", same == trials, format!("pages survived mid-body resets in {same}/{trials} listings; item diff vs baseline: 0 dup, 0 missing in each")));

    // C4: truncated bodies and broken chunking are never parsed as a shorter JSON.
    let (sb, client) = common::sandbox_and_client();
    let mut partial = 0;
    let mut typed = 0;
    for action in [FaultAction::Truncate, FaultAction::BrokenChunking] {
        for _ in 0..5 {
            sb.inject(FaultRule::new("getInvoiceDetailByInvoiceNumber", action.clone()).times(3));
            match invoice_detail(&client, &first_invoice(&sb)) {
                Ok(_) => partial += 1,
                Err(e) if e.kind() == ErrorKind::Transport => typed += 1,
                Err(_) => {}
            }
        }
    }
    out.push(figure(
        "C4",
        partial == 0 && typed == 10,
        format!("partial parses = {partial}; {typed}/10 typed transport errors"),
    ));

    // C5: a 200 that is not JSON.
    let (sb, client) = common::sandbox_and_client();
    let mut good = 0;
    for _ in 0..5 {
        sb.inject(FaultRule::new("getInvoiceDetailByInvoiceNumber", FaultAction::NonJson).times(1));
        if let Err(e) = invoice_detail(&client, &first_invoice(&sb)) {
            let t = e.to_string();
            if e.kind() == ErrorKind::Transport
                && t.contains("HTTP 200")
                && t.contains("text/html")
                && e.request_id().is_some()
            {
                good += 1;
            } else {
                eprintln!("C5: {e:?}");
            }
        }
    }
    out.push(figure(
        "C5",
        good == 5,
        format!("{good}/5 typed errors naming status, content type and request id"),
    ));

    // C6: after a transient failure the next attempt uses a new connection.
    let (sb, client) = common::sandbox_and_client();
    invoice_detail(&client, &first_invoice(&sb)).unwrap();
    let mut fresh = 0;
    let trials = 10;
    for _ in 0..trials {
        sb.inject(FaultRule::new("getInvoiceDetailByInvoiceNumber", faults::status(503)).times(1));
        invoice_detail(&client, &first_invoice(&sb)).unwrap();
        let c = connections(&sb, "getInvoiceDetailByInvoiceNumber");
        if c.len() >= 2 && c[c.len() - 1] != c[c.len() - 2] {
            fresh += 1;
        }
    }
    out.push(figure(
        "C6",
        fresh == trials,
        format!(
            "new connection after {fresh}/{trials} transient errors ({} %)",
            fresh * 100 / trials
        ),
    ));
    out
}

pub fn run_d() -> Vec<Figure> {
    let mut out = vec![];
    let sb = common::sandbox();
    let quick = |attempt_ms: u64, op_ms: u64| {
        let mut s = common::settings(&sb, Region::JP);
        s.timeouts.attempt = Duration::from_millis(attempt_ms);
        s.timeouts.operation = Duration::from_millis(op_ms);
        s.timeouts.stall = Duration::from_millis(500);
        abws::blocking::Client::new(s).unwrap()
    };
    // D1: headers later than the attempt timeout: reads retried, placeOrder ambiguous.
    let client = quick(300, 10_000);
    sb.inject(
        FaultRule::new(
            "getInvoiceDetailByInvoiceNumber",
            FaultAction::Delay { delay_ms: 800 },
        )
        .times(1),
    );
    let read = invoice_detail(&client, &first_invoice(&sb));
    let order = crate::server::valid_order(&client, "D1-ORDER");
    sb.inject(FaultRule::new("placeOrder", FaultAction::Delay { delay_ms: 800 }).times(1));
    let write = client.ordering().place_order(&order);
    out.push(figure(
        "D1",
        read.is_ok() && matches!(&write, Err(e) if e.kind() == ErrorKind::OutcomeUnknown),
        format!(
            "read: retried, {}; placeOrder: {}",
            if read.is_ok() { "ok" } else { "failed" },
            write
                .err()
                .map(|e| format!("{:?}", e.kind()))
                .unwrap_or("ok".into())
        ),
    ));

    // D2: the operation budget is shorter than the retry schedule: never overrun.
    let trials = n(10, 50);
    let mut overruns = 0;
    let client = quick(250, 600);
    for _ in 0..trials {
        sb.inject(
            FaultRule::new(
                "getInvoiceDetailByInvoiceNumber",
                FaultAction::Delay { delay_ms: 1000 },
            )
            .times(3),
        );
        let t = Instant::now();
        let _ = invoice_detail(&client, &first_invoice(&sb));
        if t.elapsed() > Duration::from_millis(600 + 250 + 100) {
            overruns += 1;
        }
        sb.clear_faults();
    }
    out.push(figure(
        "D2",
        overruns == 0,
        format!("overruns = {overruns} of {trials} (budget 0.6 s, attempt timeout 0.25 s)"),
    ));

    // D2's timeouts drain the process-wide retry budget (50 trials at the plan's size):
    // the next scenarios start from a full one, as a process would after recovering.
    abws::process::context().retry_budget.reset();

    // D3: a body that stops after 1 KiB is detected as stalled.
    let client = quick(30_000, 60_000);
    let mut detected = 0;
    for _ in 0..3 {
        sb.inject(FaultRule::new("getTransactions", FaultAction::StallAfterBytes(1024)).times(3));
        if let Err(e) = client.reconciliation().get_transactions(&month(&sb)) {
            if e.to_string().contains("stalled") {
                detected += 1;
            }
        }
    }
    out.push(figure(
        "D3",
        detected == 3,
        format!("detected stalls = {detected}/3 (stall timeout 0.5 s)"),
    ));

    sb.clear_faults(); // stall rules D3's calls did not use up
    abws::process::context().retry_budget.reset();

    // D4: a slow start within the attempt timeout is no error.
    let client = quick(2000, 10_000);
    sb.inject(FaultRule::new("getTransactions", FaultAction::Delay { delay_ms: 400 }).times(1));
    let r = client.reconciliation().get_transactions(&month(&sb));
    out.push(figure(
        "D4",
        r.is_ok(),
        match r {
            Ok(_) => "false alarms = 0".to_string(),
            Err(e) => format!("false alarms = 1 ({:?}: {e})", e.kind()),
        },
    ));

    // D5/D6 are about documents (slow consumer, slow steady body): see G.
    out.push(d7_time_bounds());
    out
}

/// D7: every duration is bounded. A wait for a report has a default bound (30
/// minutes) and goes without one only when asked; duration settings too large for the
/// clock are clamped when read instead of panicking at the first deadline.
fn d7_time_bounds() -> Figure {
    use abws::api::documents::{self as docs, WaitForReportParams};
    let sb = common::sandbox_with(|c| c.time_scale = 120.0);
    let d = sb.describe();
    let mut panics = 0;
    let mut ok = 0;
    let mut cases = 0;
    let mut run = |what: &str, f: &mut dyn FnMut() -> bool| {
        cases += 1;
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
            Ok(true) => ok += 1,
            Ok(false) => eprintln!("D7: {what}: wrong outcome"),
            Err(_) => {
                eprintln!("D7: {what}: panicked");
                panics += 1
            }
        }
    };
    // Duration settings of 1e19 s (past u64 nanoseconds of any clock) and 1e300 s.
    for huge in [1e19, 1e300] {
        run(&format!("settings of {huge:e} s"), &mut || {
            let c = &d["credentials"];
            let settings = json!({
                "region": "JP",
                "client_id": c["client_id"], "client_secret": c["client_secret"],
                "refresh_token": c["refresh_token"], "user_email": c["user_email"],
                "endpoint": d["base_url"], "auth_endpoint": d["auth_url"],
                "rate_limiting": false,
                "connect_timeout": huge, "attempt_timeout": huge, "operation_timeout": huge,
            });
            let s = abws::settings_json::from_json(&settings, "settings").unwrap();
            s.timeouts.operation <= abws::config::MAX_DURATION
                && abws::blocking::Client::new(s)
                    .unwrap()
                    .reconciliation()
                    .get_transactions(&month(&sb))
                    .is_ok()
        });
    }
    run("Rust timeouts of Duration::MAX", &mut || {
        let mut s = common::settings(&sb, Region::JP);
        s.timeouts.attempt = Duration::MAX;
        s.timeouts.operation = Duration::MAX;
        s.timeouts.stall = Duration::MAX;
        abws::blocking::Client::new(s)
            .unwrap()
            .reconciliation()
            .get_transactions(&month(&sb))
            .is_ok()
    });
    let client = common::client(&sb, Region::JP);
    let (report, _) = common::ready_document(&sb, &client);
    run(
        "a wait without bound (NO_TIMEOUT) on a DONE report",
        &mut || {
            client
                .documents()
                .wait_for_report(&report, Duration::from_millis(50), Some(docs::NO_TIMEOUT))
                .is_ok()
        },
    );
    run(
        "a poll interval of Duration::MAX inside a 50 ms wait",
        &mut || {
            sb.inject(
                FaultRule::new(
                    "getReport",
                    faults::answer(
                        200,
                        json!({"reportId": "R-D7", "processingStatus": "IN_PROGRESS"}),
                    ),
                )
                .times(1),
            );
            let t = Instant::now();
            let r = client.documents().wait_for_report(
                "R-D7",
                Duration::MAX,
                Some(Duration::from_millis(50)),
            );
            r.is_err_and(|e| e.kind() == ErrorKind::Timeout) && t.elapsed() < Duration::from_secs(5)
        },
    );
    // The bound of a wait as the bindings give it (JSON arguments).
    let bound = |v: serde_json::Value| {
        abws::params::read::<WaitForReportParams>(&v.to_string()).and_then(|p| p.durations())
    };
    let default = bound(json!({"report_id": "R"}));
    let unbounded = bound(json!({"report_id": "R", "no_timeout": true}));
    let both = bound(json!({"report_id": "R", "timeout": 5, "no_timeout": true}));
    let huge_poll = bound(json!({"report_id": "R", "poll_interval": 1e19}));
    let default_s = default
        .as_ref()
        .ok()
        .and_then(|(_, t)| *t)
        .map_or(0.0, |t| t.as_secs_f64());
    run("the JSON bounds of a wait", &mut || {
        default_s == 1800.0
            && unbounded
                .as_ref()
                .is_ok_and(|(_, t)| *t == Some(docs::NO_TIMEOUT))
            && both
                .as_ref()
                .is_err_and(|e| e.parameter() == Some("no_timeout"))
            && huge_poll
                .as_ref()
                .is_ok_and(|(p, _)| *p <= abws::config::MAX_DURATION)
    });
    figure(
        "D7",
        panics == 0 && ok == cases,
        format!(
            "panics = {panics} in {cases} cases (duration settings of 1e19 and 1e300 s, Duration::MAX timeouts, poll interval and wait bound), {ok}/{cases} right; default wait bound = {default_s:.0} s, no bound only on request (no_timeout; Python timeout=None), both together refused; C: cancel and deadline in the C suite"
        ),
    )
}
