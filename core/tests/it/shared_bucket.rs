//! The rate-limit bucket against what it cannot trust: numbers read back from Redis that
//! another program (or a corruption) left there (S1), and a machine so busy that
//! requests reach the server later than their slot (pacing under load). Both
//! against the sandbox's spec limits, over loopback, with a real `redis-server`; both are
//! also rows of the reliability scorecard (S1, A6: `reliability::bucket`).

use std::time::{Duration, Instant};

use abws::{blocking, Region};
use abws_sandbox::{FaultAction, FaultRule, RateLimits, Sandbox};

use crate::common::calls::invoice_detail;
use crate::common::{self, redis::Redis};
use crate::reliability::{capture_logs, figure, Figure};

const OP: &str = "getInvoiceDetailByInvoiceNumber";

fn client(sb: &Sandbox, redis: Option<&Redis>) -> blocking::Client {
    let mut s = common::settings(sb, Region::JP);
    s.rate_limiting = true;
    s.shared_state = redis.map(|r| r.url().into());
    blocking::Client::new(s).unwrap()
}

/// `threads` threads making `each` calls on `c`; how many succeeded, and whether any
/// panicked.
fn calls(c: &blocking::Client, numbers: &[String], threads: usize, each: usize) -> (usize, bool) {
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                s.spawn(move || {
                    (0..each)
                        .filter(|i| {
                            invoice_detail(c, &numbers[(t * each + i) % numbers.len()]).is_ok()
                        })
                        .count()
                })
            })
            .collect();
        let joined: Vec<_> = handles.into_iter().map(|h| h.join()).collect();
        let panicked = joined.iter().any(|r| r.is_err());
        (joined.into_iter().flatten().sum(), panicked)
    })
}

/// What a value the bucket scripts wrote back reads as: a finite number, or nothing.
fn stored(redis: &Redis, key: &str, field: &str) -> Option<f64> {
    let v = redis.cli(&["HGET", key, field]);
    (!v.is_empty()).then(|| v.parse::<f64>().unwrap_or(f64::NAN))
}

/// S1: every invalid number written into the account's bucket (a schedule of 1e300, NaN,
/// ±inf or text; a rate of 0, -1, 1e9, NaN, text or 1e5, above what a server may report;
/// a burst of 1e9, a field the bucket does not read) is repaired or ignored with a warning: the calls after it succeed, paced (the
/// sandbox answers no 429), none panics, and what is stored afterwards is sane.
pub fn s1() -> Figure {
    let logs = capture_logs();
    let sb = common::sandbox_with(|c| c.rate_limits = RateLimits::Spec);
    sb.set_rate(OP, 10.0, 2);
    let numbers = common::previous_month_invoices(&sb);
    let redis = Redis::start();
    let c = client(&sb, Some(&redis));
    assert_eq!(calls(&c, &numbers, 1, 1), (1, false));
    let keys = redis.cli(&["KEYS", "abws:*:rl:*"]);
    let key = keys.lines().next().expect("the bucket's key").to_string();
    let cases = [
        ("tat", "1e300"),
        ("tat", "nan"),
        ("tat", "inf"),
        ("tat", "-inf"),
        ("tat", "garbage"),
        ("rate", "0"),
        ("rate", "-1"),
        ("rate", "1e9"),
        ("rate", "nan"),
        ("rate", "garbage"),
        ("rate", "1e5"),
        ("burst", "1e9"),
    ];
    let (threads, each) = (2, 4);
    let mut failures = vec![];
    let mut slowest = Duration::ZERO;
    for (field, value) in cases {
        let before = common::throttled(&sb);
        let set = redis.cli(&["HSET", &key, field, value]);
        assert!(set == "0" || set == "1", "HSET answered {set}");
        let t = Instant::now();
        let (ok, panicked) = calls(&c, &numbers, threads, each);
        let took = t.elapsed();
        slowest = slowest.max(took);
        let t429 = common::throttled(&sb) - before;
        let now_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs_f64()
            * 1000.0;
        let tat = stored(&redis, &key, "tat");
        let tat_sane = tat.is_some_and(|t| t.is_finite() && t < now_ms + 5_000.0);
        let rate = stored(&redis, &key, "rate");
        let rate_sane = rate.is_none_or(|r| r.is_finite() && r > 0.0 && r <= 100.0);
        // Paced: (8 − 2) slots of ~0.1 s, and no 429 but (on a loaded machine) one request
        // later than the time margin; unpaced, the 8 calls met 2 to 13.
        if panicked || ok != threads * each || t429 > 1 || !tat_sane || !rate_sane {
            failures.push(format!(
                "{field}={value}: {ok}/{} ok, panicked {panicked}, {t429} x 429, in {} ms, \
                 stored tat {tat:?} rate {rate:?}",
                threads * each,
                took.as_millis()
            ));
        }
    }
    let text = logs.text();
    let warned = ["tat", "rate"]
        .iter()
        .all(|f| text.contains(&format!("held an invalid {f} ")));
    figure(
        "S1",
        failures.is_empty() && warned,
        format!(
            "{} invalid numbers written into the shared bucket in Redis (tat 1e300, nan, ±inf, text; \
             rate 0, -1, 1e9, nan, text, 1e5; burst 1e9): {} case(s) failed{}; \
             0 panics and at most 1 x 429 a case required; slowest 8 calls {} ms; warning logged for tat and rate: {warned}",
            cases.len(),
            failures.len(),
            if failures.is_empty() {
                String::new()
            } else {
                format!(" ({})", failures.join("; "))
            },
            slowest.as_millis()
        ),
    )
}

/// A6: a burst whose requests reach the server late. The sandbox holds the first 10
/// requests 40 ms before its rate limit counts them (as a loaded machine schedules the
/// sending thread, or the server, late); 10 threads make 3 calls each at 10 requests/s with
/// a burst of 10. Without the time margin the 11th request reaches a bucket that refilled
/// for 60 ms only: a 429.
pub fn late_burst(shared: bool) -> (u64, usize) {
    let sb = common::sandbox_with(|c| c.rate_limits = RateLimits::Spec);
    sb.set_rate(OP, 10.0, 10);
    let numbers = common::previous_month_invoices(&sb);
    let redis = shared.then(Redis::start);
    let c = client(&sb, redis.as_ref());
    // The token first (one call), then both buckets refill to full: the burst's requests
    // start together, while the server's bucket is full, so what refills while they are
    // held back is lost.
    assert_eq!(calls(&c, &numbers, 1, 1), (1, false));
    std::thread::sleep(Duration::from_millis(1200));
    sb.inject(FaultRule::new(OP, FaultAction::Delay { delay_ms: 40 }).times(10));
    let (ok, panicked) = calls(&c, &numbers, 10, 3);
    assert!(!panicked);
    (common::throttled(&sb), ok)
}

pub fn late_burst_figure() -> Figure {
    let (local, ok_l) = late_burst(false);
    let (shared, ok_s) = late_burst(true);
    figure(
        "A6",
        local == 0 && shared == 0 && ok_l == 30 && ok_s == 30,
        format!(
            "a burst whose requests reach the server 40 ms late (10 rps, burst 10, 30 calls from 10 threads): \
             {local} x 429 pacing locally, {shared} x 429 sharing the limit through Redis; calls ok {ok_l}/30, {ok_s}/30"
        ),
    )
}

#[test]
#[ignore = "reads the process's logs: run alone by invalid_numbers_in_redis_are_repaired"]
fn s1_alone() {
    let f = s1();
    assert!(f.pass, "{}", f.text);
}

#[test]
fn invalid_numbers_in_redis_are_repaired() {
    crate::alone::run("shared_bucket::s1_alone", true);
}

#[test]
fn a_late_burst_meets_no_429_pacing_locally() {
    let (t429, ok) = late_burst(false);
    assert_eq!((t429, ok), (0, 30));
}

#[test]
fn a_late_burst_meets_no_429_sharing_the_limit() {
    let (t429, ok) = late_burst(true);
    assert_eq!((t429, ok), (0, 30));
}
