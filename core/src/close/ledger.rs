//! The ledger (one row per invoice) and the exceptions (one row per exception), as rows
//! of the result and as CSV files. A text cell that a spreadsheet would run as a formula
//! gets a leading `'`; amounts are the close's own decimals and stay numbers (a negative
//! credit-memo amount is written `-12.50`).

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::Serialize;

use super::state::{InvoiceFigures, InvoiceRecord, TxRecord};
use super::Figure;
use crate::Decimal;

/// One invoice of the ledger.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct LedgerRow {
    /// The invoice or credit memo number.
    pub invoice_number: String,
    /// Its figures.
    #[serde(flatten)]
    pub invoice: InvoiceFigures,
    /// Its line items.
    pub line_items: u64,
    /// The ids of its transactions.
    pub transactions: Vec<String>,
    /// The sum of its transactions.
    pub transaction_total: Figure,
    /// Total minus transactions (none without a transaction).
    pub difference: Option<Figure>,
    /// "no transaction fed by ...", "amount differs" or empty.
    pub exception: String,
}

/// One exception.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ExceptionRow {
    /// "no transaction", "amount differs", "earlier month's invoice", "unmatched
    /// transaction" or "PDF not filed".
    pub exception: String,
    /// The invoice concerned (of the transaction, for a transaction's exception).
    pub invoice_number: String,
    /// The transactions concerned, by id, space-separated.
    pub transactions: String,
    /// The invoice's total.
    pub billed: Option<Figure>,
    /// The transactions' total.
    pub transaction_total: Option<Figure>,
    /// More about it.
    pub detail: String,
}

/// The ledger and exceptions of a close, and its figures.
pub(crate) struct Books {
    pub ledger: Vec<LedgerRow>,
    pub exceptions: Vec<ExceptionRow>,
    pub tax: BTreeMap<String, Figure>,
    pub total: Figure,
    pub transactions: u64,
    pub matched: u64,
}

/// The month as the books see it: its first instant, its first day as the exceptions name
/// it, and how far the feed was read.
pub(crate) struct Period<'a> {
    pub start: chrono::DateTime<chrono::Utc>,
    pub first_day: &'a str,
    pub feed_end: Option<&'a str>,
}

/// Matches the transactions to the invoices `numbers` (in ledger order) and lists the
/// exceptions. `others_of_entity` keeps a transaction of no invoice of `records`.
pub(crate) fn books(
    numbers: &[String],
    records: &HashMap<String, InvoiceRecord>,
    transactions: &[TxRecord],
    others_of_entity: impl Fn(&TxRecord) -> bool,
    period: Period<'_>,
    not_filed: &[(String, String)],
) -> Books {
    let shown: HashSet<&String> = numbers.iter().collect();
    let txs: Vec<&TxRecord> = transactions
        .iter()
        .filter(|t| {
            shown.contains(&t.invoice_number)
                || (!records.contains_key(&t.invoice_number) && others_of_entity(t))
        })
        .collect();
    let mut by_invoice: HashMap<&str, Vec<&TxRecord>> = HashMap::new();
    for t in &txs {
        by_invoice
            .entry(t.invoice_number.as_str())
            .or_default()
            .push(t);
    }
    let Period {
        start: month_start,
        first_day,
        feed_end,
    } = period;
    let fed_to = feed_end.map(|f| f.get(..10).unwrap_or(f));
    let mut ledger = vec![];
    let mut no_tx = vec![];
    let mut differences = vec![];
    let mut tax: BTreeMap<String, Figure> = BTreeMap::new();
    let mut total = Decimal::ZERO;
    for n in numbers {
        let r = &records[n];
        let mine = by_invoice.get(n.as_str()).cloned().unwrap_or_default();
        let paid: Decimal = mine.iter().map(|t| t.amount.0).sum();
        let exception = if mine.is_empty() {
            no_tx.push(n);
            match fed_to {
                Some(f) => format!("no transaction fed by {f}"),
                None => "no transaction".into(),
            }
        } else if paid != r.figures.total.0 {
            differences.push((n, r.figures.total, paid, ids(&mine)));
            "amount differs".into()
        } else {
            String::new()
        };
        for (rate, amount) in &r.figures.tax {
            tax.entry(rate.clone()).or_default().0 += amount.0;
        }
        total += r.figures.total.0;
        ledger.push(LedgerRow {
            invoice_number: n.clone(),
            invoice: r.figures.clone(),
            line_items: r.lines,
            transactions: mine.iter().map(|t| t.id.clone()).collect(),
            transaction_total: Figure(paid),
            difference: (!mine.is_empty()).then(|| Figure(r.figures.total.0 - paid)),
            exception,
        });
    }
    let others: Vec<&&TxRecord> = txs
        .iter()
        .filter(|t| !shown.contains(&t.invoice_number))
        .collect();
    // By instant, not by text: the service's stamps and ours may differ in form ("Z",
    // "+00:00", fractions) and a zone's month starts at another hour than midnight UTC.
    let earlier =
        |t: &TxRecord| chrono::DateTime::parse_from_rfc3339(&t.date).is_ok_and(|d| d < month_start);
    let exception = |kind: &str, n: &str, txs: String, billed, paid, detail: String| ExceptionRow {
        exception: kind.into(),
        invoice_number: n.into(),
        transactions: txs,
        billed,
        transaction_total: paid,
        detail,
    };
    let fed = |t: &TxRecord| {
        format!(
            "transaction of {}, fed {}",
            t.date.get(..10).unwrap_or(&t.date),
            t.feed.get(..10).unwrap_or(&t.feed)
        )
    };
    let mut exceptions = vec![];
    for n in no_tx {
        exceptions.push(exception(
            "no transaction",
            n,
            String::new(),
            Some(records[n].figures.total),
            None,
            format!(
                "no transaction in the feed from {} to {}",
                first_day,
                fed_to.unwrap_or("the month end")
            ),
        ));
    }
    for (n, billed, paid, ids) in differences {
        exceptions.push(exception(
            "amount differs",
            n,
            ids,
            Some(billed),
            Some(Figure(paid)),
            String::new(),
        ));
    }
    for kind in ["earlier month's invoice", "unmatched transaction"] {
        for t in others
            .iter()
            .filter(|t| earlier(t) == (kind == "earlier month's invoice"))
        {
            exceptions.push(exception(
                kind,
                &t.invoice_number,
                t.id.clone(),
                None,
                Some(t.amount),
                fed(t),
            ));
        }
    }
    for (n, why) in not_filed.iter().filter(|(n, _)| shown.contains(n)) {
        exceptions.push(exception(
            "PDF not filed",
            n,
            String::new(),
            None,
            None,
            why.clone(),
        ));
    }
    let matched = txs
        .iter()
        .filter(|t| shown.contains(&t.invoice_number))
        .count() as u64;
    Books {
        ledger,
        exceptions,
        tax,
        total: Figure(total),
        transactions: txs.len() as u64,
        matched,
    }
}

fn ids(txs: &[&TxRecord]) -> String {
    txs.iter()
        .map(|t| t.id.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

/// A text cell as a spreadsheet should show it: one starting with `=`, `+`, `-`, `@`, a
/// tab or a carriage return gets a leading `'` (it would run as a formula).
pub fn csv_cell(text: &str) -> String {
    if text.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{text}")
    } else {
        text.to_string()
    }
}

/// A cell of the CSV: text neutralised (`csv_cell`), numbers as they are.
enum Cell<'a> {
    Text(&'a str),
    Number(Option<Figure>),
    Count(u64),
}

fn csv_line(out: &mut String, cells: &[Cell<'_>]) {
    for (i, cell) in cells.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let text = match cell {
            Cell::Text(t) => csv_cell(t),
            Cell::Number(n) => n.map(|n| n.0.to_string()).unwrap_or_default(),
            Cell::Count(n) => n.to_string(),
        };
        if text.contains([',', '"', '\n', '\r']) {
            out.push('"');
            out.push_str(&text.replace('"', "\"\""));
            out.push('"');
        } else {
            out.push_str(&text);
        }
    }
    out.push_str("\r\n");
}

/// The ledger as CSV: a column per tax rate of `rates`.
pub(crate) fn ledger_csv(rows: &[LedgerRow], rates: &[String]) -> String {
    let mut out = String::new();
    let mut header: Vec<String> = [
        "invoice_number",
        "type",
        "issue_date",
        "status",
        "customer",
        "currency",
        "total",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    header.extend(rates.iter().map(|r| format!("tax_{r}")));
    header.extend(
        [
            "line_items",
            "transactions",
            "transaction_total",
            "difference",
            "exception",
        ]
        .map(String::from),
    );
    csv_line(
        &mut out,
        &header.iter().map(|h| Cell::Text(h)).collect::<Vec<_>>(),
    );
    for r in rows {
        let txs = r.transactions.join(" ");
        let mut cells = vec![
            Cell::Text(&r.invoice_number),
            Cell::Text(&r.invoice.kind),
            Cell::Text(&r.invoice.issue_date),
            Cell::Text(&r.invoice.status),
            Cell::Text(&r.invoice.customer),
            Cell::Text(&r.invoice.currency),
            Cell::Number(Some(r.invoice.total)),
        ];
        cells.extend(
            rates.iter().map(|rate| {
                Cell::Number(Some(r.invoice.tax.get(rate).copied().unwrap_or_default()))
            }),
        );
        cells.extend([
            Cell::Count(r.line_items),
            Cell::Text(&txs),
            Cell::Number(Some(r.transaction_total)),
            Cell::Number(r.difference),
            Cell::Text(&r.exception),
        ]);
        csv_line(&mut out, &cells);
    }
    out
}

/// The exceptions as CSV.
pub(crate) fn exceptions_csv(rows: &[ExceptionRow]) -> String {
    let mut out = String::new();
    let header = [
        "exception",
        "invoice_number",
        "transactions",
        "billed",
        "transaction_total",
        "detail",
    ];
    csv_line(&mut out, &header.map(Cell::Text));
    for r in rows {
        csv_line(
            &mut out,
            &[
                Cell::Text(&r.exception),
                Cell::Text(&r.invoice_number),
                Cell::Text(&r.transactions),
                Cell::Number(r.billed),
                Cell::Number(r.transaction_total),
                Cell::Text(&r.detail),
            ],
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formulas_are_neutralised_and_negative_amounts_stay_numbers() {
        assert_eq!(csv_cell("=HYPERLINK(\"x\")"), "'=HYPERLINK(\"x\")");
        assert_eq!(csv_cell("-1"), "'-1");
        assert_eq!(csv_cell("INV-1"), "INV-1");
        let row = ExceptionRow {
            exception: "amount differs".into(),
            invoice_number: "@SUM(A1)".into(),
            transactions: "a,b".into(),
            billed: Some(Figure("-12.50".parse().unwrap())),
            transaction_total: None,
            detail: String::new(),
        };
        let csv = exceptions_csv(&[row]);
        assert_eq!(
            csv.lines().nth(1).unwrap(),
            "amount differs,'@SUM(A1),\"a,b\",-12.50,,"
        );
    }
}
