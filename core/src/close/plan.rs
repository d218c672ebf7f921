//! The plan: the requests each rate bucket still has to serve, and how long the slowest
//! bucket needs at the operation table's published rates (the client adopts the rate the
//! service reports; the estimate uses the table's).

use serde::Serialize;

use crate::operations::{self as ops, Operation};

/// One rate bucket's share of the close.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct BucketPlan {
    /// The operation (each operation is its own bucket).
    pub operation: String,
    /// Requests it still has to send.
    pub requests: u64,
    /// Requests a second (the published rate, times the time scale).
    pub rate: f64,
    /// Requests that go at once.
    pub burst: u32,
    /// Seconds the bucket needs: the burst at once, the rest at the rate.
    pub seconds: f64,
}

/// The plan of a close, and its estimate.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct Plan {
    /// Invoices listed for the month.
    pub invoices: u64,
    /// PDFs to file.
    pub pdfs: u64,
    /// Invoices whose data an earlier run already read.
    pub invoices_done: u64,
    /// PDFs an earlier run already filed (or saw fail).
    pub pdfs_done: u64,
    /// Reports of an earlier run that will be reused.
    pub reports_reused: u64,
    /// One entry per bucket.
    pub buckets: Vec<BucketPlan>,
    /// The estimated duration in seconds: the slowest bucket's.
    pub seconds: f64,
    /// The operation whose bucket sets the pace.
    pub slowest: String,
}

/// Seconds a bucket of `rate` and `burst` needs for `requests`.
pub(crate) fn bucket_seconds(requests: u64, rate: f64, burst: u32) -> f64 {
    requests.saturating_sub(u64::from(burst)) as f64 / rate
}

/// The buckets' lines and the estimate, for `counts` of (operation, requests).
pub(crate) fn estimate(
    counts: &[(&'static Operation, u64)],
    scale: f64,
) -> (Vec<BucketPlan>, f64, String) {
    let mut slowest = (0.0, String::new());
    let buckets = counts
        .iter()
        .map(|(op, n)| {
            let rate = op.plan.rate * scale;
            let seconds = bucket_seconds(*n, rate, op.plan.burst);
            if seconds >= slowest.0 {
                slowest = (seconds, op.id.to_string());
            }
            BucketPlan {
                operation: op.id.to_string(),
                requests: *n,
                rate,
                burst: op.plan.burst,
                seconds,
            }
        })
        .collect();
    (buckets, slowest.0, slowest.1)
}

/// The operations of a close's invoice data and PDFs, in the plan's order.
pub(crate) fn counts(data: u64, create: u64, pdfs: u64) -> Vec<(&'static Operation, u64)> {
    vec![
        (&ops::GET_INVOICE_DETAIL, data),
        (&ops::GET_INVOICE_LINE_ITEMS, data),
        (&ops::CREATE_REPORT_OP, create),
        (&ops::GET_REPORT, pdfs),
        (&ops::GET_REPORT_DOCUMENT, pdfs),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_slowest_bucket_sets_the_estimate() {
        // 500 PDFs: 15 at once, 485 at 0.0167/s, about 8 hours (the script's figure).
        let (buckets, seconds, slowest) = estimate(&counts(500, 500, 500), 1.0);
        assert_eq!(buckets.len(), 5);
        assert_eq!(slowest, "createReport");
        assert!((seconds - 485.0 / 0.0167).abs() < 1e-6, "{seconds}");
        assert!(seconds > 8.0 * 3600.0 && seconds < 8.1 * 3600.0);
        // At 240x the rates, 240 times shorter.
        let (_, fast, _) = estimate(&counts(500, 500, 500), 240.0);
        assert!((fast * 240.0 - seconds).abs() < 1e-6);
        assert_eq!(bucket_seconds(10, 0.5, 10), 0.0);
    }
}
