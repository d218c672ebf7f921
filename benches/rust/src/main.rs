//! The Rust side of docs/benchmarks.md (benches/run.py runs it):
//!
//! `abws-bench calls BASE_URL AUTH_URL CLIENT_ID CLIENT_SECRET REFRESH_TOKEN INVOICE N`
//!   B8: getInvoiceDetailByInvoiceNumber N times through `abws::blocking::Client`;
//!   prints `{"calls":N,"seconds":S,"warm_up":W}` (W: the untimed calls before, `warm_up`).
//!   N may be a duration instead (`1.5s`, B1): calls until that much time has passed,
//!   checking the clock every 16 calls as B1's Python loop does. INVOICE may be a
//!   comma-separated list: call i asks for invoice i mod its length, as B1's Python
//!   clients do (the invoices differ in size: 1.4 to 1.9 kB).
//! `abws-bench calls-local ...` the same (N or a duration) through the async client on a
//!   current-thread runtime of the calling thread (an earlier experiment; the blocking facade
//!   now works this way, docs/decisions/011-transport.md).
//! `abws-bench raw REQUESTS.json N` and `abws-bench reqwest REQUESTS.json N`: B1's floors in
//!   Rust, no abws: the same GETs (REQUESTS.json: `{"urls": [...], "headers": {...}}`, call i
//!   asks for url i mod their number) for N calls or a duration, as prebuilt bytes on a
//!   `std::net::TcpStream` read to their Content-Length (`raw`), or through a bare
//!   `reqwest::Client` on a current-thread runtime, the body read whole and not parsed
//!   (`reqwest`: the HTTP stack abws is built on, alone); prints `{"calls":N,"seconds":S,
//!   "warm_up":W}`.
//!   Built with `--features ureq`, `abws-bench ureq REQUESTS.json N` does the same through a
//!   ureq `Agent` (benches/ureq_probe.py: a synchronous HTTP library, measured once).
//! `abws-bench page BASE_URL AUTH_URL CLIENT_ID CLIENT_SECRET REFRESH_TOKEN START END RUNS`
//!   B2's reference: getTransactions (one big page) RUNS times into typed Rust structs;
//!   prints `{"transactions":N,"seconds":[S, ...]}`.
//! Rate limiting is off.

use std::io::{Read, Write};
use std::net::TcpStream;
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
            Budget::Seconds(secs) => !n.is_multiple_of(16) || t0.elapsed().as_secs_f64() < secs,
        }
    }
}

/// Untimed calls before a timed run: at least 50 and for at least `WARM_UP_SECS`. On the
/// benchmark VM a round trip runs up to 4x faster for ~60 ms after the machine has idled
/// (as it may while this process starts), so a run timed at once would start in that
/// spell (benches/analysis.md, "The fast spell"; `benches/probes.py idle-spell`).
/// Returns the number of calls made (printed as `warm_up`, for per-call CPU figures).
fn warm_up<T, E>(mut call: impl FnMut(u64) -> Result<T, E>) -> Result<u64, E> {
    const WARM_UP_SECS: f64 = 0.25;
    let t0 = Instant::now();
    let mut i = 0u64;
    while i < 50 || t0.elapsed().as_secs_f64() < WARM_UP_SECS {
        call(i)?;
        i += 1;
    }
    Ok(i)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let a: Vec<String> = std::env::args().collect();
    if a.len() == 4 && ["raw", "reqwest", "ureq"].contains(&a[1].as_str()) {
        return floor(&a[1], &a[2], Budget::parse(&a[3])?);
    }
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
            let w = warm_up(&call)?;
            let t0 = Instant::now();
            let mut n = 0u64;
            while budget.more(n, t0) {
                call(n)?;
                n += 1;
            }
            let s = t0.elapsed().as_secs_f64();
            println!("{{\"calls\":{n},\"seconds\":{s:.6},\"warm_up\":{w}}}");
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
            let w =
                warm_up(|i| rt.block_on(c.invoices().get_invoice_detail_by_invoice_number(p(i))))?;
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
            println!("{{\"calls\":{n},\"seconds\":{s:.6},\"warm_up\":{w}}}");
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

type BoxError = Box<dyn std::error::Error>;

/// Calls through no client at all (`raw`), bare reqwest (`reqwest`) or ureq, after the
/// warm-up (`warm_up`); each answer must be a 200 of more than 1,000 bytes.
fn floor(mode: &str, requests: &str, budget: Budget) -> Result<(), BoxError> {
    let spec: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(requests)?)?;
    let urls: Vec<&str> = spec["urls"]
        .as_array()
        .ok_or("no urls")?
        .iter()
        .filter_map(|u| u.as_str())
        .collect();
    let mut headers: Vec<(&str, &str)> = spec["headers"]
        .as_object()
        .ok_or("no headers")?
        .iter()
        .filter_map(|(k, v)| Some((k.as_str(), v.as_str()?)))
        .collect();
    headers.push(("accept", "application/json"));
    let mut call: Box<dyn FnMut(u64) -> Result<usize, BoxError>> = match mode {
        "raw" => {
            let mut raw = RawGet::new(&urls, &headers)?;
            Box::new(move |i| raw.call(i as usize))
        }
        #[cfg(feature = "ureq")]
        "ureq" => {
            let agent: ureq::Agent = ureq::Agent::config_builder()
                .proxy(None)
                .http_status_as_error(false)
                .build()
                .into();
            let urls: Vec<String> = urls.iter().map(|u| u.to_string()).collect();
            Box::new(move |i| {
                let mut rb = agent.get(&urls[i as usize % urls.len()]);
                for (k, v) in &headers {
                    rb = rb.header(*k, *v);
                }
                let mut r = rb.call()?;
                if r.status() != 200 {
                    return Err(format!("status {}", r.status()).into());
                }
                Ok(r.body_mut().read_to_vec()?.len())
            })
        }
        "reqwest" => {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?;
            let client = reqwest::Client::builder()
                .tcp_nodelay(true)
                .redirect(reqwest::redirect::Policy::none())
                .no_proxy()
                .build()?;
            let urls: Vec<reqwest::Url> =
                urls.iter().map(|u| u.parse()).collect::<Result<_, _>>()?;
            Box::new(move |i| {
                rt.block_on(async {
                    let mut rb = client.get(urls[i as usize % urls.len()].clone());
                    for (k, v) in &headers {
                        rb = rb.header(*k, *v);
                    }
                    let r = rb.send().await?;
                    if r.status() != 200 {
                        return Err(format!("status {}", r.status()).into());
                    }
                    Ok(r.bytes().await?.len())
                })
            })
        }
        _ => return Err(format!("{mode}: not in this build").into()),
    };
    let w = warm_up(&mut call)?;
    let t0 = Instant::now();
    let mut n = 0u64;
    while budget.more(n, t0) {
        let len = call(n)?;
        if len <= 1000 {
            return Err(format!("a body of {len} bytes").into());
        }
        n += 1;
    }
    let s = t0.elapsed().as_secs_f64();
    println!("{{\"calls\":{n},\"seconds\":{s:.6},\"warm_up\":{w}}}");
    Ok(())
}

/// benches/run.py's `RawGet` in Rust: prebuilt GETs on one keep-alive socket, each answer
/// read to its Content-Length, nothing else parsed.
struct RawGet {
    sock: TcpStream,
    requests: Vec<Vec<u8>>,
    buf: Vec<u8>,
}

impl RawGet {
    fn new(urls: &[&str], headers: &[(&str, &str)]) -> Result<RawGet, BoxError> {
        let first = reqwest::Url::parse(urls.first().ok_or("no urls")?)?;
        let host = format!(
            "{}:{}",
            first.host_str().ok_or("no host")?,
            first.port_or_known_default().ok_or("no port")?
        );
        let head: String = headers
            .iter()
            .map(|(k, v)| format!("{k}: {v}\r\n"))
            .collect();
        let requests = urls
            .iter()
            .map(|u| {
                let u = reqwest::Url::parse(u)?;
                let query = u.query().map(|q| format!("?{q}")).unwrap_or_default();
                Ok(format!(
                    "GET {}{query} HTTP/1.1\r\nhost: {host}\r\n{head}\r\n",
                    u.path()
                )
                .into_bytes())
            })
            .collect::<Result<_, BoxError>>()?;
        let sock = TcpStream::connect(&host)?;
        sock.set_nodelay(true)?;
        Ok(RawGet {
            sock,
            requests,
            buf: Vec::with_capacity(1 << 16),
        })
    }

    /// The body length of call i's answer.
    fn call(&mut self, i: usize) -> Result<usize, BoxError> {
        self.sock
            .write_all(&self.requests[i % self.requests.len()])?;
        self.buf.clear();
        let mut chunk = [0u8; 65536];
        let mut end: Option<(usize, usize)> = None; // (head length, whole answer length)
        loop {
            if end.is_none() {
                if let Some(p) = self.buf.windows(4).position(|w| w == b"\r\n\r\n") {
                    let head = String::from_utf8_lossy(&self.buf[..p]).to_ascii_lowercase();
                    if !head.starts_with("http/1.1 200") {
                        return Err(format!("raw: {}", head.lines().next().unwrap_or("")).into());
                    }
                    let len: usize = head
                        .split("content-length:")
                        .nth(1)
                        .and_then(|x| x.lines().next())
                        .ok_or("no content-length")?
                        .trim()
                        .parse()?;
                    end = Some((p + 4, p + 4 + len));
                }
            }
            if let Some((head, total)) = end {
                if self.buf.len() >= total {
                    return Ok(total - head);
                }
            }
            let n = self.sock.read(&mut chunk)?;
            if n == 0 {
                return Err("raw: the sandbox closed the connection".into());
            }
            self.buf.extend_from_slice(&chunk[..n]);
        }
    }
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
