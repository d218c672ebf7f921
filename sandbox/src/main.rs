//! `abws-sandbox`: runs the emulator until Ctrl-C, printing its addresses and credentials as
//! one JSON line on stdout, or with `--env REGION` as `export ABWS_...=...` lines for a
//! shell (`abws.Client.from_env()`, `abws_client_from_env`).

use std::time::Duration;

use abws_sandbox::{FaultRule, RateLimits, Sandbox, SandboxConfig};

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const USAGE: &str = "usage: abws-sandbox [--port N] [--seed N] [--today YYYY-MM-DD] \
[--rate-limits spec|off] [--token-lifetime SECS] [--time-scale X] [--static] \
[--rotate-refresh-tokens] [--fault SPEC]... [--env REGION]\n\
SPEC: TARGET[,times=N][,probability=P][,listener=api|documents|foreign][,noprocess],KIND[=VALUE]\n\
KIND: status=503 | delay_ms=N | reset | reset_after_bytes=N | truncate | broken_chunking |\n\
      bytes_per_second=N | stall_after_bytes=N | non_json | garbled | oversized_bytes=N | redirect=302@URL\n\
TARGET: an operationId (getInvoices) or a path prefix (/auth/O2/token)";

/// The settings of a client of `sb` for `region` as shell `export` lines of the `ABWS_*`
/// variables `from_env` reads: the region's group address, the token endpoint, the consent
/// page and the sandbox's pre-issued credentials.
fn env_exports(sb: &Sandbox, region: &str) -> String {
    let d = sb.describe();
    let c = &d["credentials"];
    let text = |v: &serde_json::Value| v.as_str().unwrap_or_default().to_string();
    [
        ("ABWS_REGION", region.to_ascii_uppercase()),
        ("ABWS_ENDPOINT", sb.group_url(region)),
        ("ABWS_AUTH_ENDPOINT", sb.auth_url()),
        ("ABWS_CONSENT_ENDPOINT", sb.consent_url()),
        ("ABWS_CLIENT_ID", text(&c["client_id"])),
        ("ABWS_CLIENT_SECRET", text(&c["client_secret"])),
        ("ABWS_REFRESH_TOKEN", text(&c["refresh_token"])),
        ("ABWS_USER_EMAIL", text(&c["user_email"])),
    ]
    .iter()
    .map(|(k, v)| format!("export {k}='{}'\n", v.replace('\'', "'\\''")))
    .collect()
}

fn parse(args: &[String]) -> Result<(SandboxConfig, Option<String>), String> {
    let mut c = SandboxConfig::default();
    let mut env = None;
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
            "--env" => {
                let region = val()?;
                check_region(&region)?;
                env = Some(region);
            }
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown argument {other}")),
        }
        i += 1;
    }
    Ok((c, env))
}

/// `--env`'s region must be a region code (the sandbox serves every group).
fn check_region(region: &str) -> Result<(), String> {
    const CODES: [&str; 12] = [
        "AU", "CA", "DE", "ES", "FR", "GB", "IN", "IT", "JP", "MX", "UK", "US",
    ];
    if CODES.contains(&region.to_ascii_uppercase().as_str()) {
        Ok(())
    } else {
        Err(format!(
            "--env needs a region code, one of {}",
            CODES.join(" ")
        ))
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (config, env) = match parse(&args) {
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
        match &env {
            Some(region) => print!("{}", env_exports(&sb, region)),
            None => println!("{}", sb.describe()),
        }
        let _ = std::io::Write::flush(&mut std::io::stdout());
        let _ = tokio::signal::ctrl_c().await;
        sb.stop();
    });
}
