//! The month-end totals in Rust: last month's invoices from the sandbox, net total and
//! tax by rate, exact.
//!
//!     cargo run -p abws --example month_end

use std::collections::BTreeMap;

use abws::api::invoices::{GetInvoiceDetailByInvoiceNumberParams, GetInvoicesParams};
use abws::{blocking, Credentials, Decimal, Region, Settings};
use abws_sandbox::{RateLimits, Sandbox, SandboxConfig};
use chrono::{Datelike, Duration, Utc};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let sb = Sandbox::spawn(SandboxConfig {
        rate_limits: RateLimits::Off,
        ..Default::default()
    })?;
    let c = sb.credentials();
    let mut settings = Settings::new(
        Region::JP,
        Credentials::RefreshToken {
            client_id: c.client_id,
            client_secret: c.client_secret.into(),
            refresh_token: c.refresh_token.into(),
        },
    );
    settings.endpoint = Some(sb.base_url());
    settings.auth_endpoint = Some(sb.auth_url());
    settings.rate_limiting = false;
    let client = blocking::Client::new(settings)?;

    let first_this = Utc::now().date_naive().with_day(1).ok_or("date")?;
    let first_prev = (first_this - Duration::days(1)).with_day(1).ok_or("date")?;
    let params = GetInvoicesParams {
        invoice_issue_start_date: format!("{first_prev}T00:00:00Z").into(),
        invoice_issue_end_date: format!("{}T23:59:59Z", first_this - Duration::days(1)).into(),
        ..Default::default()
    };
    let mut total = Decimal::ZERO;
    let mut tax: BTreeMap<String, Decimal> = BTreeMap::new();
    let mut count = 0;
    for summary in client.invoices().iter_invoices(&params)?.items() {
        let number = summary?
            .invoice_metadata
            .and_then(|m| m.invoice_number)
            .unwrap_or_default();
        let detail = client.invoices().get_invoice_detail_by_invoice_number(
            &GetInvoiceDetailByInvoiceNumberParams {
                invoice_number: number,
                region: Some("JP".into()),
            },
        )?;
        total += detail
            .total_amount
            .as_ref()
            .map(|m| m.value())
            .unwrap_or_default();
        for a in detail.artifacts.iter().flatten() {
            for t in a.tax_breakdown().unwrap_or_default() {
                *tax.entry(t.tax_rate.clone().unwrap_or_default())
                    .or_default() += t.tax_amount.as_ref().map(|m| m.value()).unwrap_or_default();
            }
        }
        count += 1;
    }
    println!("{count} invoices from {first_prev}: net {total} JPY");
    for (rate, amount) in tax {
        println!("  tax at {rate}: {amount} JPY");
    }
    Ok(())
}
