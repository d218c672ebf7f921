//! Token buckets per (account, operation), refilled on the scaled clock.

use std::collections::HashMap;
use std::sync::Mutex;

use chrono::{DateTime, Utc};

use crate::config::RateLimits;

struct Bucket {
    tokens: f64,
    last: DateTime<Utc>,
}

pub struct Limiter {
    enforce: bool,
    /// The clock's speed-up: the buckets refill on the scaled clock, so per real second an
    /// operation allows `rate × time_scale`, and that is what the header says.
    time_scale: f64,
    overrides: Mutex<HashMap<String, (f64, u32)>>,
    buckets: Mutex<HashMap<(u64, String), Bucket>>,
}

impl Limiter {
    pub fn new(cfg: &RateLimits, time_scale: f64) -> Limiter {
        let (enforce, overrides) = match cfg {
            RateLimits::Spec => (true, HashMap::new()),
            RateLimits::Off => (false, HashMap::new()),
            RateLimits::Overrides(m) => (true, m.clone()),
        };
        Limiter {
            enforce,
            time_scale,
            overrides: Mutex::new(overrides),
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// (rate per second, burst) in force for an operation.
    pub fn limit(&self, op: &str) -> (f64, u32) {
        if let Some(v) = self
            .overrides
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(op)
        {
            return *v;
        }
        abws_spec::by_id(op)
            .map(|o| (o.rate, o.burst))
            .unwrap_or((1.0, 10))
    }

    /// Changes an operation's limit at run time; its buckets restart full at the new burst.
    pub fn set(&self, op: &str, rate: f64, burst: u32) {
        self.overrides
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(op.to_string(), (rate, burst));
        self.buckets
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|(_, o), _| o != op);
    }

    /// `x-svc-RateLimit-Limit`: requests per real second (the service's rate at
    /// `time_scale` 1), so a client paced by its own clock learns the rate that holds.
    pub fn header_value(&self, op: &str) -> String {
        format_rate(self.limit(op).0 * self.time_scale)
    }

    /// Takes one token; false means 429.
    pub fn try_take(&self, party: u64, op: &str, now: DateTime<Utc>) -> bool {
        if !self.enforce {
            return true;
        }
        let (rate, burst) = self.limit(op);
        let mut g = self.buckets.lock().unwrap_or_else(|e| e.into_inner());
        let b = g.entry((party, op.to_string())).or_insert(Bucket {
            tokens: burst as f64,
            last: now,
        });
        let elapsed = (now - b.last).num_microseconds().unwrap_or(0).max(0) as f64 / 1e6;
        b.tokens = (b.tokens + elapsed * rate).min(burst as f64);
        b.last = now;
        if b.tokens >= 1.0 {
            b.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

pub fn format_rate(r: f64) -> String {
    // 0.0167 × 120 is 2.0040000000000004 in binary: six decimals are plenty.
    let r = (r * 1e6).round() / 1e6;
    let s = format!("{r}");
    if s.contains('.') || s.contains('e') {
        s
    } else {
        format!("{s}.0")
    }
}
