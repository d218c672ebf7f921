//! Bucket pacing on tokio's paused clock: time only moves when the test says so.

use std::time::Duration;

use abws::ratelimit::{Bucket, BucketKey, Limiters, Plan, SAFETY_FACTOR, TIME_MARGIN};

#[tokio::test(start_paused = true)]
async fn burst_then_steady_rate() {
    let bucket = Bucket::new(Plan::new(0.5, 10));
    let start = tokio::time::Instant::now();
    for _ in 0..9 {
        bucket.acquire().await;
    }
    assert_eq!(start.elapsed(), Duration::ZERO, "the burst goes at once");
    // But for its last request: the time margin (100 ms) of the server's bucket is kept.
    bucket.acquire().await;
    assert_eq!(start.elapsed(), TIME_MARGIN, "the margin in time");
    let mut stamps = vec![];
    for _ in 0..5 {
        bucket.acquire().await;
        stamps.push(start.elapsed());
    }
    // 0.5 rps paced with the 2 % safety margin: one request every 2.04 s (the margin in
    // time stays: no loss of rate).
    for (i, t) in stamps.iter().enumerate() {
        let want = 2.0 / 0.98 * (i + 1) as f64 + TIME_MARGIN.as_secs_f64();
        assert!(
            (t.as_secs_f64() - want).abs() < 0.01,
            "request {i} at {t:?}, want {want}"
        );
    }
}

#[tokio::test(start_paused = true)]
async fn any_window_stays_within_the_plan() {
    // 100 requests: in every window of w seconds at most burst + rate·w are sent.
    let bucket = Bucket::new(Plan::new(2.0, 2));
    let start = tokio::time::Instant::now();
    let mut stamps = vec![];
    for _ in 0..100 {
        bucket.acquire().await;
        stamps.push(start.elapsed().as_secs_f64());
    }
    for (i, a) in stamps.iter().enumerate() {
        for (j, b) in stamps.iter().enumerate().skip(i) {
            let count = (j - i + 1) as f64;
            assert!(
                count <= 2.0 + 2.0 * (b - a) + 1e-9,
                "{count} requests in {} s",
                b - a
            );
        }
    }
    let rate = 98.0 / (stamps[99] - stamps[1]);
    assert!(rate > 1.9 && rate <= 2.0, "{rate}");
}

#[tokio::test(start_paused = true)]
async fn refills_while_idle_and_never_exceeds_burst() {
    let bucket = Bucket::new(Plan::new(1.0, 3));
    for _ in 0..3 {
        bucket.acquire().await;
    }
    assert!(bucket.available() < 0.01);
    tokio::time::advance(Duration::from_secs(100)).await;
    // Capped at the burst, less the time margin's share of a token.
    let full = 3.0 - TIME_MARGIN.as_secs_f64() * SAFETY_FACTOR;
    assert!(
        (bucket.available() - full).abs() < 1e-9,
        "capped at the burst: {}",
        bucket.available()
    );
}

#[tokio::test(start_paused = true)]
async fn adopts_the_servers_rate() {
    let bucket = Bucket::new(Plan::new(0.5, 1));
    bucket.acquire().await;
    bucket.set_rate(5.0);
    let start = tokio::time::Instant::now();
    bucket.acquire().await;
    bucket.acquire().await;
    // The first wait still ends the slot reserved at the old rate; after it, 5 rps.
    let last_gap = {
        let t0 = tokio::time::Instant::now();
        bucket.acquire().await;
        t0.elapsed().as_secs_f64()
    };
    assert!((last_gap - 0.2 / 0.98).abs() < 0.01, "{last_gap}");
    assert!(start.elapsed().as_secs_f64() < 2.5);
    assert_eq!(bucket.plan().rate, 5.0);
}

#[tokio::test(start_paused = true)]
async fn a_throttle_empties_the_bucket() {
    let bucket = Bucket::new(Plan::new(1.0, 5));
    bucket.throttled();
    let start = tokio::time::Instant::now();
    bucket.acquire().await;
    // One interval, and the time margin: the server's bucket holds the margin's reserve
    // again when the next request comes (a late request after a 429 finds a token).
    let interval = Duration::from_secs_f64(1.0 / SAFETY_FACTOR);
    assert!(
        start.elapsed() >= interval + TIME_MARGIN,
        "{:?}",
        start.elapsed()
    );
    bucket.acquire().await;
    assert!(start.elapsed() >= interval * 2 + TIME_MARGIN);
}

#[test]
fn buckets_are_shared_per_party_group_and_operation() {
    let limiters = Limiters::default();
    let key = |party, op| BucketKey {
        party,
        group: "FE",
        operation: op,
        fallback: false,
    };
    let a = limiters.bucket(key(1, "getInvoices"), Plan::new(0.5, 10));
    let b = limiters.bucket(key(1, "getInvoices"), Plan::new(0.5, 10));
    let c = limiters.bucket(key(2, "getInvoices"), Plan::new(0.5, 10));
    let d = limiters.bucket(key(1, "getTransactions"), Plan::new(0.5, 10));
    assert!(std::sync::Arc::ptr_eq(&a, &b));
    assert!(!std::sync::Arc::ptr_eq(&a, &c));
    assert!(!std::sync::Arc::ptr_eq(&a, &d));
}

#[tokio::test(start_paused = true)]
async fn waiters_are_served_in_line() {
    // 16 callers on a 0.5 rps plan with an empty bucket: each waits about its place in
    // line, none starves (polling alone let whoever woke first take each slot).
    let bucket = std::sync::Arc::new(Bucket::new(Plan::new(0.5, 1)));
    bucket.acquire().await;
    let start = tokio::time::Instant::now();
    let mut tasks = vec![];
    for i in 0..16u32 {
        let b = bucket.clone();
        tasks.push(tokio::spawn(async move {
            b.acquire().await;
            (i, start.elapsed())
        }));
        tokio::task::yield_now().await; // joins the line in this order
    }
    let interval = 2.0 / 0.98;
    for t in tasks {
        let (i, waited) = t.await.unwrap();
        let want = interval * f64::from(i + 1);
        assert!(
            (waited.as_secs_f64() - want).abs() < 0.15,
            "caller {i} waited {waited:?}, want {want:.2} s"
        );
    }
}

#[tokio::test(start_paused = true)]
async fn a_caller_that_gives_up_leaves_the_line() {
    let bucket = std::sync::Arc::new(Bucket::new(Plan::new(1.0, 1)));
    bucket.acquire().await;
    let b = bucket.clone();
    let impatient =
        tokio::spawn(
            async move { tokio::time::timeout(Duration::from_millis(100), b.acquire()).await },
        );
    tokio::task::yield_now().await;
    assert!(impatient.await.unwrap().is_err());
    let start = tokio::time::Instant::now();
    bucket.acquire().await;
    assert!(
        start.elapsed() < Duration::from_secs(2),
        "{:?}",
        start.elapsed()
    );
}
