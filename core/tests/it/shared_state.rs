//! Many processes on one account through a real Redis (`Settings::shared_state`): one rate
//! limit, one token refresh, one write ledger, and calls that go on when Redis goes away.
//! The workers are this test binary re-executed (`worker`), so they share nothing but the
//! sandbox and the Redis.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use abws::api::invoices::GetInvoiceDetailByInvoiceNumberParams;
use abws::api::ordering::{LineItem, PlaceOrderRequest};
use abws::{ErrorKind, Region};
use abws_sandbox::{FaultAction, FaultRule, RateLimits, Sandbox};
use serde_json::{json, Value};

// One read of the account.
use crate::common::calls::{cart_items, invoice_detail as detail};
use crate::common::{self, faults, redis::Redis, refreshes};

const OP: &str = "getInvoiceDetailByInvoiceNumber";

/// The log capture is one per process: the tests here that read the logs take turns.
static LOGS: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn sandbox() -> Sandbox {
    common::sandbox_with(|c| c.rate_limits = RateLimits::Spec)
}

fn shared_settings(sb: &Sandbox, redis: &Redis) -> abws::Settings {
    let mut s = common::settings(sb, Region::JP);
    s.rate_limiting = true;
    s.shared_state = Some(redis.url().into());
    s
}

/// A sandbox, a Redis, and a client that shares its state through that Redis.
fn fleet() -> (Sandbox, Redis, abws::blocking::Client) {
    let sb = common::sandbox();
    let redis = Redis::start();
    let client = abws::blocking::Client::new(shared_settings(&sb, &redis)).unwrap();
    (sb, redis, client)
}

fn now_ms() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
        * 1000.0
}

/// Starts `n` worker processes; each runs `job` (JSON) and prints one JSON line.
fn workers(n: usize, job: &Value) -> Vec<std::process::Child> {
    (0..n)
        .map(|i| {
            Command::new(std::env::current_exe().unwrap())
                .args([
                    "shared_state::worker",
                    "--exact",
                    "--ignored",
                    "--nocapture",
                    "-q",
                ])
                .env("ABWS_SHARED_WORKER", job.to_string())
                .env("ABWS_SHARED_WORKER_INDEX", i.to_string())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect()
}

fn results(children: Vec<std::process::Child>) -> Vec<Value> {
    children
        .into_iter()
        .map(|c| {
            let out = c.wait_with_output().unwrap();
            let text = String::from_utf8_lossy(&out.stdout).to_string();
            assert!(
                out.status.success(),
                "worker failed: {text}{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let line = text
                .lines()
                .find(|l| l.starts_with('{') && l.contains("\"first_ms\"") || l.contains("\"ok\""))
                .unwrap_or_else(|| panic!("no result line in {text}"));
            serde_json::from_str(line).unwrap()
        })
        .collect()
}

/// The 429s the sandbox answered.
fn throttled(sb: &Sandbox) -> u64 {
    sb.counters()["throttled"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_u64().unwrap())
        .sum()
}

/// When the workers' first call started and their last one ended (ms since the epoch).
fn span_ms(results: &[Value]) -> (f64, f64) {
    let at = |key: &'static str| results.iter().map(move |r| r[key].as_f64().unwrap());
    (
        at("first_ms").fold(f64::MAX, f64::min),
        at("last_ms").fold(0.0, f64::max),
    )
}

/// One worker process: `threads` threads sharing one client make `calls` calls each
/// (`kind: "reads"`), or one placeOrder (`kind: "order"`), and print what they saw.
#[test]
#[ignore = "a worker process of the shared-state tests"]
fn worker() {
    let Ok(job) = std::env::var("ABWS_SHARED_WORKER") else {
        return;
    };
    let job: Value = serde_json::from_str(&job).unwrap();
    let mut settings = common::settings_from(&job["sandbox"], Region::JP);
    settings.rate_limiting = true;
    settings.shared_state = Some(job["redis"].as_str().unwrap().to_string().into());
    if let Some(t) = job["refresh_token"].as_str() {
        settings.credentials = with_refresh_token(&settings.credentials, t);
    }
    if job["kind"] == "token" {
        // One access token; prints what the rotation callback was handed.
        let (on_rotate, handed) = common::rotation::keeping_rotations();
        let client = abws::blocking::Client::with_rotation(settings, Some(on_rotate)).unwrap();
        let r = client.run(|c| async move { c.access_token().await });
        let handed = handed.lock().unwrap().clone();
        println!(
            "{}",
            json!({"worker": 0, "ok": r.is_ok(), "error": r.err().map(|e| e.to_string()),
                   "handed": handed})
        );
        return;
    }
    let client = std::sync::Arc::new(abws::blocking::Client::new(settings).unwrap());
    if job["kind"] == "order" {
        let order: PlaceOrderRequest = serde_json::from_value(job["order"].clone()).unwrap();
        println!("{}", json!({"worker": 0, "placing": true}));
        let r = client.ordering().place_order(&order);
        println!("{}", json!({"worker": 0, "ok": r.is_ok()}));
        return;
    }
    let numbers: Vec<String> = serde_json::from_value(job["numbers"].clone()).unwrap();
    let calls = job["calls"].as_u64().unwrap() as usize;
    let threads = job["threads"].as_u64().unwrap() as usize;
    let first = std::sync::Mutex::new(f64::MAX);
    let errors = std::sync::Mutex::new(Vec::<String>::new());
    std::thread::scope(|s| {
        for t in 0..threads {
            let (client, numbers, first, errors) = (&client, &numbers, &first, &errors);
            s.spawn(move || {
                for i in 0..calls {
                    let started = now_ms();
                    {
                        let mut f = first.lock().unwrap();
                        *f = f.min(started);
                    }
                    let n = &numbers[(t * calls + i) % numbers.len()];
                    if let Err(e) = detail(client, n) {
                        errors.lock().unwrap().push(e.to_string());
                    }
                }
            });
        }
    });
    let first = *first.lock().unwrap();
    let errors = errors.into_inner().unwrap();
    // A long-lived process: what it hands over in the background has time to go.
    std::thread::sleep(Duration::from_millis(
        job["linger_ms"].as_u64().unwrap_or(0),
    ));
    println!(
        "{}",
        json!({"worker": 0, "first_ms": first, "last_ms": now_ms(),
               "errors": errors.len(), "why": errors})
    );
}

/// 4 processes × 4 threads on one account, a 5 rps limit: together they keep to it, at
/// ≥ 95 % of it, with no 429, and the 4 processes make one token refresh.
#[test]
fn processes_share_one_limit_and_one_token() {
    let sb = sandbox();
    let redis = Redis::start();
    // 5 rps with the plan's burst of 10.
    sb.set_rate(OP, 5.0, 10);
    // 160 calls: paced at 98 % of the limit they take 30.6 s, and the 95 % bar leaves ~1 s
    // for a slow first call (a worker's start, Redis, the refresh) or a late last one on a
    // loaded machine (with 80 calls, 0.45 s).
    let calls_each = 10;
    let (procs, threads) = (4, 4);
    let job = json!({"kind": "reads", "sandbox": sb.describe(), "redis": redis.url(),
                     "numbers": common::previous_month_invoices(&sb), "calls": calls_each, "threads": threads});
    let results = results(workers(procs, &job));
    let total = procs * threads * calls_each;
    let (first, last) = span_ms(&results);
    let errors: u64 = results.iter().map(|r| r["errors"].as_u64().unwrap()).sum();
    let c = sb.counters();
    let throttled = throttled(&sb);
    let ok = common::requests(&sb, OP);
    // The burst at once, then one per 1/5 s: the fastest the account allows.
    let ideal_s = (total - 10) as f64 / 5.0;
    let share = ideal_s / ((last - first) / 1000.0);
    println!(
        "{total} calls in {:.2} s: {:.1} % of the limit, {throttled} × 429",
        (last - first) / 1000.0,
        share * 100.0
    );
    assert_eq!(errors, 0);
    assert_eq!(throttled, 0, "one limit for the fleet: no 429");
    assert_eq!(ok, total as u64);
    assert!(share >= 0.95, "{:.1} % of the limit", share * 100.0);
    assert_eq!(
        c["tokenCalls"]["refresh_token"], 1,
        "one refresh for 4 processes: {}",
        c["tokenCalls"]
    );
}

/// The fleet's bucket after its key expired (an idle hour): a new process, at the plan's
/// rate (0.5/s), takes 8 slots of the burst; a process that heard the server's rate (5/s)
/// before comes back before the new one has heard it. Read at the caller's rate, the new
/// process's schedule looked too far ahead: reset to a full bucket at 5/s, then shrunk
/// tenfold by the new process's first rate report as if made at 0.5/s, it let the old
/// process send a second burst (4-7 × 429). Stored with its rate, it is one burst.
#[test]
fn a_process_at_the_plans_rate_and_one_that_heard_the_servers_share_one_burst() {
    let sb = sandbox();
    let redis = Redis::start();
    sb.set_rate(OP, 5.0, 10);
    let numbers = common::previous_month_invoices(&sb);
    let old =
        std::sync::Arc::new(abws::blocking::Client::new(shared_settings(&sb, &redis)).unwrap());
    detail(&old, &numbers[0]).unwrap();
    // The key expires; the server's bucket refills.
    let key = redis.cli(&["KEYS", "abws:*:rl:*"]);
    assert_eq!(redis.cli(&["DEL", &key]), "1", "the bucket's key: {key}");
    std::thread::sleep(Duration::from_millis(500));
    // The new process's answers come 300 ms late, so it hears the rate after the old one
    // came back.
    sb.inject(FaultRule::new(OP, FaultAction::Delay { delay_ms: 300 }).times(8));
    let job = json!({"kind": "reads", "sandbox": sb.describe(), "redis": redis.url(),
                     "numbers": numbers, "calls": 1, "threads": 8});
    let new = workers(1, &job);
    // Its 8 slots at 0.5/s: the schedule is 7 intervals of 2.04 s ahead.
    let until = Instant::now() + Duration::from_secs(20);
    loop {
        let tat = redis
            .cli(&["HGET", &key, "tat"])
            .parse::<f64>()
            .unwrap_or(0.0);
        if tat > now_ms() + 7.0 * 2040.0 {
            break;
        }
        assert!(Instant::now() < until, "the new process took no 8 slots");
        std::thread::sleep(Duration::from_millis(2));
    }
    std::thread::scope(|s| {
        for n in numbers.iter().cycle().take(10) {
            let old = &old;
            s.spawn(move || detail(old, n).unwrap());
        }
    });
    let r = results(new);
    assert_eq!(r[0]["errors"], 0);
    let throttled = throttled(&sb);
    assert_eq!(throttled, 0, "one burst for the fleet: no 429");
    assert_eq!(common::requests(&sb, OP), 1 + 8 + 10);
}

/// A worker that dies in the middle of placeOrder leaves its externalId in the ledger: a
/// second worker that retries it gets OutcomeUnknown, and one order at most exists.
#[test]
fn a_worker_dying_mid_order_leaves_no_duplicate() {
    let (sb, redis, client) = fleet();
    let (asin, offer, _) = crate::purchasing_api::pick_offer(&client);
    let order = PlaceOrderRequest::new("fleet-order-1").line(LineItem::new("1", asin, offer, 1));
    // The service takes 5 s to answer: the worker is killed while it waits.
    sb.inject(FaultRule::new("placeOrder", FaultAction::Delay { delay_ms: 5000 }).times(1));
    let job = json!({"kind": "order", "sandbox": sb.describe(), "redis": redis.url(),
                     "order": serde_json::to_value(&order).unwrap()});
    let mut child = workers(1, &job).pop().unwrap();
    // Killed once its order is on the wire (the service holds the answer for 5 s).
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    while !line.contains("placing") {
        line.clear();
        assert!(
            std::io::BufRead::read_line(&mut out, &mut line).unwrap() > 0,
            "the worker ended"
        );
    }
    std::thread::sleep(Duration::from_millis(1500));
    child.kill().unwrap();
    let _ = child.wait();
    let e = client.ordering().place_order(&order).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::OutcomeUnknown, "{e}");
    assert_eq!(e.external_id(), Some("fleet-order-1"));
    assert!(e.to_string().contains("shared write ledger"), "{e}");
    // The killed worker's request is answered (or dropped with its connection) meanwhile.
    std::thread::sleep(Duration::from_secs(4));
    let c = sb.counters();
    let sent = c["placeOrderRequests"]["fleet-order-1"]
        .as_u64()
        .unwrap_or(0);
    assert!(
        sent <= 1,
        "sent {sent} times: the second worker must not send it"
    );
    assert!(c["ordersCreated"]["fleet-order-1"].as_u64().unwrap_or(0) <= 1);
}

/// Redis killed mid-run: calls go on (paced locally, one warning); restarted: shared again.
#[test]
fn calls_go_on_when_redis_goes_away_and_come_back() {
    let sb = sandbox();
    sb.set_rate(OP, 50.0, 10);
    let mut redis = Redis::start();
    let _turn = LOGS.lock().unwrap_or_else(|p| p.into_inner());
    let logs = crate::reliability::capture_logs();
    let client = abws::blocking::Client::new(shared_settings(&sb, &redis)).unwrap();
    let n = common::previous_month_invoices(&sb);
    detail(&client, &n[0]).unwrap();
    redis.kill();
    let started = Instant::now();
    for number in &n[1..6] {
        detail(&client, number).unwrap();
    }
    // Each call waits on Redis at most the bound; most not at all (the backoff).
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    let text = logs.text();
    assert_eq!(
        text.matches("shared state unreachable").count(),
        1,
        "one warning: {text}"
    );
    redis.restart();
    std::thread::sleep(Duration::from_secs(6)); // past the longest backoff
    detail(&client, &n[7]).unwrap();
    assert!(
        logs.text().contains("shared state is reachable again"),
        "{}",
        logs.text()
    );
    assert_eq!(
        sb.counters()["throttled"].as_object().unwrap().len(),
        0,
        "no 429 throughout"
    );
}

/// A refresh token the server rotates reaches every process: a second process started from
/// the original (consumed) token refreshes with its successor from the shared state.
#[test]
fn a_rotated_refresh_token_reaches_the_next_process() {
    // `expires_in` is 2 (refreshed after 1.6 s), but on the sandbox's clock, ten times
    // slower, the token lives 20 real seconds: a slow worker cannot meet its expiry and
    // refresh a second time.
    let sb = common::sandbox_with(|c| {
        c.rotate_refresh_tokens = true;
        c.token_lifetime = Duration::from_secs(2);
        c.time_scale = 0.1;
    });
    let redis = Redis::start();
    let job = json!({"kind": "reads", "sandbox": sb.describe(), "redis": redis.url(),
                     "numbers": common::previous_month_invoices(&sb), "calls": 1, "threads": 1});
    let first = results(workers(1, &job));
    assert_eq!(first[0]["errors"], 0);
    // Past the first token's refresh point: the next process must refresh, and the token it
    // was started with was consumed by the first process's rotation.
    std::thread::sleep(Duration::from_millis(2100));
    let second = results(workers(1, &job));
    assert_eq!(
        second[0]["errors"], 0,
        "the second process refreshed with the successor"
    );
    let c = sb.counters();
    assert_eq!(c["tokenCalls"]["refresh_token"], 2, "{}", c["tokenCalls"]);
    assert!(
        c["requests"]["token"]["400"].as_u64().unwrap_or(0) == 0,
        "no consumed token was sent: {}",
        c["requests"]["token"]
    );
}

/// A second consent of the same application: another account, with its own refresh token.
fn second_account(sb: &Sandbox) -> String {
    let code = common::consent::consent_code(sb);
    let set = common::consent::exchange(sb, &sb.credentials().client_secret, &code).unwrap();
    set.refresh_token.unwrap().expose().to_string()
}

/// The sealed token is bound to its key name: account X's token copied into account Y's
/// key (anyone who can write to Redis can, without the secret) does not open for Y's
/// processes, which refresh their own; nor does a token copied into the refresh token's key.
#[test]
fn a_token_copied_to_another_accounts_key_is_not_used() {
    let sb = common::sandbox();
    let redis = Redis::start();
    let n = common::previous_month_invoices(&sb);
    let rt_y = second_account(&sb);
    let x = abws::blocking::Client::new(shared_settings(&sb, &redis)).unwrap();
    detail(&x, &n[0]).unwrap();
    let keys = |redis: &Redis| -> Vec<String> {
        redis
            .cli(&["--scan", "--pattern", "abws:*:token"])
            .lines()
            .map(str::to_string)
            .collect()
    };
    let tag_x = keys(&redis)[0].trim_end_matches(":token").to_string();
    let y_settings = || {
        let mut s = shared_settings(&sb, &redis);
        if let abws::Credentials::RefreshToken { refresh_token, .. } = &mut s.credentials {
            *refresh_token = rt_y.clone().into();
        }
        s
    };
    detail(&abws::blocking::Client::new(y_settings()).unwrap(), &n[0]).unwrap();
    let tag_y = keys(&redis)
        .into_iter()
        .find(|k| !k.starts_with(&tag_x))
        .expect("account Y's token key")
        .trim_end_matches(":token")
        .to_string();
    assert_eq!(refreshes(&sb), 2, "one refresh per account");
    // X's token into Y's key: a new worker of Y finds nothing it can open and refreshes.
    let copied = redis.cli(&[
        "COPY",
        &format!("{tag_x}:token"),
        &format!("{tag_y}:token"),
        "REPLACE",
    ]);
    assert_eq!(copied, "1");
    detail(&abws::blocking::Client::new(y_settings()).unwrap(), &n[1]).unwrap();
    assert_eq!(refreshes(&sb), 3, "Y refreshed instead of using X's token");
    // X's access token into X's own refresh-token key: not taken as a refresh token.
    redis.cli(&[
        "COPY",
        &format!("{tag_x}:token"),
        &format!("{tag_x}:refresh"),
        "REPLACE",
    ]);
    redis.cli(&["DEL", &format!("{tag_x}:token")]);
    detail(
        &abws::blocking::Client::new(shared_settings(&sb, &redis)).unwrap(),
        &n[2],
    )
    .unwrap();
    assert_eq!(refreshes(&sb), 4);
    assert_eq!(
        sb.counters()["requests"]["token"]["400"]
            .as_u64()
            .unwrap_or(0),
        0,
        "no access token was sent as a refresh token: {}",
        sb.counters()["requests"]["token"]
    );
}

/// Redis unreachable from the start: each of 4 processes paces itself at its fallback share
/// (half the rate: together twice the limit). A 429 cuts the share of the process that got
/// it, so the 429s stay few and the retries absorb them: no call fails.
#[test]
fn processes_without_redis_keep_near_the_limit() {
    let sb = sandbox();
    sb.set_rate(OP, 5.0, 10);
    // A port nothing listens on: every connection is refused at once.
    let dead = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let (procs, threads, calls_each) = (4, 2, 12);
    let job = json!({"kind": "reads", "sandbox": sb.describe(),
                     "redis": format!("redis://127.0.0.1:{dead}/0"),
                     "numbers": common::previous_month_invoices(&sb), "calls": calls_each, "threads": threads});
    let results = results(workers(procs, &job));
    let total = (procs * threads * calls_each) as u64;
    let errors: u64 = results.iter().map(|r| r["errors"].as_u64().unwrap()).sum();
    let (first, last) = span_ms(&results);
    let throttled = throttled(&sb);
    println!(
        "{total} calls in {:.2} s without Redis: {throttled} × 429, {errors} failed",
        (last - first) / 1000.0
    );
    for r in &results {
        println!(
            "worker: {:.2} s",
            (r["last_ms"].as_f64().unwrap() - r["first_ms"].as_f64().unwrap()) / 1000.0
        );
    }
    let why: Vec<&Value> = results
        .iter()
        .flat_map(|r| r["why"].as_array().unwrap())
        .collect();
    assert_eq!(errors, 0, "the retries absorb the 429s: {why:?}");
    // Before a 429 cut the fallback share (each process kept sending at half the limit):
    // 39 × 429 and 11 calls failed with RateLimited; now 8 × 429, none failed, in 22 s.
    assert!(
        throttled * 5 <= total,
        "{throttled} × 429 for {total} calls"
    );
    // Without stalling: the limit allows them in 17.2 s (the burst, then 5 a second).
    assert!(
        last - first < 40_000.0,
        "{:.1} s: the cut shares grow back",
        (last - first) / 1000.0
    );
}

/// A Redis that refuses the client for good (a wrong password, an ACL, out of memory) is
/// logged as an ERROR naming the cause, not as an outage; calls go on all the same, and
/// the password never appears.
#[test]
fn a_misconfigured_redis_is_named_in_an_error() {
    let sb = common::sandbox();
    let redis = Redis::start();
    let _turn = LOGS.lock().unwrap_or_else(|p| p.into_inner());
    let logs = crate::reliability::capture_logs();
    let n = common::previous_month_invoices(&sb);
    let port = redis
        .url()
        .rsplit(':')
        .next()
        .unwrap()
        .trim_end_matches("/0")
        .to_string();
    let call_with = |url: String| {
        let mut s = shared_settings(&sb, &redis);
        s.shared_state = Some(url.into());
        let client = abws::blocking::Client::new(s).unwrap();
        detail(&client, &n[0]).unwrap();
    };
    let errors = |logs: &crate::reliability::LogCapture, what: &str| {
        logs.text()
            .lines()
            .filter(|l| l.starts_with("ERROR abws shared state misconfigured") && l.contains(what))
            .count()
    };
    // An ACL user that may not touch the abws keys.
    assert_eq!(
        redis.cli(&[
            "ACL",
            "SETUSER",
            "limited",
            "on",
            ">lim-pw-123",
            "resetkeys",
            "~other:*",
            "+@all"
        ]),
        "OK"
    );
    call_with(format!("redis://limited:lim-pw-123@127.0.0.1:{port}/0"));
    assert_eq!(errors(&logs, "ACL (NOPERM)"), 1, "{}", logs.text());
    // Out of memory: the default user, writes refused.
    assert_eq!(redis.cli(&["CONFIG", "SET", "maxmemory", "1"]), "OK");
    call_with(redis.url());
    assert_eq!(errors(&logs, "out of memory (OOM"), 1, "{}", logs.text());
    assert_eq!(redis.cli(&["CONFIG", "SET", "maxmemory", "0"]), "OK");
    // A password required, a wrong one given, then none.
    assert_eq!(
        redis.cli(&["CONFIG", "SET", "requirepass", "right-pw-456"]),
        "OK"
    );
    call_with(format!("redis://:wrong-pw-789@127.0.0.1:{port}/0"));
    call_with(redis.url());
    assert_eq!(
        errors(&logs, "refused the authentication"),
        2,
        "{}",
        logs.text()
    );
    let text = logs.text();
    assert!(!text.contains("shared state unreachable"), "{text}");
    for secret in ["lim-pw-123", "wrong-pw-789", "right-pw-456"] {
        assert!(!text.contains(secret), "{text}");
    }
}

/// A process took the refresh lock and went away without a token (its refresh failed, or
/// it died): the processes waiting for its token take the lock once it is free (here when
/// it expires) instead of polling for the token until 15 s are up and then each
/// refreshing; the first of them fails too (the token endpoint answers 503 to its three
/// attempts), the next refreshes once for all, from the refresh token the server rotated
/// (no consumed token replayed).
#[test]
fn waiters_take_over_when_the_lock_holder_fails() {
    let sb = common::sandbox_with(|c| c.rotate_refresh_tokens = true);
    let redis = Redis::start();
    let numbers = common::previous_month_invoices(&sb);
    // A first process: the fleet's token and the rotated refresh token are stored.
    let job = json!({"kind": "reads", "sandbox": sb.describe(), "redis": redis.url(),
                     "numbers": numbers, "calls": 1, "threads": 1});
    assert_eq!(results(workers(1, &job))[0]["errors"], 0);
    let token_key = redis.cli(&["--scan", "--pattern", "abws:*:token"]);
    let tag = token_key.trim_end_matches(":token").to_string();
    // The token is gone (its refresh point) and a holder that will never store one has
    // the lock for 2 more seconds.
    redis.cli(&["DEL", &token_key]);
    let lock = format!("{tag}:token-lock");
    assert_eq!(redis.cli(&["SET", &lock, "gone", "PX", "2000"]), "OK");
    sb.inject(FaultRule::new("/auth/O2/token", faults::status(503)).times(3));
    let job = json!({"kind": "reads", "sandbox": sb.describe(), "redis": redis.url(),
                     "numbers": numbers, "calls": 1, "threads": 2});
    let results = results(workers(4, &job));
    let errors: u64 = results.iter().map(|r| r["errors"].as_u64().unwrap()).sum();
    let slowest = results
        .iter()
        .map(|r| r["last_ms"].as_f64().unwrap() - r["first_ms"].as_f64().unwrap())
        .fold(0.0, f64::max);
    let c = sb.counters();
    println!(
        "slowest worker {:.2} s, {errors} failed calls, token calls {}, token answers {}",
        slowest / 1000.0,
        c["tokenCalls"],
        c["requests"]["token"]
    );
    // The caller whose refresh got the three 503s fails; nobody else.
    assert!(errors <= 1, "{errors} calls failed");
    assert_eq!(
        c["tokenCalls"]["refresh_token"], 2,
        "the first process's refresh and one more: {}",
        c["tokenCalls"]
    );
    assert_eq!(
        c["requests"]["token"]["400"].as_u64().unwrap_or(0),
        0,
        "no consumed refresh token replayed: {}",
        c["requests"]["token"]
    );
    // Before: the waiters polled for the token until the lock's 15 s were up.
    assert!(slowest < 10_000.0, "{:.1} s", slowest / 1000.0);
}

/// The write ledger's entries of `op` (their names: SHA-256 prefixes of the write's parts).
fn ledger_keys(redis: &Redis, op: &str) -> Vec<String> {
    redis
        .cli(&["--scan", "--pattern", &format!("abws:*:ledger:{op}:*")])
        .lines()
        .map(str::to_string)
        .filter(|l| !l.is_empty())
        .collect()
}

fn one_line_order(client: &abws::blocking::Client, external_id: &str) -> PlaceOrderRequest {
    let (asin, offer, _) = crate::purchasing_api::pick_offer(client);
    PlaceOrderRequest::new(external_id).line(LineItem::new("1", asin, offer, 1))
}

/// S3: the ledger records *sending* only when the request goes on the wire. A placeOrder
/// cancelled while the shared rate limit holds it back leaves no entry, and the same order
/// placed again afterwards is sent and placed once.
#[test]
pub(crate) fn a_write_cancelled_while_paced_leaves_no_ledger_entry() {
    let (sb, redis, client) = fleet();
    let first = one_line_order(&client, "fleet-paced-1");
    client.ordering().place_order(&first).unwrap();
    assert_eq!(ledger_keys(&redis, "placeOrder").len(), 1);
    // The account's placeOrder bucket is a minute behind: the next order waits for its slot.
    let bucket = redis.cli(&["--scan", "--pattern", "abws:*:rl:*:placeOrder"]);
    let now: Vec<u64> = redis
        .cli(&["TIME"])
        .lines()
        .map(|l| l.trim().parse().unwrap())
        .collect();
    let later = now[0] * 1000 + now[1] / 1000 + 60_000;
    redis.cli(&["HSET", bucket.trim(), "tat", &later.to_string()]);
    let second = one_line_order(&client, "fleet-paced-2");
    let order = second.clone();
    let cancelled = client
        .run(|c| async move {
            Ok(
                tokio::time::timeout(Duration::from_millis(600), c.ordering().place_order(&order))
                    .await
                    .is_err(),
            )
        })
        .unwrap();
    assert!(cancelled, "the call was still waiting for its slot");
    assert_eq!(
        ledger_keys(&redis, "placeOrder").len(),
        1,
        "a call cancelled before sending left an entry"
    );
    assert_eq!(
        sb.counters()["placeOrderRequests"]["fleet-paced-2"]
            .as_u64()
            .unwrap_or(0),
        0
    );
    redis.cli(&["DEL", bucket.trim()]);
    let placed = client.ordering().place_order(&second).unwrap();
    assert!(placed.order_id().is_some());
    assert_eq!(sb.counters()["ordersCreated"]["fleet-paced-2"], 1);
}

fn cart_quantity(client: &abws::blocking::Client, cart: &str, offer: &str) -> i64 {
    cart_items(client, cart)
        .unwrap()
        .items
        .clone()
        .unwrap_or_default()
        .iter()
        .flatten()
        .filter(|i| i.buying_option_identifier.as_deref() == Some(offer))
        .map(|i| i.quantity.unwrap_or(0))
        .sum()
}

fn add(
    client: &abws::blocking::Client,
    cart: &str,
    asin: &str,
    offer: &str,
    ids: &[&str],
) -> abws::Result<abws::api::cart::AddItemsResult> {
    use abws::api::cart::{AddItem, AddItemsParams};
    client.cart().add_items(&AddItemsParams {
        cart_id: cart.to_string(),
        region: Some("JP".into()),
        items: ids
            .iter()
            .map(|id| AddItem {
                product_identifier: asin.to_string(),
                buying_option_identifier: offer.to_string(),
                quantity: 1,
                external_id: Some(id.to_string()),
            })
            .collect(),
    })
}

/// S4: the ledger keys addItems by its cart and its item list, unambiguously. A repeated
/// addItems that is recorded done is refused unsent (the quantity is not doubled), while
/// `["a,b"]` and `["a", "b"]`, or the same externalIds in another cart, are other writes.
#[test]
pub(crate) fn a_repeated_add_items_is_not_sent_and_its_key_holds_the_cart() {
    let (sb, redis, client) = fleet();
    let (asin, offer, _) = crate::purchasing_api::pick_offer(&client);
    let jp: Vec<String> = sb.dataset()["carts"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["region"] == "JP")
        .map(|c| c["id"].as_str().unwrap().to_string())
        .collect();
    let (one, two) = (jp[0].clone(), jp[1].clone());
    let before = cart_quantity(&client, &one, &offer);
    add(&client, &one, &asin, &offer, &["x1"]).unwrap();
    let again = add(&client, &one, &asin, &offer, &["x1"]).unwrap_err();
    assert_eq!(again.kind(), ErrorKind::Validation, "{again}");
    assert_eq!(again.parameter(), Some("items[].external_id"));
    assert!(again.to_string().contains("already applied"), "{again}");
    assert_eq!(again.attempts(), 0);
    assert_eq!(
        cart_quantity(&client, &one, &offer),
        before + 1,
        "the quantity was added once"
    );
    // An addItems whose outcome is unknown (a 2xx that does not decode) blocks its own
    // entry only: not a list that joins to the same text, nor another cart.
    sb.inject(FaultRule::new("addItems", FaultAction::Garbled).times(1));
    let e = add(&client, &one, &asin, &offer, &["a,b"]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::OutcomeUnknown, "{e}");
    assert!(e.to_string().contains("modify_items"), "{e}");
    add(&client, &one, &asin, &offer, &["a", "b"]).unwrap();
    add(&client, &two, &asin, &offer, &["a,b"]).unwrap();
    let refused = add(&client, &one, &asin, &offer, &["a,b"]).unwrap_err();
    assert_eq!(refused.kind(), ErrorKind::OutcomeUnknown, "{refused}");
    assert_eq!(ledger_keys(&redis, "addItems").len(), 4);
}

/// An OutcomeUnknown placeOrder is resolved by one call: place_order again with the same
/// order. The shared ledger lets it through, the service answers the original order, no
/// second order exists, and the entry is done. The error counts the request it sent.
#[test]
pub(crate) fn an_unknown_order_is_resolved_by_placing_it_again() {
    let (sb, redis, client) = fleet();
    let order = one_line_order(&client, "fleet-unknown-1");
    sb.inject(FaultRule::new("placeOrder", FaultAction::Garbled).times(1));
    let e = client.ordering().place_order(&order).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::OutcomeUnknown, "{e}");
    assert_eq!(e.attempts(), 1, "one request was sent");
    assert!(
        e.to_string()
            .contains("call place_order again with the same order"),
        "{e}"
    );
    let entry = ledger_keys(&redis, "placeOrder");
    assert_eq!(redis.cli(&["GET", &entry[0]]), "outcome unknown");
    // Another process resolves it too: the entry is the account's.
    let other = abws::blocking::Client::new(shared_settings(&sb, &redis)).unwrap();
    let resolved = other.ordering().place_order(&order).unwrap();
    assert!(resolved.order_id().is_some());
    let c = sb.counters();
    assert_eq!(c["ordersCreated"]["fleet-unknown-1"], 1, "one order");
    assert_eq!(c["placeOrderRequests"]["fleet-unknown-1"], 2);
    assert_eq!(redis.cli(&["GET", &entry[0]]), "done");
}

/// The fleet key follows the account, not the refresh token: with `account=` in the
/// address, a process started from the rotated refresh token (a rolling restart onto the
/// token `on_refresh_token` persisted) joins the fleet's keys and uses its access token
/// instead of refreshing on keys of its own.
#[test]
pub(crate) fn a_process_started_from_a_rotated_token_joins_the_fleet() {
    let sb = common::sandbox_with(|c| c.rotate_refresh_tokens = true);
    let redis = Redis::start();
    let with_account = |s: &mut abws::Settings| {
        s.shared_state = Some(format!("{}?account=acme-jp", redis.url()).into());
    };
    let mut first = shared_settings(&sb, &redis);
    with_account(&mut first);
    let started_from = first.credentials.clone();
    let a = abws::blocking::Client::new(first).unwrap();
    token(&a);
    assert_eq!(refreshes(&sb), 1);
    let rotated = a.credentials().unwrap();
    assert!(
        refresh_token(&rotated) != refresh_token(&started_from),
        "the sandbox rotated the refresh token"
    );
    let mut second = shared_settings(&sb, &redis);
    with_account(&mut second);
    second.credentials = rotated;
    let b = abws::blocking::Client::new(second).unwrap();
    assert_eq!(token(&b), token(&a));
    assert_eq!(
        refreshes(&sb),
        1,
        "the second process used the fleet's token"
    );
    let keys = redis.cli(&["--scan", "--pattern", "abws:*:token"]);
    assert_eq!(keys.lines().count(), 1, "one key space: {keys}");
    // Misused, `account=` is refused by name before anything is sent.
    let mut bad = shared_settings(&sb, &redis);
    bad.shared_state = Some(format!("{}?account=", redis.url()).into());
    let e = abws::blocking::Client::new(bad).unwrap_err();
    assert_eq!(e.parameter(), Some("shared_state"), "{e}");
}

/// A valid access token of the client (refreshed or the fleet's).
fn token(client: &abws::blocking::Client) -> abws::Secret {
    client
        .run(|c| async move { c.access_token().await })
        .unwrap()
}

fn refresh_token(credentials: &abws::Credentials) -> String {
    match credentials {
        abws::Credentials::RefreshToken { refresh_token, .. } => refresh_token.expose().into(),
        _ => String::new(),
    }
}

/// Runs `openssl` with `args` in `dir`.
fn openssl(dir: &std::path::Path, args: &[&str]) {
    let out = Command::new("openssl")
        .current_dir(dir)
        .args(args)
        .output()
        .expect("openssl");
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `rediss://` with a private CA (`ca_file=`): a real TLS redis-server whose certificate a
/// CA made here signed. With the CA file the fleet shares its state over TLS; without it
/// the certificate is refused (calls go on unshared).
#[test]
pub(crate) fn rediss_trusts_a_private_ca_file() {
    let dir = std::env::temp_dir().join(format!("abws-tls-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    openssl(
        &dir,
        &[
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            "ca.key",
            "-out",
            "ca.pem",
            "-days",
            "1",
            "-subj",
            "/CN=abws test CA",
        ],
    );
    openssl(
        &dir,
        &[
            "req",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            "server.key",
            "-out",
            "server.csr",
            "-subj",
            "/CN=localhost",
        ],
    );
    std::fs::write(
        dir.join("san.ext"),
        "subjectAltName=DNS:localhost,IP:127.0.0.1\n",
    )
    .unwrap();
    openssl(
        &dir,
        &[
            "x509",
            "-req",
            "-in",
            "server.csr",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-out",
            "server.pem",
            "-days",
            "1",
            "-extfile",
            "san.ext",
        ],
    );
    let redis = Redis::start_tls(&dir);
    let sb = common::sandbox();
    let ca = dir.join("ca.pem");
    let url = format!("rediss://localhost:{}/0", redis.port());
    let client = |address: String| {
        let mut s = common::settings(&sb, Region::JP);
        s.shared_state = Some(address.into());
        abws::blocking::Client::new(s).unwrap()
    };
    // Without the CA: the server's certificate is not trusted, nothing is stored.
    token(&client(url.clone()));
    assert_eq!(redis.tls_cli(&ca, &["DBSIZE"]), "0");
    // With it: the token is the fleet's, stored over TLS.
    let with_ca = format!("{url}?ca_file={}", ca.display());
    let a = client(with_ca.clone());
    token(&a);
    assert_eq!(
        redis
            .tls_cli(&ca, &["--scan", "--pattern", "abws:*:token"])
            .lines()
            .count(),
        1
    );
    let before = refreshes(&sb);
    token(&client(with_ca));
    assert_eq!(
        refreshes(&sb),
        before,
        "the second client used the stored token"
    );
    // A CA file that cannot be read is named before anything is sent.
    let mut s = common::settings(&sb, Region::JP);
    s.shared_state = Some(format!("{url}?ca_file=/no/such/ca.pem").into());
    let e = abws::blocking::Client::new(s).unwrap_err();
    assert!(e.to_string().contains("ca_file"), "{e}");
    // ca_file= with a plain redis:// address is refused.
    let mut s = common::settings(&sb, Region::JP);
    s.shared_state = Some(format!("redis://localhost:1/0?ca_file={}", ca.display()).into());
    assert!(abws::blocking::Client::new(s).is_err());
    let _ = std::fs::remove_dir_all(&dir);
}

/// `credentials` with another refresh token.
fn with_refresh_token(credentials: &abws::Credentials, token: &str) -> abws::Credentials {
    match credentials.clone() {
        abws::Credentials::RefreshToken {
            client_id,
            client_secret,
            ..
        } => abws::Credentials::RefreshToken {
            client_id,
            client_secret,
            refresh_token: token.to_string().into(),
        },
        other => other,
    }
}

/// The keys of `pattern` in `redis`, each with its value as `DUMP` gives it.
fn dump(redis: &Redis, pattern: &str) -> Vec<(String, Vec<u8>)> {
    let mut conn = redis::Client::open(redis.url())
        .unwrap()
        .get_connection()
        .unwrap();
    redis
        .cli(&["--scan", "--pattern", pattern])
        .lines()
        .filter(|k| !k.is_empty())
        .map(|k| {
            let v: Vec<u8> = redis::cmd("DUMP").arg(k).query(&mut conn).unwrap();
            (k.to_string(), v)
        })
        .collect()
}

fn restore(redis: &Redis, values: &[(String, Vec<u8>)]) {
    let mut conn = redis::Client::open(redis.url())
        .unwrap()
        .get_connection()
        .unwrap();
    for (k, v) in values {
        let _: () = redis::cmd("RESTORE")
            .arg(k)
            .arg(0)
            .arg(v)
            .arg("REPLACE")
            .query(&mut conn)
            .unwrap();
    }
}

/// S5: the refresh token in Redis carries a generation and is replaced only by a newer one.
/// An old sealed refresh token written back (a restored copy) is not adopted: a new worker
/// started from the newest token does not get invalid_grant, and `on_refresh_token` is
/// never handed the consumed token, only ones the server issued or accepted.
#[test]
pub(crate) fn an_old_refresh_token_written_back_is_not_adopted() {
    let sb = common::sandbox_with(|c| c.rotate_refresh_tokens = true);
    let redis = Redis::start();
    let address = format!("{}?account=acme-jp", redis.url());
    let settings = |token: Option<&str>| {
        let mut s = shared_settings(&sb, &redis);
        s.shared_state = Some(address.clone().into());
        if let Some(t) = token {
            s.credentials = with_refresh_token(&s.credentials, t);
        }
        s
    };
    // T0 → T1, stored (generation 1); its copy kept.
    let a = abws::blocking::Client::new(settings(None)).unwrap();
    token(&a);
    let t1 = refresh_token(&a.credentials().unwrap());
    let old = dump(&redis, "abws:*:refresh*");
    let old: Vec<_> = old
        .into_iter()
        .filter(|(k, _)| !k.ends_with("-gen") && !k.ends_with("-lock"))
        .collect();
    assert!(!old.is_empty());
    // T1 → T2 by another process of the fleet (its access token gone first).
    redis.cli(&[
        "DEL",
        redis.cli(&["--scan", "--pattern", "abws:*:token"]).trim(),
    ]);
    let b = abws::blocking::Client::new(settings(Some(&t1))).unwrap();
    token(&b);
    let t2 = refresh_token(&b.credentials().unwrap());
    assert_ne!(t1, t2);
    // The consumed T1 written back; a new worker started from T2 needs a refresh.
    restore(&redis, &old);
    redis.cli(&[
        "DEL",
        redis.cli(&["--scan", "--pattern", "abws:*:token"]).trim(),
    ]);
    let job = json!({"kind": "token", "sandbox": sb.describe(), "redis": address,
                     "refresh_token": t2});
    let out = results(workers(1, &job));
    assert_eq!(out[0]["ok"], true, "{}", out[0]);
    let handed: Vec<String> = serde_json::from_value(out[0]["handed"].clone()).unwrap();
    assert!(!handed.contains(&t1), "the consumed token was handed over");
    assert_eq!(handed.len(), 1, "the successor of T2, once: {handed:?}");
    assert_eq!(
        sb.counters()["requests"]["token"]["400"]
            .as_u64()
            .unwrap_or(0),
        0,
        "no consumed token was sent"
    );
}

/// S6: refresh tokens the server rotates, and Redis unreachable at the first refresh: the
/// 4 workers each refresh on their own, one rotation wins and the others' tokens are
/// refused. Those wait for the winner's successor, which it hands to the fleet as soon as
/// Redis is back: no worker fails.
#[test]
pub(crate) fn workers_refused_after_a_rotation_without_redis_take_the_fleets_successor() {
    let sb = common::sandbox_with(|c| c.rotate_refresh_tokens = true);
    let mut redis = Redis::start();
    redis.kill();
    let job = json!({"kind": "reads", "sandbox": sb.describe(),
                     "redis": format!("{}?account=acme-jp", redis.url()),
                     "numbers": common::previous_month_invoices(&sb), "calls": 1, "threads": 1,
                     "linger_ms": 4000});
    let children = workers(4, &job);
    std::thread::sleep(Duration::from_millis(1500));
    redis.restart();
    let out = results(children);
    let errors: Vec<_> = out.iter().map(|r| r["errors"].as_u64().unwrap()).collect();
    assert_eq!(errors, [0, 0, 0, 0], "{out:?}");
    let c = sb.counters();
    assert!(
        c["requests"]["token"]["400"].as_u64().unwrap_or(0) <= 3,
        "each refused token was sent once: {}",
        c["requests"]["token"]
    );
}

/// S6: a refresh lock without expiry (an older version's, or set by hand) does not hold a
/// new process off: it is taken over at once, with an expiry.
#[test]
pub(crate) fn a_refresh_lock_without_expiry_is_taken_over() {
    let sb = common::sandbox();
    let redis = Redis::start();
    let mut s = shared_settings(&sb, &redis);
    s.shared_state = Some(format!("{}?account=acme-jp", redis.url()).into());
    let first = abws::blocking::Client::new(s.clone()).unwrap();
    token(&first);
    let stored = redis.cli(&["--scan", "--pattern", "abws:*:token"]);
    let lock = format!("{}-lock", stored.trim());
    redis.cli(&["DEL", stored.trim()]);
    redis.cli(&["SET", &lock, "left-behind"]);
    assert_eq!(redis.cli(&["PTTL", &lock]), "-1");
    let t = Instant::now();
    token(&abws::blocking::Client::new(s).unwrap());
    assert!(
        t.elapsed() < Duration::from_secs(3),
        "held off for {:?}",
        t.elapsed()
    );
    assert_eq!(refreshes(&sb), 2);
}

/// `shared_state_required`: the blocking client refuses to be built on a shared
/// state it cannot use (a wrong password: a validation error naming `shared_state`, the
/// password never shown); the async client, whose constructor cannot wait, fails its first
/// call instead (nothing sent); `check_shared_state` says the same
/// at any time, also for a client without the requirement.
#[test]
fn shared_state_required_fails_fast() {
    let sb = common::sandbox();
    let redis = Redis::start();
    let n = common::previous_month_invoices(&sb);
    assert_eq!(
        redis.cli(&["CONFIG", "SET", "requirepass", "right-pw-40"]),
        "OK"
    );
    let port = redis.port();
    let with = |password: &str, required: bool| {
        let mut s = shared_settings(&sb, &redis);
        s.shared_state = Some(format!("redis://:{password}@127.0.0.1:{port}/0").into());
        s.shared_state_required = required;
        s
    };
    let e = abws::blocking::Client::new(with("wrong-pw-40", true)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Validation, "{e}");
    assert_eq!(e.parameter(), Some("shared_state"));
    assert!(
        e.to_string().contains("password") && !e.to_string().contains("wrong-pw-40"),
        "{e}"
    );
    // Not required: built, calls go on; the check names the problem.
    let lenient = abws::blocking::Client::new(with("wrong-pw-40", false)).unwrap();
    detail(&lenient, &n[0]).unwrap();
    let e = lenient.check_shared_state().unwrap_err();
    assert_eq!(e.parameter(), Some("shared_state"), "{e}");
    // The right password: built, checked, calls work.
    let client = abws::blocking::Client::new(with("right-pw-40", true)).unwrap();
    client.check_shared_state().unwrap();
    detail(&client, &n[0]).unwrap();
    // Required without an address: refused.
    let mut none = common::settings(&sb, Region::JP);
    none.shared_state_required = true;
    let e = abws::blocking::Client::new(none).unwrap_err();
    assert_eq!(e.parameter(), Some("shared_state"), "{e}");
    // The async client: its first call checks.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let client = abws::Client::new(with("wrong-pw-40", true)).unwrap();
        let p = GetInvoiceDetailByInvoiceNumberParams {
            invoice_number: n[0].clone(),
            region: Some("JP".into()),
        };
        let before = sb.counters()["requests"].clone();
        let e = client.call(&p).await.unwrap_err();
        assert_eq!(e.parameter(), Some("shared_state"), "{e}");
        assert_eq!(sb.counters()["requests"], before, "nothing sent");
        let client = abws::Client::new(with("right-pw-40", true)).unwrap();
        client.call(&p).await.unwrap();
    });
}
