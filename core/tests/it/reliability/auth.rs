//! E. Auth and tokens.

use std::sync::Arc;
use std::time::Duration;

use abws::{ErrorKind, Region};
use abws_sandbox::{FaultAction, FaultRule};

use super::{figure, Figure};
use crate::common;
use crate::common::calls::{first_invoice, invoice_detail, listed_invoice_numbers};
use crate::common::refreshes;
use crate::common::{consent, faults};

pub fn run() -> Vec<Figure> {
    let mut out = vec![];
    // E1: the access token expires during a long listing.
    let sb = common::sandbox_with(|c| c.token_lifetime = Duration::from_secs(1));
    let client = common::client(&sb, Region::JP);
    let p = common::previous_month_invoices_params(&sb);
    let baseline = listed_invoice_numbers(&client, &p);
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
    let calls = common::on_threads(64, (client, first_invoice(&sb)), |(c, n)| {
        invoice_detail(&c, &n).is_ok()
    });
    let ok = calls.into_iter().filter(|&b| b).count();
    out.push(figure(
        "E2",
        refreshes(&sb) == 1 && ok == 64,
        format!(
            "token-endpoint calls = {} for 64 threads ({ok}/64 ok)",
            refreshes(&sb)
        ),
    ));

    // E3: 403 "expired" although the local token looks fresh: refresh once, replay once.
    let (sb, client) = common::sandbox_and_client();
    invoice_detail(&client, &first_invoice(&sb)).unwrap();
    sb.expire_tokens();
    let ok = invoice_detail(&client, &first_invoice(&sb)).is_ok();
    out.push(figure(
        "E3",
        ok && refreshes(&sb) == 2,
        format!("refreshes per call = {}", refreshes(&sb) - 1),
    ));

    // E4: 403 access denied: no refresh loop.
    let (sb, client) = common::sandbox_and_client();
    let denied = faults::unauthorized("Access to requested resource is denied.");
    sb.inject(
        FaultRule::new(
            "getInvoiceDetailByInvoiceNumber",
            faults::answer(403, denied),
        )
        .times(5),
    );
    let e = invoice_detail(&client, &first_invoice(&sb)).unwrap_err();
    let r = refreshes(&sb) - 1;
    out.push(figure(
        "E4",
        r <= 1 && e.attempts() <= 2 && e.status() == Some(403),
        format!("refreshes = {r}; attempts = {}", e.attempts()),
    ));

    // E5: the token endpoint answers 503 twice, then 200.
    let sb = common::sandbox();
    sb.inject(FaultRule::new("/auth/O2/token", faults::status(503)).times(2));
    let client = common::client(&sb, Region::JP);
    let ok = invoice_detail(&client, &first_invoice(&sb)).is_ok();
    out.push(figure(
        "E5",
        ok,
        format!("ok after two 503s from the token endpoint: {ok}"),
    ));

    // E6: revoked consent.
    let sb = common::sandbox();
    sb.revoke();
    let client = common::client(&sb, Region::JP);
    let e = invoice_detail(&client, "X").unwrap_err();
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
    let sb = super::rotation::rotating();
    let client = common::client(&sb, Region::JP);
    let mut ok = 0;
    for _ in 0..3 {
        if invoice_detail(&client, &first_invoice(&sb)).is_ok() {
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
    let code = consent::consent_code(&sb);
    sb.inject(FaultRule::new("/auth/O2/token", FaultAction::ResetBeforeHeaders).times(1));
    let r = consent::exchange(&sb, &sb.credentials().client_secret, &code);
    let calls = common::requests(&sb, "token");
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
