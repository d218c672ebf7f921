//! E. Auth and tokens.

use std::sync::Arc;
use std::time::Duration;

use abws::api::invoices::{GetInvoiceDetailByInvoiceNumberParams, GetInvoicesParams};
use abws::{ErrorKind, Region};
use abws_sandbox::{FaultAction, FaultRule, Sandbox};
use serde_json::json;

use super::{figure, Figure};
use crate::common;

fn refreshes(sb: &Sandbox) -> u64 {
    sb.counters()["tokenCalls"]["refresh_token"]
        .as_u64()
        .unwrap_or(0)
}

pub fn number(sb: &Sandbox) -> String {
    sb.dataset()["previousMonthInvoices"][0]
        .as_str()
        .unwrap()
        .to_string()
}

/// Runs the consent page's Allow and returns the authorization code.
pub fn consent_code(sb: &Sandbox) -> String {
    let c = sb.credentials();
    let url = abws::auth::consent_url(
        &sb.consent_url(),
        "st-1",
        &c.redirect_uri,
        &c.application_id,
    )
    .unwrap();
    let allow = url.replacen("/b2b/abws/oauth?", "/b2b/abws/oauth/allow?", 1);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap();
        let resp = http.get(&allow).send().await.unwrap();
        let loc = resp.headers()["location"].to_str().unwrap().to_string();
        let u = url::Url::parse(&loc).unwrap();
        let code = u
            .query_pairs()
            .find(|(k, _)| k == "code")
            .unwrap()
            .1
            .to_string();
        code
    })
}

pub fn run() -> Vec<Figure> {
    let mut out = vec![];
    // E1: the access token expires during a long listing.
    let sb = common::sandbox_with(|c| c.token_lifetime = Duration::from_secs(1));
    let client = common::client(&sb, Region::JP);
    let (s, e) = common::previous_month(&sb);
    let p = GetInvoicesParams {
        invoice_issue_start_date: s.into(),
        invoice_issue_end_date: e.into(),
        ..Default::default()
    };
    let baseline: Vec<_> = client
        .invoices()
        .iter_invoices(&p)
        .unwrap()
        .items()
        .map(|r| r.unwrap().invoice_metadata.unwrap().invoice_number.unwrap())
        .collect();
    let before = refreshes(&sb);
    let mut slow = vec![];
    for item in client.invoices().iter_invoices(&p).unwrap().items() {
        slow.push(
            item.unwrap()
                .invoice_metadata
                .unwrap()
                .invoice_number
                .unwrap(),
        );
        if slow.len() % 10 == 0 {
            std::thread::sleep(Duration::from_millis(700));
        }
    }
    let r = refreshes(&sb) - before;
    out.push(figure(
        "E1",
        slow == baseline && r >= 1,
        format!(
            "{r} refreshes during a {}-item listing; items dup/missing = 0/{}",
            slow.len(),
            baseline.len().abs_diff(slow.len())
        ),
    ));

    // E2: 64 threads find no token at once: one refresh.
    let sb = common::sandbox();
    sb.inject(FaultRule::new("/auth/O2/token", FaultAction::Delay { delay_ms: 200 }).times(1));
    let client = Arc::new(common::client(&sb, Region::JP));
    let nn = number(&sb);
    let hs: Vec<_> = (0..64)
        .map(|_| {
            let (c, n) = (client.clone(), nn.clone());
            std::thread::spawn(move || {
                c.invoices()
                    .get_invoice_detail_by_invoice_number(&GetInvoiceDetailByInvoiceNumberParams {
                        invoice_number: n.to_string(),
                        region: Some("JP".into()),
                    })
                    .is_ok()
            })
        })
        .collect();
    let ok = hs
        .into_iter()
        .filter(|_| true)
        .map(|h| h.join().unwrap())
        .filter(|&b| b)
        .count();
    out.push(figure(
        "E2",
        refreshes(&sb) == 1 && ok == 64,
        format!(
            "token-endpoint calls = {} for 64 threads ({ok}/64 ok)",
            refreshes(&sb)
        ),
    ));

    // E3: 403 "expired" although the local token looks fresh: refresh once, replay once.
    let sb = common::sandbox();
    let client = common::client(&sb, Region::JP);
    client
        .invoices()
        .get_invoice_detail_by_invoice_number(&GetInvoiceDetailByInvoiceNumberParams {
            invoice_number: number(&sb).to_string(),
            region: Some("JP".into()),
        })
        .unwrap();
    sb.expire_tokens();
    let ok = client
        .invoices()
        .get_invoice_detail_by_invoice_number(&GetInvoiceDetailByInvoiceNumberParams {
            invoice_number: number(&sb).to_string(),
            region: Some("JP".into()),
        })
        .is_ok();
    out.push(figure(
        "E3",
        ok && refreshes(&sb) == 2,
        format!("refreshes per call = {}", refreshes(&sb) - 1),
    ));

    // E4: 403 access denied: no refresh loop.
    let sb = common::sandbox();
    let client = common::client(&sb, Region::JP);
    let denied = json!({"errors":[{"code":"Unauthorized","message":"Access to requested resource is denied.","details":""}]});
    sb.inject(
        FaultRule::new(
            "getInvoiceDetailByInvoiceNumber",
            FaultAction::Status {
                status: 403,
                body: Some(denied),
                headers: Default::default(),
            },
        )
        .times(5),
    );
    let e = client
        .invoices()
        .get_invoice_detail_by_invoice_number(&GetInvoiceDetailByInvoiceNumberParams {
            invoice_number: number(&sb).to_string(),
            region: Some("JP".into()),
        })
        .unwrap_err();
    let r = refreshes(&sb) - 1;
    out.push(figure(
        "E4",
        r <= 1 && e.attempts() <= 2 && e.status() == Some(403),
        format!("refreshes = {r}; attempts = {}", e.attempts()),
    ));

    // E5: the token endpoint answers 503 twice, then 200.
    let sb = common::sandbox();
    sb.inject(
        FaultRule::new(
            "/auth/O2/token",
            FaultAction::Status {
                status: 503,
                body: None,
                headers: Default::default(),
            },
        )
        .times(2),
    );
    let client = common::client(&sb, Region::JP);
    let ok = client
        .invoices()
        .get_invoice_detail_by_invoice_number(&GetInvoiceDetailByInvoiceNumberParams {
            invoice_number: number(&sb).to_string(),
            region: Some("JP".into()),
        })
        .is_ok();
    out.push(figure(
        "E5",
        ok,
        format!("ok after two 503s from the token endpoint: {ok}"),
    ));

    // E6: revoked consent.
    let sb = common::sandbox();
    sb.revoke();
    let client = common::client(&sb, Region::JP);
    let e = client
        .invoices()
        .get_invoice_detail_by_invoice_number(&GetInvoiceDetailByInvoiceNumberParams {
            invoice_number: "X".into(),
            region: Some("JP".into()),
        })
        .unwrap_err();
    let calls = refreshes(&sb);
    out.push(figure(
        "E6",
        e.kind() == ErrorKind::Auth && calls == 1 && e.to_string().contains("consent flow again"),
        format!(
            "token calls = {calls}; AuthError names the fix: {}",
            e.to_string().contains("consent flow again")
        ),
    ));

    // E7: rotated refresh tokens: the old one is never used again.
    let sb = common::sandbox_with(|c| {
        c.rotate_refresh_tokens = true;
        c.token_lifetime = Duration::from_secs(1);
    });
    let client = common::client(&sb, Region::JP);
    let mut ok = 0;
    for _ in 0..3 {
        if client
            .invoices()
            .get_invoice_detail_by_invoice_number(&GetInvoiceDetailByInvoiceNumberParams {
                invoice_number: number(&sb).to_string(),
                region: Some("JP".into()),
            })
            .is_ok()
        {
            ok += 1;
        }
        std::thread::sleep(Duration::from_millis(1100));
    }
    let invalid = sb.counters()["requests"]["token"]["400"]
        .as_u64()
        .unwrap_or(0);
    out.push(figure(
        "E7",
        ok == 3 && invalid == 0,
        format!(
            "refreshes using the old token after rotation = {invalid} ({} rotations)",
            refreshes(&sb)
        ),
    ));

    // E8: the code exchange is reset after it was written: not resent.
    let sb = common::sandbox();
    let code = consent_code(&sb);
    sb.inject(FaultRule::new("/auth/O2/token", FaultAction::ResetBeforeHeaders).times(1));
    let c = sb.credentials();
    let transport = abws::transport::Transport::new(&common::settings(&sb, Region::JP)).unwrap();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let r = rt.block_on(abws::auth::exchange_code(
        &transport,
        &sb.auth_url(),
        &c.client_id,
        &c.client_secret.clone().into(),
        &code.into(),
        &c.redirect_uri,
    ));
    let calls = sb.counters()["requests"]["token"]
        .as_object()
        .map(|m| m.values().filter_map(|v| v.as_u64()).sum::<u64>())
        .unwrap_or(0);
    let e = r.unwrap_err();
    out.push(figure(
        "E8",
        calls == 1 && e.kind() == ErrorKind::Auth && e.to_string().contains("consumed"),
        format!(
            "exchange calls = {calls}; AuthError says the code may be consumed: {}",
            e.to_string().contains("consumed")
        ),
    ));

    // E9: wall-clock jumps of ±1 h, measured in a child process (see wallclock.rs).
    out.push(crate::wallclock::e9());
    out
}
