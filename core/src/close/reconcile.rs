//! Reconciliation across the feed lag. The transaction feed comes hours after the event,
//! so an invoice issued late on the month's last day has its transaction fed in the next
//! month: the feed is read from the month's start to `FEED_MARGIN` past its end (never
//! past now) and matched by invoice number. A transaction fed after the month's end is
//! kept only when it is one of the month's invoices'; one fed within the month whose
//! invoice is another month's is reported as such.

use std::collections::{BTreeSet, HashSet};

use chrono::{DateTime, Duration, Utc};

use super::state::TxRecord;
use super::Figure;
use crate::api::reconciliation::{
    GetTransactionsParams, InvoiceDetailsForParams, OrderLineItemRef, Transaction,
};
use crate::error::Result;
use crate::paging::{Page, Pager};
use crate::Client;

/// How far past the month's end the feed is read.
pub(crate) const FEED_MARGIN_DAYS: i64 = 7;

/// The end of the feed window: the month's end plus the margin, never past `now`; and
/// whether the window is whole (not cut short by `now`).
pub(crate) fn feed_window(month_end: DateTime<Utc>, now: DateTime<Utc>) -> (DateTime<Utc>, bool) {
    let full = month_end + Duration::seconds(1) + Duration::days(FEED_MARGIN_DAYS);
    if full <= now {
        (full, true)
    } else {
        (now, false)
    }
}

/// Every item of a listing.
pub(crate) async fn all<P: Page>(mut pager: Pager<P>) -> Result<Vec<P::Item>> {
    let mut out = Vec::new();
    while let Some(page) = pager.next_page().await? {
        out.extend(page.into_items());
    }
    Ok(out)
}

/// The feed's transactions that concern the month (see the module's documentation), and
/// the invoice numbers the invoice data of their line items confirms.
pub(crate) async fn read_feed(
    client: &Client,
    start: DateTime<Utc>,
    month_end: DateTime<Utc>,
    feed_end: DateTime<Utc>,
    numbers: &HashSet<String>,
) -> Result<(Vec<TxRecord>, Vec<String>)> {
    let everything = all(client
        .reconciliation()
        .iter_transactions(&GetTransactionsParams {
            feed_start_date: start.fixed_offset().into(),
            feed_end_date: feed_end.fixed_offset().into(),
            ..Default::default()
        })?)
    .await?;
    let kept = month_transactions(everything, month_end, numbers);
    let lines: Vec<OrderLineItemRef> = kept
        .iter()
        .flat_map(|t| t.transaction_line_items.iter().flatten().flatten())
        .map(OrderLineItemRef::from)
        .filter(|r| {
            !r.order_id.is_empty() && !r.order_line_item_id.is_empty() && !r.shipment_id.is_empty()
        })
        .collect();
    let mut confirmed = BTreeSet::new();
    if !lines.is_empty() {
        let data = client
            .reconciliation()
            .invoice_details_for(&InvoiceDetailsForParams { line_items: lines })
            .await?;
        for entry in data {
            for d in entry.invoice_details.iter().flatten().flatten() {
                if let Some(n) = d.invoice_number.as_ref().filter(|n| !n.is_empty()) {
                    confirmed.insert(n.clone());
                }
            }
        }
    }
    Ok((
        kept.iter().map(record).collect(),
        confirmed.into_iter().collect(),
    ))
}

/// The transactions of the month's invoices (fed at any time in the window), and the
/// others fed within the month; of the marketplaces of the month's invoices only (an
/// address lists every marketplace of its group).
fn month_transactions(
    everything: Vec<Transaction>,
    month_end: DateTime<Utc>,
    numbers: &HashSet<String>,
) -> Vec<Transaction> {
    let ours = |t: &Transaction| {
        t.invoice_number
            .as_ref()
            .is_some_and(|n| numbers.contains(n))
    };
    let markets: HashSet<String> = everything
        .iter()
        .filter(|t| ours(t))
        .filter_map(|t| t.marketplace_id.clone())
        .collect();
    everything
        .into_iter()
        .filter(|t| {
            let market = markets.is_empty()
                || t.marketplace_id
                    .as_ref()
                    .is_some_and(|m| markets.contains(m));
            let fed_in_month = t
                .feed_date
                .as_ref()
                .is_none_or(|f| f.value().with_timezone(&Utc) <= month_end);
            market && (ours(t) || fed_in_month)
        })
        .collect()
}

fn record(t: &Transaction) -> TxRecord {
    let stamp = |v: &Option<crate::Timestamp>| {
        v.as_ref()
            .map(|s| s.as_str().to_string())
            .unwrap_or_default()
    };
    TxRecord {
        id: t.transaction_id.clone().unwrap_or_default(),
        invoice_number: t.invoice_number.clone().unwrap_or_default(),
        amount: Figure(
            t.amount
                .as_ref()
                .and_then(|m| m.value())
                .unwrap_or_default(),
        ),
        lines: t
            .transaction_line_items
            .as_ref()
            .map_or(0, |l| l.len() as u64),
        entity: t.legal_entity_name.clone().unwrap_or_default(),
        date: stamp(&t.transaction_date),
        feed: stamp(&t.feed_date),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_reaches_past_the_month_but_not_past_now() {
        let end: DateTime<Utc> = "2026-10-31T23:59:59Z".parse().unwrap();
        let later: DateTime<Utc> = "2026-12-01T00:00:00Z".parse().unwrap();
        let (to, whole) = feed_window(end, later);
        assert_eq!(to, "2026-11-08T00:00:00Z".parse::<DateTime<Utc>>().unwrap());
        assert!(whole);
        let soon: DateTime<Utc> = "2026-11-02T00:00:00Z".parse().unwrap();
        assert_eq!(feed_window(end, soon), (soon, false));
    }
}
