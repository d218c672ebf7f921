//! The month-end close: a month's invoices and credit memos matched to the business
//! transactions, tax totalled by rate, and the PDFs filed in a sealed archive — the job
//! the library exists for, as one library call (`close_month`).
//!
//! One concern per file: `plan` (requests per rate bucket and the estimate), `state`
//! (the resumable job state, bound to the account), `files` (the output directory: no
//! path from the state used unchecked, no symbolic link followed), `reconcile` (the
//! transaction feed read across its lag), `ledger` (the ledger and exceptions, as rows
//! and CSV), `archive` (the sealed zip of the PDFs) and `run` (the paced work over every
//! bucket). `docs/close.md` describes the outputs and the archive format.
//!
//! The parameters come from JSON as well as Rust (`CloseParams` is a serde struct), the
//! result serializes to JSON (`CloseResult`), progress goes to a `Fn(&CloseProgress)`
//! callback, and the close is cancelled like any other call: drop its future (the job
//! state is written at every step, so running the same close again finishes only what
//! is missing).

mod archive;
mod files;
mod ledger;
mod plan;
mod reconcile;
mod run;
mod state;

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::Client;

pub use archive::{
    open_archive, open_archive_with_password, sandbox_demo_key, sandbox_demo_key_hex,
    ARCHIVE_SUFFIX,
};
pub use ledger::{csv_cell, ExceptionRow, LedgerRow};
pub use plan::{BucketPlan, Plan};
pub use run::previous_month;
pub use state::InvoiceFigures;

/// What to close, and how. Read from JSON by these (snake_case) names; only `month` and
/// `out` are required.
#[derive(Clone, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CloseParams {
    /// The month, `YYYY-MM`, counted in `timezone`: it must have ended.
    pub month: String,
    /// The zone the month is counted in: `UTC` (default, the service's dates) or an IANA
    /// name such as `Asia/Tokyo`. Outputs and job state of another zone carry its name
    /// (`ledger-JP-2026-10-Asia_Tokyo.csv`).
    pub timezone: Option<String>,
    /// The output directory: made (or tightened to) mode 0700; a symbolic link is refused.
    pub out: PathBuf,
    /// The invoices' region (default: the client's).
    pub region: Option<String>,
    /// A name of the account, for callers whose one app closes the months of several
    /// accounts without `user_email`: the job state is bound to it as well (besides the
    /// address, the region, the app's client id and the user's email).
    pub account: Option<String>,
    /// No PDFs: the ledger and exceptions only.
    pub no_pdfs: bool,
    /// PDFs only for these invoice numbers (`*` and `?` patterns); empty: all.
    pub pdfs_for: Vec<String>,
    /// The ledger and totals of this legal entity only (case-insensitive).
    pub legal_entity: Option<String>,
    /// Stop after the plan (the invoice list is the only request).
    pub plan_only: bool,
    /// Ignore (and remove) the job state and sealed parts of an earlier run.
    pub fresh: bool,
    /// Seconds between report polls (default: the library's, paced by the service).
    pub poll_interval: Option<f64>,
    /// How much faster than the published rates the plan's estimate counts (a sandbox
    /// with a scaled clock); default 1.
    pub time_scale: Option<f64>,
    /// The archive's key, 64 hex digits (default: `ABWS_ARCHIVE_KEY`). Never serialized.
    #[serde(skip_serializing)]
    pub archive_key: Option<String>,
    /// A password instead of the key (default: `ABWS_ARCHIVE_PASSWORD` when neither is
    /// given): the key is derived with scrypt under a salt the job state records, and
    /// the archive opens with the password alone (`open_archive_with_password`). Never
    /// serialized, redacted in `Debug`, wiped when dropped.
    #[serde(skip_serializing)]
    pub archive_password: Option<crate::Secret>,
}

impl std::fmt::Debug for CloseParams {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CloseParams")
            .field("month", &self.month)
            .field("timezone", &self.timezone)
            .field("out", &self.out)
            .field("region", &self.region)
            .field("account", &self.account)
            .field("no_pdfs", &self.no_pdfs)
            .field("pdfs_for", &self.pdfs_for)
            .field("legal_entity", &self.legal_entity)
            .field("plan_only", &self.plan_only)
            .field("fresh", &self.fresh)
            .field("archive_key", &self.archive_key.as_ref().map(|_| "***"))
            .field("archive_password", &self.archive_password)
            .finish_non_exhaustive()
    }
}

/// The close's phases, in the order they start (the work phases run side by side).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// The invoice list is read and the plan made (`CloseProgress::plan` holds it).
    Plan,
    /// Each invoice's detail and line items.
    InvoiceData,
    /// The transaction feed and its invoice data.
    Transactions,
    /// Each invoice's PDF into its sealed part.
    Pdfs,
    /// The ledger, the exceptions and the archive are written.
    Outputs,
}

impl Phase {
    /// The phase's name as it is serialized (`"plan"`, `"invoice_data"`, ...): what the
    /// bindings' progress callbacks receive.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Plan => "plan",
            Phase::InvoiceData => "invoice_data",
            Phase::Transactions => "transactions",
            Phase::Pdfs => "pdfs",
            Phase::Outputs => "outputs",
        }
    }
}

/// One step of progress: `done` of `total` in `phase`.
#[derive(Clone, Debug, Serialize)]
pub struct CloseProgress {
    /// The phase the step belongs to.
    pub phase: Phase,
    /// Items of the phase done (this run and earlier runs).
    pub done: u64,
    /// Items of the phase in all.
    pub total: u64,
    /// With `Phase::Plan`: the plan and its estimate.
    pub plan: Option<Plan>,
}

/// An exact decimal amount, written in JSON as its text (`"-12.50"`), never a float.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Figure(pub crate::Decimal);

impl Serialize for Figure {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for Figure {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Figure, D::Error> {
        let text = String::deserialize(d)?;
        text.parse()
            .map(Figure)
            .map_err(|_| serde::de::Error::custom(format!("not a decimal amount: {text:?}")))
    }
}

impl std::fmt::Display for Figure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// What a close filed (serializes to JSON; amounts as decimal text).
#[derive(Clone, Debug, Default, Serialize)]
pub struct CloseResult {
    /// The region closed.
    pub region: String,
    /// The month closed, `YYYY-MM`.
    pub month: String,
    /// The zone it was counted in (`UTC`, or the IANA name given).
    pub timezone: String,
    /// Its first instant, RFC 3339 in that zone (`2026-10-01T00:00:00+09:00`).
    pub period_start: String,
    /// Its last second, RFC 3339 in that zone (`2026-10-31T23:59:59+09:00`).
    pub period_end: String,
    /// The plan this run made (requests still to send, and the estimate).
    pub plan: Plan,
    /// False when the close stopped after the plan (`plan_only`).
    pub complete: bool,
    /// Standard invoices in the ledger.
    pub invoices: u64,
    /// Credit memos in the ledger.
    pub credit_memos: u64,
    /// The invoices' currency.
    pub currency: String,
    /// The sum of the ledger's totals (credit memos negative).
    pub net_total: Figure,
    /// Tax by rate, over the ledger's invoices.
    pub tax_by_rate: BTreeMap<String, Figure>,
    /// One row per invoice (the CSV ledger's rows).
    pub ledger: Vec<LedgerRow>,
    /// One row per exception (the CSV exceptions' rows).
    pub exceptions: Vec<ExceptionRow>,
    /// Transactions considered: of the month's invoices, and the month's others.
    pub transactions: u64,
    /// Of them, matched to an invoice of the ledger.
    pub matched: u64,
    /// Invoices the invoice data of the transactions' line items confirms.
    pub confirmed: u64,
    /// The end of the feed window read (the month's end plus the feed margin, or now).
    pub feed_end: Option<String>,
    /// The CSV ledger.
    pub ledger_path: Option<PathBuf>,
    /// The CSV exceptions.
    pub exceptions_path: Option<PathBuf>,
    /// The sealed archive of the PDFs (none with `no_pdfs`).
    pub archive_path: Option<PathBuf>,
    /// PDFs in the archive.
    pub pdfs_filed: u64,
    /// Reports this run created.
    pub reports_created: u64,
    /// Reports of an earlier run this run reused.
    pub reports_reused: u64,
}

/// The type of a progress callback.
pub type ProgressFn<'a> = &'a (dyn Fn(&CloseProgress) + Send + Sync);

/// Closes a month (see the module's documentation): the plan, the invoice data,
/// transactions and PDFs side by side, then the ledger, the exceptions and the sealed
/// archive in `out`. Bad parameters are refused before any request.
pub async fn close_month(client: &Client, params: &CloseParams) -> Result<CloseResult> {
    run::run(client, params, &|_| {}).await
}

/// `close_month`, calling `progress` at every step.
pub async fn close_month_with_progress(
    client: &Client,
    params: &CloseParams,
    progress: ProgressFn<'_>,
) -> Result<CloseResult> {
    run::run(client, params, progress).await
}

impl Client {
    /// The month-end close (`abws::close::close_month`).
    pub async fn close_month(&self, params: &CloseParams) -> Result<CloseResult> {
        close_month(self, params).await
    }

    /// The month-end close with progress (`abws::close::close_month_with_progress`).
    pub async fn close_month_with_progress(
        &self,
        params: &CloseParams,
        progress: ProgressFn<'_>,
    ) -> Result<CloseResult> {
        close_month_with_progress(self, params, progress).await
    }
}

impl crate::blocking::Client {
    /// The month-end close, blocking (`abws::close::close_month`).
    pub fn close_month(&self, params: &CloseParams) -> Result<CloseResult> {
        self.run(|c| async move { close_month(&c, params).await })
    }

    /// The month-end close with progress, blocking.
    pub fn close_month_with_progress(
        &self,
        params: &CloseParams,
        progress: ProgressFn<'_>,
    ) -> Result<CloseResult> {
        self.run(|c| async move { close_month_with_progress(&c, params, progress).await })
    }
}
