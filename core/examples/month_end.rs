//! The month-end close in Rust, for any region: last month's invoices and credit memos from
//! the sandbox (at the region's regional address), the net total and the tax lines by rate,
//! exact, in the region's currency, and every PDF the region issues (in memory only).
//!
//!     cargo run -p abws --example month_end [-- --region US]
//!
//! In North America invoice PDFs exist only for Pay-by-Invoice orders: the example asks for
//! those only (the invoices `paymentMethodTypes=BCA` lists) and counts the others as
//! card-paid; elsewhere every invoice and credit memo has its PDF.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use abws::api::documents::{CreateReportParams, ReportOptionsParams};
use abws::api::invoices::{
    GetInvoiceDetailByInvoiceNumberParams, GetInvoiceLineItemsByInvoiceNumberParams,
    GetInvoicesParams, InvoiceType,
};
use abws::{blocking, Credentials, Decimal, Region, RegionGroup, Settings};
use abws_sandbox::{RateLimits, Sandbox, SandboxConfig};
use chrono::{Datelike, Duration as Days, Utc};

/// An amount as an accountant reads it: thousands separated, JPY without decimals, the
/// other currencies with two.
fn fmt(amount: Decimal, currency: &str) -> String {
    let places = if currency == "JPY" { 0 } else { 2 };
    let mut a = amount.round_dp(places);
    a.rescale(places);
    let text = a.abs().to_string();
    let (int, frac) = text.split_once('.').unwrap_or((&text, ""));
    let mut grouped = String::new();
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(c);
    }
    let sign = if amount.is_sign_negative() && !a.is_zero() {
        "-"
    } else {
        ""
    };
    let frac = if frac.is_empty() {
        String::new()
    } else {
        format!(".{frac}")
    };
    format!("{sign}{grouped}{frac} {currency}")
}

/// What the tax of a region is called on its invoices.
fn tax_name(region: Region) -> &'static str {
    match region {
        Region::JP => "consumption tax",
        Region::US => "sales tax",
        Region::CA => "HST/GST",
        Region::MX => "IVA",
        Region::IN | Region::AU => "GST",
        _ => "VAT",
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let region = match args.iter().position(|a| a == "--region") {
        Some(i) => Region::parse(args.get(i + 1).ok_or("--region needs a value")?)?,
        None => Region::JP,
    };
    let sb = Sandbox::spawn(SandboxConfig {
        rate_limits: RateLimits::Off,
        time_scale: 200.0,
        ..Default::default()
    })?;
    let c = sb.credentials();
    let mut settings = Settings::new(
        region,
        Credentials::RefreshToken {
            client_id: c.client_id,
            client_secret: c.client_secret.into(),
            refresh_token: c.refresh_token.into(),
        },
    );
    // The region's regional address, as the service has one per group.
    settings.endpoint = Some(sb.group_url(region.as_str()));
    settings.auth_endpoint = Some(sb.auth_url());
    settings.rate_limiting = false;
    let client = blocking::Client::new(settings)?;

    let first_this = Utc::now().date_naive().with_day(1).ok_or("date")?;
    let first_prev = (first_this - Days::days(1)).with_day(1).ok_or("date")?;
    let params = |bca_only: bool| GetInvoicesParams {
        invoice_issue_start_date: format!("{first_prev}T00:00:00Z").into(),
        invoice_issue_end_date: format!("{}T23:59:59Z", first_this - Days::days(1)).into(),
        region: Some(region.as_str().into()),
        payment_method_types: bca_only.then(|| vec!["BCA".to_string()]),
        ..Default::default()
    };
    let mut total = Decimal::ZERO;
    let mut tax: BTreeMap<String, Decimal> = BTreeMap::new();
    let mut currency = String::new();
    let (mut invoices, mut credit_memos) = (0, 0);
    let mut numbers = Vec::new();
    for summary in client.invoices().iter_invoices(&params(false))?.items() {
        let meta = summary?.invoice_metadata.unwrap_or_default();
        let number = meta.invoice_number.unwrap_or_default();
        match meta.r#type {
            Some(InvoiceType::CreditMemo) => credit_memos += 1,
            _ => invoices += 1,
        }
        let detail = client.invoices().get_invoice_detail_by_invoice_number(
            &GetInvoiceDetailByInvoiceNumberParams {
                invoice_number: number.clone(),
                region: None,
            },
        )?;
        if let Some(m) = &detail.total_amount {
            total += m.value().unwrap_or_default(); // no amount sent: nothing to add
            currency = m.currency().to_string();
        }
        for a in detail.artifacts.iter().flatten().flatten() {
            for t in a.tax_breakdown().unwrap_or_default().iter().flatten() {
                *tax.entry(t.tax_rate.clone().unwrap_or_default())
                    .or_default() += t
                    .tax_amount
                    .as_ref()
                    .and_then(|m| m.value())
                    .unwrap_or_default();
            }
        }
        numbers.push((number, meta.r#type));
    }
    println!(
        "{region} {}: {invoices} invoices, {credit_memos} credit memos, net {}",
        first_prev.format("%Y-%m"),
        fmt(total, &currency)
    );
    for (rate, amount) in &tax {
        println!(
            "  {} at {rate}: {}",
            tax_name(region),
            fmt(*amount, &currency)
        );
    }

    // The PDFs. NA: Pay-by-Invoice invoices only (the credit account, BCA).
    let with_pdf: BTreeSet<String> = if region.group() == RegionGroup::NorthAmerica {
        client
            .invoices()
            .iter_invoices(&params(true))?
            .items()
            .filter_map(|s| s.ok()?.invoice_metadata?.invoice_number)
            .collect()
    } else {
        numbers.iter().map(|(n, _)| n.clone()).collect()
    };
    let wanted: Vec<_> = numbers
        .iter()
        .filter(|(n, _)| with_pdf.contains(n))
        .collect();
    let results: Vec<Result<usize, String>> = std::thread::scope(|s| {
        let handles: Vec<_> = wanted
            .chunks(wanted.len().div_ceil(8).max(1))
            .map(|chunk| {
                let client = &client;
                s.spawn(move || {
                    chunk
                        .iter()
                        .map(|(number, kind)| pdf_of(client, number, kind.as_ref()))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect()
    });
    let filed = results.iter().filter(|r| r.is_ok()).count();
    let bytes: usize = results.iter().filter_map(|r| r.as_ref().ok()).sum();
    println!(
        "  PDFs: {filed} of {} filed ({} KiB, kept in memory){}",
        numbers.len(),
        bytes / 1024,
        if with_pdf.len() < numbers.len() {
            format!(
                "; {} card-paid without a PDF (NA: Pay by Invoice only)",
                numbers.len() - with_pdf.len()
            )
        } else {
            String::new()
        }
    );
    for e in results.iter().filter_map(|r| r.as_ref().err()).take(5) {
        println!("  not filed: {e}");
    }
    Ok(())
}

/// The PDF of an invoice or credit memo, asked for by its first line item.
fn pdf_of(
    client: &blocking::Client,
    number: &str,
    kind: Option<&InvoiceType>,
) -> Result<usize, String> {
    let lines = client
        .invoices()
        .get_invoice_line_items_by_invoice_number(&GetInvoiceLineItemsByInvoiceNumberParams {
            invoice_number: number.to_string(),
            ..Default::default()
        })
        .map_err(|e| format!("{number}: {e}"))?;
    let first = lines
        .line_items
        .unwrap_or_default()
        .into_iter()
        .flatten()
        .next()
        .ok_or(format!("{number}: no line items"))?;
    let p = CreateReportParams {
        report_options: ReportOptionsParams {
            order_id: first.order_metadata.and_then(|m| m.order_id),
            order_line_item_id: first.line_item_metadata.and_then(|m| m.order_line_item_id),
            document_type: Some(
                match kind {
                    Some(InvoiceType::CreditMemo) => "Credits",
                    _ => "Invoice",
                }
                .into(),
            ),
            ..Default::default()
        },
        ..Default::default()
    };
    client
        .documents()
        .fetch_pdf(
            &p,
            Duration::from_millis(50),
            Some(Duration::from_secs(120)),
        )
        .map(|pdf| pdf.len())
        .map_err(|e| format!("{number}: {e}"))
}
