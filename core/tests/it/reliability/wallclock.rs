//! E9: a wall-clock jump of ±1 h must not make the client send an expired token.
//!
//! No libfaketime here or in CI, so `wallclock_shim.c` (LD_PRELOAD) shifts the wall clock of a
//! re-executed child by an offset the parent rewrites while the child calls the API; monotonic
//! clocks are untouched. The child prints its clock readings, so the parent can check the jumps
//! really happened; the figure is counted by the sandbox, which runs unshimmed in the parent.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use abws::Region;
use abws_sandbox::Sandbox;

use super::{figure, Figure};
use crate::common;
use crate::common::calls::invoice_detail;

/// The value of ABWS_RELIABILITY_CHILD that makes the test `reliability::child` run `child`.
pub const CHILD: &str = "e9";
const OFFSET_FILE: &str = "ABWS_WALLCLOCK_OFFSET_FILE";
const SANDBOX: &str = "ABWS_E9_SANDBOX";
const INVOICE: &str = "ABWS_E9_INVOICE";
/// Short enough for the run to span several lifetimes (the client refreshes at 4/5 of it).
const LIFETIME: Duration = Duration::from_secs(3);
/// The child's wall-clock offset, phase after phase: jumps of +1 h, −1 h, −1 h, +1 h.
const OFFSETS: [i64; 4] = [3600, 0, -3600, 0];
const PHASE: Duration = Duration::from_millis(1500);

pub fn e9() -> Figure {
    let dir = std::env::temp_dir().join(format!("abws-e9-{}", std::process::id()));
    let r = measure(&dir);
    let _ = std::fs::remove_dir_all(&dir);
    r.unwrap_or_else(|e| figure("E9", false, format!("not measured: {e}")))
}

/// Written then renamed, so the shim never reads a half-written number.
fn set_offset(file: &Path, seconds: i64) {
    let tmp = file.with_extension("tmp");
    std::fs::write(&tmp, seconds.to_string()).expect("offset file");
    std::fs::rename(&tmp, file).expect("offset file");
}

fn counter(sb: &Sandbox, path: &[&str]) -> u64 {
    let c = sb.counters();
    path.iter().fold(&c, |v, k| &v[*k]).as_u64().unwrap_or(0)
}

fn measure(dir: &Path) -> Result<Figure, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let shim = super::shim::build("wallclock", "wall-clock", dir)?;
    let offset = dir.join("offset");
    set_offset(&offset, 0);
    let sb = common::sandbox_with(|c| c.token_lifetime = LIFETIME);
    let mut child = Command::new(std::env::current_exe().expect("own binary"))
        .args(super::CHILD_ARGS)
        .env("ABWS_RELIABILITY_CHILD", CHILD)
        .env("LD_PRELOAD", &shim)
        .env(OFFSET_FILE, &offset)
        .env(SANDBOX, sb.describe().to_string())
        .env(INVOICE, common::calls::first_invoice(&sb))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start the child: {e}"))?;
    let mut lines = BufReader::new(child.stdout.take().expect("piped")).lines();
    // The child's first reading (after the test harness's header): its first call is done,
    // the jumps can start.
    let is_reading = |l: &String| l.split(' ').filter(|x| x.parse::<i128>().is_ok()).count() == 3;
    let Some(Ok(first)) = lines.find(|l| l.as_ref().map_or(true, is_reading)) else {
        let _ = child.kill();
        return Err(format!("the child made no call ({:?})", child.wait()));
    };
    for seconds in OFFSETS {
        std::thread::sleep(PHASE);
        set_offset(&offset, seconds);
    }
    std::thread::sleep(PHASE);
    drop(child.stdin.take()); // tells the child to stop
    let readings: Vec<[i128; 3]> = std::iter::once(first)
        .chain(lines.map_while(Result::ok))
        .filter_map(|l| {
            let v: Vec<i128> = l.split(' ').filter_map(|x| x.parse().ok()).collect();
            v.try_into().ok()
        })
        .collect();
    let status = child.wait().map_err(|e| e.to_string())?;

    // Wall minus monotonic reading: constant but for the jumps.
    let jumps: Vec<i128> = readings
        .windows(2)
        .map(|w| ((w[1][1] - w[1][0]) - (w[0][1] - w[0][0])) as f64 / 1000.0)
        .filter(|d| d.abs() > 600.0)
        .map(|d| d.round() as i128)
        .collect();
    let mut at = 0;
    let wanted: Vec<i128> = OFFSETS
        .iter()
        .map(|&o| (o - std::mem::replace(&mut at, o)) as i128)
        .collect();
    let jumped =
        jumps.len() == wanted.len() && jumps.iter().zip(&wanted).all(|(j, w)| (j - w).abs() <= 2);

    let expired = counter(&sb, &["accessTokenRejected", "expired"])
        + counter(&sb, &["accessTokenRejected", "invalid"]);
    let refreshes = counter(&sb, &["tokenCalls", "refresh_token"]);
    let calls = readings.len();
    let failed = readings.iter().filter(|r| r[2] != 1).count();
    let span = readings.last().map_or(0, |r| r[0]) as f64 / 1000.0;
    // One refresh per refresh interval, plus the first token: no storm after the +1 h jump.
    let interval = (LIFETIME - abws::auth::refresh_margin(LIFETIME)).as_secs_f64();
    let no_storm = refreshes as f64 <= span / interval + 2.0;
    let shown: Vec<String> = jumps
        .iter()
        .map(|j| format!("{j:+} s").replace('-', "−"))
        .collect();
    let observed = if shown.is_empty() {
        "nothing".to_string()
    } else {
        shown.join(" / ")
    };
    let mut text = format!(
        "{expired} requests sent with an expired token across wall-clock jumps of +1 h and −1 h \
         ({calls} calls over {span:.1} s, {refreshes} refreshes of a {} s token, wall clock \
         observed to jump by {observed})",
        LIFETIME.as_secs()
    );
    if failed > 0 || !status.success() {
        text.push_str(&format!("; {failed} calls failed, child {status}"));
    }
    if !no_storm {
        text.push_str("; refresh storm");
    }
    let pass = expired == 0 && jumped && no_storm && calls > 0 && failed == 0 && status.success();
    Ok(figure("E9", pass, text))
}

/// The child (under the shim): calls the API every 50 ms until its stdin closes, printing after
/// each call "<monotonic ms since start> <wall-clock ms since the epoch> <1 if ok, else 0>".
pub fn child() {
    let d: serde_json::Value =
        serde_json::from_str(&std::env::var(SANDBOX).expect("sandbox")).expect("sandbox JSON");
    let number = std::env::var(INVOICE).expect("invoice number");
    let client = abws::blocking::Client::new(common::settings_from(&d, Region::JP)).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let s = stop.clone();
    std::thread::spawn(move || {
        let _ = std::io::copy(&mut std::io::stdin(), &mut std::io::sink());
        s.store(true, Ordering::SeqCst);
    });
    let start = Instant::now();
    while !stop.load(Ordering::SeqCst) {
        let ok = invoice_detail(&client, &number).is_ok();
        let mono = start.elapsed().as_millis();
        let wall = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
        println!("{mono} {} {}", wall.as_millis(), u8::from(ok));
        std::thread::sleep(Duration::from_millis(50));
    }
}
