//! Client-side pacing: one token bucket per (party, regional group, operation), shared by
//! every client of the process with the same credentials, seeded with the published usage
//! plans and adjusted to the rate the server reports in `x-svc-RateLimit-Limit`.
//!
//! The bucket is a GCRA (generic cell rate algorithm): it keeps the theoretical arrival
//! time of the next request, so a caller reserves its slot under a short lock and then
//! sleeps without holding anything. Time is tokio's clock, which tests can pause and
//! advance by hand.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::time::Instant;

/// The server's limit is approached to this share, leaving room for timing jitter
/// between our clock and the server's, so pacing reaches the limit without a 429.
pub const SAFETY_FACTOR: f64 = 0.98;

/// The margin in time: a burst leaves this much of the server's bucket unused (up to all
/// but one token), so a request that reaches the server up to this late (a busy machine
/// schedules the sending thread or the server late) finds a token there. The rate margin
/// alone gains 2 % of an interval per request: 2 ms at 10 requests/s, less than the
/// scheduling delays of a loaded machine. It costs no throughput: only the
/// first burst after an idle spell is shorter, by `TIME_MARGIN × rate` requests.
pub const TIME_MARGIN: Duration = Duration::from_millis(100);

/// A usage plan: sustained requests per second and burst.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Plan {
    /// Sustained requests per second.
    pub rate: f64,
    /// Requests that may go at once after a pause.
    pub burst: u32,
}

impl Plan {
    /// A plan (usable in constants).
    pub const fn new(rate: f64, burst: u32) -> Plan {
        Plan { rate, burst }
    }
}

#[derive(Debug)]
struct State {
    plan: Plan,
    /// Theoretical arrival time: when the bucket would be full again.
    tat: Instant,
}

/// One token bucket.
#[derive(Debug)]
pub struct Bucket {
    state: Mutex<State>,
    /// Waiters line up here (tokio's mutex serves first come, first served), so under
    /// contention a caller waits about its place in line. Polling alone let whoever woke
    /// first take each slot: with 16 threads on a 0.5 rps plan, one call in 50 starved past
    /// its deadline (A1 at the plan's size).
    line: tokio::sync::Mutex<()>,
    /// A fallback bucket's share of the server's rate (`None`: the full share), which 429s
    /// cut and answers regrow (`request::pacing`, `fallback_outcome`).
    share: Mutex<Option<f64>>,
}

impl Bucket {
    /// A full bucket for `plan` (a rate that is not positive and finite becomes 1 per
    /// second; a burst of 0 becomes 1).
    pub fn new(plan: Plan) -> Bucket {
        Bucket {
            state: Mutex::new(State {
                plan: sanitize(plan),
                tat: Instant::now(),
            }),
            line: tokio::sync::Mutex::new(()),
            share: Mutex::new(None),
        }
    }

    /// The share of the rate this bucket paces at (`full` until a 429 cut it).
    pub fn share(&self, full: f64) -> f64 {
        self.share
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .unwrap_or(full)
    }

    /// Halves the share (not below `floor`) and returns it.
    pub fn cut_share(&self, full: f64, floor: f64) -> f64 {
        let mut s = self.share.lock().unwrap_or_else(|p| p.into_inner());
        let cut = (s.unwrap_or(full) / 2.0).max(floor);
        *s = Some(cut);
        cut
    }

    /// Grows the share by `step` (not above `full`) and returns it.
    pub fn grow_share(&self, full: f64, step: f64) -> f64 {
        let mut s = self.share.lock().unwrap_or_else(|p| p.into_inner());
        let grown = (s.unwrap_or(full) + step).min(full);
        *s = Some(grown);
        grown
    }

    fn interval(plan: &Plan) -> Duration {
        Duration::from_secs_f64(1.0 / (plan.rate * SAFETY_FACTOR))
    }

    /// How far ahead of now the theoretical arrival time may be for a slot to be open:
    /// the burst's intervals less the time margin (never below zero).
    fn tolerance(plan: &Plan) -> Duration {
        (Self::interval(plan) * plan.burst.saturating_sub(1)).saturating_sub(TIME_MARGIN)
    }

    /// Reserves the next slot and returns how long to wait before sending.
    pub fn reserve(&self) -> Duration {
        let now = Instant::now();
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let t = Self::interval(&s.plan);
        let tolerance = Self::tolerance(&s.plan);
        let tat = s.tat.max(now);
        let allowed_at = (tat.checked_sub(tolerance)).unwrap_or(now).max(now);
        s.tat = tat + t;
        allowed_at - now
    }

    /// How long until a slot opens, without taking it.
    pub fn wait_estimate(&self) -> Duration {
        let now = Instant::now();
        let s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let tolerance = Self::tolerance(&s.plan);
        let tat = s.tat.max(now);
        tat.checked_sub(tolerance).unwrap_or(now).max(now) - now
    }

    /// Takes a slot if one is open now; otherwise says how long until one opens.
    pub fn try_take(&self) -> Result<(), Duration> {
        let now = Instant::now();
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let t = Self::interval(&s.plan);
        let tolerance = Self::tolerance(&s.plan);
        let tat = s.tat.max(now);
        let allowed_at = tat.checked_sub(tolerance).unwrap_or(now).max(now);
        if allowed_at <= now {
            s.tat = tat + t;
            Ok(())
        } else {
            Err(allowed_at - now)
        }
    }

    /// Waits for a slot, in line with the other waiters. The first in line holds no
    /// reservation while it sleeps and wakes at least every 100 ms, so a rate the server
    /// changes applies at once. Dropping the future leaves the line.
    pub async fn acquire(&self) {
        let _turn = self.line.lock().await;
        while let Err(wait) = self.try_take() {
            tokio::time::sleep(wait.min(Duration::from_millis(100))).await;
        }
    }

    /// Adopts the rate the server reported (keeps the burst). The tokens already owed are
    /// re-counted at the new rate, so a faster rate applies at once and a slower one
    /// pushes the next slot out.
    /// True when the rate changed.
    pub fn set_rate(&self, rate: f64) -> bool {
        if !(rate.is_finite() && rate > 0.0) {
            return false;
        }
        let now = Instant::now();
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if (s.plan.rate - rate).abs() > f64::EPSILON {
            let old = Self::interval(&s.plan).as_secs_f64();
            s.plan.rate = rate;
            let new = Self::interval(&s.plan).as_secs_f64();
            let owed = s.tat.saturating_duration_since(now).as_secs_f64() / old;
            s.tat = now + Duration::from_secs_f64(owed * new);
            return true;
        }
        false
    }

    /// The line waiters stand in (first come, first served).
    pub fn line(&self) -> &tokio::sync::Mutex<()> {
        &self.line
    }

    /// After a 429 the server's bucket is empty: the next request waits one interval and
    /// the time margin, which restores the margin's reserve in the server's bucket (left at
    /// one interval, a 429 spent it for good: each later late request met a 429 too).
    pub fn throttled(&self) {
        let now = Instant::now();
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let t = Self::interval(&s.plan);
        let empty = now + t * s.plan.burst;
        if s.tat < empty {
            s.tat = empty;
        }
    }

    /// The plan in force (the published one, or the rate the server reported).
    pub fn plan(&self) -> Plan {
        self.state.lock().unwrap_or_else(|p| p.into_inner()).plan
    }

    /// Tokens available now, in `[0, burst]`: the burst less the time margin's share of a
    /// token when full (for tests and diagnostics).
    pub fn available(&self) -> f64 {
        let now = Instant::now();
        let s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let t = Self::interval(&s.plan).as_secs_f64();
        let full = (Self::tolerance(&s.plan).as_secs_f64() + t) / t;
        let ahead = s.tat.saturating_duration_since(now).as_secs_f64();
        (full - ahead / t).clamp(0.0, full)
    }
}

fn sanitize(plan: Plan) -> Plan {
    Plan {
        rate: if plan.rate.is_finite() && plan.rate > 0.0 {
            plan.rate
        } else {
            1.0
        },
        burst: plan.burst.max(1),
    }
}

/// Identifies a bucket: the party (hash of the credentials), the regional group and the
/// operationId.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BucketKey {
    /// The credentials' identity (`Credentials::party`).
    pub party: u64,
    /// The regional group (`NA`, `EU` or `FE`).
    pub group: &'static str,
    /// The operationId.
    pub operation: &'static str,
    /// The bucket a process paces with while the shared state is unreachable.
    pub fallback: bool,
}

/// The process-wide set of buckets.
#[derive(Debug, Default)]
pub struct Limiters {
    buckets: Mutex<HashMap<BucketKey, Arc<Bucket>>>,
}

impl Limiters {
    /// The bucket for `key`, created from `plan` on first use.
    pub fn bucket(&self, key: BucketKey, plan: Plan) -> Arc<Bucket> {
        let mut map = self.buckets.lock().unwrap_or_else(|p| p.into_inner());
        map.entry(key)
            .or_insert_with(|| Arc::new(Bucket::new(plan)))
            .clone()
    }
}

/// Reads `x-svc-RateLimit-Limit` ("0.5", "2.0"). The server's number is bounded to one
/// request an hour .. 10 000 per second, so that no interval computed from it overflows.
pub fn parse_rate_header(value: &str) -> Option<f64> {
    value
        .trim()
        .parse::<f64>()
        .ok()
        .filter(|r| r.is_finite() && *r > 0.0)
        .map(|r| r.clamp(1.0 / 3600.0, 10_000.0))
}
