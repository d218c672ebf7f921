//! G. Reports and documents (and D5/D6, which are about downloads).

use std::io::Write;
use std::time::{Duration, Instant};

use abws::api::documents::{CreateReportParams, ReportOptionsParams};
use abws::{ErrorKind, Region};
use abws_sandbox::{FaultAction, FaultRule, Sandbox};
use serde_json::json;

use super::freed_memory::{self, Owner};
use super::{figure, Figure};
use crate::common;
use crate::common::faults;
use crate::testdata::{gzip_of, stored_zip_of, zip_of, FailingWriter};

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
    let page = client
        .reconciliation()
        .get_transactions(&common::previous_month_transactions_params(&sb))
        .unwrap();
    let l = page.transactions.unwrap()[0]
        .as_ref()
        .unwrap()
        .transaction_line_items
        .as_ref()
        .unwrap()[0]
        .clone()
        .unwrap();
    let rid = common::create_report(
        &client,
        &common::invoice_report(l.order_id.clone(), l.order_line_item_id.clone()),
    );
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
    // A report of an order's first line, of no document type.
    let report_of = |order: &str| CreateReportParams {
        report_options: ReportOptionsParams {
            order_id: Some(order.into()),
            order_line_item_id: common::line_of(&client, order),
            ..Default::default()
        },
        ..Default::default()
    };
    let run_for = |order: &str| {
        let id = common::create_report(&client, &report_of(order));
        client
            .documents()
            .wait_for_report(&id, POLL, Some(Duration::from_secs(30)))
    };
    let cancelled = run_for(specials["digitalOrderIds"][0].as_str().unwrap()).unwrap_err();
    let fatal = run_for(specials["fatalOrderId"].as_str().unwrap()).unwrap_err();
    // A report whose getReport answers `status` `times` times, waited for up to `budget`.
    let scripted = |id: &str, status: &str, times: u32, budget: Duration| {
        let answer = json!({"reportId": id, "processingStatus": status});
        sb.inject(FaultRule::new("getReport", faults::answer(200, answer)).times(times));
        client
            .documents()
            .wait_for_report(id, POLL, Some(budget))
            .unwrap_err()
    };
    let no_doc = scripted("R-X", "DONE", 1, Duration::from_secs(5));
    let unknown = scripted("R-Y", "PAUSED_FOR_REVIEW", 3, Duration::from_millis(250));
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
        sb.inject(faults::on_documents(faults::expired_address("AccessDenied")).times(1));
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
    let e = client
        .documents()
        .fetch_pdf(&report_of(err_order), POLL, Some(Duration::from_secs(30)))
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
    sb.inject(faults::on_documents(FaultAction::BytesPerSecond(4096)).times(1));
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
    out.extend(hardening(&sb, &doc));
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
        (gzip_of(&zip_of(&entry)), gzip_of(&stored_zip_of(&entry)))
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
    let mut files: Vec<String> = std::fs::read_dir(root.join("documents"))
        .expect("core/src/documents/")
        .map(|e| format!("documents/{}", e.unwrap().file_name().to_string_lossy()))
        .filter(|f| f.ends_with(".rs"))
        .collect();
    files.extend(["api/documents.rs".into(), "transport.rs".into()]);
    files
        .iter()
        .flat_map(|f| {
            let text = std::fs::read_to_string(root.join(f)).expect("a source file");
            text.lines()
                .filter(|l| !l.trim_start().starts_with("//"))
                .filter(|l| l.contains("std::fs") || l.contains("File::") || l.contains("tempfile"))
                .map(|l| format!("{f}: {l}"))
                .collect::<Vec<_>>()
        })
        .collect()
}

fn corpus() -> (usize, usize, usize) {
    let pdf: &[u8] = b"%PDF-1.4\n%%EOF\n";
    let good = gzip_of(&zip_of(&[("a.pdf", pdf)]));
    let mut bad_crc = good.clone();
    let n = bad_crc.len();
    bad_crc[n - 6] ^= 0xff;
    let mut stored_bad = stored_zip_of(&[("a.pdf", b"%PDF-1.4 stored entry body")]);
    let pos = stored_bad.windows(6).position(|w| w == b"stored").unwrap();
    stored_bad[pos] ^= 0x20; // the data no longer matches the entry's CRC
    let bomb = gzip_of(&zip_of(&[("a.pdf", &vec![b'%'; 3_000_000])]));
    let gzip_bomb = gzip_of(&vec![0u8; 3_000_000]);
    let cases: Vec<Vec<u8>> = vec![
        good[..good.len() / 2].to_vec(),
        bad_crc,
        gzip_of(b"not a zip at all"),
        zip_of(&[]),
        zip_of(&[("a.pdf", pdf), ("b.pdf", pdf)]),
        zip_of(&[("inner.zip", &zip_of(&[("a.pdf", pdf)]))]),
        gzip_of(&stored_bad),
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

// ---------------------------------------------------------------------------------------
// One streaming unpacker (G10, G11), hostile archives and fuzzing (G12), safe
// file writes (G13), no plaintext document on disk (G14).

use crate::hostile_archives as hostile;

/// Serves `body` as the next document the document host sends.
fn serve(sb: &Sandbox, body: &[u8]) {
    sb.inject(faults::on_documents(FaultAction::Bytes(body.to_vec())).times(1));
}

/// A directory of its own under the temporary directory.
fn scratch(what: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("abws-{what}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Every document path of the SDK, each fed `body` by the document host: (path, seconds,
/// the outcome).
fn every_path(
    sb: &Sandbox,
    client: &abws::blocking::Client,
    doc: &str,
    body: &[u8],
    dir: &std::path::Path,
) -> Vec<(&'static str, f64, abws::Result<()>)> {
    let key = abws::sealed::DocumentKey::generate().unwrap();
    let docs = client.documents();
    let mut out = vec![];
    let mut run = |name: &'static str, f: &mut dyn FnMut() -> abws::Result<()>| {
        serve(sb, body);
        let t = Instant::now();
        let r = f();
        out.push((name, t.elapsed().as_secs_f64(), r));
    };
    run("download", &mut || docs.download(doc).map(drop));
    run("download_to", &mut || {
        docs.download_to(doc, &mut std::io::sink()).map(drop)
    });
    run("download_to_path", &mut || {
        docs.download_to_path(doc, &dir.join("a.abws"), &key, None)
            .map(drop)
    });
    run("download_to_path_plaintext", &mut || {
        docs.download_to_path_plaintext(doc, &dir.join("a.pdf"), None)
            .map(drop)
    });
    run("download_all", &mut || docs.download_all(doc).map(drop));
    sb.clear_faults();
    out
}

fn hardening(sb: &Sandbox, doc: &str) -> Vec<Figure> {
    let client = common::client(sb, Region::JP);
    vec![
        g10(sb, &client, doc),
        g11(sb),
        g12(),
        g13(sb, &client, doc),
        g14(&client, doc),
    ]
}

/// G10: one unpacker for every path. The flood (a million empty entries, 96 KB of
/// gzip) through each of the five document paths end to end, larger floods through the
/// unpackers, and an archive whose central directory disagrees with its local headers.
fn g10(sb: &Sandbox, client: &abws::blocking::Client, doc: &str) -> Figure {
    let dir = scratch("g10");
    let flood = hostile::gz_level(
        &hostile::alike_flood(1_000_000),
        flate2::Compression::best(),
    );
    let paths = every_path(sb, client, doc, &flood, &dir);
    let refused = |r: &abws::Result<()>| {
        r.as_ref().err().is_some_and(|e| {
            e.kind() == ErrorKind::Document && hostile::stage(&e.to_string()).is_some()
        })
    };
    let flood_refused = paths.iter().filter(|(_, _, r)| refused(r)).count();
    let slowest_path = paths.iter().map(|(_, s, _)| *s).fold(0.0, f64::max);
    let units = hostile::flood_figures(super::n(100_000, 1_000_000));
    let slowest_unit = units.iter().map(|(_, _, s, _)| *s).fold(0.0, f64::max);
    // A differential: the central directory names the entry differently.
    let mut b = hostile::build(
        &[hostile::Ent::new("a.pdf", hostile::PDF)],
        &Default::default(),
    );
    b.bytes[b.centrals[0] + 46] = b'b';
    let diff = every_path(sb, client, doc, &hostile::gz(&b.bytes), &dir);
    let diff_refused = diff
        .iter()
        .filter(|(_, _, r)| refused(r) && r.as_ref().unwrap_err().to_string().contains("disagree"))
        .count();
    let (files, _) = tree_size(&dir);
    let _ = std::fs::remove_dir_all(&dir);
    let per_path: Vec<String> = paths
        .iter()
        .map(|(n, s, _)| format!("{n} {:.1} ms", s * 1000.0))
        .collect();
    let per_flood: Vec<String> = units
        .iter()
        .map(|(what, size, s, _)| format!("{what} ({} KB): {:.1} ms", size / 1000, s * 1000.0))
        .collect();
    figure(
        "G10",
        flood_refused == 5 && slowest_path <= 0.2 && slowest_unit <= 0.2 && diff_refused == 5 && files == 0,
        format!(
            "the issue's flood (1,000,000 empty entries, {} KB gzip) refused by {flood_refused}/5 document paths, slowest {:.1} ms end to end (bar 200 ms; {}); through the unpackers {}; entry cap {}; an archive whose central directory renames its entry refused by {diff_refused}/5 paths; files left {files}",
            flood.len() / 1000,
            slowest_path * 1000.0,
            per_path.join(", "),
            per_flood.join("; "),
            abws::documents::MAX_ENTRIES,
        ),
    )
}

/// G11: what `download_all` holds: every heap allocation of the process counted while it
/// downloads an archive whose PDFs fill `max_document_bytes` (the cap).
fn g11(sb: &Sandbox) -> Figure {
    let mib = 1u64 << 20;
    let cap = super::n(32, 256) as u64 * mib;
    let mut s = common::settings(sb, Region::JP);
    s.max_document_bytes = cap;
    let client = abws::blocking::Client::new(s).unwrap();
    let (_, doc) = ready_document(sb, &client);
    let count = 8;
    let each = ((cap - mib) / count) as usize;
    let pdf = |i: u64| {
        let mut d = format!("%PDF-1.7 document {i}\n").into_bytes();
        while d.len() < each {
            d.extend_from_slice(b"0 0 obj << /Type /Page >> endobj\n");
        }
        d.truncate(each);
        d
    };
    let mut peaks = vec![];
    for descriptor in [false, true] {
        let ents: Vec<hostile::Ent> = (0..count)
            .map(|i| {
                let e = hostile::Ent::new(&format!("INV-{i}.pdf"), &pdf(i));
                if descriptor {
                    e.descriptor()
                } else {
                    e
                }
            })
            .collect();
        let body = hostile::gz(&hostile::zip(&ents));
        drop(ents);
        serve(sb, &body);
        drop(body);
        crate::allocator::start_counting();
        let base = crate::allocator::reset_peak();
        let got = client.documents().download_all(&doc);
        let peak = (crate::allocator::peak() - base).max(0) as u64;
        let ok = got.as_ref().is_ok_and(|d| d.len() == count as usize);
        drop(got);
        peaks.push((ok, peak));
    }
    sb.clear_faults();
    let total = each as u64 * count;
    let (ok, declared) = peaks[0];
    let (ok2, descriptor) = peaks[1];
    let mb = |b: u64| b as f64 / mib as f64;
    figure(
        "G11",
        ok && ok2 && declared <= cap + 16 * mib,
        format!(
            "download_all peak heap {:.1} MiB for {count} PDFs of {:.1} MiB in all with max_document_bytes {:.0} MiB (bar: cap + 16 MiB = {:.0} MiB); entries with data descriptors (sizes after the data): {:.1} MiB; the archive is never held",
            mb(declared),
            mb(total),
            mb(cap),
            mb(cap + 16 * mib),
            mb(descriptor),
        ),
    )
}

/// G12: the hostile-archive corpus (regression tests) and a seeded fuzz run through both
/// unpackers in chunk sizes 1..64K.
fn g12() -> Figure {
    let (refused, total, panics, slowest, wrong) = hostile::run_hostile();
    let (read, valid, wrong_valid) = hostile::run_valid();
    let seed = 15;
    let r = hostile::fuzz(
        seed,
        Duration::from_secs(super::n(20, 120) as u64),
        super::n(500_000, 5_000_000),
    );
    let hang = Duration::from_secs(1);
    let pass = refused == total
        && panics == 0
        && read == valid
        && r.panics == 0
        && r.untyped.is_empty()
        && r.differential.is_empty()
        && r.slowest < hang
        && slowest < hang;
    let mut notes = wrong;
    notes.extend(wrong_valid);
    notes.extend(r.untyped.iter().cloned());
    notes.extend(
        r.differential
            .iter()
            .map(|d| format!("differs from the zip crate: {d}")),
    );
    notes.truncate(3);
    figure(
        "G12",
        pass,
        format!(
            "{refused}/{total} hostile archives (bombs, floods, local/central differentials, traversal and device names, ZIP64 edges, truncations, data descriptors) refused with a DocumentError naming the stage in 5 chunkings, panics {panics}, slowest {:.0} ms; {read}/{valid} valid archives read the same in every chunking; fuzz: {} mutated archives in {:.0} s (seed {seed}, chunks 1..64K, both unpackers): panics {}, hangs (> 1 s) {}, slowest {:.0} ms, refusals not naming a stage {}, accepted {} of which read differently by the zip crate {}{}",
            slowest.as_secs_f64() * 1000.0,
            r.cases,
            r.seconds,
            r.panics,
            u8::from(r.slowest >= hang),
            r.slowest.as_secs_f64() * 1000.0,
            r.untyped.len(),
            r.accepted,
            r.differential.len(),
            if notes.is_empty() { String::new() } else { format!(" ({})", notes.join("; ")) },
        ),
    )
}

/// G13: safe file writes: a symbolic link as the destination, a planted `.part` file and
/// link, a link planted at the destination during the download, the temporary file's
/// name and mode, a failed download, the final file's mode.
fn g13(sb: &Sandbox, client: &abws::blocking::Client, doc: &str) -> Figure {
    use std::os::unix::fs::{symlink, PermissionsExt};
    let dir = scratch("g13");
    let victim = dir.join("victim");
    std::fs::write(&victim, b"keep").unwrap();
    let docs = client.documents();
    let mut checks: Vec<(&str, bool)> = vec![];
    // A destination that is a symbolic link: refused, nothing written through it.
    let link = dir.join("link.pdf");
    symlink(&victim, &link).unwrap();
    let r = docs.download_to_path_plaintext(doc, &link, None);
    checks.push((
        "symbolic-link destination refused",
        r.is_err_and(|e| e.to_string().contains("symbolic link")),
    ));
    // The old predictable names, planted: a file and a link; neither receives the PDF.
    let dest = dir.join("invoice.pdf");
    std::fs::write(dir.join("invoice.pdf.part"), b"planted").unwrap();
    symlink(&victim, dir.join(".invoice.pdf.part")).unwrap();
    // During the download: the temporary file's name and mode, and a link planted at the
    // destination (replaced by the rename, never followed).
    let seen = std::sync::Mutex::new(None::<(String, u32)>);
    let plant = |_: u64| {
        let mut s = seen.lock().unwrap();
        if s.is_none() {
            let temp = std::fs::read_dir(&dir)
                .unwrap()
                .flatten()
                .find(|e| e.file_name().to_string_lossy().ends_with(".abws-part"));
            if let Some(t) = temp {
                let mode = t.metadata().unwrap().permissions().mode() & 0o777;
                *s = Some((t.file_name().to_string_lossy().into_owned(), mode));
            }
            let _ = symlink(&victim, &dest);
        }
    };
    let n = docs.download_to_path_plaintext(doc, &dest, Some(&plant));
    let (temp_name, temp_mode) = seen.lock().unwrap().clone().unwrap_or_default();
    let random_name = temp_name.starts_with(".invoice.pdf.")
        && temp_name.len() == ".invoice.pdf.".len() + 16 + ".abws-part".len();
    checks.push((
        "temporary file 0600 with a random name",
        random_name && temp_mode == 0o600,
    ));
    let is_file = std::fs::symlink_metadata(&dest).is_ok_and(|m| m.file_type().is_file());
    checks.push((
        "link planted mid-download replaced, not followed",
        n.is_ok() && is_file && std::fs::read(&victim).unwrap() == b"keep",
    ));
    checks.push((
        "planted .part file and link untouched",
        std::fs::read(dir.join("invoice.pdf.part")).unwrap() == b"planted"
            && std::fs::read(&victim).unwrap() == b"keep",
    ));
    let mode = std::fs::metadata(&dest).map(|m| m.permissions().mode() & 0o777);
    checks.push(("final file 0600", mode.is_ok_and(|m| m == 0o600)));
    // A download that fails after the PDF was written (the central directory disagrees,
    // found at the archive's end) leaves nothing.
    let before = tree_size(&dir).0;
    let failed = dir.join("failed.pdf");
    let mut bad = hostile::build(
        &[hostile::Ent::new("a.pdf", hostile::PDF)],
        &Default::default(),
    );
    bad.bytes[bad.centrals[0] + 16] ^= 1;
    serve(sb, &hostile::gz(&bad.bytes));
    let r = docs.download_to_path_plaintext(doc, &failed, None);
    sb.clear_faults();
    checks.push((
        "failed download leaves no file",
        r.is_err() && !failed.exists() && tree_size(&dir).0 == before,
    ));
    let _ = std::fs::remove_dir_all(&dir);
    let ok = checks.iter().filter(|(_, b)| *b).count();
    let failed: Vec<&str> = checks.iter().filter(|(_, b)| !b).map(|(n, _)| *n).collect();
    figure(
        "G13",
        ok == checks.len(),
        format!(
            "{ok}/{} safe-write checks ({}){}",
            checks.len(),
            checks
                .iter()
                .map(|(n, _)| *n)
                .collect::<Vec<_>>()
                .join("; "),
            if failed.is_empty() {
                String::new()
            } else {
                format!("; failed: {}", failed.join(", "))
            }
        ),
    )
}

/// G14: no plaintext document on disk: the default file output is encrypted; what is on
/// disk after the downloads holds no PDF, and opens only with the key.
fn g14(client: &abws::blocking::Client, doc: &str) -> Figure {
    let dir = scratch("g14");
    let docs = client.documents();
    let pdf = docs.download(doc).unwrap();
    let key = abws::sealed::DocumentKey::generate().unwrap();
    let trials = 3;
    let mut opened = 0;
    for i in 0..trials {
        let path = dir.join(format!("INV-{i}.pdf.abws"));
        if docs.download_to_path(doc, &path, &key, None).is_ok() {
            let mut out = Vec::new();
            let data = std::fs::read(&path).unwrap();
            if abws::sealed::open(&key, &mut &data[..], &mut out).is_ok() && out == pdf {
                opened += 1;
            }
        }
    }
    // Every byte on disk, scanned for a PDF's text.
    let mut files = 0;
    let mut bytes = 0;
    let mut readable = 0;
    for e in std::fs::read_dir(&dir).unwrap().flatten() {
        let data = std::fs::read(e.path()).unwrap();
        files += 1;
        bytes += data.len();
        if data.windows(5).any(|w| w == b"%PDF-") || data.windows(5).any(|w| w == b"%%EOF") {
            readable += 1;
        }
    }
    // Only the key opens a file: another key, an altered byte, a cut file all fail.
    let data = std::fs::read(dir.join("INV-0.pdf.abws")).unwrap_or_default();
    let other = abws::sealed::DocumentKey::generate().unwrap();
    let mut altered = data.clone();
    if let Some(b) = altered.get_mut(40) {
        *b ^= 1;
    }
    let sink = &mut Vec::new();
    let refused = [
        abws::sealed::open(&other, &mut &data[..], sink).is_err(),
        abws::sealed::open(&key, &mut &altered[..], sink).is_err(),
        abws::sealed::open(&key, &mut &data[..data.len().saturating_sub(1)], sink).is_err(),
    ]
    .iter()
    .filter(|b| **b)
    .count();
    // The key's text shows nowhere: Debug, a malformed key's error.
    let text = "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0";
    let k = abws::sealed::DocumentKey::from_hex(text).unwrap();
    let shown = format!("{k:?}")
        + &abws::sealed::DocumentKey::from_hex(&text[..63])
            .unwrap_err()
            .to_string();
    let leaks = usize::from(shown.contains(&text[..16]));
    let _ = std::fs::remove_dir_all(&dir);
    figure(
        "G14",
        readable == 0 && files == trials && opened == trials && refused == 3 && leaks == 0,
        format!(
            "readable PDFs on disk after {trials} downloads to a path = {readable} ({files} files, {bytes} bytes scanned, AES-256-GCM sealed by default; the plain PDF only through download_to_path_plaintext / allow_plaintext=True / \"allow_plaintext\": true); opened with the key {opened}/{trials} to the downloaded PDF; another key, an altered byte, a cut file refused {refused}/3; key text in Debug and errors {leaks}"
        ),
    )
}
