//! Reports and documents 2021-09-30 against the sandbox: the report state machine, the
//! download chain (presigned address, gzip, zip, PDF), failures and validation.

use crate::common;
use crate::common::faults;

use std::time::Duration;

use abws::api::documents::{
    CreateReportParams, GetReportParams, ReportOptionsParams, DEFAULT_POLL_INTERVAL,
};
use abws::{ErrorKind, Region};
use abws_sandbox::{FaultAction, FaultRule};

const POLL: Duration = Duration::from_millis(100);

fn fast_sandbox() -> abws_sandbox::Sandbox {
    common::sandbox_with(|c| c.time_scale = 120.0)
}

/// (order, line item, shipment, invoice number).
type Line = (String, String, String, String);

/// A shipped line of last month's transactions.
fn a_shipped_line(sb: &abws_sandbox::Sandbox, client: &abws::blocking::Client) -> Line {
    let (t, l) = common::a_charge(sb, client);
    (
        l.order_id.unwrap(),
        l.order_line_item_id.unwrap(),
        l.shipment_id.unwrap(),
        t.invoice_number.unwrap(),
    )
}

/// A fast sandbox, a client of it, and `a_shipped_line` of it.
fn a_shipped_line_of_a_fast_sandbox() -> (abws_sandbox::Sandbox, abws::blocking::Client, Line) {
    let sb = fast_sandbox();
    let client = common::client(&sb, Region::JP);
    let line = a_shipped_line(&sb, &client);
    (sb, client, line)
}

fn options(order: &str, line: &str) -> CreateReportParams {
    common::invoice_report(Some(order.into()), Some(line.into()))
}

/// The PDF in a sealed file, checked to hold no plain PDF.
fn opened(path: &std::path::Path, key: &abws::sealed::DocumentKey) -> Vec<u8> {
    let sealed = std::fs::read(path).unwrap();
    assert!(sealed.starts_with(abws::sealed::MAGIC));
    assert!(!sealed.windows(5).any(|w| w == b"%PDF-"));
    let mut opened = Vec::new();
    abws::sealed::open(key, &mut &sealed[..], &mut opened).unwrap();
    opened
}

#[test]
fn create_wait_download_gives_the_invoice_pdf() {
    let (sb, client, (order, line, shipment, invoice)) = a_shipped_line_of_a_fast_sandbox();
    let mut p = options(&order, &line);
    p.report_options.shipment_id = Some(shipment);
    let created = client.documents().create_report(&p).unwrap();
    let id = created.report_id.unwrap();
    let first = client
        .documents()
        .get_report(&GetReportParams {
            report_id: id.clone(),
        })
        .unwrap();
    assert_eq!(first.processing_status.unwrap().as_str(), "IN_QUEUE");
    let report = client
        .documents()
        .wait_for_report(&id, POLL, Some(Duration::from_secs(30)))
        .unwrap();
    assert_eq!(report.processing_status.unwrap().as_str(), "DONE");
    let doc_id = report.report_document_id.unwrap();
    let pdf = client.documents().download(&doc_id).unwrap();
    assert!(pdf.starts_with(b"%PDF-"));
    assert!(
        String::from_utf8_lossy(&pdf).contains(&invoice),
        "the PDF names {invoice}"
    );
    // Streaming into a writer gives the same bytes.
    let mut streamed = Vec::new();
    let n = client
        .documents()
        .download_to(&doc_id, &mut streamed)
        .unwrap();
    assert_eq!((n as usize, &streamed), (pdf.len(), &pdf));
    // Into a file: complete, owner-only, no `.part` left; progress reached the size.
    let dir = std::env::temp_dir().join(format!("abws-doc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let target = dir.join("invoice.pdf");
    let seen = std::sync::atomic::AtomicU64::new(0);
    let report = |n: u64| seen.store(n, std::sync::atomic::Ordering::SeqCst);
    // Encrypted by default: the file holds no PDF, and the key opens it.
    let key = abws::sealed::DocumentKey::generate().unwrap();
    let n = client
        .documents()
        .download_to_path(&doc_id, &target, &key, Some(&report))
        .unwrap();
    assert_eq!(opened(&target, &key), pdf);
    assert_eq!(seen.load(std::sync::atomic::Ordering::SeqCst), n);
    // The plain PDF only when asked for by name.
    let plain = dir.join("plain.pdf");
    let m = client
        .documents()
        .download_to_path_plaintext(&doc_id, &plain, None)
        .unwrap();
    assert_eq!((m, std::fs::read(&plain).unwrap()), (n, pdf.clone()));
    std::fs::remove_file(&plain).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&target).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    // A download that fails leaves no file, partial or whole.
    std::fs::remove_file(&target).unwrap();
    sb.inject(FaultRule::new("*", FaultAction::ResetAfterBytes(300)).times(20));
    assert!(client
        .documents()
        .download_to_path(&doc_id, &target, &key, None)
        .is_err());
    sb.clear_faults();
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    std::fs::remove_dir(&dir).unwrap();
    // The document host never saw our credentials.
    let seen = sb.counters()["headersSeen"]["documents"]
        .to_string()
        .to_ascii_lowercase();
    assert!(
        !seen.contains("x-svc-access-token") && !seen.contains("x-svc-user-email"),
        "{seen}"
    );
}

#[test]
fn fetch_pdf_does_it_in_one_call() {
    let (sb, client, (order, line, _, invoice)) = a_shipped_line_of_a_fast_sandbox();
    let pdf = client
        .documents()
        .fetch_pdf(&options(&order, &line), POLL, Some(Duration::from_secs(30)))
        .unwrap();
    assert!(String::from_utf8_lossy(&pdf).contains(&invoice));
    assert_eq!(sb.counters()["reportJobsCreated"], 1);
}

/// Filing a PDF encrypted takes one call: the file opens with the key to the PDF that
/// `fetch_pdf` returns, and no plain byte of it reaches the disk. A destination that
/// cannot be written fails before a report is asked for; a failed download leaves no file.
#[test]
fn fetch_pdf_to_path_files_the_pdf_sealed_in_one_call() {
    let (sb, client, (order, line, _, invoice)) = a_shipped_line_of_a_fast_sandbox();
    let dir = std::env::temp_dir().join(format!("abws-fetch-sealed-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let target = dir.join("invoice.pdf.abws");
    let key = abws::sealed::DocumentKey::generate().unwrap();
    let wait = Some(Duration::from_secs(30));
    let p = options(&order, &line);
    let seen = std::sync::atomic::AtomicU64::new(0);
    let report = |n: u64| seen.store(n, std::sync::atomic::Ordering::SeqCst);
    let n = client
        .documents()
        .fetch_pdf_to_path(&p, POLL, wait, &target, &key, Some(&report))
        .unwrap();
    let opened = opened(&target, &key);
    assert_eq!(opened.len() as u64, n);
    assert_eq!(seen.load(std::sync::atomic::Ordering::SeqCst), n);
    assert!(String::from_utf8_lossy(&opened).contains(&invoice));
    assert_eq!(sb.counters()["reportJobsCreated"], 1);
    // A directory that does not exist: refused before createReport.
    let e = client
        .documents()
        .fetch_pdf_to_path(&p, POLL, wait, &dir.join("no/such.abws"), &key, None)
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Document, "{e}");
    assert_eq!(sb.counters()["reportJobsCreated"], 1);
    // A download that fails leaves nothing beside the first file.
    sb.inject(FaultRule::new("*", FaultAction::ResetAfterBytes(300)).times(20));
    let failed =
        client
            .documents()
            .fetch_pdf_to_path(&p, POLL, wait, &dir.join("failed.abws"), &key, None);
    sb.clear_faults();
    assert!(failed.is_err());
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, vec![std::ffi::OsString::from("invoice.pdf.abws")]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn both_document_kinds_come_back_by_name() {
    let (_sb, client, (order, line, _, invoice)) = a_shipped_line_of_a_fast_sandbox();
    let mut p = options(&order, &line);
    p.report_options.document_type = None;
    let id = client
        .documents()
        .create_report(&p)
        .unwrap()
        .report_id
        .unwrap();
    let report = client
        .documents()
        .wait_for_report(&id, POLL, Some(Duration::from_secs(30)))
        .unwrap();
    let docs = client
        .documents()
        .download_all(report.report_document_id.as_deref().unwrap())
        .unwrap();
    assert!(docs.iter().any(|d| d.name.contains(&invoice)));
    assert!(docs.iter().all(|d| d.data.starts_with(b"%PDF-")));
}

fn line_of(client: &abws::blocking::Client, order: &str) -> String {
    common::line_of(client, order).unwrap()
}

#[test]
fn cancelled_fatal_and_error_documents_are_typed() {
    let sb = fast_sandbox();
    let client = common::client(&sb, Region::JP);
    let specials = sb.dataset()["specials"].clone();
    let fatal = specials["fatalOrderId"].as_str().unwrap().to_string();
    let digital = specials["digitalOrderIds"][0].as_str().unwrap().to_string();
    let err_doc = specials["errorDocumentOrderId"]
        .as_str()
        .unwrap()
        .to_string();

    let run = |order: &str| {
        let line = line_of(&client, order);
        client
            .documents()
            .fetch_pdf(&options(order, &line), POLL, Some(Duration::from_secs(30)))
    };
    let e = run(&fatal).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ReportFailed, "{e}");
    assert_eq!(e.report().unwrap().1, "FATAL");
    let e = run(&digital).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ReportFailed);
    assert_eq!(e.report().unwrap().1, "CANCELLED");
    let e = run(&err_doc).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Document, "{e}");
    assert_eq!(e.document_code(), Some("CLIENT_ERROR"));
    assert!(
        e.to_string().contains(&err_doc),
        "the error names the input: {e}"
    );
}

#[test]
fn an_expired_presigned_address_is_renewed_once() {
    let (sb, client, (order, line, _, _)) = a_shipped_line_of_a_fast_sandbox();
    let id = client
        .documents()
        .create_report(&options(&order, &line))
        .unwrap()
        .report_id
        .unwrap();
    let report = client
        .documents()
        .wait_for_report(&id, POLL, Some(Duration::from_secs(30)))
        .unwrap();
    let doc_id = report.report_document_id.unwrap();
    sb.inject(faults::on_documents(faults::expired_address("AccessDenied")).times(1));
    let before = common::requests(&sb, "getReportDocument");
    let pdf = client.documents().download(&doc_id).unwrap();
    assert!(pdf.starts_with(b"%PDF-"));
    assert_eq!(
        common::requests(&sb, "getReportDocument") - before,
        2,
        "exactly one renewal"
    );
}

/// The id of a report just created for a shipped line of `sb`.
fn a_fresh_report(sb: &abws_sandbox::Sandbox, client: &abws::blocking::Client) -> String {
    let (order, line, _, _) = a_shipped_line(sb, client);
    common::create_report(client, &options(&order, &line))
}

/// Waits for a fresh report of `sb` as `wait_for_report(interval)` does; the time it took.
fn timed_wait(sb: &abws_sandbox::Sandbox, interval: Duration) -> Duration {
    let client = common::client(sb, Region::JP);
    let id = a_fresh_report(sb, &client);
    let started = std::time::Instant::now();
    let report = client
        .documents()
        .wait_for_report(&id, interval, Some(Duration::from_secs(10)))
        .unwrap();
    assert_eq!(report.processing_status.unwrap().as_str(), "DONE");
    started.elapsed()
}

#[test]
fn the_default_wait_follows_the_sandbox_clock() {
    // The spec's 15 s between polls would take 30 s here: the sandbox's Retry-After (its
    // report takes one second at 1x) sets the interval of a wait given the default.
    let took = timed_wait(&common::sandbox(), DEFAULT_POLL_INTERVAL);
    assert!(took < Duration::from_secs(2), "{took:?}");
    // At 60x too: the interval follows the scale.
    let took = timed_wait(
        &common::sandbox_with(|c| c.time_scale = 60.0),
        DEFAULT_POLL_INTERVAL,
    );
    assert!(took < Duration::from_millis(1500), "{took:?}");
}

#[test]
fn an_interval_the_caller_gives_is_kept() {
    // The report ends after one second, but the caller asked for 700 ms between polls:
    // at least three polls, two waits.
    let took = timed_wait(&common::sandbox(), Duration::from_millis(700));
    assert!(took >= Duration::from_millis(1400), "{took:?}");
}

#[test]
fn a_wait_has_a_deadline() {
    // A report of a minute: it stays queued or in progress for the whole wait.
    let sb = common::sandbox_with(|c| c.report_duration = Duration::from_secs(60));
    let client = common::client(&sb, Region::JP);
    let id = a_fresh_report(&sb, &client);
    let started = std::time::Instant::now();
    let e = client
        .documents()
        .wait_for_report(&id, POLL, Some(Duration::from_millis(500)))
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Timeout);
    assert!(
        e.to_string().contains("IN_QUEUE") || e.to_string().contains("IN_PROGRESS"),
        "{e}"
    );
    assert!(started.elapsed() < Duration::from_secs(2));
}

#[test]
fn report_rules_are_checked_before_sending() {
    let (sb, client) = common::sandbox_and_client();
    let d = client.documents();
    let with = |f: &dyn Fn(&mut CreateReportParams)| {
        let mut p = options("O-1", "L-1");
        f(&mut p);
        d.create_report(&p).unwrap_err()
    };
    let cases = [
        (
            with(&|p| {
                p.marketplace_ids = Some(vec!["A1VC38T7YXB528".into(), "ATVPDKIKX0DER".into()])
            }),
            "marketplace_ids",
        ),
        (
            with(&|p| p.report_options.order_line_item_id = None),
            "report_options.order_line_item_id",
        ),
        (
            with(&|p| p.report_options.document_type = Some("Receipt".into())),
            "report_options.document_type",
        ),
        (
            with(&|p| p.report_options.order_id = None),
            "report_options.order_id",
        ),
        (
            with(&|p| {
                p.report_options = ReportOptionsParams {
                    invoice_id: Some("CI-1".into()),
                    document_type: Some("Credits".into()),
                    ..Default::default()
                }
            }),
            "report_options.document_type",
        ),
        (
            with(&|p| p.marketplace_ids = Some(vec![])),
            "marketplace_ids",
        ),
    ];
    for (e, param) in cases {
        assert_eq!(e.kind(), ErrorKind::Validation, "{e}");
        assert_eq!(e.parameter(), Some(param), "{e}");
    }
    assert_eq!(common::all_requests(&sb), 0);
    // In the EU the order id alone is enough.
    let eu = common::client(&sb, Region::DE);
    let mut p = options("O-1", "L-1");
    p.report_options.order_line_item_id = None;
    let e = eu.documents().create_report(&p).unwrap_err();
    assert_eq!(
        e.kind(),
        ErrorKind::Api,
        "validation passed, the service answered: {e}"
    );
}
