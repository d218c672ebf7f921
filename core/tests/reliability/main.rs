//! The reliability scorecard: every fault scenario of the reliability plan (sections A–L)
//! that concerns the core, run against the sandbox over real loopback HTTP, each checked
//! against its bar. Writes `docs/reliability.md` and ends with "N passed, M failed".
//!
//! CI sizes are the default; `ABWS_RELIABILITY_FULL=1` runs the plan's full sizes
//! (minutes, not seconds) — the figures it printed last are in docs/reliability.md.

#[path = "../common/mod.rs"]
mod common;

mod auth;
mod concurrency;
mod decoding;
mod documents;
mod freed_memory;
mod network;
mod paging;
mod security;
mod server;
mod throttling;
mod wallclock;

use std::panic::AssertUnwindSafe;
use std::time::Instant;

/// One scenario's result: its id, the figure in the plan's form, and whether the bar held.
pub struct Figure {
    pub id: &'static str,
    pub text: String,
    pub pass: bool,
}

pub fn figure(id: &'static str, pass: bool, text: impl Into<String>) -> Figure {
    Figure {
        id,
        text: text.into(),
        pass,
    }
}

/// True when the plan's full sizes were asked for.
pub fn full() -> bool {
    std::env::var("ABWS_RELIABILITY_FULL").is_ok_and(|v| v == "1")
}

/// N for CI, or the plan's N.
pub fn n(ci: usize, plan: usize) -> usize {
    if full() {
        plan
    } else {
        ci
    }
}

type Scenario = fn() -> Vec<Figure>;

const SCENARIOS: &[(&str, Scenario)] = &[
    ("A", throttling::run),
    ("B", server::run),
    ("C", network::run_c),
    ("D", network::run_d),
    ("E", auth::run),
    ("F", paging::run),
    ("G", documents::run),
    ("H", decoding::run),
    ("I", concurrency::run),
    ("L", security::run),
];

/// The nine headline figures of the plan's section 7, from the scenario lines.
const HEADLINES: &[(&str, &[&str])] = &[
    (
        "Transient faults survived on retry-safe operations",
        &["B1", "C1", "C2", "C3", "D1", "A4"],
    ),
    ("Duplicate side effects", &["B3", "C2", "A5"]),
    ("Throttling", &["A1", "E2"]),
    ("Pagination", &["E1", "F1", "F2", "F3", "C3"]),
    ("Documents", &["G3", "G4", "G5", "G8"]),
    ("Secrets", &["L1", "L2"]),
    ("Robustness", &["H1", "H2"]),
    ("C ABI", &["K"]),
    ("Python", &["J"]),
];

fn main() {
    match std::env::var("ABWS_RELIABILITY_CHILD").as_deref() {
        // Re-executed by E9 under the wall-clock shim: run the client calls only.
        Ok(wallclock::CHILD) => return wallclock::child(),
        // Re-executed by G8 with a watched TMPDIR/HOME: run the document work only.
        Ok(_) => {
            documents::child_downloads();
            return;
        }
        Err(_) => {}
    }
    let only = std::env::args().nth(1).filter(|a| !a.starts_with('-'));
    let started = Instant::now();
    let mut figures = vec![];
    for (section, run) in SCENARIOS {
        if only.as_deref().is_some_and(|o| o != *section) {
            continue;
        }
        let t = Instant::now();
        match std::panic::catch_unwind(AssertUnwindSafe(run)) {
            Ok(fs) => figures.extend(fs),
            Err(p) => {
                let msg = p
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                figures.push(figure(
                    "panic",
                    false,
                    format!("section {section} panicked: {msg}"),
                ));
            }
        }
        eprintln!("section {section}: {:.1} s", t.elapsed().as_secs_f64());
    }
    let passed = figures.iter().filter(|f| f.pass).count();
    let failed = figures.len() - passed;
    for f in &figures {
        println!(
            "{} {}: {}",
            if f.pass { "ok  " } else { "FAIL" },
            f.id,
            f.text
        );
    }
    if only.is_none() {
        write_scorecard(&figures, started.elapsed().as_secs_f64());
    }
    println!("{passed} passed, {failed} failed");
    if failed > 0 {
        std::process::exit(1);
    }
}

fn write_scorecard(figures: &[Figure], seconds: f64) {
    let mut out = String::from(
        "# Reliability scorecard\n\n\
         Written by the test command (`cargo test -p abws --test reliability`, part of `make test`)\n\
         from the scenarios of `../shared/reliability-plan.md`, run against the sandbox over real\n\
         loopback HTTP. Python (J) and C (K) scenarios are reported by their own suites below\n\
         the Rust ones when those suites ran.\n\n\
         Two files: `reliability.md` holds the last run at CI sizes (every `make test`);\n\
         `reliability-full.md` the last run at the plan's sizes (A1 at 0.5 rps over ~380 s, B3\n\
         with N = 500 each, C2/C3/F1 with 50–100 trials, I1 with 200 calls per thread), which\n\
         takes longer than CI allows: `ABWS_RELIABILITY_FULL=1 cargo test -p abws --test\n\
         reliability` writes it.\n\n",
    );
    out.push_str(&format!(
        "Run: {} sizes, {}, {:.0} s, {} scenarios, {} met their bar.\n\n## Headline figures\n\n",
        if full() { "full" } else { "CI" },
        chrono::Utc::now().format("%Y-%m-%d %H:%M UTC"),
        seconds,
        figures.len(),
        figures.iter().filter(|f| f.pass).count()
    ));
    for (i, (title, ids)) in HEADLINES.iter().enumerate() {
        let lines: Vec<String> = figures
            .iter()
            .filter(|f| ids.contains(&f.id))
            .map(|f| {
                format!(
                    "{} {}{}",
                    f.id,
                    f.text,
                    if f.pass { "" } else { " **(bar missed)**" }
                )
            })
            .collect();
        let body = if lines.is_empty() {
            "reported by the binding's own suite (see below)".to_string()
        } else {
            lines.join("; ")
        };
        out.push_str(&format!("{}. **{title}**: {body}\n", i + 1));
    }
    out.push_str("\n## Every scenario\n\n| ID | Figure | Bar met |\n|---|---|---|\n");
    for f in figures {
        out.push_str(&format!(
            "| {} | {} | {} |\n",
            f.id,
            f.text.replace('|', "/"),
            if f.pass { "yes" } else { "**no**" }
        ));
    }
    let extra =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/reliability-bindings.md");
    if let Ok(text) = std::fs::read_to_string(&extra) {
        out.push_str("\n## Bindings\n\n");
        out.push_str(&text);
    }
    let name = if full() {
        "reliability-full.md"
    } else {
        "reliability.md"
    };
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../docs")
        .join(name);
    if let Err(e) = std::fs::write(&path, out) {
        eprintln!("cannot write {}: {e}", path.display());
    }
}
