//! `abws close`: the month-end close (`abws::close`, the core's) from a shell: against the
//! service of the `ABWS_*` variables, or with `--sandbox` against the embedded emulator at
//! the spec's rates on a faster clock, as `examples/month_end_close.py` runs it. Progress
//! goes to standard error, the summary (or `--output json`: the whole result) to standard
//! output.

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use abws::close::{CloseParams, CloseProgress, CloseResult, Phase};
use abws_sandbox::command_line::settings_json;
use abws_sandbox::{RateLimits, Sandbox, SandboxConfig};
use clap::{value_parser, Arg, ArgAction, ArgMatches, Command};

use crate::Fail;

/// How much faster the sandbox's clock runs for `--sandbox` (the example's default).
const SANDBOX_TIME_SCALE: f64 = 240.0;

/// A yes/no option: `--{id}` with `_` as `-`.
fn flag(id: &'static str, help: &'static str) -> Arg {
    Arg::new(id)
        .long(id.replace('_', "-"))
        .action(ArgAction::SetTrue)
        .help(help)
}

pub(crate) fn command() -> Command {
    Command::new("close")
        .about("The month-end close: ledger, exceptions and the PDFs in a sealed archive")
        .long_about(
            "The month-end close (docs/close.md): the month's invoices and credit memos \
             matched to the transactions (across the feed's lag), tax by rate, a CSV ledger \
             and exceptions, and every invoice's PDF in an archive sealed under \
             ABWS_ARCHIVE_KEY (64 hex digits), or under a key derived from \
             ABWS_ARCHIVE_PASSWORD (scrypt; `abws decrypt` opens the archive with the \
             password alone). Resumable: run the same command again after an interruption, \
             with the same key or password, and it finishes only what is missing. With \
             --sandbox, against the embedded emulator at the spec's rates, its clock 240 \
             times faster, the archive sealed under the documented sandbox demo key (unless \
             one of the two variables is set).",
        )
        .arg(
            Arg::new("month")
                .long("month")
                .value_name("YYYY-MM")
                .help("The month, ended (default: the previous month in --timezone)"),
        )
        .arg(
            Arg::new("timezone")
                .long("timezone")
                .value_name("ZONE")
                .help(
                    "The zone the month is counted in: UTC (default, the service's dates) or \
                     an IANA name such as Asia/Tokyo; outputs of another zone carry its name",
                ),
        )
        .arg(
            Arg::new("out")
                .long("out")
                .value_name("DIR")
                .value_parser(value_parser!(PathBuf))
                .help("The output directory (default: month-end/REGION)"),
        )
        .arg(flag(
            "sandbox",
            "Close the embedded emulator's month instead of the service's",
        ))
        .arg(flag("no_pdfs", "The ledger and exceptions only"))
        .arg(flag("plan_only", "Print the plan and its estimate, and stop"))
        .arg(flag("fresh", "Ignore (and remove) an earlier run's job state"))
        .arg(
            Arg::new("poll_interval")
                .long("poll-interval")
                .value_name("SECONDS")
                .value_parser(value_parser!(f64))
                .help("Seconds between report polls (default: the library's; with --sandbox: 15 s of its clock)"),
        )
        .arg(
            Arg::new("legal_entity")
                .long("legal-entity")
                .value_name("NAME")
                .help("The ledger and totals of this legal entity only"),
        )
}

pub(crate) fn run(root: &ArgMatches, m: &ArgMatches) -> Result<(), Fail> {
    let region = root.get_one::<String>("region").cloned();
    let timezone = m.get_one::<String>("timezone").cloned();
    let month = match m.get_one::<String>("month") {
        Some(month) => month.clone(),
        None => abws::close::previous_month(timezone.as_deref())?,
    };
    let mut params = CloseParams {
        month,
        timezone,
        region: region.clone(),
        no_pdfs: m.get_flag("no_pdfs"),
        plan_only: m.get_flag("plan_only"),
        fresh: m.get_flag("fresh"),
        legal_entity: m.get_one::<String>("legal_entity").cloned(),
        poll_interval: m.get_one::<f64>("poll_interval").copied(),
        ..Default::default()
    };
    // The summary, unless `--output json` was asked for: the whole result.
    let json = m.value_source("output") == Some(clap::parser::ValueSource::CommandLine)
        && m.get_one::<crate::Format>("output") == Some(&crate::Format::Json);
    let progress = |p: &CloseProgress| report(p);
    let result = if m.get_flag("sandbox") {
        let code = region.unwrap_or_else(|| "JP".into()).to_ascii_uppercase();
        let code = if code == "GB" { "UK".to_string() } else { code };
        params.region = Some(code.clone());
        params.out = out_dir(m, &code);
        params.time_scale = Some(SANDBOX_TIME_SCALE);
        params.poll_interval = params.poll_interval.or(Some(15.0 / SANDBOX_TIME_SCALE));
        if ["ABWS_ARCHIVE_KEY", abws::sealed::password::PASSWORD_ENV]
            .iter()
            .all(|v| std::env::var_os(v).is_none_or(|v| v.is_empty()))
        {
            params.archive_key = Some(abws::close::sandbox_demo_key_hex());
        }
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()?;
        let scale = SANDBOX_TIME_SCALE;
        let sb = rt.block_on(Sandbox::start(SandboxConfig {
            rate_limits: RateLimits::Spec,
            time_scale: scale,
            token_lifetime: Duration::from_secs_f64(3600.0 * scale),
            page_token_lifetime: Duration::from_secs_f64(900.0 * scale),
            presigned_lifetime: Duration::from_secs_f64(300.0 * scale),
            ..Default::default()
        }))?;
        eprintln!(
            "abws {}: closing the embedded sandbox's {} month {} (the spec's rates, {scale}x time)",
            abws::VERSION,
            code,
            params.month
        );
        let settings = abws::settings_json::from_json(&settings_json(&sb, &code), "settings")?;
        let client = abws::blocking::Client::new(settings)?;
        let result = client.close_month_with_progress(&params, &progress);
        drop(sb);
        result?
    } else {
        let client = crate::client(root, m)?;
        let code = region.unwrap_or_else(|| client.settings().region.to_string());
        params.out = out_dir(m, &code);
        eprintln!("abws {}: closing the month {}", abws::VERSION, params.month);
        client.close_month_with_progress(&params, &progress)?
    };
    let mut out = std::io::stdout().lock();
    if json {
        serde_json::to_writer_pretty(&mut out, &result).map_err(std::io::Error::from)?;
        writeln!(out)?;
    } else {
        summary(&mut out, &result)?;
    }
    Ok(())
}

fn out_dir(m: &ArgMatches, region: &str) -> PathBuf {
    m.get_one::<PathBuf>("out")
        .cloned()
        .unwrap_or_else(|| PathBuf::from("month-end").join(region))
}

/// The month before this one (UTC), `YYYY-MM`.
/// One progress line on standard error: the plan once, then each phase's count as it
/// moves (at most every tenth of a phase, and its end).
fn report(p: &CloseProgress) {
    if let (Phase::Plan, Some(plan)) = (p.phase, &p.plan) {
        if let Ok(text) = serde_json::to_string(plan) {
            eprintln!("plan: {text}");
        }
        return;
    }
    let step = (p.total / 10).max(1);
    if p.done == p.total || p.done.is_multiple_of(step) {
        eprintln!("{:?}: {} of {}", p.phase, p.done, p.total);
    }
}

fn summary(out: &mut impl Write, r: &CloseResult) -> std::io::Result<()> {
    writeln!(
        out,
        "{} {}{}: {} invoices, {} credit memos, net {} {}",
        r.region,
        r.month,
        if r.timezone == "UTC" {
            String::new()
        } else {
            format!(" ({}, from {})", r.timezone, r.period_start)
        },
        r.invoices,
        r.credit_memos,
        r.net_total,
        r.currency
    )?;
    for (rate, tax) in &r.tax_by_rate {
        writeln!(out, "  tax at {rate}: {tax} {}", r.currency)?;
    }
    writeln!(
        out,
        "  transactions: {} ({} matched); exceptions: {}",
        r.transactions,
        r.matched,
        r.exceptions.len()
    )?;
    for (what, path) in [
        ("ledger", &r.ledger_path),
        ("exceptions", &r.exceptions_path),
        ("archive", &r.archive_path),
    ] {
        if let Some(p) = path {
            writeln!(out, "  {what}: {}", p.display())?;
        }
    }
    if r.archive_path.is_some() {
        writeln!(out, "  PDFs: {} filed (sealed)", r.pdfs_filed)?;
    }
    if !r.complete {
        writeln!(out, "  (the plan only: nothing filed)")?;
    }
    Ok(())
}
