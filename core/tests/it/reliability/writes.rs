//! B7–B8: unsafe writes (the operations table's rows of kind `UnsafeWrite`: placeOrder and
//! addItems) whose outcome the client cannot know: a 2xx that does not decode, and a call
//! cancelled while its request is on the wire.

use std::time::Duration;

use abws::inflight::Watch;
use abws::retry::OperationKind;
use abws::{ErrorKind, Region};
use abws_sandbox::{FaultAction, FaultRule, Sandbox};
use serde_json::json;

use super::{figure, Figure};
use crate::common;

/// Arguments (JSON, as the bindings pass them) of one call of an unsafe write, with its
/// externalId. Every `UnsafeWrite` row needs an entry here: the scenarios walk the table.
fn sample_call(
    sb: &Sandbox,
    client: &abws::blocking::Client,
    op: &str,
    external_id: &str,
) -> String {
    let order = super::server::valid_order(client, "x");
    let line = &order.line_items[0];
    let attr = |i: usize| match &line.attributes[i] {
        abws::api::ordering::Attribute::SelectedProductReference { id }
        | abws::api::ordering::Attribute::SelectedBuyingOptionReference { id } => id.clone(),
        _ => unreachable!(),
    };
    match op {
        "placeOrder" => {
            let mut order = order.clone();
            order.external_id = external_id.to_string();
            serde_json::to_string(&order).unwrap()
        }
        "addItems" => json!({
            "cart_id": sb.dataset()["carts"][5]["id"],
            "region": "JP",
            "items": [{"product_identifier": attr(0), "buying_option_identifier": attr(1),
                       "quantity": 1, "external_id": external_id}],
        })
        .to_string(),
        other => panic!("no sample call for the unsafe write {other}: add one"),
    }
}

/// How many times the sandbox applied a write of `op` with this externalId.
fn applied(sb: &Sandbox, op: &str, external_id: &str) -> u64 {
    let c = sb.counters();
    match op {
        "placeOrder" => c["ordersCreated"][external_id].as_u64().unwrap_or(0),
        _ => c["cartMutations"]["byOperation"][op].as_u64().unwrap_or(0),
    }
}

fn unsafe_writes() -> Vec<&'static abws::operations::Operation> {
    abws::operations::ALL
        .iter()
        .copied()
        .filter(|op| op.kind == OperationKind::UnsafeWrite)
        .collect()
}

pub fn run() -> Vec<Figure> {
    let mut out = vec![];
    let logs = super::capture_logs();

    // B7: a 2xx whose body does not decode, after the write was applied.
    let ops = unsafe_writes();
    let mut typed = 0;
    let mut resent = 0;
    let mut applied_once = 0;
    let mut names = vec![];
    for op in &ops {
        let sb = common::sandbox();
        let client = common::client(&sb, Region::JP);
        let id = format!("B7-{}", op.id);
        let args = sample_call(&sb, &client, op.id, &id);
        sb.inject(FaultRule::new(op.id, FaultAction::Garbled).times(1));
        let dynop = abws::operations::dynamic(op.name).unwrap();
        let r = client.run(|c| async move { dynop.call(&c, &args)?.await.map(|_| ()) });
        let sent = common::requests(&sb, op.id);
        resent += sent.saturating_sub(1);
        if applied(&sb, op.id, &id) == 1 {
            applied_once += 1;
        }
        match r {
            Err(e)
                if e.kind() == ErrorKind::OutcomeUnknown
                    && e.external_id() == Some(id.as_str())
                    && e.raw_body().is_some_and(|b| !b.is_empty())
                    && e.request_id().is_some() =>
            {
                typed += 1
            }
            other => eprintln!("B7 {}: {other:?}", op.id),
        }
        names.push(op.id);
    }
    out.push(figure(
        "B7",
        typed == ops.len() && resent == 0 && applied_once == ops.len(),
        format!(
            "undecodable 2xx after the write was applied ({}): {typed}/{} OutcomeUnknown carrying \
             the externalId, the raw body and the request id; resends = {resent}; applied once \
             {applied_once}/{}",
            names.join(", "),
            ops.len(),
            ops.len()
        ),
    ));

    // B8: the call is cancelled (its future dropped) while the request is on the wire.
    let trials = 5;
    let mut recorded = 0;
    let mut warned = 0;
    let mut calls = 0;
    let mut applied_after = 0;
    for op in &ops {
        let sb = common::sandbox();
        let client = common::client(&sb, Region::JP);
        for i in 0..trials {
            calls += 1;
            let id = format!("B8-{}-{i}", op.id);
            let args = sample_call(&sb, &client, op.id, &id);
            // The sandbox holds the request 400 ms, then applies it.
            sb.inject(FaultRule::new(op.id, FaultAction::Delay { delay_ms: 400 }).times(1));
            let before = logs.text().len();
            let watch = Watch::new();
            let w = watch.clone();
            let dynop = abws::operations::dynamic(op.name).unwrap();
            let (sbr, held_before) = (&sb, common::delays_fired(&sb));
            let r = client.run(|c| async move {
                let call = dynop.call(&c, &args)?;
                // Dropped once the sandbox holds the request: sent, not yet applied.
                Ok(tokio::select! {
                    _ = w.scope(call) => false,
                    _ = common::held(sbr, held_before) => true,
                })
            });
            if !matches!(r, Ok(true)) {
                eprintln!("B8 {}: not cancelled: {r:?}", op.id);
                continue;
            }
            if watch
                .cancelled()
                .is_some_and(|c| c.operation == op.id && c.external_id.as_deref() == Some(&id))
            {
                recorded += 1;
            }
            let new_logs = logs.text()[before..].to_string();
            if new_logs
                .lines()
                .any(|l| l.starts_with("WARN") && l.contains(&id) && l.contains(op.id))
            {
                warned += 1;
            }
            // The sandbox applies it when its 400 ms hold ends.
            if common::eventually(Duration::from_secs(5), || applied(&sb, op.id, &id) >= 1) {
                applied_after += 1;
            }
        }
    }
    // A cancelled read is no unsafe write: no warning.
    let (sb, client) = common::sandbox_and_client();
    let (start, end) = common::previous_month(&sb);
    sb.inject(FaultRule::new("getInvoices", FaultAction::Delay { delay_ms: 400 }).times(1));
    let before = logs.text().len();
    let watch = Watch::new();
    let w = watch.clone();
    let _ = client.run(|c| async move {
        let call = abws::operations::dynamic("get_invoices").unwrap().call(
            &c,
            &json!({"invoice_issue_start_date": start, "invoice_issue_end_date": end, "region": "JP"})
                .to_string(),
        )?;
        let _ = tokio::time::timeout(Duration::from_millis(150), w.scope(call)).await;
        Ok(())
    });
    let false_alarms = usize::from(watch.cancelled().is_some())
        + logs.text()[before..]
            .lines()
            .filter(|l| l.starts_with("WARN"))
            .count();
    out.push(figure(
        "B8",
        recorded == calls && warned == calls && false_alarms == 0,
        format!(
            "calls cancelled in flight (a dropped future): {warned}/{calls} logged a warning with \
             the externalId, {recorded}/{calls} reported it to the caller's watch (what the Python \
             binding puts on KeyboardInterrupt); applied by the server afterwards {applied_after}/{calls}; \
             warnings for a cancelled read = {false_alarms}"
        ),
    ));
    out
}
