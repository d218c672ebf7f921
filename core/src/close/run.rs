//! The close's run: checks before any request, the invoice list and the plan, then the
//! invoice data, the transaction feed and the PDFs side by side (each invoice's
//! createReport sent as soon as its first line item is known, so every rate bucket is
//! busy at once and the close takes about what its slowest bucket needs), then the
//! outputs. Every step is recorded in the job state as it ends, so dropping the future
//! (or killing the process) loses at most the requests in flight.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use chrono::{DateTime, TimeZone, Utc};
use chrono_tz::Tz;
use futures_util::{FutureExt, StreamExt, TryStreamExt};

use super::archive::{Given, Sealing};
use super::files;
use super::ledger::{self, books};
use super::plan::{self, Plan};
use super::reconcile::{all, feed_window, read_feed};
use super::state::{binding, InvoiceFigures, InvoiceRecord, JobState, ReportRecord};
use super::{CloseParams, CloseProgress, CloseResult, Figure, Phase, ProgressFn};
use crate::api::documents::{CreateReportParams, ReportOptionsParams, DEFAULT_POLL_INTERVAL};
use crate::api::invoices::{
    GetInvoiceDetailByInvoiceNumberParams, GetInvoiceLineItemsByInvoiceNumberParams,
    GetInvoicesParams, InvoiceSummary,
};
use crate::error::{Error, ErrorKind, Result};
use crate::sealed::password::password_from_env;
use crate::sealed::DocumentKey;
use crate::{Client, Secret};

/// A month: its key (`2026-10`, or `2026-10-Asia_Tokyo` in another zone than UTC: the
/// name of its job state and outputs, so closes in different zones never mix), first and
/// last instant, and the zone it is counted in.
struct Month {
    key: String,
    start: DateTime<Utc>,
    end: DateTime<Utc>,
    zone: Tz,
}

/// The zone of `CloseParams::timezone`: UTC (the service's dates) or an IANA name.
fn zone(name: Option<&str>) -> Result<Tz> {
    let Some(name) = name.map(str::trim).filter(|n| !n.is_empty()) else {
        return Ok(Tz::UTC);
    };
    if name.eq_ignore_ascii_case("utc") {
        return Ok(Tz::UTC);
    }
    name.parse().map_err(|_| {
        Error::validation(
            "timezone",
            format!(
                "must be UTC or an IANA time zone name such as Asia/Tokyo, Europe/London or \
                 America/New_York (got {name:?})"
            ),
        )
    })
}

/// The first instant of a day in `zone`: its midnight, or the end of a gap over midnight
/// (a few zones change their offset at 00:00).
fn first_instant(zone: Tz, y: i32, m: u32) -> Option<DateTime<Utc>> {
    let midnight = chrono::NaiveDate::from_ymd_opt(y, m, 1)?.and_hms_opt(0, 0, 0)?;
    (0..=4)
        .find_map(|half_hours| {
            zone.from_local_datetime(&(midnight + chrono::Duration::minutes(30 * half_hours)))
                .earliest()
        })
        .map(|t| t.with_timezone(&Utc))
}

impl Month {
    /// The month's first day, as the exceptions name it (`2026-10-01`, or
    /// `2026-10-01 Asia/Tokyo` in another zone than UTC).
    fn first_day(&self) -> String {
        let day = self.start.with_timezone(&self.zone).date_naive();
        if self.zone == Tz::UTC {
            day.to_string()
        } else {
            format!("{day} {}", self.zone.name())
        }
    }
}

/// The month before today's in `timezone` (`None`: UTC), `YYYY-MM`: the default of the
/// `abws close` command. A zone that is not one is a `Validation` error naming `timezone`.
pub fn previous_month(timezone: Option<&str>) -> Result<String> {
    use chrono::Datelike;
    let today = Utc::now().with_timezone(&zone(timezone)?).date_naive();
    let (y, m) = if today.month() == 1 {
        (today.year() - 1, 12)
    } else {
        (today.year(), today.month() - 1)
    };
    Ok(format!("{y:04}-{m:02}"))
}

fn month(text: &str, zone: Tz, now: DateTime<Utc>) -> Result<Month> {
    let bad = || Error::validation("month", "must be a month written YYYY-MM, e.g. 2026-10");
    let b = text.as_bytes();
    if b.len() != 7
        || b[4] != b'-'
        || !text[..4]
            .bytes()
            .chain(text[5..].bytes())
            .all(|c| c.is_ascii_digit())
    {
        return Err(bad());
    }
    let (y, m): (i32, u32) = (
        text[..4].parse().map_err(|_| bad())?,
        text[5..].parse().map_err(|_| bad())?,
    );
    let start = first_instant(zone, y, m).ok_or_else(bad)?;
    let (ny, nm) = if m == 12 { (y + 1, 1) } else { (y, m + 1) };
    let next = first_instant(zone, ny, nm).ok_or_else(bad)?;
    if next > now {
        return Err(Error::validation(
            "month",
            format!(
                "must have ended: {text} has not (today is {} in {}); only a past month can \
                 be closed",
                now.with_timezone(&zone).date_naive(),
                zone.name()
            ),
        ));
    }
    let key = if zone == Tz::UTC {
        text.to_string()
    } else {
        let name: String = zone
            .name()
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        format!("{text}-{name}")
    };
    Ok(Month {
        key,
        start,
        end: next - chrono::Duration::seconds(1),
        zone,
    })
}

/// `*` and `?` patterns, as the caller gives `pdfs_for`.
fn matches(pattern: &[u8], text: &[u8]) -> bool {
    match (pattern.first(), text.first()) {
        (None, _) => text.is_empty(),
        (Some(b'*'), _) => {
            matches(&pattern[1..], text) || (!text.is_empty() && matches(pattern, &text[1..]))
        }
        (Some(b'?'), Some(_)) => matches(&pattern[1..], &text[1..]),
        (Some(p), Some(t)) if p == t => matches(&pattern[1..], &text[1..]),
        _ => false,
    }
}

/// The archive's secret: `archive_key` or `archive_password`, else `ABWS_ARCHIVE_KEY` or
/// `ABWS_ARCHIVE_PASSWORD`; never two of them.
fn archive_secret(p: &CloseParams) -> Result<Given> {
    let key = |hex: &str, param: &str| {
        DocumentKey::from_hex(hex)
            .map(Given::Key)
            .map_err(|_| Error::validation(param, "must be 64 hex digits (a 256-bit key)"))
    };
    let password = |pw: &Secret, param: &str| {
        if pw.expose().is_empty() {
            Err(Error::validation(param, "must not be empty"))
        } else {
            Ok(Given::Password(pw.clone()))
        }
    };
    match (&p.archive_key, &p.archive_password) {
        (Some(_), Some(_)) => Err(Error::validation(
            "archive_key",
            "and archive_password are both given: give one (the archive is sealed under a \
             key, or under a key derived from a password)",
        )),
        (Some(k), None) => key(k, "archive_key"),
        (None, Some(pw)) => password(pw, "archive_password"),
        (None, None) => {
            let env_key = std::env::var("ABWS_ARCHIVE_KEY")
                .ok()
                .filter(|v| !v.trim().is_empty());
            match (env_key, password_from_env()) {
                (Some(_), Some(_)) => Err(Error::validation(
                    "ABWS_ARCHIVE_KEY",
                    "and ABWS_ARCHIVE_PASSWORD are both set: set one",
                )),
                (Some(k), None) => key(&k, "ABWS_ARCHIVE_KEY"),
                (None, Some(pw)) => password(&pw, "ABWS_ARCHIVE_PASSWORD"),
                (None, None) => Err(Error::validation(
                    "archive_key",
                    "or archive_password is required to file the PDFs (they are archived \
                     sealed): a key of 64 hex digits or a password, given or in \
                     ABWS_ARCHIVE_KEY or ABWS_ARCHIVE_PASSWORD; or close with no_pdfs",
                )),
            }
        }
    }
}

/// The parts of the output names that say the close's scope (`-<entity>-<digest>` for
/// the ledger; and `-pdfs-<digest>` for the archive), so closes of different scopes in
/// one directory never replace each other.
fn scope(p: &CloseParams) -> (String, String) {
    let mut ledger = String::new();
    if let Some(entity) = &p.legal_entity {
        let name: String = entity
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect::<String>()
            .trim_matches('_')
            .chars()
            .take(40)
            .collect();
        let name = if name.is_empty() {
            "entity".into()
        } else {
            name
        };
        ledger = format!(
            "-{name}-{}",
            &files::digest_hex(&[&entity.to_lowercase()])[..6]
        );
    }
    let mut archive = ledger.clone();
    if !p.pdfs_for.is_empty() {
        let mut patterns: Vec<&str> = p.pdfs_for.iter().map(|s| s.trim()).collect();
        patterns.sort_unstable();
        patterns.dedup();
        archive += &format!("-pdfs-{}", &files::digest_hex(&[&patterns.join(",")])[..8]);
    }
    (ledger, archive)
}

/// What the concurrent work shares.
struct Work<'a> {
    client: &'a Client,
    region: String,
    state: Mutex<JobState>,
    sealing: Option<Sealing>,
    poll: Duration,
    progress: ProgressFn<'a>,
    data_done: AtomicU64,
    data_total: u64,
    pdfs_done: AtomicU64,
    pdfs_total: u64,
    created: AtomicU64,
    reused: AtomicU64,
    not_filed: Mutex<Vec<(String, String)>>,
}

impl Work<'_> {
    fn step(&self, phase: Phase) {
        let (done, total) = match phase {
            Phase::InvoiceData => (
                self.data_done.fetch_add(1, Ordering::SeqCst) + 1,
                self.data_total,
            ),
            Phase::Pdfs => (
                self.pdfs_done.fetch_add(1, Ordering::SeqCst) + 1,
                self.pdfs_total,
            ),
            _ => (1, 1),
        };
        (self.progress)(&CloseProgress {
            phase,
            done,
            total,
            plan: None,
        });
    }

    fn record<T>(&self, f: impl FnOnce(&mut JobState) -> T) -> Result<T> {
        let mut st = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let out = f(&mut st);
        st.save()?;
        Ok(out)
    }

    fn not_filed(&self, number: &str, why: String) -> Result<()> {
        self.not_filed
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push((number.to_string(), why));
        self.step(Phase::Pdfs);
        Ok(())
    }

    /// An invoice's figures: the job state's, or its detail and line items.
    async fn load(
        &self,
        summary: &InvoiceSummary,
        number: String,
    ) -> Result<(String, InvoiceRecord)> {
        if let Some(done) = self
            .state
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .data
            .invoices
            .get(&number)
        {
            return Ok((number, done.clone()));
        }
        let invoices = self.client.invoices();
        let detail = invoices
            .get_invoice_detail_by_invoice_number(&GetInvoiceDetailByInvoiceNumberParams {
                invoice_number: number.clone(),
                region: Some(self.region.clone()),
            })
            .await?;
        let lines = all(invoices.iter_invoice_line_items(
            &GetInvoiceLineItemsByInvoiceNumberParams {
                invoice_number: number.clone(),
                region: Some(self.region.clone()),
                ..Default::default()
            },
        )?)
        .await?;
        let mut tax: std::collections::BTreeMap<String, Figure> = Default::default();
        for a in detail.artifacts.iter().flatten().flatten() {
            for t in a.tax_breakdown().into_iter().flatten().flatten() {
                let amount = t
                    .tax_amount
                    .as_ref()
                    .and_then(|m| m.value())
                    .unwrap_or_default();
                tax.entry(t.tax_rate.clone().unwrap_or_default())
                    .or_default()
                    .0 += amount;
            }
        }
        let meta = detail.invoice_metadata.as_ref();
        let first = lines.first();
        let figures = InvoiceFigures {
            kind: meta
                .and_then(|m| m.r#type.as_ref())
                .map(|t| t.as_str().to_string())
                .unwrap_or_default(),
            issue_date: meta
                .and_then(|m| m.issue_date.as_ref())
                .map(|d| d.as_str().to_string())
                .unwrap_or_default(),
            status: summary.status.clone().unwrap_or_default(),
            customer: detail
                .customer
                .as_ref()
                .and_then(|c| c.legal_entity_name.clone())
                .unwrap_or_default(),
            currency: detail
                .total_amount
                .as_ref()
                .map(|m| m.currency().to_string())
                .unwrap_or_default(),
            total: Figure(
                detail
                    .total_amount
                    .as_ref()
                    .and_then(|m| m.value())
                    .unwrap_or_default(),
            ),
            tax,
        };
        let record = InvoiceRecord {
            figures,
            lines: lines.len() as u64,
            pdf_ref: first.and_then(|l| {
                let order = l.order_metadata.as_ref()?.order_id.clone()?;
                let line = l.line_item_metadata.as_ref()?.order_line_item_id.clone()?;
                Some((order, line))
            }),
        };
        self.record(|st| st.data.invoices.insert(number.clone(), record.clone()))?;
        Ok((number, record))
    }

    /// One invoice's PDF into its sealed part: the recorded report while the service
    /// keeps it, otherwise a new createReport, recorded before anything else happens.
    async fn pdf(&self, number: String, record: InvoiceRecord) -> Result<()> {
        let (part, archived, failed, mut report_id) = {
            let st = self.state.lock().unwrap_or_else(|p| p.into_inner());
            (
                st.part_path(&number)?,
                st.archived(&number),
                st.failed(&number),
                st.reusable_report(&number, Utc::now()),
            )
        };
        if archived {
            self.step(Phase::Pdfs);
            return Ok(());
        }
        if let Some(why) = failed {
            return self.not_filed(&number, why);
        }
        let Some((order_id, line_id)) = record.pdf_ref else {
            return self.not_filed(&number, "no line items".into());
        };
        let key = &self
            .sealing
            .as_ref()
            .ok_or_else(|| Error::internal("no archive key"))?
            .key;
        let documents = self.client.documents();
        for _ in 0..2 {
            let fresh = report_id.is_none();
            let id = match report_id.take() {
                Some(id) => id,
                None => {
                    let creating = ReportRecord {
                        status: "creating".into(),
                        ..Default::default()
                    };
                    self.record(|st| st.data.reports.insert(number.clone(), creating))?;
                    let kind = if record.figures.kind == "CREDIT_MEMO" {
                        "Credits"
                    } else {
                        "Invoice"
                    };
                    let created = documents
                        .create_report(&CreateReportParams {
                            report_options: ReportOptionsParams {
                                order_id: Some(order_id.clone()),
                                order_line_item_id: Some(line_id.clone()),
                                document_type: Some(kind.into()),
                                ..Default::default()
                            },
                            ..Default::default()
                        })
                        .await?;
                    let id = created
                        .report_id
                        .filter(|id| !id.is_empty())
                        .ok_or_else(|| {
                            Error::transport("createReport answered without a reportId")
                        })?;
                    let r = ReportRecord {
                        status: "created".into(),
                        report_id: Some(id.clone()),
                        created: Some(Utc::now().to_rfc3339()),
                        why: None,
                    };
                    self.record(|st| st.data.reports.insert(number.clone(), r))?;
                    self.created.fetch_add(1, Ordering::SeqCst);
                    id
                }
            };
            let report = match documents.wait_for_report(&id, self.poll, None).await {
                // Past the service's look-back: created once more.
                Err(e) if !fresh && e.status() == Some(404) => continue,
                Err(e) if e.kind() == ErrorKind::ReportFailed => {
                    if !fresh {
                        self.reused.fetch_add(1, Ordering::SeqCst);
                    }
                    let why = e.to_string();
                    let r = ReportRecord {
                        status: "failed".into(),
                        report_id: Some(id),
                        why: Some(why.clone()),
                        ..Default::default()
                    };
                    self.record(|st| st.data.reports.insert(number.clone(), r))?;
                    return self.not_filed(&number, why);
                }
                r => r?,
            };
            if !fresh {
                self.reused.fetch_add(1, Ordering::SeqCst);
            }
            let document = report.report_document_id.unwrap_or_default();
            match documents
                .download_to_path(&document, &part, key, None)
                .await
            {
                Err(e) if e.kind() == ErrorKind::Document => {
                    return self.not_filed(&number, format!("document error: {e}"));
                }
                r => r?,
            };
            self.record(|st| {
                if let Some(r) = st.data.reports.get_mut(&number) {
                    r.status = "archived".into();
                }
            })?;
            self.step(Phase::Pdfs);
            return Ok(());
        }
        self.not_filed(&number, "the report was gone twice".into())
    }
}

pub(crate) async fn run(
    client: &Client,
    p: &CloseParams,
    progress: ProgressFn<'_>,
) -> Result<CloseResult> {
    // Everything checked before the first request.
    let month = month(&p.month, zone(p.timezone.as_deref())?, Utc::now())?;
    if p.out.as_os_str().is_empty() {
        return Err(Error::validation(
            "out",
            "is required: the directory the close files the month into",
        ));
    }
    let region = match &p.region {
        Some(r) => crate::Region::parse(r).map_err(|_| {
            Error::validation(
                "region",
                format!("must be a region code such as JP, US or DE; {r:?} is not one"),
            )
        })?,
        None => client.region(),
    }
    .to_string();
    if p.pdfs_for.iter().any(|s| s.trim().is_empty()) {
        return Err(Error::validation(
            "pdfs_for",
            "must not hold an empty pattern",
        ));
    }
    let poll = match p.poll_interval {
        None => DEFAULT_POLL_INTERVAL,
        Some(s) if s.is_finite() && s > 0.0 => Duration::from_secs_f64(s.min(3600.0)),
        Some(_) => {
            return Err(Error::validation(
                "poll_interval",
                "must be a number of seconds more than zero",
            ))
        }
    };
    let scale = match p.time_scale {
        None => 1.0,
        Some(s) if s.is_finite() && s > 0.0 => s,
        Some(_) => {
            return Err(Error::validation(
                "time_scale",
                "must be a number more than zero",
            ))
        }
    };
    let pdfs = !p.no_pdfs;
    let given = if pdfs && !p.plan_only {
        Some(archive_secret(p)?)
    } else {
        None
    };
    // Its parents as `mkdir -p` makes them (`--out month-end/JP` in a fresh directory); the
    // directory itself is the close's own (0700, no link followed).
    if let Some(parent) = p.out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| {
            crate::Error::validation("out", format!("creating {} failed: {e}", parent.display()))
        })?;
    }
    files::private_dir(&p.out, "the output directory")?;
    let mut st = JobState::open(
        &p.out,
        &region,
        &month.key,
        &binding(client, &region, p.account.as_deref()),
        p.fresh,
    )?;
    // The key (a password's derived under the recorded salt), checked against the earlier
    // run's before any request.
    let sealing = given
        .map(|g| Sealing::resolve(g, &mut st.data.sealing))
        .transpose()?;

    // 1. The invoice list: the count the plan needs.
    let list = |methods: Option<Vec<String>>| {
        client.invoices().iter_invoices(&GetInvoicesParams {
            invoice_issue_start_date: month.start.into(),
            invoice_issue_end_date: month.end.into(),
            region: Some(region.clone()),
            payment_method_types: methods,
            ..Default::default()
        })
    };
    let summaries = all(list(None)?).await?;
    let mut numbers = vec![];
    let mut seen = HashSet::new();
    let mut listed = vec![];
    for s in summaries {
        let n = s
            .invoice_metadata
            .as_ref()
            .and_then(|m| m.invoice_number.clone())
            .filter(|n| !n.is_empty())
            .ok_or_else(|| {
                Error::transport("the service listed an invoice without an invoice number")
            })?;
        if seen.insert(n.clone()) {
            numbers.push(n.clone());
            listed.push((s, n));
        }
    }
    let mut with_pdf: HashSet<String> = numbers
        .iter()
        .filter(|n| {
            pdfs && (p.pdfs_for.is_empty()
                || p.pdfs_for
                    .iter()
                    .any(|pat| matches(pat.trim().as_bytes(), n.as_bytes())))
        })
        .cloned()
        .collect();
    let mut no_pdf = vec![];
    if !with_pdf.is_empty() && matches!(region.as_str(), "US" | "CA" | "MX") {
        // North America: PDFs exist only for Pay-by-Invoice orders (BCA).
        let bca: HashSet<String> = all(list(Some(vec!["BCA".into()]))?)
            .await?
            .into_iter()
            .filter_map(|s| s.invoice_metadata.and_then(|m| m.invoice_number))
            .collect();
        let mut card: Vec<String> = with_pdf
            .iter()
            .filter(|n| !bca.contains(*n))
            .cloned()
            .collect();
        card.sort();
        for n in card {
            with_pdf.remove(&n);
            no_pdf.push((n, "paid by card: no PDF in North America".to_string()));
        }
    }
    st.name_entries(numbers.iter().filter(|n| with_pdf.contains(*n)));
    st.save()?;

    // 2. The plan and its estimate.
    let now = Utc::now();
    let data_todo = numbers
        .iter()
        .filter(|n| !st.data.invoices.contains_key(*n))
        .count() as u64;
    let pdf_todo: Vec<&String> = with_pdf
        .iter()
        .filter(|n| !st.archived(n) && st.failed(n).is_none())
        .collect();
    let create = pdf_todo
        .iter()
        .filter(|n| st.reusable_report(n, now).is_none())
        .count() as u64;
    let (buckets, seconds, slowest) = plan::estimate(
        &plan::counts(data_todo, create, pdf_todo.len() as u64),
        scale,
    );
    let plan = Plan {
        invoices: numbers.len() as u64,
        pdfs: with_pdf.len() as u64,
        invoices_done: numbers.len() as u64 - data_todo,
        pdfs_done: (with_pdf.len() - pdf_todo.len()) as u64,
        reports_reused: pdf_todo.len() as u64 - create,
        buckets,
        seconds,
        slowest,
    };
    progress(&CloseProgress {
        phase: Phase::Plan,
        done: 0,
        total: 0,
        plan: Some(plan.clone()),
    });
    let mut result = CloseResult {
        region: region.clone(),
        month: p.month.clone(),
        timezone: month.zone.name().to_string(),
        period_start: month.start.with_timezone(&month.zone).to_rfc3339(),
        period_end: month.end.with_timezone(&month.zone).to_rfc3339(),
        plan,
        ..Default::default()
    };
    if p.plan_only {
        return Ok(result);
    }
    // The work waits in the rate buckets by design (the plan counts on it: after its burst,
    // createReport is served once a minute, and 16 PDFs are in flight). A call's deadline
    // therefore covers the wait the plan foresees, twice over, on top of the caller's own.
    let foresee = Duration::try_from_secs_f64(2.0 * result.plan.seconds).unwrap_or(Duration::ZERO);
    let client = &client.with_options(
        crate::CallOptions::new().timeout(client.operation_timeout().saturating_add(foresee)),
    )?;

    // 3. Everything at once: invoice data (each PDF queued as soon as its invoice's data
    //    is in), the transaction feed, the PDFs.
    if !with_pdf.is_empty() {
        files::private_dir(&st.parts, "the parts directory")?;
        files::sweep_parts(&st.parts)?;
    }
    let (feed_end, whole) = feed_window(month.end, Utc::now());
    let feed_done = st.data.transactions.is_some() && st.data.feed_complete;
    let work = Work {
        client,
        region: region.clone(),
        state: Mutex::new(st),
        sealing,
        poll,
        progress,
        data_done: AtomicU64::new(0),
        data_total: numbers.len() as u64,
        pdfs_done: AtomicU64::new(0),
        pdfs_total: with_pdf.len() as u64,
        created: AtomicU64::new(0),
        reused: AtomicU64::new(0),
        not_filed: Mutex::new(vec![]),
    };
    let entity = p.legal_entity.as_ref().map(|e| e.to_lowercase());
    let records: Mutex<HashMap<String, InvoiceRecord>> = Mutex::new(HashMap::new());
    let (sender, receiver) = tokio::sync::mpsc::unbounded_channel::<(String, InvoiceRecord)>();
    let (work, records_ref, with_pdf_ref, entity_ref) = (&work, &records, &with_pdf, &entity);
    let data = async move {
        let sender = sender;
        // By index: a closure taking `&(summary, number)` is inferred for every lifetime,
        // which leaves the close's future not provably `Send`.
        let listed = &listed;
        futures_util::stream::iter(
            (0..listed.len()).map(|i| work.load(&listed[i].0, listed[i].1.clone())),
        )
        .buffer_unordered(8)
        .try_for_each(|(n, record)| {
            work.step(Phase::InvoiceData);
            if with_pdf_ref.contains(&n) {
                if entity_ref
                    .as_ref()
                    .is_some_and(|e| record.figures.customer.to_lowercase() != *e)
                {
                    work.step(Phase::Pdfs); // another legal entity's
                } else {
                    let _ = sender.send((n.clone(), record.clone()));
                }
            }
            records_ref
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .insert(n, record);
            futures_util::future::ready(Ok(()))
        })
        .await
    };
    let pdfs =
        futures_util::stream::unfold(
            receiver,
            |mut r| async move { r.recv().await.map(|x| (x, r)) },
        )
        .map(Ok::<_, Error>)
        .try_for_each_concurrent(16, |(n, record)| work.pdf(n, record));
    let numbers_set: HashSet<String> = numbers.iter().cloned().collect();
    let feed = async {
        if !feed_done {
            let (txs, confirmed) =
                read_feed(client, month.start, month.end, feed_end, &numbers_set).await?;
            work.record(|st| {
                st.data.transactions = Some(txs);
                st.data.confirmed = Some(confirmed);
                st.data.feed_end = Some(feed_end.to_rfc3339());
                st.data.feed_complete = whole;
            })?;
        }
        work.step(Phase::Transactions);
        Ok(())
    };
    // Boxed as `Send` here, where the borrows' lifetimes are concrete: unboxed, the
    // closures' futures over `&work` leave the close's future not provably `Send` (a
    // rustc limitation), and the Python binding spawns it.
    futures_util::future::try_join3(data.boxed(), pdfs.boxed(), feed.boxed()).await?;

    // 4. The ledger, the exceptions and the archive.
    let records = records.into_inner().unwrap_or_else(|p| p.into_inner());
    let shown: Vec<String> = numbers
        .iter()
        .filter(|n| {
            entity
                .as_ref()
                .is_none_or(|e| records[*n].figures.customer.to_lowercase() == *e)
        })
        .cloned()
        .collect();
    let mut not_filed = no_pdf;
    not_filed.extend(
        work.not_filed
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .drain(..),
    );
    let mut st = work.state.lock().unwrap_or_else(|p| p.into_inner());
    let transactions = st.data.transactions.clone().unwrap_or_default();
    let b = books(
        &shown,
        &records,
        &transactions,
        |t| {
            entity
                .as_ref()
                .is_none_or(|e| t.entity.to_lowercase() == *e)
        },
        ledger::Period {
            start: month.start,
            first_day: &month.first_day(),
            feed_end: st.data.feed_end.as_deref(),
        },
        &not_filed,
    );
    let (ledger_scope, archive_scope) = scope(p);
    let rates: Vec<String> = b.tax.keys().cloned().collect();
    let ledger_path = p
        .out
        .join(format!("ledger-{region}-{}{ledger_scope}.csv", month.key));
    let exceptions_path = p.out.join(format!(
        "exceptions-{region}-{}{ledger_scope}.csv",
        month.key
    ));
    files::write_file(
        &ledger_path,
        ledger::ledger_csv(&b.ledger, &rates).as_bytes(),
    )?;
    files::write_file(
        &exceptions_path,
        ledger::exceptions_csv(&b.exceptions).as_bytes(),
    )?;
    if let Some(sealing) = &work.sealing {
        let mut entries: Vec<(String, PathBuf)> = vec![];
        for n in shown
            .iter()
            .filter(|n| with_pdf.contains(*n) && st.archived(n))
        {
            entries.push((format!("{}.pdf", st.data.entries[n]), st.part_path(n)?));
        }
        let path = p.out.join(format!(
            "invoices-{region}-{}{archive_scope}{}",
            month.key,
            super::ARCHIVE_SUFFIX
        ));
        super::archive::write_archive(&path, &entries, sealing)?;
        result.archive_path = Some(path);
        result.pdfs_filed = entries.len() as u64;
    }
    st.data.complete = true;
    st.save()?;
    (progress)(&CloseProgress {
        phase: Phase::Outputs,
        done: 1,
        total: 1,
        plan: None,
    });

    let confirmed: HashSet<&String> = st.data.confirmed.iter().flatten().collect();
    result.complete = true;
    result.invoices = shown
        .iter()
        .filter(|n| records[*n].figures.kind != "CREDIT_MEMO")
        .count() as u64;
    result.credit_memos = shown.len() as u64 - result.invoices;
    result.currency = shown
        .iter()
        .map(|n| records[n].figures.currency.clone())
        .find(|c| !c.is_empty())
        .unwrap_or_default();
    result.net_total = b.total;
    result.tax_by_rate = b.tax;
    result.ledger = b.ledger;
    result.exceptions = b.exceptions;
    result.transactions = b.transactions;
    result.matched = b.matched;
    result.confirmed = shown.iter().filter(|n| confirmed.contains(n)).count() as u64;
    result.feed_end = st.data.feed_end.clone();
    result.ledger_path = Some(ledger_path);
    result.exceptions_path = Some(exceptions_path);
    result.reports_created = work.created.load(Ordering::SeqCst);
    result.reports_reused = work.reused.load(Ordering::SeqCst);
    Ok(result)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn months_are_checked() {
        let now: DateTime<Utc> = "2026-11-15T00:00:00Z".parse().unwrap();
        let m = month("2026-10", Tz::UTC, now).unwrap();
        assert_eq!(m.start.to_rfc3339(), "2026-10-01T00:00:00+00:00");
        assert_eq!(m.end.to_rfc3339(), "2026-10-31T23:59:59+00:00");
        assert_eq!(
            month("2025-12", Tz::UTC, now).unwrap().end.to_rfc3339(),
            "2025-12-31T23:59:59+00:00"
        );
        for bad in ["2026-11", "2026-13", "26-10", "2026/10", "", "2026-1x"] {
            let e = month(bad, Tz::UTC, now).err().unwrap();
            assert!(e.to_string().contains("month"), "{bad}: {e}");
        }
    }

    #[test]
    fn months_are_counted_in_their_zone() {
        let tokyo = zone(Some("Asia/Tokyo")).unwrap();
        let now: DateTime<Utc> = "2026-11-15T00:00:00Z".parse().unwrap();
        let m = month("2026-10", tokyo, now).unwrap();
        assert_eq!(m.key, "2026-10-Asia_Tokyo");
        assert_eq!(m.start.to_rfc3339(), "2026-09-30T15:00:00+00:00");
        assert_eq!(m.end.to_rfc3339(), "2026-10-31T14:59:59+00:00");
        assert_eq!(m.first_day(), "2026-10-01 Asia/Tokyo");
        // New York's November starts in daylight time (UTC-4) and ends in standard (UTC-5).
        let ny = zone(Some("America/New_York")).unwrap();
        let now: DateTime<Utc> = "2026-12-15T00:00:00Z".parse().unwrap();
        let m = month("2026-11", ny, now).unwrap();
        assert_eq!(m.start.to_rfc3339(), "2026-11-01T04:00:00+00:00");
        assert_eq!(m.end.to_rfc3339(), "2026-12-01T04:59:59+00:00");
        // Ended in UTC and in Tokyo, not yet in New York.
        let now: DateTime<Utc> = "2026-11-01T00:30:00Z".parse().unwrap();
        assert!(month("2026-10", Tz::UTC, now).is_ok());
        assert!(month("2026-10", tokyo, now).is_ok());
        let e = month("2026-10", ny, now).err().unwrap().to_string();
        assert!(
            e.contains("has not") && e.contains("America/New_York"),
            "{e}"
        );
        assert_eq!(zone(None).unwrap(), Tz::UTC);
        assert_eq!(zone(Some("utc")).unwrap(), Tz::UTC);
        assert_eq!(month("2026-10", Tz::UTC, now).unwrap().key, "2026-10");
        for bad in ["Tokyo", "Asia/Tokio", "+09:00", "JST-9"] {
            let e = zone(Some(bad)).err().unwrap().to_string();
            assert!(e.contains("timezone") && e.contains("IANA"), "{bad}: {e}");
        }
    }

    #[test]
    fn patterns_match_like_a_shell() {
        assert!(matches(b"INV-*", b"INV-1"));
        assert!(matches(b"*-00?", b"INV-001"));
        assert!(!matches(b"INV-?", b"INV-12"));
    }
}
