//! Reports 2021-09-30: asynchronous PDF invoices and credit memos — create a report, wait
//! for it, get its document's presigned address, download and unpack it.

use std::io::Write;
use std::time::Duration;

use serde::Serialize;
use tokio::time::Instant;

use crate::answer::{Answer, Finish};
use crate::client::{Attempt, AttemptPlan, Attempts, Call, Client, Failure};
use crate::config::{Region, RegionGroup};
use crate::documents::{ArchiveUnpacker, StreamUnpacker};
use crate::error::{Error, ErrorKind, Result};
use crate::operation_row::Row;
use crate::wipe::{wipe_received, WipeBuf};
use crate::{model, validate, wire_enum, Timestamp};

super::group_rows! {$
    documents Documents {
        /// Starts a report that produces an invoice or credit note PDF.
        CREATE_REPORT_OP = CREATE_REPORT => create_report(CreateReportParams) -> CreateReportResponse;
        /// A report's processing status (and its document id once DONE).
        GET_REPORT = GET_REPORT => get_report(GetReportParams) -> Report;
        /// A report document's presigned address (five minutes) and compression.
        GET_REPORT_DOCUMENT = GET_REPORT_DOCUMENT => get_report_document(GetReportDocumentParams) -> ReportDocument;
    }
}

/// The report type that produces invoice and credit-memo PDFs.
pub const REPORT_TYPE_INVOICE_PDF: &str = "GET_AB_INVOICE_PDF";
/// The polling interval the spec asks for. A wait given this interval (the default of
/// every binding) takes a `Retry-After` of a getReport answer as the next interval
/// instead (`server_poll_hint`); any other interval is kept as the caller gave it.
pub const DEFAULT_POLL_INTERVAL: Duration = Duration::from_secs(15);
/// The shortest interval a server's `Retry-After` can ask a wait for (`Retry-After: 0`
/// does not make the wait spin).
pub const MIN_SERVER_POLL_INTERVAL: Duration = Duration::from_millis(250);

/// The interval a getReport answer asks for before the next poll: its `Retry-After` in
/// whole seconds (RFC 9110's delay-seconds; an HTTP-date or anything else is ignored),
/// at least `MIN_SERVER_POLL_INTERVAL`.
fn server_poll_hint(retry_after: Option<&str>) -> Option<Duration> {
    let text = retry_after?.trim();
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let secs = text.parse::<u64>().unwrap_or(u64::MAX);
    Some(Duration::from_secs(secs).clamp(MIN_SERVER_POLL_INTERVAL, crate::config::MAX_DURATION))
}
/// How long `wait_for_report` (and the wait inside `fetch_pdf`) waits when no bound is
/// given: 30 minutes. A wait without bound must be asked for: `NO_TIMEOUT`.
pub const DEFAULT_WAIT_TIMEOUT: Duration = Duration::from_secs(30 * 60);
/// The timeout that asks for a wait without bound (`Some(NO_TIMEOUT)`); in the JSON
/// arguments of the bindings, `"no_timeout": true`.
pub const NO_TIMEOUT: Duration = Duration::MAX;
/// Document kinds of reportOptions.documentType.
pub const DOCUMENT_TYPES: [&str; 2] = ["Invoice", "Credits"];

wire_enum! {
    /// processingStatus of a report.
    pub enum ProcessingStatus {
        InQueue = "IN_QUEUE",
        InProgress = "IN_PROGRESS",
        Done = "DONE",
        Cancelled = "CANCELLED",
        Fatal = "FATAL",
    }
}

model! {
    /// What a report is for.
    pub struct ReportOptions {
        "invoiceId" invoice_id: String,
        "orderId" order_id: String,
        "orderLineItemId" order_line_item_id: String,
        "shipmentId" shipment_id: String,
        "documentType" document_type: String,
    }
}

model! {
    /// A report job.
    pub struct Report {
        "reportId" report_id: String,
        "reportType" report_type: String,
        "dataStartTime" data_start_time: Timestamp,
        "dataEndTime" data_end_time: Timestamp,
        "createdTime" created_time: Timestamp,
        "processingStartTime" processing_start_time: Timestamp,
        "processingEndTime" processing_end_time: Timestamp,
        "processingStatus" processing_status: ProcessingStatus,
        "marketplaceIds" marketplace_ids: Vec<Option<String>>,
        "reportOptions" report_options: ReportOptions,
        "reportDocumentId" report_document_id: String,
    }
}

impl Report {
    /// Why the report ended CANCELLED or FATAL, when the service says: the spec's Report has
    /// no such field, so the first unknown text field whose name mentions a message or a
    /// reason is taken (the sandbox sends `processingStatusMessage`).
    pub fn status_message(&self) -> Option<String> {
        use crate::model::Model;
        self.extra().iter().find_map(|(name, raw)| {
            let n = name.to_ascii_lowercase();
            if !(n.contains("message") || n.contains("reason")) {
                return None;
            }
            serde_json::from_str::<String>(raw).ok()
        })
    }
}

model! {
    /// The body of createReport.
    pub struct CreateReportResponse {
        "reportId" report_id: String,
    }
}

model! {
    /// Where a report's document can be downloaded (for five minutes).
    pub struct ReportDocument {
        "reportDocumentId" report_document_id: String,
        sensitive "url" url: String,
        "compressionAlgorithm" compression_algorithm: String,
    }
}

crate::params! {
    /// reportOptions as a caller gives them (snake_case; sent in the wire's camelCase).
    pub struct ReportOptionsParams {
        /// Consolidated invoice: the invoiceNumber from consolidatedInvoiceDetails.
        #[serde(rename(serialize = "invoiceId"))]
        opt invoice_id: String,
        #[serde(rename(serialize = "orderId"))]
        opt order_id: String,
        #[serde(rename(serialize = "orderLineItemId"))]
        opt order_line_item_id: String,
        #[serde(rename(serialize = "shipmentId"))]
        opt shipment_id: String,
        /// Invoice or Credits (omitted for a shipment: both).
        #[serde(rename(serialize = "documentType"))]
        opt document_type: String,
    }
}

crate::params! {
    /// The arguments of createReport.
    pub struct CreateReportParams {
        /// Defaults to GET_AB_INVOICE_PDF.
        opt report_type: String,
        /// Marketplace ids, all of one regional group; defaults to the client region's.
        opt marketplace_ids: Vec<String>,
        /// Which document: order_id with order_line_item_id (and shipment_id,
        /// document_type), order_id alone in the EU, or invoice_id for a consolidated invoice.
        req report_options: ReportOptionsParams,
    }
}

crate::params! {
    /// The arguments of getReport.
    pub struct GetReportParams {
        /// A report created within the last 30 days.
        req report_id: String,
    }
}

crate::params! {
    /// The arguments of getReportDocument.
    pub struct GetReportDocumentParams {
        /// The reportDocumentId of a DONE report.
        req report_document_id: String,
    }
}

/// The poll interval and the bound of a wait, from seconds as the bindings give them:
/// `timeout` absent is the 30-minute default, `no_timeout` asks for no bound (not both);
/// values above `config::MAX_DURATION` are cut to it.
fn wait_durations(
    poll_interval: Option<f64>,
    timeout: Option<f64>,
    no_timeout: Option<bool>,
) -> Result<(Duration, Option<Duration>)> {
    let seconds = |name: &str, v: f64| {
        if !(v.is_finite() && v > 0.0) {
            return Err(Error::validation(
                name,
                "must be a number of seconds above zero",
            ));
        }
        Ok(Duration::try_from_secs_f64(v)
            .unwrap_or(crate::config::MAX_DURATION)
            .min(crate::config::MAX_DURATION))
    };
    let poll = match poll_interval {
        Some(v) => seconds("poll_interval", v)?,
        None => DEFAULT_POLL_INTERVAL,
    };
    let bound = match (timeout, no_timeout.unwrap_or(false)) {
        (Some(_), true) => {
            return Err(Error::validation(
                "no_timeout",
                "cannot be combined with timeout: give one or the other",
            ))
        }
        (None, true) => NO_TIMEOUT,
        (Some(t), false) => seconds("timeout", t)?,
        (None, false) => DEFAULT_WAIT_TIMEOUT,
    };
    Ok((poll, Some(bound)))
}

crate::params! {
    /// The arguments of `wait_for_report`.
    pub struct WaitForReportParams {
        /// The report to wait for.
        req report_id: String,
        /// Seconds between two getReport calls (default 15, or a running report's
        /// `Retry-After`).
        opt poll_interval: f64,
        /// Seconds the whole wait may take (default 1800: 30 minutes).
        opt timeout: f64,
        /// True: wait without bound (instead of a timeout).
        opt no_timeout: bool,
    }
}

impl WaitForReportParams {
    /// The poll interval and the bound of the wait (defaults applied, values checked).
    pub fn durations(&self) -> Result<(Duration, Option<Duration>)> {
        wait_durations(self.poll_interval, self.timeout, self.no_timeout)
    }
}

crate::params! {
    /// The arguments of `fetch_pdf`: the report's options, then how to wait for it.
    pub struct FetchPdfArgs {
        /// Defaults to GET_AB_INVOICE_PDF.
        opt report_type: String,
        /// Defaults to the client region's marketplace.
        opt marketplace_ids: Vec<String>,
        /// Which document (as for createReport).
        req report_options: ReportOptionsParams,
        /// Seconds between two getReport calls (default 15, or a running report's
        /// `Retry-After`).
        opt poll_interval: f64,
        /// Seconds the wait for the report may take (default 1800: 30 minutes).
        opt timeout: f64,
        /// True: wait for the report without bound (instead of a timeout).
        opt no_timeout: bool,
    }
}

impl FetchPdfArgs {
    /// The createReport arguments.
    pub fn report(&self) -> CreateReportParams {
        CreateReportParams {
            report_type: self.report_type.clone(),
            marketplace_ids: self.marketplace_ids.clone(),
            report_options: self.report_options.clone(),
        }
    }
    /// The poll interval and the bound of the wait (defaults applied, values checked).
    pub fn durations(&self) -> Result<(Duration, Option<Duration>)> {
        wait_durations(self.poll_interval, self.timeout, self.no_timeout)
    }
}

/// Parameters of `fetch_pdf`: the report options plus the marketplaces.
pub type FetchPdfParams = CreateReportParams;

/// The report and document operations. Get one with `Client::documents`.
/// A buffer a whole document is downloaded into (`download_into`). `Vec<u8>` is one.
pub trait DocumentBuffer: Write + Send {
    /// Called once, before the first byte, with the PDF's size as the archive declares
    /// it (a claim, bounded by `max_document_bytes`: fewer or more bytes may follow).
    fn reserve(&mut self, declared: u64);
    /// Wipes and forgets what was written, so that a failed attempt can start over;
    /// false when the buffer cannot.
    fn rewind(&mut self) -> bool;
}

/// A plain `Vec` (what it leaves behind when it grows is not wiped: `download` uses a
/// buffer that wipes every block it lets go of).
impl DocumentBuffer for Vec<u8> {
    fn reserve(&mut self, declared: u64) {
        // Room that cannot be had is simply not reserved: the Vec grows as bytes come.
        if let Ok(size) = usize::try_from(declared) {
            let _ = self.try_reserve_exact(size.saturating_sub(self.len()));
        }
    }

    fn rewind(&mut self) -> bool {
        // Only what was written: wiping the spare capacity would touch unused pages.
        zeroize::Zeroize::zeroize(self.as_mut_slice());
        self.clear();
        true
    }
}

impl DocumentBuffer for WipeBuf {
    fn reserve(&mut self, declared: u64) {
        crate::documents::reserve(&mut &mut *self, declared);
    }

    fn rewind(&mut self) -> bool {
        self.clear();
        true
    }
}

/// The reports and documents operations (2021-09-30). Get one with
/// `Client::documents`.
pub struct Documents<'a> {
    pub(crate) client: &'a Client,
}

impl Client {
    /// Reports and documents 2021-09-30.
    pub fn documents(&self) -> Documents<'_> {
        Documents { client: self }
    }
}

fn check_report_options(o: &ReportOptionsParams, group: Option<RegionGroup>) -> Result<()> {
    for (name, v) in [
        ("report_options.invoice_id", &o.invoice_id),
        ("report_options.order_id", &o.order_id),
        ("report_options.order_line_item_id", &o.order_line_item_id),
        ("report_options.shipment_id", &o.shipment_id),
    ] {
        if let Some(v) = v {
            validate::non_empty(name, v)?;
        }
    }
    if let Some(t) = &o.document_type {
        validate::one_of("report_options.document_type", t, &DOCUMENT_TYPES)?;
    }
    if let Some(invoice_id) = &o.invoice_id {
        if invoice_id.eq_ignore_ascii_case("pending") {
            return Err(Error::validation(
                "report_options.invoice_id",
                "reads Pending: the consolidated invoice number is not available yet; ask getInvoiceDetailsByOrderLineItems again later",
            ));
        }
        if o.order_id.is_none() {
            // A consolidated invoice: invoiceId and documentType Invoice.
            return match o.document_type.as_deref() {
                Some("Invoice") => Ok(()),
                _ => Err(Error::validation(
                    "report_options.document_type",
                    "must be Invoice for a consolidated invoice (invoice_id given)",
                )),
            };
        }
    }
    if o.order_id.is_none() {
        return Err(Error::validation(
            "report_options.order_id",
            "is required (or invoice_id with document_type Invoice for a consolidated invoice)",
        ));
    }
    if group != Some(RegionGroup::Europe) && o.order_line_item_id.is_none() {
        return Err(Error::validation(
            "report_options.order_line_item_id",
            "is required outside the EU (only the EU fetches documents by order_id alone)",
        ));
    }
    Ok(())
}

/// createReport: asks for the PDF of an invoice, credit memo or consolidated invoice.
pub(crate) async fn create_report(
    client: &Client,
    p: &CreateReportParams,
) -> Result<Answer<CreateReportResponse>> {
    let settings = client.current_settings();
    let report_type = p
        .report_type
        .clone()
        .unwrap_or_else(|| REPORT_TYPE_INVOICE_PDF.into());
    validate::non_empty("report_type", &report_type)?;
    // Region codes become marketplace ids (`normalize::marketplace_id`).
    let marketplace_ids = match &p.marketplace_ids {
        Some(ids) => ids
            .iter()
            .enumerate()
            .map(|(i, id)| crate::normalize::marketplace_id(&format!("marketplace_ids[{i}]"), id))
            .collect::<Result<Vec<_>>>()?,
        None => vec![settings.region.marketplace_id().to_string()],
    };
    validate::count("marketplace_ids", marketplace_ids.len(), 1, usize::MAX)?;
    let mut group: Option<RegionGroup> = None;
    for id in marketplace_ids.iter() {
        if let Some(region) = Region::from_marketplace_id(id) {
            if region.group() != settings.region.group() {
                return Err(Error::validation(
                    "marketplace_ids",
                    format!(
                        "{id} is {region} ({}), but this client uses the {} address (region {}); \
                         create a client for {region}",
                        region.group().as_str(),
                        settings.region.group().as_str(),
                        settings.region
                    ),
                ));
            }
            match group {
                Some(g) if g != region.group() => {
                    return Err(Error::validation(
                        "marketplace_ids",
                        format!(
                            "must all belong to one regional group (NA, EU or FE): {id} is {} ({}), the others {}",
                            region,
                            region.group().as_str(),
                            g.as_str()
                        ),
                    ))
                }
                _ => group = Some(region.group()),
            }
        }
    }
    check_report_options(&p.report_options, group.or(Some(settings.region.group())))?;
    #[derive(Serialize)]
    struct Body<'a> {
        #[serde(rename = "reportType")]
        report_type: &'a str,
        #[serde(rename = "marketplaceIds")]
        marketplace_ids: &'a [String],
        #[serde(rename = "reportOptions")]
        report_options: &'a ReportOptionsParams,
    }
    let call = Call::new(CreateReportParams::ROW).json(&Body {
        report_type: &report_type,
        marketplace_ids: &marketplace_ids,
        report_options: &p.report_options,
    })?;
    let resp = client.execute(&call).await?;
    Ok(Answer::new(resp, CreateReportParams::ROW.id))
}

/// getReport: a report created within the last 30 days.
pub(crate) async fn get_report(client: &Client, p: &GetReportParams) -> Result<Answer<Report>> {
    validate::non_empty("report_id", &p.report_id)?;
    let call = crate::wire!(GetReportParams { report_id = &p.report_id });
    let resp = client.execute(&call).await?;
    Ok(Answer::new(resp, GetReportParams::ROW.id))
}

/// getReportDocument: the document's presigned address (valid five minutes).
pub(crate) async fn get_report_document(
    client: &Client,
    p: &GetReportDocumentParams,
) -> Result<Answer<ReportDocument>> {
    validate::non_empty("report_document_id", &p.report_document_id)?;
    let call = crate::wire!(GetReportDocumentParams {
        report_document_id = &p.report_document_id,
    });
    let resp = client.execute(&call).await?;
    Ok(Answer::new(resp, GetReportDocumentParams::ROW.id))
}

impl Documents<'_> {
    /// Polls getReport every `poll_interval` until the report ends; with
    /// `DEFAULT_POLL_INTERVAL`, a `Retry-After` of the answer sets the next interval
    /// instead (at least `MIN_SERVER_POLL_INTERVAL`). DONE returns the
    /// report (with its document id); CANCELLED and FATAL are `ReportFailed` errors;
    /// DONE without a document id is a `Document` error. Unknown statuses keep polling.
    /// `timeout` bounds the whole wait: `None` is `DEFAULT_WAIT_TIMEOUT` (30 minutes);
    /// `Some(NO_TIMEOUT)` waits without bound (any bound past `config::MAX_DURATION` is
    /// none).
    pub async fn wait_for_report(
        &self,
        report_id: &str,
        poll_interval: Duration,
        timeout: Option<Duration>,
    ) -> Result<Report> {
        validate::non_empty("report_id", report_id)?;
        if poll_interval.is_zero() {
            return Err(Error::validation("poll_interval", "must be more than zero"));
        }
        let server_paced = poll_interval == DEFAULT_POLL_INTERVAL;
        let poll_interval = poll_interval.min(crate::config::MAX_DURATION);
        let bound = timeout.unwrap_or(DEFAULT_WAIT_TIMEOUT);
        let deadline = (bound < crate::config::MAX_DURATION)
            .then(|| Instant::now().checked_add(bound))
            .flatten();
        loop {
            let answer = get_report(
                self.client,
                &GetReportParams {
                    report_id: report_id.to_string(),
                },
            )
            .await?;
            let next = server_paced
                .then(|| server_poll_hint(answer.header(http::header::RETRY_AFTER.as_str())))
                .flatten()
                .unwrap_or(poll_interval);
            let report = answer.finish()?;
            match report.processing_status.as_ref() {
                Some(ProcessingStatus::Done) => {
                    return match report.report_document_id.as_deref() {
                        Some(id) if !id.is_empty() => Ok(report),
                        _ => Err(Error::document(format!(
                            "report {report_id} is DONE but names no reportDocumentId"
                        ))),
                    }
                }
                Some(s @ (ProcessingStatus::Cancelled | ProcessingStatus::Fatal)) => {
                    return Err(Error::report_failed_because(
                        report_id,
                        s.as_str(),
                        report.status_message().as_deref(),
                    ))
                }
                _ => {}
            }
            if let Some(d) = deadline {
                if Instant::now().checked_add(next).is_none_or(|at| at > d) {
                    let status = report
                        .processing_status
                        .map(|s| crate::error::server_text(s.as_str()))
                        .unwrap_or_default();
                    return Err(Error::timeout(format!(
                        "report {report_id} was still {status} when the {:.0} s wait ended",
                        bound.as_secs_f64()
                    )));
                }
            }
            tokio::time::sleep(next).await;
        }
    }

    /// Downloads a report document and returns the PDF. The body is unpacked as it
    /// arrives, so memory holds the PDF and little else (its room is reserved from the
    /// size the archive declares).
    pub async fn download(&self, report_document_id: &str) -> Result<Vec<u8>> {
        // Every byte of it is wiped if the download fails; once returned, it is the caller's.
        let mut out = WipeBuf::new();
        self.download_into(report_document_id, &mut out).await?;
        Ok(out.into_vec())
    }

    /// Like `download`, into a buffer of the caller's kind (the Python binding's is a
    /// `bytes` object of the declared size, so the PDF is never copied); returns its size.
    /// On failure the buffer has been rewound (wiped).
    pub async fn download_into(
        &self,
        report_document_id: &str,
        buffer: &mut dyn DocumentBuffer,
    ) -> Result<u64> {
        let r = self
            .stream_document(
                report_document_id,
                buffer,
                Some(|b, size| b.reserve(size)),
                |b| b.rewind(),
            )
            .await;
        if r.is_err() {
            buffer.rewind();
        }
        r
    }

    /// Downloads a report document and writes the PDF to `writer` as it arrives (the
    /// body is unpacked on the fly: memory use does not grow with the document); returns
    /// its size. An expired presigned address is renewed once, and a transient failure
    /// retried, as long as nothing was written yet; a failure after the first bytes were
    /// written is returned (the writer then holds part of the PDF).
    pub async fn download_to(
        &self,
        report_document_id: &str,
        writer: &mut (dyn Write + Send),
    ) -> Result<u64> {
        self.stream_document(report_document_id, writer, None, |_| false)
            .await
    }

    /// Downloads a report document that may hold several PDFs (a report without
    /// documentType: the invoice and its credit memos) and returns each with its name.
    /// The body is unpacked as it arrives by the same unpacker as `download`
    /// (`ArchiveUnpacker`): memory holds the PDFs (at most `max_document_bytes` in all)
    /// and a few fixed buffers, never the archive.
    pub async fn download_all(
        &self,
        report_document_id: &str,
    ) -> Result<Vec<crate::documents::NamedDocument>> {
        let settings = self.client.current_settings();
        let mut all = StreamedAll {
            address: Presigned::new(self, report_document_id, &settings).await?,
        };
        self.client.attempt_loop(self.fetch_plan(), &mut all).await
    }

    /// A fresh presigned address of the document, checked to be https (or loopback).
    async fn presigned_url(&self, report_document_id: &str) -> Result<String> {
        let doc = self
            .client
            .call(&GetReportDocumentParams {
                report_document_id: report_document_id.to_string(),
            })
            .await?;
        let url = doc.url.filter(|u| !u.is_empty()).ok_or_else(|| {
            Error::document(format!("report document {report_document_id} has no url"))
        })?;
        check_document_address(&url, self.client.endpoints())?;
        Ok(url)
    }

    /// How the attempt loop runs a document fetch: a safe read, under the operation's
    /// deadline and the retry budget like any call; one attempt may wait on the network
    /// for `DOCUMENT_ATTEMPT` (a slow consumer does not count: see `open_document`).
    /// (The client's own, or its view's: `Client::with_options`.)
    fn fetch_plan(&self) -> AttemptPlan<'static> {
        AttemptPlan {
            what: "the document download",
            kind: crate::retry::OperationKind::SafeRead,
            operation_timeout: self.client.operation_timeout(),
            max_attempts: self.client.max_attempts(),
            attempt_timeout: DOCUMENT_ATTEMPT,
            external_id: None,
        }
    }

    /// The streaming download: a fresh presigned address, its body unpacked into
    /// `writer` as it arrives. Attempts run in the client's attempt loop: a transient
    /// failure is retried while nothing reached the writer (or the writer can start over:
    /// `rewind`), an expired address is renewed once; a damaged document or a failing
    /// writer is final.
    async fn stream_document<W: Write + Send + ?Sized>(
        &self,
        report_document_id: &str,
        writer: &mut W,
        size_hint: Option<fn(&mut &mut W, u64)>,
        rewind: fn(&mut W) -> bool,
    ) -> Result<u64> {
        let settings = self.client.current_settings();
        let mut stream = Streamed {
            address: Presigned::new(self, report_document_id, &settings).await?,
            writer,
            size_hint,
            rewind,
        };
        self.client
            .attempt_loop(self.fetch_plan(), &mut stream)
            .await
    }

    /// create → wait → document → download, in one call. Returns the PDF.
    pub async fn fetch_pdf(
        &self,
        p: &FetchPdfParams,
        poll_interval: Duration,
        timeout: Option<Duration>,
    ) -> Result<Vec<u8>> {
        let mut out = WipeBuf::new();
        self.fetch_pdf_into(p, poll_interval, timeout, &mut out)
            .await?;
        Ok(out.into_vec())
    }

    /// Like `fetch_pdf`, into a buffer of the caller's kind (see `download_into`).
    pub async fn fetch_pdf_into(
        &self,
        p: &FetchPdfParams,
        poll_interval: Duration,
        timeout: Option<Duration>,
        buffer: &mut dyn DocumentBuffer,
    ) -> Result<u64> {
        let (report_id, document_id) = self.create_and_wait(p, poll_interval, timeout).await?;
        let r = self.download_into(&document_id, buffer).await;
        r.map_err(|e| document_hint(e, &report_id))
    }

    /// Like `fetch_pdf`, writing the PDF to `writer` as it arrives (see `download_to`: a
    /// failure after the first bytes were written is returned, not retried, and the writer
    /// then holds part of the PDF; a failing writer stops the download).
    pub async fn fetch_pdf_to(
        &self,
        p: &FetchPdfParams,
        poll_interval: Duration,
        timeout: Option<Duration>,
        writer: &mut (dyn Write + Send),
    ) -> Result<u64> {
        let (report_id, document_id) = self.create_and_wait(p, poll_interval, timeout).await?;
        let r = self.download_to(&document_id, writer).await;
        r.map_err(|e| document_hint(e, &report_id))
    }

    /// create → wait: the report's id and its document's id once it is DONE.
    pub(super) async fn create_and_wait(
        &self,
        p: &FetchPdfParams,
        poll_interval: Duration,
        timeout: Option<Duration>,
    ) -> Result<(String, String)> {
        let created = self.client.call(p).await?;
        let report_id = created
            .report_id
            .ok_or_else(|| Error::transport("createReport answered without a reportId"))?;
        let report = self
            .wait_for_report(&report_id, poll_interval, timeout)
            .await?;
        let document_id = report.report_document_id.unwrap_or_default();
        Ok((report_id, document_id))
    }
}

/// A document error of `fetch_pdf*` names the report it came from.
pub(super) fn document_hint(e: Error, report_id: &str) -> Error {
    if e.kind() == ErrorKind::Document {
        e.with_hint(format!("report {report_id}"))
    } else {
        e
    }
}

/// A document's presigned address, renewed (through getReportDocument) before the attempt
/// that follows an expired one.
struct Presigned<'a> {
    documents: &'a Documents<'a>,
    report_document_id: &'a str,
    url: String,
    renew: bool,
    max: u64,
}

impl<'a> Presigned<'a> {
    async fn new(
        documents: &'a Documents<'a>,
        report_document_id: &'a str,
        settings: &crate::Settings,
    ) -> Result<Presigned<'a>> {
        Ok(Presigned {
            url: documents.presigned_url(report_document_id).await?,
            documents,
            report_document_id,
            renew: false,
            max: settings.max_document_bytes,
        })
    }

    /// The address for this attempt (a new one after an expired one).
    async fn url(&mut self) -> std::result::Result<&str, Failure> {
        if std::mem::take(&mut self.renew) {
            self.url = (self.documents)
                .presigned_url(self.report_document_id)
                .await
                .map_err(Failure::stop)?;
        }
        Ok(&self.url)
    }

    /// The document's body for this attempt; an answer that is not the document is the
    /// attempt's failure (`refused`).
    async fn open(
        &mut self,
        a: &Attempt,
    ) -> std::result::Result<crate::transport::DocumentBody, Failure> {
        let transport = self.documents.client.transport();
        let max = self.max;
        let url = self.url().await?;
        let body = transport
            .open_document(url, a.timeout()?, max)
            .await
            .map_err(Failure::from_send)?;
        if body.is_success() {
            return Ok(body);
        }
        let r = body
            .into_response(64 * 1024)
            .await
            .map_err(Failure::from_send)?;
        Err(self.refused(&r, a))
    }

    /// An answer that is not the document, as a failed attempt (noting a renewal).
    fn refused(&mut self, r: &crate::transport::HttpResponse, a: &Attempt) -> Failure {
        let f = host_failure(r, a);
        self.renew = f.replay;
        f
    }
}

/// `download_all`: the body of a presigned address unpacked as it arrives into the
/// documents it holds. Nothing reaches the caller before the end, so any transient failure
/// can be retried (the partial documents are wiped as they are dropped).
struct StreamedAll<'a> {
    address: Presigned<'a>,
}

impl Attempts for StreamedAll<'_> {
    type Output = Vec<crate::documents::NamedDocument>;
    async fn attempt(&mut self, a: &Attempt) -> std::result::Result<Self::Output, Failure> {
        let max = self.address.max;
        let mut body = self.address.open(a).await?;
        let mut unpacker = ArchiveUnpacker::new(max);
        loop {
            match body.chunk().await {
                Ok(Some(chunk)) => {
                    let pushed = unpacker.push(&chunk);
                    wipe_received(chunk);
                    pushed.map_err(Failure::stop)?
                }
                Ok(None) => return unpacker.finish().map_err(Failure::stop),
                Err(f) => return Err(Failure::from_send(f)),
            }
        }
    }
}

/// A streamed download: the body of a presigned address unpacked into `writer` as it
/// arrives. A failure after bytes reached the writer is retried only when the writer
/// can start over (`rewind`).
struct Streamed<'a, W: ?Sized> {
    address: Presigned<'a>,
    writer: &'a mut W,
    size_hint: Option<fn(&mut &mut W, u64)>,
    rewind: fn(&mut W) -> bool,
}

impl<W: Write + Send + ?Sized> Attempts for Streamed<'_, W> {
    type Output = u64;
    async fn attempt(&mut self, a: &Attempt) -> std::result::Result<u64, Failure> {
        let max = self.address.max;
        let mut body = self.address.open(a).await?;
        let mut unpacker = match self.size_hint {
            Some(hint) => StreamUnpacker::with_size_hint(&mut *self.writer, max, hint),
            None => StreamUnpacker::new(&mut *self.writer, max),
        };
        let failure = loop {
            match body.chunk().await {
                Ok(Some(chunk)) => {
                    let pushed = unpacker.push(&chunk);
                    wipe_received(chunk);
                    pushed.map_err(Failure::stop)?
                }
                Ok(None) => return unpacker.finish().map_err(Failure::stop),
                Err(f) => break f,
            }
        };
        let written = unpacker.written();
        drop(unpacker);
        if written > 0 && !(self.rewind)(self.writer) {
            return Err(Failure::stop(
                failure.error.with_attempts(a.number).with_hint(format!(
                    "{written} bytes of the document had been written; not retried"
                )),
            ));
        }
        Err(Failure::from_send(failure))
    }
}

/// Checks a presigned document address before anything is fetched from it: https, or
/// plain http to a loopback host only when the API endpoint itself is loopback (the
/// sandbox); never the API's or the authorization server's own host and port (a
/// document fetch carries no credentials, but an address pointing back at our own
/// servers is not a document host). Errors name the host, never the address (its query
/// is a credential).
pub fn check_document_address(url: &str, endpoints: &crate::Endpoints) -> Result<()> {
    let parsed = url::Url::parse(url)
        .map_err(|e| Error::document(format!("the presigned address is not a URL ({e})")))?;
    let host = crate::error::server_text(parsed.host_str().unwrap_or(""));
    let api = url::Url::parse(&endpoints.api).ok();
    let api_loopback = api.as_ref().is_some_and(crate::config::is_loopback);
    match parsed.scheme() {
        "https" if !host.is_empty() => {}
        "http" if api_loopback && crate::config::is_loopback(&parsed) => {}
        "http" => {
            return Err(Error::document(format!(
                "the presigned address (host {host}) is plain http; refusing to download a \
                 sensitive document in clear (http is accepted only on loopback, when the API \
                 endpoint is loopback too)"
            )))
        }
        other => {
            return Err(Error::document(format!(
                "the presigned address has scheme {}; only https is accepted",
                crate::error::server_text(other)
            )))
        }
    }
    // The same host is refused whatever the port; on loopback (the sandbox, where every
    // listener is 127.0.0.1) the port tells the servers apart.
    let same_server = |u: &url::Url| {
        let same_host = u.host_str().map(str::to_ascii_lowercase)
            == parsed.host_str().map(str::to_ascii_lowercase);
        same_host
            && (!crate::config::is_loopback(u)
                || u.port_or_known_default() == parsed.port_or_known_default())
    };
    for (what, address) in [
        ("API", Some(&endpoints.api)),
        ("authorization", endpoints.auth.as_ref()),
    ] {
        let Some(address) = address else { continue };
        if url::Url::parse(address).is_ok_and(|u| same_server(&u)) {
            return Err(Error::document(format!(
                "the presigned address points at the {what} server ({host}), not at a \
                 document host; refusing to fetch it"
            )));
        }
    }
    Ok(())
}

/// The longest one document attempt may wait on the network (cut to the operation's
/// deadline).
const DOCUMENT_ATTEMPT: Duration = Duration::from_secs(300);

/// A document host's answer that is not the document, as a failed attempt. A presigned
/// address that expired is renewed (through getReportDocument) and the fetch replayed at
/// once, the first time; any other answer is classified by its status.
fn host_failure(r: &crate::transport::HttpResponse, a: &Attempt) -> Failure {
    if address_expired(r) {
        let e =
            Error::document("the presigned address has expired").with_request_id(r.request_id());
        return if a.replayed {
            Failure::new(
                crate::retry::FailureClass::Final,
                e.with_hint("it was renewed once already"),
            )
        } else {
            Failure::replay(e)
        };
    }
    let class =
        crate::retry::classify_status(r.status, false).unwrap_or(crate::retry::FailureClass::Final);
    let msg = format!("the document host answered {}", r.describe_body());
    Failure::new(class, Error::document(msg).with_request_id(r.request_id()))
}

/// The document host says the presigned address expired: 403 with the S3 error code
/// `AccessDenied` (S3 and the sandbox answer an expired address with
/// `<Code>AccessDenied</Code><Message>Request has expired</Message>`; a forged or
/// damaged signature is `SignatureDoesNotMatch`, which a new address does not cure).
fn address_expired(r: &crate::transport::HttpResponse) -> bool {
    r.status == 403 && host_error_code(&r.body).as_deref() == Some("AccessDenied")
}

/// The error code of a document host's error body: S3's XML `<Error><Code>…</Code>`, or a
/// JSON object's `Code`/`code` (what S3-compatible hosts send), whatever the content type.
fn host_error_code(body: &[u8]) -> Option<String> {
    if let Ok(v) = serde_json::from_slice::<serde_json::Value>(body) {
        let obj = v.get("Error").unwrap_or(&v);
        return ["Code", "code"]
            .iter()
            .find_map(|k| obj.get(*k).and_then(|c| c.as_str()))
            .map(str::to_string);
    }
    let text = std::str::from_utf8(body).ok()?;
    let start = text.find("<Code>")? + "<Code>".len();
    let len = text[start..].find("</Code>")?;
    Some(text[start..start + len].trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::host_error_code;

    #[test]
    fn the_document_hosts_error_code_is_read_from_xml_or_json() {
        let xml = b"<?xml version=\"1.0\"?>\n<Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>";
        assert_eq!(host_error_code(xml).as_deref(), Some("AccessDenied"));
        let json = br#"{"Error": {"Code": "SignatureDoesNotMatch", "Message": "expired"}}"#;
        assert_eq!(
            host_error_code(json).as_deref(),
            Some("SignatureDoesNotMatch")
        );
        assert_eq!(
            host_error_code(br#"{"code": "AccessDenied"}"#).as_deref(),
            Some("AccessDenied")
        );
        // Words alone are no code.
        assert_eq!(
            host_error_code(b"<Error><Message>Request has expired</Message></Error>"),
            None
        );
        assert_eq!(host_error_code(b"\xff\xfe"), None);
    }
}
