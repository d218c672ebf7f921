//! The Rust side of docs/benchmarks.md (benches/run.py runs it):
//!
//! `abws-bench calls BASE_URL AUTH_URL CLIENT_ID CLIENT_SECRET REFRESH_TOKEN INVOICE N`
//!   B8: getInvoiceDetailByInvoiceNumber N times through `abws::blocking::Client`;
//!   prints `{"calls":N,"seconds":S}`. N may be a duration instead (`1.5s`, B1): calls
//!   until that much time has passed, checking the clock every 16 calls as B1's Python loop
//!   does. INVOICE may be a comma-separated list: call i asks for invoice i mod its length,
//!   as B1's Python clients do (the invoices differ in size: 1.4 to 1.9 kB).
//! `abws-bench calls-local ...` the same (N or a duration) through the async client on a
//!   current-thread runtime of the calling thread (an experiment; B1's diagnostic row).
//! `abws-bench page BASE_URL AUTH_URL CLIENT_ID CLIENT_SECRET REFRESH_TOKEN START END RUNS`
//!   B2's reference: getTransactions (one big page) RUNS times into typed Rust structs;
//!   prints `{"transactions":N,"seconds":[S, ...]}`.
//! Rate limiting is off.

use std::time::Instant;

use abws::api::invoices::GetInvoiceDetailByInvoiceNumberParams;
use abws::api::reconciliation::GetTransactionsParams;
use abws::{blocking, Credentials, Region, Settings};

/// How long a `calls` run lasts: a number of calls, or a duration (`1.5s`).
#[derive(Clone, Copy)]
enum Budget {
    Calls(u64),
    Seconds(f64),
}

impl Budget {
    fn parse(s: &str) -> Result<Budget, Box<dyn std::error::Error>> {
        Ok(match s.strip_suffix('s') {
            Some(secs) => Budget::Seconds(secs.parse()?),
            None => Budget::Calls(s.parse()?),
        })
    }

    /// Whether a run that has made `n` calls since `t0` goes on.
    fn more(self, n: u64, t0: Instant) -> bool {
        match self {
            Budget::Calls(max) => n < max,
            Budget::Seconds(secs) => n % 16 != 0 || t0.elapsed().as_secs_f64() < secs,
        }
    }
}

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
            let budget = Budget::parse(&a[8])?;
            let params = invoice_params(&a[7]);
            let call = |i: u64| {
                client
                    .invoices()
                    .get_invoice_detail_by_invoice_number(&params[i as usize % params.len()])
            };
            for i in 0..50 {
                call(i)?;
            }
            let t0 = Instant::now();
            let mut n = 0u64;
            while budget.more(n, t0) {
                call(n)?;
                n += 1;
            }
            let s = t0.elapsed().as_secs_f64();
            println!("{{\"calls\":{n},\"seconds\":{s:.6}}}");
        }
        "calls-local" if a.len() == 9 => {
            // Experiment: the async client on a current-thread runtime of this thread.
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?;
            let c = client.inner()?;
            let budget = Budget::parse(&a[8])?;
            let params = invoice_params(&a[7]);
            let p = |i: u64| &params[i as usize % params.len()];
            rt.block_on(async {
                for i in 0..50 {
                    c.invoices()
                        .get_invoice_detail_by_invoice_number(p(i))
                        .await?;
                }
                Ok::<(), abws::Error>(())
            })?;
            let t0 = Instant::now();
            let n = rt.block_on(async {
                let mut n = 0u64;
                while budget.more(n, t0) {
                    c.invoices()
                        .get_invoice_detail_by_invoice_number(p(n))
                        .await?;
                    n += 1;
                }
                Ok::<u64, abws::Error>(n)
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

/// The parameters of each invoice of a comma-separated list.
fn invoice_params(list: &str) -> Vec<GetInvoiceDetailByInvoiceNumberParams> {
    list.split(',')
        .map(|n| GetInvoiceDetailByInvoiceNumberParams {
            invoice_number: n.to_string(),
            region: Some("JP".into()),
        })
        .collect()
}
