//! Scaled virtual clock: every server-side lifetime is measured on it, so a time scale of 60
//! makes a one-hour token expire after one real minute.

use std::time::{Duration, Instant};

use chrono::{DateTime, NaiveDate, Utc};

#[derive(Debug, Clone)]
pub struct Clock {
    start_real: Instant,
    start_virtual: DateTime<Utc>,
    scale: f64,
    /// The day was pinned (`today`): the scaled clock is the calendar too.
    pinned: bool,
}

impl Clock {
    /// Starts at noon UTC of `today` (so a pinned date gives a reproducible data set and
    /// clock), or at the current instant when `today` is None.
    pub fn new(today: Option<NaiveDate>, scale: f64) -> Clock {
        let start_virtual = match today.and_then(|d| d.and_hms_opt(12, 0, 0)) {
            Some(d) => d.and_utc(),
            None => Utc::now(),
        };
        let scale = if scale.is_finite() && scale > 0.0 {
            scale
        } else {
            1.0
        };
        Clock {
            start_real: Instant::now(),
            start_virtual,
            scale,
            pinned: today.is_some(),
        }
    }

    /// The scaled clock: every lifetime is measured on it.
    pub fn now(&self) -> DateTime<Utc> {
        let elapsed = self.start_real.elapsed().as_secs_f64() * self.scale;
        self.start_virtual + chrono::Duration::microseconds((elapsed * 1e6) as i64)
    }

    /// The present as the calendar goes: what the records a request creates carry (an
    /// order's date, a cart item's times) and what `Sandbox::now` tells. With a pinned day
    /// it is the scaled clock; otherwise that clock, which a scale above 1 runs ahead of
    /// the wall clock, but never after the wall clock: clients compute their date ranges
    /// from it, and an order placed now must fall in a range that ends now.
    pub fn calendar_now(&self) -> DateTime<Utc> {
        let now = self.now();
        if self.pinned {
            now
        } else {
            now.min(Utc::now())
        }
    }

    /// The anchor instant of the data set.
    pub fn start(&self) -> DateTime<Utc> {
        self.start_virtual
    }

    pub fn scale(&self) -> f64 {
        self.scale
    }
}

pub fn chrono_dur(d: Duration) -> chrono::Duration {
    chrono::Duration::milliseconds(d.as_millis().min(i64::MAX as u128) as i64)
}
