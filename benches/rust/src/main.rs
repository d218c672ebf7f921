//! The Rust side of docs/benchmarks.md (benches/run.py runs it):
//!
//! `abws-bench calls BASE_URL AUTH_URL CLIENT_ID CLIENT_SECRET REFRESH_TOKEN INVOICE N`
//!   B8: getInvoiceDetailByInvoiceNumber N times through `abws::blocking::Client`;
//!   prints `{"calls":N,"seconds":S}`.
//! `abws-bench page BASE_URL AUTH_URL CLIENT_ID CLIENT_SECRET REFRESH_TOKEN START END RUNS`
//!   B2's reference: getTransactions (one big page) RUNS times into typed Rust structs;
//!   prints `{"transactions":N,"seconds":[S, ...]}`.
//! Rate limiting is off.

use std::time::Instant;

use abws::api::invoices::GetInvoiceDetailByInvoiceNumberParams;
use abws::api::reconciliation::GetTransactionsParams;
use abws::{blocking, Credentials, Region, Settings};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let a: Vec<String> = std::env::args().collect();
    if a.len() < 8 {
        eprintln!("usage: abws-bench calls|page BASE_URL AUTH_URL CLIENT_ID CLIENT_SECRET REFRESH_TOKEN ...");
        std::process::exit(2);
    }
    let mut settings = Settings::new(
        Region::JP,
        Credentials::RefreshToken {
            client_id: a[4].clone(),
            client_secret: a[5].clone().into(),
            refresh_token: a[6].clone().into(),
        },
    );
    settings.endpoint = Some(a[2].clone());
    settings.auth_endpoint = Some(a[3].clone());
    settings.rate_limiting = false;
    let client = blocking::Client::new(settings)?;
    match a[1].as_str() {
        "calls" if a.len() == 9 => {
            let n: u64 = a[8].parse()?;
            for _ in 0..50 {
                client.invoices().get_invoice_detail_by_invoice_number(
                    &GetInvoiceDetailByInvoiceNumberParams {
                        invoice_number: a[7].to_string(),
                        region: Some("JP".into()),
                    },
                )?;
            }
            let t0 = Instant::now();
            for _ in 0..n {
                client.invoices().get_invoice_detail_by_invoice_number(
                    &GetInvoiceDetailByInvoiceNumberParams {
                        invoice_number: a[7].to_string(),
                        region: Some("JP".into()),
                    },
                )?;
            }
            let s = t0.elapsed().as_secs_f64();
            println!("{{\"calls\":{n},\"seconds\":{s:.6}}}");
        }
        "calls-local" if a.len() == 9 => {
            // Experiment: the async client on a current-thread runtime of this thread.
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
            let c = client.inner()?;
            let n: u64 = a[8].parse()?;
            let p = GetInvoiceDetailByInvoiceNumberParams {
                invoice_number: a[7].to_string(),
                region: Some("JP".into()),
            };
            rt.block_on(async {
                for _ in 0..50 {
                    c.invoices().get_invoice_detail_by_invoice_number(&p).await?;
                }
                Ok::<(), abws::Error>(())
            })?;
            let t0 = Instant::now();
            rt.block_on(async {
                for _ in 0..n {
                    c.invoices().get_invoice_detail_by_invoice_number(&p).await?;
                }
                Ok::<(), abws::Error>(())
            })?;
            let s = t0.elapsed().as_secs_f64();
            println!("{{\"calls\":{n},\"seconds\":{s:.6}}}");
        }
        "page" if a.len() == 10 => {
            let params: GetTransactionsParams = serde_json::from_value(serde_json::json!({
                "feed_start_date": a[7], "feed_end_date": a[8],
            }))?;
            let runs: usize = a[9].parse()?;
            let mut n = client
                .reconciliation()
                .get_transactions(&params)?
                .transactions
                .as_ref()
                .map_or(0, |v| v.len());
            let mut secs = Vec::new();
            for _ in 0..runs {
                let t0 = Instant::now();
                let page = client.reconciliation().get_transactions(&params)?;
                secs.push(t0.elapsed().as_secs_f64());
                n = page.transactions.as_ref().map_or(0, |v| v.len());
            }
            println!(
                "{}",
                serde_json::json!({"transactions": n, "seconds": secs})
            );
        }
        _ => {
            eprintln!("bad arguments");
            std::process::exit(2);
        }
    }
    Ok(())
}
