//! M1–M4: the shared state (Redis) failing under a fleet: killed mid-run, restarted, stalled
//! behind a proxy of ours, and out of memory. Calls go on, bounded, with one warning; no
//! order is duplicated; the shared limit comes back with Redis. M5–M12: the fleet's write
//! ledger, refresh tokens, keys and TLS, each proved by its shared-state test.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use abws::{blocking, Region};
use abws_sandbox::{RateLimits, Sandbox};

use super::{capture_logs, figure, Figure};
use crate::common::calls::invoice_detail;
use crate::common::{self, redis::Redis};

const OP: &str = "getInvoiceDetailByInvoiceNumber";

fn sandbox() -> Sandbox {
    let sb = common::sandbox_with(|c| c.rate_limits = RateLimits::Spec);
    sb.set_rate(OP, 20.0, 10);
    sb
}

fn client(sb: &Sandbox, url: &str) -> blocking::Client {
    let mut s = common::settings(sb, Region::JP);
    s.rate_limiting = true;
    s.shared_state = Some(url.to_string().into());
    blocking::Client::new(s).unwrap()
}

/// `n` calls; (ok, slowest call).
fn calls(c: &blocking::Client, numbers: &[String], n: usize) -> (usize, Duration) {
    let mut ok = 0;
    let mut slowest = Duration::ZERO;
    for i in 0..n {
        let t = Instant::now();
        let r = invoice_detail(c, &numbers[i % numbers.len()]);
        slowest = slowest.max(t.elapsed());
        ok += usize::from(r.is_ok());
    }
    (ok, slowest)
}

/// A TCP proxy of ours in front of Redis that can stop forwarding (a network stall).
struct Staller {
    port: u16,
    stalled: Arc<AtomicBool>,
}

impl Staller {
    fn start(target: u16) -> Staller {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let stalled = Arc::new(AtomicBool::new(false));
        let flag = stalled.clone();
        std::thread::spawn(move || {
            for conn in listener.incoming().flatten() {
                let Ok(up) = TcpStream::connect(("127.0.0.1", target)) else {
                    continue;
                };
                for (mut from, mut to) in [
                    (conn.try_clone().unwrap(), up.try_clone().unwrap()),
                    (up, conn),
                ] {
                    let flag = flag.clone();
                    std::thread::spawn(move || {
                        let mut buf = [0u8; 16384];
                        while let Ok(n) = from.read(&mut buf) {
                            if n == 0 {
                                break;
                            }
                            // Stalled: bytes are held back, as on a dead link.
                            while flag.load(Ordering::Relaxed) {
                                std::thread::sleep(Duration::from_millis(10));
                            }
                            if to.write_all(&buf[..n]).is_err() {
                                break;
                            }
                        }
                    });
                }
            }
        });
        Staller { port, stalled }
    }
}

pub fn run() -> Vec<Figure> {
    let mut out = vec![];
    let logs = capture_logs();

    // M1: Redis killed mid-run.
    let sb = sandbox();
    let nums = common::previous_month_invoices(&sb);
    let mut redis = Redis::start();
    let c = client(&sb, &redis.url());
    let (before, _) = calls(&c, &nums, 5);
    redis.kill();
    let (after, slowest) = calls(&c, &nums, 20);
    let warnings = logs.text().matches("shared state unreachable").count();
    out.push(figure(
        "M1",
        before == 5 && after == 20 && warnings == 1 && slowest < Duration::from_secs(2),
        format!(
            "Redis killed mid-run: {after}/20 calls after it went on ({before}/5 before), paced locally; \
             slowest call {} ms (the Redis bound is 250 ms); warnings logged = {warnings}",
            slowest.as_millis()
        ),
    ));

    // M2: restarted: shared again, and two clients share the limit (no 429).
    redis.restart();
    std::thread::sleep(Duration::from_secs(6)); // past the longest backoff
    let (ok, _) = calls(&c, &nums, 2);
    let back = logs.text().contains("shared state is reachable again");
    let sb2 = sandbox();
    let nums2 = common::previous_month_invoices(&sb2);
    let (a, b) = (client(&sb2, &redis.url()), client(&sb2, &redis.url()));
    let (n_a, n_b) = std::thread::scope(|s| {
        let ha = s.spawn(|| calls(&a, &nums2, 20).0);
        let hb = s.spawn(|| calls(&b, &nums2, 20).0);
        (ha.join().unwrap(), hb.join().unwrap())
    });
    let t429 = common::throttled(&sb2);
    out.push(figure(
        "M2",
        ok == 2 && back && n_a + n_b == 40 && t429 == 0,
        format!(
            "Redis restarted: shared again ({}); two clients then made {}/40 calls against one \
             20 rps limit with {t429} × 429",
            if back { "logged" } else { "NOT logged" },
            n_a + n_b
        ),
    ));

    // M3: the network to Redis stalls (a proxy of ours holds the bytes back).
    let sb3 = sandbox();
    let nums3 = common::previous_month_invoices(&sb3);
    let redis3 = Redis::start();
    let port = redis3
        .url()
        .rsplit(':')
        .next()
        .unwrap()
        .split('/')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let staller = Staller::start(port);
    let c3 = client(&sb3, &format!("redis://127.0.0.1:{}/0", staller.port));
    calls(&c3, &nums3, 3);
    staller.stalled.store(true, Ordering::Relaxed);
    let t = Instant::now();
    let (ok3, slowest3) = calls(&c3, &nums3, 10);
    let took = t.elapsed();
    staller.stalled.store(false, Ordering::Relaxed);
    out.push(figure(
        "M3",
        ok3 == 10 && slowest3 < Duration::from_secs(2),
        format!(
            "network to Redis stalled: {ok3}/10 calls went on in {:.1} s, slowest {} ms (each Redis \
             operation bounded by 250 ms, then a backoff without waiting on it)",
            took.as_secs_f64(),
            slowest3.as_millis()
        ),
    ));

    // M4: Redis out of memory (maxmemory reached, noeviction): writes refused; calls go on.
    let sb4 = sandbox();
    let nums4 = common::previous_month_invoices(&sb4);
    let redis4 = Redis::start();
    let url4 = redis4.url();
    let conn = redis::Client::open(url4.as_str()).unwrap();
    let mut sync = conn.get_connection().unwrap();
    let _: () = redis::cmd("CONFIG")
        .arg("SET")
        .arg("maxmemory")
        .arg("1")
        .query(&mut sync)
        .unwrap();
    let _: () = redis::cmd("CONFIG")
        .arg("SET")
        .arg("maxmemory-policy")
        .arg("noeviction")
        .query(&mut sync)
        .unwrap();
    let c4 = client(&sb4, &url4);
    let (ok4, slowest4) = calls(&c4, &nums4, 10);
    out.push(figure(
        "M4",
        ok4 == 10 && slowest4 < Duration::from_secs(2) && common::throttled(&sb4) == 0,
        format!(
            "Redis out of memory (noeviction): {ok4}/10 calls went on paced locally, slowest {} ms, \
             {} × 429",
            slowest4.as_millis(),
            common::throttled(&sb4)
        ),
    ));
    // M5–M12: the fleet's ledger, tokens and keys, each the shared-state test
    // that proves it, against the sandbox and a real redis-server.
    drop(logs);
    use crate::shared_state as t;
    let checks: [(&'static str, fn(), &str); 8] = [
        ("M5", t::a_write_cancelled_while_paced_leaves_no_ledger_entry,
         "S3: a placeOrder cancelled while the shared rate limit held it back left no ledger entry; placed again, it was sent and placed once"),
        ("M6", t::a_repeated_add_items_is_not_sent_and_its_key_holds_the_cart,
         "S4: a repeated addItems recorded done was refused unsent (quantity added once); [\"a,b\"] and [\"a\",\"b\"], and another cart, are other ledger entries"),
        ("M7", t::an_old_refresh_token_written_back_is_not_adopted,
         "S5: an old sealed refresh token written back into Redis was not adopted (generation below the newest); a new worker refreshed without invalid_grant and on_refresh_token never got the consumed token"),
        ("M8", t::workers_refused_after_a_rotation_without_redis_take_the_fleets_successor,
         "S6: rotating refresh tokens, Redis unreachable at the first refresh: 4 of 4 workers succeeded (the refused ones took the winner's successor once Redis was back)"),
        ("M9", t::a_refresh_lock_without_expiry_is_taken_over,
         "S6: a refresh lock without expiry was taken over at once (under 3 s, not a 30 s stall)"),
        ("M10", t::a_process_started_from_a_rotated_token_joins_the_fleet,
         "fleet key: a process started from the rotated refresh token (account= in the address) joined the fleet's keys and used its token, no second refresh"),
        ("M11", t::rediss_trusts_a_private_ca_file,
         "rediss:// with ca_file=: a TLS redis-server signed by a private CA was trusted and shared; without the CA file it was not"),
        ("M12", t::an_unknown_order_is_resolved_by_placing_it_again,
         "OutcomeUnknown (a garbled 2xx, attempts = 1) resolved by one call, place_order again with the same order, from another process: one order, the ledger entry done"),
    ];
    for (id, check, what) in checks {
        let outcome = std::panic::catch_unwind(check);
        let text = match &outcome {
            Ok(()) => what.to_string(),
            Err(p) => format!(
                "{what} — FAILED: {}",
                p.downcast_ref::<String>()
                    .map(String::as_str)
                    .or_else(|| p.downcast_ref::<&str>().copied())
                    .unwrap_or("a panic")
            ),
        };
        out.push(Figure {
            id: id.to_string(),
            text,
            pass: outcome.is_ok(),
        });
    }
    out
}
