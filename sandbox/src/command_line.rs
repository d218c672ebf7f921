//! The emulator's command line, shared by the `abws-sandbox` binary and `abws sandbox`:
//! its options, and the client settings of a running sandbox (as JSON or as shell
//! `export` lines of the `ABWS_*` variables `from_env` reads).

use std::time::Duration;

use crate::{FaultRule, RateLimits, Sandbox, SandboxConfig};

/// The options `parse` takes.
pub const USAGE: &str = "[--port N] [--seed N] [--today YYYY-MM-DD] \
[--rate-limits spec|off] [--token-lifetime SECS] [--time-scale X] [--static] \
[--rotate-refresh-tokens] [--fault SPEC]... [--env REGION]\n\
SPEC: TARGET[,times=N][,probability=P][,listener=api|documents|foreign][,noprocess],KIND[=VALUE]\n\
KIND: status=503 | delay_ms=N | reset | reset_after_bytes=N | truncate | broken_chunking |\n\
      bytes_per_second=N | stall_after_bytes=N | non_json | garbled | oversized_bytes=N | redirect=302@URL\n\
TARGET: an operationId (getInvoices) or a path prefix (/auth/O2/token)";

/// The settings of a client of `sb` for `region`, as (setting name, value): the region,
/// its group's address, the token endpoint, the consent page and the sandbox's pre-issued
/// credentials. Each setting's environment variable is `ABWS_` and its name in capitals.
pub fn client_settings(sb: &Sandbox, region: &str) -> Vec<(&'static str, String)> {
    let d = sb.describe();
    let c = &d["credentials"];
    let text = |v: &serde_json::Value| v.as_str().unwrap_or_default().to_string();
    vec![
        ("region", region.to_ascii_uppercase()),
        ("endpoint", sb.group_url(region)),
        ("auth_endpoint", sb.auth_url()),
        ("consent_endpoint", sb.consent_url()),
        ("client_id", text(&c["client_id"])),
        ("client_secret", text(&c["client_secret"])),
        ("refresh_token", text(&c["refresh_token"])),
        ("user_email", text(&c["user_email"])),
    ]
}

/// `client_settings` as shell `export ABWS_...='...'` lines.
pub fn env_exports(sb: &Sandbox, region: &str) -> String {
    client_settings(sb, region)
        .iter()
        .map(|(k, v)| {
            format!(
                "export ABWS_{}='{}'\n",
                k.to_ascii_uppercase(),
                v.replace('\'', "'\\''")
            )
        })
        .collect()
}

/// `client_settings` as one JSON object (the keys of `abws_client_new`'s settings JSON).
pub fn settings_json(sb: &Sandbox, region: &str) -> serde_json::Value {
    client_settings(sb, region)
        .into_iter()
        .map(|(k, v)| (k.to_string(), serde_json::Value::String(v)))
        .collect::<serde_json::Map<_, _>>()
        .into()
}

/// Reads the options of `USAGE`: the configuration, and `--env`'s region. An empty error
/// is a request for help.
pub fn parse(args: &[String]) -> Result<(SandboxConfig, Option<String>), String> {
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
                check_region(&region).map_err(|e| format!("--env {e}"))?;
                env = Some(region);
            }
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown argument {other}")),
        }
        i += 1;
    }
    Ok((c, env))
}

/// A region code (the sandbox serves every group), or an error naming `flag`.
pub fn check_region(region: &str) -> Result<(), String> {
    const CODES: [&str; 12] = [
        "AU", "CA", "DE", "ES", "FR", "GB", "IN", "IT", "JP", "MX", "UK", "US",
    ];
    if CODES.contains(&region.to_ascii_uppercase().as_str()) {
        Ok(())
    } else {
        Err(format!("needs a region code, one of {}", CODES.join(" ")))
    }
}
