//! `abws-sandbox`: runs the emulator until Ctrl-C, printing its addresses and credentials as
//! one JSON line on stdout.

use std::time::Duration;

use abws_sandbox::{FaultRule, RateLimits, Sandbox, SandboxConfig};

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const USAGE: &str = "usage: abws-sandbox [--port N] [--seed N] [--today YYYY-MM-DD] \
[--rate-limits spec|off] [--token-lifetime SECS] [--time-scale X] [--static] \
[--rotate-refresh-tokens] [--fault SPEC]...\n\
SPEC: TARGET[,times=N][,probability=P][,listener=api|documents|foreign][,noprocess],KIND[=VALUE]\n\
KIND: status=503 | delay_ms=N | reset | reset_after_bytes=N | truncate | broken_chunking |\n\
      bytes_per_second=N | stall_after_bytes=N | non_json | garbled | oversized_bytes=N | redirect=302@URL\n\
TARGET: an operationId (getInvoices) or a path prefix (/auth/O2/token)";

fn parse(args: &[String]) -> Result<SandboxConfig, String> {
    let mut c = SandboxConfig::default();
    let mut i = 0;
    while i < args.len() {
        let flag = args[i].as_str();
        let mut val = || -> Result<String, String> {
            i += 1;
            args.get(i).cloned().ok_or(format!("{flag} needs a value"))
        };
        match flag {
            "--port" => c.port = val()?.parse().map_err(|_| "bad --port")?,
            "--seed" => c.seed = val()?.parse().map_err(|_| "bad --seed")?,
            "--today" => {
                c.today = Some(
                    chrono::NaiveDate::parse_from_str(&val()?, "%Y-%m-%d")
                        .map_err(|_| "bad --today (YYYY-MM-DD)")?,
                )
            }
            "--rate-limits" => {
                c.rate_limits = match val()?.as_str() {
                    "spec" => RateLimits::Spec,
                    "off" => RateLimits::Off,
                    _ => return Err("--rate-limits is spec or off".into()),
                }
            }
            "--token-lifetime" => {
                c.token_lifetime =
                    Duration::from_secs(val()?.parse().map_err(|_| "bad --token-lifetime")?)
            }
            "--time-scale" => {
                let x: f64 = val()?.parse().map_err(|_| "bad --time-scale")?;
                if !(x.is_finite() && x > 0.0) {
                    return Err("--time-scale must be > 0".into());
                }
                c.time_scale = x;
            }
            "--static" => c.static_mode = true,
            "--rotate-refresh-tokens" => c.rotate_refresh_tokens = true,
            "--fault" => c.faults.push(FaultRule::parse(&val()?)?),
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown argument {other}")),
        }
        i += 1;
    }
    Ok(c)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let config = match parse(&args) {
        Ok(c) => c,
        Err(e) => {
            if !e.is_empty() {
                eprintln!("abws-sandbox: {e}");
            }
            eprintln!("{USAGE}");
            std::process::exit(if e.is_empty() { 0 } else { 2 });
        }
    };
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("abws-sandbox: {e}");
            std::process::exit(1);
        }
    };
    rt.block_on(async {
        let sb = match Sandbox::start(config).await {
            Ok(sb) => sb,
            Err(e) => {
                eprintln!("abws-sandbox: cannot listen: {e}");
                std::process::exit(1);
            }
        };
        println!("{}", sb.describe());
        let _ = std::io::Write::flush(&mut std::io::stdout());
        let _ = tokio::signal::ctrl_c().await;
        sb.stop();
    });
}
