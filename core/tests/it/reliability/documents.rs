//! G. Reports and documents (and D5/D6, which are about downloads).

use std::io::Write;
use std::time::{Duration, Instant};

use abws::api::documents::{CreateReportParams, ReportOptionsParams};
use abws::api::reconciliation::GetTransactionsParams;
use abws::{ErrorKind, Region};
use abws_sandbox::{FaultAction, FaultRule, Sandbox};
use serde_json::json;

use super::freed_memory::{self, Owner};
use super::{figure, Figure};
use crate::common;

const POLL: Duration = Duration::from_millis(100);

fn fast() -> Sandbox {
    common::sandbox_with(|c| c.time_scale = 120.0)
}

/// A report for a shipped line of last month, waited to DONE: (report id, document id).
fn ready_document(sb: &Sandbox, client: &abws::blocking::Client) -> (String, String) {
    common::ready_document(sb, client)
}

struct SlowWriter(Vec<u8>);
impl Write for SlowWriter {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        std::thread::sleep(Duration::from_millis(20));
        self.0.extend_from_slice(&b[..b.len().min(512)]);
        Ok(b.len().min(512))
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Accepts 100 bytes, then fails.
struct FailingWriter(usize);
impl Write for FailingWriter {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        if self.0 >= 100 {
            return Err(std::io::Error::other("disk full"));
        }
        let n = b.len().min(100 - self.0);
        self.0 += n;
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Run in a child process with a fresh TMPDIR, HOME and working directory (G8).
pub fn child_downloads() {
    let sb = fast();
    let client = common::client(&sb, Region::JP);
    let (_, doc) = ready_document(&sb, &client);
    for _ in 0..3 {
        assert!(client
            .documents()
            .download(&doc)
            .unwrap()
            .starts_with(b"%PDF-"));
        let mut sink = Vec::new();
        client.documents().download_to(&doc, &mut sink).unwrap();
    }
    let _ = client.documents().download_to(&doc, &mut FailingWriter(0));
}

fn tree_size(dir: &std::path::Path) -> (usize, u64) {
    let mut files = 0;
    let mut bytes = 0;
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                let (f, b) = tree_size(&p);
                files += f;
                bytes += b;
            } else {
                files += 1;
                bytes += e.metadata().map(|m| m.len()).unwrap_or(0);
            }
        }
    }
    (files, bytes)
}

pub fn run() -> Vec<Figure> {
    let mut out = vec![];
    let sb = fast();
    let client = common::client(&sb, Region::JP);

    // G1: polls no faster than the interval.
    let (id, _) = ready_document(&sb, &client);
    let report_polls = common::requests(&sb, "getReport");
    let _ = id;
    let interval = Duration::from_millis(300);
    let (s, e) = common::previous_month(&sb);
    let page = client
        .reconciliation()
        .get_transactions(&GetTransactionsParams {
            feed_start_date: s.into(),
            feed_end_date: e.into(),
            ..Default::default()
        })
        .unwrap();
    let l = page.transactions.unwrap()[0]
        .transaction_line_items
        .as_ref()
        .unwrap()[0]
        .clone();
    let p = CreateReportParams {
        report_options: ReportOptionsParams {
            order_id: l.order_id.clone(),
            order_line_item_id: l.order_line_item_id.clone(),
            document_type: Some("Invoice".into()),
            ..Default::default()
        },
        ..Default::default()
    };
    let rid = client
        .documents()
        .create_report(&p)
        .unwrap()
        .report_id
        .unwrap();
    let before = common::requests(&sb, "getReport");
    let t = Instant::now();
    let _ = client
        .documents()
        .wait_for_report(&rid, interval, Some(Duration::from_secs(30)));
    let polls = common::requests(&sb, "getReport") - before;
    let allowed = (t.elapsed().as_secs_f64() / interval.as_secs_f64()).floor() as u64 + 1;
    out.push(figure("G1", polls <= allowed, format!("{polls} polls in {:.2} s at a {} ms interval (at most {allowed} allowed); {report_polls} polls before", t.elapsed().as_secs_f64(), interval.as_millis())));

    // G2: CANCELLED / FATAL / DONE without document id / unknown status.
    let specials = sb.dataset()["specials"].clone();
    let line_of = |order: &str| {
        client
            .reporting()
            .get_orders_by_order_id(&abws::api::reporting::GetOrdersByOrderIdParams {
                order_id: order.into(),
                include_line_items: Some(true),
                ..Default::default()
            })
            .unwrap()
            .orders
            .unwrap()[0]
            .line_items
            .as_ref()
            .unwrap()[0]
            .order_line_item_id
            .clone()
    };
    let run_for = |order: &str| {
        let p = CreateReportParams {
            report_options: ReportOptionsParams {
                order_id: Some(order.into()),
                order_line_item_id: line_of(order),
                ..Default::default()
            },
            ..Default::default()
        };
        let id = client
            .documents()
            .create_report(&p)
            .unwrap()
            .report_id
            .unwrap();
        client
            .documents()
            .wait_for_report(&id, POLL, Some(Duration::from_secs(30)))
    };
    let cancelled = run_for(specials["digitalOrderIds"][0].as_str().unwrap()).unwrap_err();
    let fatal = run_for(specials["fatalOrderId"].as_str().unwrap()).unwrap_err();
    sb.inject(
        FaultRule::new(
            "getReport",
            FaultAction::Status {
                status: 200,
                body: Some(json!({"reportId": "R-X", "processingStatus": "DONE"})),
                headers: Default::default(),
            },
        )
        .times(1),
    );
    let no_doc = client
        .documents()
        .wait_for_report("R-X", POLL, Some(Duration::from_secs(5)))
        .unwrap_err();
    sb.inject(
        FaultRule::new(
            "getReport",
            FaultAction::Status {
                status: 200,
                body: Some(json!({"reportId": "R-Y", "processingStatus": "PAUSED_FOR_REVIEW"})),
                headers: Default::default(),
            },
        )
        .times(3),
    );
    let unknown = client
        .documents()
        .wait_for_report("R-Y", POLL, Some(Duration::from_millis(250)))
        .unwrap_err();
    let typed = [
        cancelled.kind() == ErrorKind::ReportFailed && cancelled.report().unwrap().1 == "CANCELLED",
        fatal.kind() == ErrorKind::ReportFailed && fatal.report().unwrap().1 == "FATAL",
        no_doc.kind() == ErrorKind::Document,
        unknown.kind() == ErrorKind::Timeout && unknown.to_string().contains("PAUSED_FOR_REVIEW"),
    ];
    let n = typed.iter().filter(|b| **b).count();
    out.push(figure("G2", n == 4, format!("typed outcomes {n}/4 (ReportFailed CANCELLED, ReportFailed FATAL, DocumentError, unknown status kept polling until the wait budget)")));

    // G3: an expired presigned address is renewed exactly once.
    let (_, doc) = ready_document(&sb, &client);
    let trials = 5;
    let mut renewed_once = 0;
    for _ in 0..trials {
        let mut rule = FaultRule::new(
            "/",
            FaultAction::Status {
                status: 403,
                body: Some(json!(
                    "<Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>"
                )),
                headers: Default::default(),
            },
        )
        .times(1);
        rule.listener = Some("documents".into());
        sb.inject(rule);
        let before = common::requests(&sb, "getReportDocument");
        let ok = client.documents().download(&doc).is_ok();
        if ok && common::requests(&sb, "getReportDocument") - before == 2 {
            renewed_once += 1;
        }
    }
    out.push(figure(
        "G3",
        renewed_once == trials,
        format!("re-fetches = exactly 1 per expired address; ok {renewed_once}/{trials}"),
    ));

    // G4: the document host never sees our credentials.
    let seen = sb.counters()["headersSeen"]["documents"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let leaking = seen
        .iter()
        .filter(|r| {
            let h = r["headers"].as_object().unwrap();
            h.keys().any(|k| {
                let k = k.to_ascii_lowercase();
                k == "x-svc-access-token" || k == "x-svc-user-email" || k == "authorization"
            })
        })
        .count();
    out.push(figure(
        "G4",
        leaking == 0 && !seen.is_empty(),
        format!(
            "token-bearing requests to the document host = {leaking} of {}",
            seen.len()
        ),
    ));

    // G5: the corrupt-archive corpus (also in the core's unit tests) through the public unpacker.
    let (rejected, total, panics) = corpus();
    out.push(figure("G5", rejected == total && panics == 0, format!("{rejected}/{total} corrupt archives rejected with DocumentError naming the stage; panics = {panics}")));

    // G6: the error document inside the archive.
    let err_order = specials["errorDocumentOrderId"].as_str().unwrap();
    let line = line_of(err_order);
    let p = CreateReportParams {
        report_options: ReportOptionsParams {
            order_id: Some(err_order.into()),
            order_line_item_id: line,
            ..Default::default()
        },
        ..Default::default()
    };
    let e = client
        .documents()
        .fetch_pdf(&p, POLL, Some(Duration::from_secs(30)))
        .unwrap_err();
    out.push(figure(
        "G6",
        e.kind() == ErrorKind::Document && e.document_code() == Some("CLIENT_ERROR"),
        format!(
            "typed: {:?} with errorCode {:?}, message and inputParams",
            e.kind(),
            e.document_code()
        ),
    ));

    // G7: a writer that fails midway: the error comes back, nothing leaks.
    let (_, doc) = ready_document(&sb, &client);
    let r = client.documents().download_to(&doc, &mut FailingWriter(0));
    let e = r.as_ref().err();
    out.push(figure(
        "G7",
        e.is_some_and(|e| e.to_string().contains("disk full")),
        format!(
            "aborted with the writer's error: {}",
            e.map(|e| e.to_string()).unwrap_or_default()
        ),
    ));

    // D5: a slow consumer is not a stalled server.
    let mut slow = SlowWriter(Vec::new());
    let d5 = client.documents().download_to(&doc, &mut slow).is_ok();
    out.push(figure(
        "D5",
        d5,
        format!("false alarms with a slow consumer = {}", u8::from(!d5)),
    ));

    // D6: a slow but steady body completes.
    let mut rule = FaultRule::new("/", FaultAction::BytesPerSecond(4096)).times(1);
    rule.listener = Some("documents".into());
    sb.inject(rule);
    let t = Instant::now();
    let d6 = client.documents().download(&doc).is_ok();
    out.push(figure(
        "D6",
        d6,
        format!(
            "a 4 KiB/s document body completed in {:.1} s",
            t.elapsed().as_secs_f64()
        ),
    ));

    // G8: nothing on disk: the downloads run again in a child with a watched TMPDIR, HOME
    // and working directory.
    let root = std::env::temp_dir().join(format!("abws-g8-{}", std::process::id()));
    let dirs = ["tmp", "home", "cwd"].map(|d| root.join(d));
    for d in &dirs {
        std::fs::create_dir_all(d).unwrap();
    }
    let status = std::process::Command::new(std::env::current_exe().unwrap())
        .args(super::CHILD_ARGS)
        .env("ABWS_RELIABILITY_CHILD", "1")
        .env("TMPDIR", &dirs[0])
        .env("HOME", &dirs[1])
        .current_dir(&dirs[2])
        .status()
        .unwrap();
    let (files, bytes) = dirs
        .iter()
        .map(|d| tree_size(d))
        .fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    let _ = std::fs::remove_dir_all(&root);
    let lint = source_lint();
    out.push(figure(
        "G8",
        status.success() && files == 0 && bytes == 0 && lint.is_empty(),
        format!("bytes written to files by the SDK = {bytes} ({files} files) over 6 downloads and a failing writer; file-system calls in the download path = {}", lint.len()),
    ));
    out.push(g9(&sb, &doc));
    out
}

/// Text only the sandbox's invoice PDFs hold, from their head to their trailer: a freed
/// block holding a sizeable part of a PDF holds one of them.
const PDF_SENTINELS: [&[u8]; 5] = [
    b"%PDF-1.4\n%\xE2\xE3\xCF\xD3",
    b"(Issue date: ",
    b"/BaseFont /Helvetica",
    b"0000000000 65535 f",
    b"startxref\n",
];

/// G9: the blocks freed while the SDK refreshes its token, downloads the sandbox's document
/// (to bytes, to a writer, several by name) and unpacks a larger one in memory are scanned
/// for the PDF's text and the secrets' values (freed_memory); the SDK's own blocks must
/// hold none. Who freed a block decides whose it is: see `freed_memory::attribute`.
fn g9(sb: &Sandbox, doc: &str) -> Figure {
    let max = abws::documents::DEFAULT_MAX_DOCUMENT_BYTES;
    // In memory, a 1 MiB PDF (the sandbox's, repeated): it comes out in many pieces. Also
    // in a stored zip, which leaves the PDF readable in the gzip layer's output.
    let (archive, stored) = {
        let docs = common::client(sb, Region::JP);
        let pdf = docs.documents().download(doc).unwrap();
        let big = zeroize::Zeroizing::new(pdf.repeat((1 << 20) / pdf.len()));
        let entry = [("INV-1.pdf", &big[..])];
        (gz(&zip_of(&entry)), gz(&stored_zip_of(&entry)))
    };
    let c = sb.credentials();
    let secrets = [
        c.client_secret.clone(),
        c.refresh_token["Atzr|".len()..][..32].to_string(), // '|' is %7C in the token request
        "Atza|".to_string(),                                // every access token's prefix
    ];
    let sentinels = PDF_SENTINELS.iter().map(|s| ("document", s.to_vec()));
    let sentinels = sentinels
        .chain(secrets.map(|s| ("secret", s.into_bytes())))
        .collect();
    let client = common::client(sb, Region::JP); // no token yet: it is fetched while armed
    let t = Instant::now();
    let (ok, report) = freed_memory::armed(sentinels, || {
        // The control: buffers nobody wipes must be found.
        drop(std::hint::black_box(b"(Issue date: control".to_vec()));
        drop(std::hint::black_box(b"Atza|control".to_vec()));
        let docs = client.documents();
        // The PDF returned is the caller's: this caller wipes it.
        let ok = [
            docs.download(doc).map(zeroize::Zeroizing::new).is_ok(),
            docs.download_to(doc, &mut std::io::sink()).is_ok(),
            docs.download_all(doc).is_ok(),
            abws::documents::unpack(&archive, max)
                .map(zeroize::Zeroizing::new)
                .is_ok(),
            abws::documents::unpack_all(&archive, max).is_ok(),
            abws::documents::unpack(&stored, max)
                .map(zeroize::Zeroizing::new)
                .is_ok(),
        ];
        drop(client);
        // The pools' connections close on the process runtime: let them, while armed.
        std::thread::sleep(Duration::from_millis(300));
        ok.iter().filter(|b| **b).count()
    });
    let secs = t.elapsed().as_secs_f64();
    // ABWS_G9_SITES=1 lists every hit's site, =trace its backtrace too.
    let show = std::env::var("ABWS_G9_SITES").unwrap_or_default();
    for h in report.hits.iter().filter(|_| !show.is_empty()) {
        eprintln!("G9 {} {:?} {} B at {}", h.kind, h.owner, h.nonzero, h.site);
        if show == "trace" && h.owner != Owner::Sandbox {
            eprintln!("{}", h.trace);
        }
    }
    let sdk = report.nonzero(&Owner::Sdk);
    let control = ["document", "secret"]
        .iter()
        .filter(|k| report.count(&Owner::Caller, k) > 0)
        .count();
    let deps: Vec<String> = (report.dependencies().iter())
        .map(|(c, n)| format!("{n} in {c}"))
        .collect();
    let sdk_sites: Vec<&str> = (report.hits.iter())
        .filter(|h| h.owner == Owner::Sdk)
        .map(|h| h.site.as_str())
        .collect();
    figure(
        "G9",
        sdk == 0 && control == 2 && ok == 6,
        format!(
            "{sdk} non-zero freed bytes in SDK-owned document and secret buffers{} ({} blocks, {:.0} MiB scanned in {secs:.1} s over a token refresh and 6 document paths, {ok} ok: download, download_to, download_all, unpack, unpack_all, unpack of a stored zip; dependency-owned blocks holding document/secret bytes: {} — out of scope; the sandbox's own: {}; control {control}/2 found)",
            if sdk_sites.is_empty() { String::new() } else { format!(" (at {})", sdk_sites.join(", ")) },
            report.blocks,
            report.bytes as f64 / (1 << 20) as f64,
            if deps.is_empty() { "none".to_string() } else { deps.join(", ") },
            report.owned_by(&Owner::Sandbox),
        ),
    )
}

/// The download path must not touch the file system: no std::fs, File or tempfile in it.
fn source_lint() -> Vec<String> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    ["documents.rs", "api/documents.rs", "transport.rs"]
        .iter()
        .flat_map(|f| {
            let text = std::fs::read_to_string(root.join(f)).unwrap_or_default();
            text.lines()
                .filter(|l| !l.trim_start().starts_with("//"))
                .filter(|l| l.contains("std::fs") || l.contains("File::") || l.contains("tempfile"))
                .map(|l| format!("{f}: {l}"))
                .collect::<Vec<_>>()
        })
        .collect()
}

fn zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (name, data) in entries {
        w.start_file(*name, zip::write::SimpleFileOptions::default())
            .unwrap();
        w.write_all(data).unwrap();
    }
    w.finish().unwrap().into_inner()
}

fn stored_zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (name, data) in entries {
        let options = zip::write::SimpleFileOptions::default();
        w.start_file(
            *name,
            options.compression_method(zip::CompressionMethod::Stored),
        )
        .unwrap();
        w.write_all(data).unwrap();
    }
    w.finish().unwrap().into_inner()
}

fn gz(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn corpus() -> (usize, usize, usize) {
    let pdf: &[u8] = b"%PDF-1.4\n%%EOF\n";
    let good = gz(&zip_of(&[("a.pdf", pdf)]));
    let mut bad_crc = good.clone();
    let n = bad_crc.len();
    bad_crc[n - 6] ^= 0xff;
    let mut stored_bad = stored_zip_of(&[("a.pdf", b"%PDF-1.4 stored entry body")]);
    let pos = stored_bad.windows(6).position(|w| w == b"stored").unwrap();
    stored_bad[pos] ^= 0x20; // the data no longer matches the entry's CRC
    let bomb = gz(&zip_of(&[("a.pdf", &vec![b'%'; 3_000_000])]));
    let gzip_bomb = gz(&vec![0u8; 3_000_000]);
    let cases: Vec<Vec<u8>> = vec![
        good[..good.len() / 2].to_vec(),
        bad_crc,
        gz(b"not a zip at all"),
        zip_of(&[]),
        zip_of(&[("a.pdf", pdf), ("b.pdf", pdf)]),
        zip_of(&[("inner.zip", &zip_of(&[("a.pdf", pdf)]))]),
        gz(&stored_bad),
        zip_of(&[("a.txt", b"hello, not a pdf")]),
        zip_of(&[("../../etc/a.pdf", pdf)]),
        zip_of(&[("/abs/a.pdf", pdf)]),
        bomb,
        gzip_bomb,
        Vec::new(),
        b"PK\x03\x04garbage".to_vec(),
    ];
    let total = cases.len();
    let mut rejected = 0;
    let mut panics = 0;
    for c in cases {
        match std::panic::catch_unwind(|| abws::documents::unpack(&c, 1_000_000)) {
            Ok(Err(e)) if e.kind() == ErrorKind::Document => rejected += 1,
            Ok(_) => {}
            Err(_) => panics += 1,
        }
    }
    (rejected, total, panics)
}
