//! Streamed downloads against the sandbox: the writer receives the PDF while the body is
//! still arriving; a failure before the first byte is retried, one after it is not.

use crate::common;

use std::io::{Read, Write};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use abws::api::documents::GetReportDocumentParams;
use abws::{ErrorKind, Region};
use abws_sandbox::{FaultAction, FaultRule, Sandbox};

fn fast_sandbox() -> Sandbox {
    common::sandbox_with(|c| c.time_scale = 120.0)
}

/// A report for a shipped line of last month, waited to DONE: its document id.
fn ready_document(sb: &Sandbox, client: &abws::blocking::Client) -> String {
    common::ready_document(sb, client).1
}

/// The whole HTTP answer of the document host (status line, headers, body), fetched
/// by hand: its length tells where a fault can cut it.
fn raw_answer(client: &abws::blocking::Client, doc: &str) -> Vec<u8> {
    let url = client
        .documents()
        .get_report_document(&GetReportDocumentParams {
            report_document_id: doc.to_string(),
        })
        .unwrap()
        .url
        .unwrap();
    let u = url::Url::parse(&url).unwrap();
    let mut s = std::net::TcpStream::connect((u.host_str().unwrap(), u.port().unwrap())).unwrap();
    let target = format!("{}?{}", u.path(), u.query().unwrap_or(""));
    write!(
        s,
        "GET {target} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
        u.host_str().unwrap()
    )
    .unwrap();
    // Read to the end of the body (the host may keep the connection open).
    let mut answer = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let n = s.read(&mut buf).unwrap();
        answer.extend_from_slice(&buf[..n]);
        if let Some(end) = answer.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&answer[..end]).to_ascii_lowercase();
            let len: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .unwrap()
                .trim()
                .parse()
                .unwrap();
            if answer.len() >= end + 4 + len {
                return answer;
            }
        }
        assert!(n > 0, "the answer ended early");
    }
}

fn document_requests(sb: &Sandbox) -> usize {
    sb.counters()["headersSeen"]["documents"]
        .as_array()
        .map(Vec::len)
        .unwrap_or(0)
}

fn on_documents(action: FaultAction) -> FaultRule {
    common::faults::on_documents(action).times(1)
}

/// Records, for every write, when it came and how many bytes had come before it.
#[derive(Clone, Default)]
struct Recorder(
    Arc<Mutex<Vec<(Instant, usize, usize)>>>,
    Arc<Mutex<Vec<u8>>>,
);

impl Write for Recorder {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        let mut data = self.1.lock().unwrap();
        self.0
            .lock()
            .unwrap()
            .push((Instant::now(), data.len(), b.len()));
        data.extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn download_to_writes_while_the_body_is_still_arriving() {
    let sb = fast_sandbox();
    let client = common::client(&sb, Region::JP);
    let doc = ready_document(&sb, &client);
    let whole = client.documents().download(&doc).unwrap();
    assert!(whole.starts_with(b"%PDF-"));
    let answer_len = raw_answer(&client, &doc).len();

    // The body comes in ten slices a second, over about two seconds.
    let bps = (answer_len as u64 / 2).max(100);
    sb.inject(on_documents(FaultAction::BytesPerSecond(bps)));
    let mut rec = Recorder::default();
    let started = Instant::now();
    let n = client.documents().download_to(&doc, &mut rec).unwrap();
    let ended = Instant::now();

    let writes = rec.0.lock().unwrap().clone();
    let data = rec.1.lock().unwrap().clone();
    assert_eq!(n as usize, whole.len());
    assert!(data == whole, "the same bytes as download()");
    let offsets: Vec<usize> = writes.iter().map(|w| w.1).collect();
    assert!(
        offsets.windows(2).all(|p| p[0] < p[1]),
        "bytes come in order: {offsets:?}"
    );
    assert!(writes.len() >= 3, "{} writes for a slow body", writes.len());
    let first = writes[0].0 - started;
    let total = ended - started;
    assert!(
        first.as_secs_f64() < total.as_secs_f64() * 0.75,
        "the first bytes reached the writer after {first:?} of {total:?}: the body was buffered"
    );
    // The writes are spread over the body's arrival, not bunched at its end.
    let spread = writes.last().unwrap().0 - writes[0].0;
    assert!(
        spread.as_secs_f64() > total.as_secs_f64() * 0.25,
        "writes spread over {spread:?} of {total:?}"
    );
    eprintln!(
        "answer {answer_len} bytes at {bps} B/s: {} writes of a {}-byte PDF; first after {first:?}, last after {:?}, done after {total:?}",
        writes.len(),
        whole.len(),
        writes.last().unwrap().0 - started
    );
}

#[test]
fn a_failure_before_the_first_byte_is_retried_and_after_it_is_not() {
    let sb = fast_sandbox();
    let mut settings = common::settings(&sb, Region::JP);
    settings.timeouts.stall = Duration::from_millis(400);
    let client = abws::blocking::Client::new(settings).unwrap();
    let doc = ready_document(&sb, &client);
    let whole = client.documents().download(&doc).unwrap();
    let answer_len = raw_answer(&client, &doc).len() as u64;

    // Stalled inside the headers: nothing was written, so it is retried.
    sb.inject(on_documents(FaultAction::StallAfterBytes(20)));
    let before = document_requests(&sb);
    let mut rec = Recorder::default();
    client.documents().download_to(&doc, &mut rec).unwrap();
    assert!(*rec.1.lock().unwrap() == whole);
    assert_eq!(document_requests(&sb) - before, 2, "one retry");

    // Stalled ten bytes before the end: most of the PDF was written, so the failure is
    // returned, not retried (the writer cannot take bytes back).
    sb.inject(on_documents(FaultAction::StallAfterBytes(answer_len - 10)));
    let before = document_requests(&sb);
    let mut rec = Recorder::default();
    let e = client.documents().download_to(&doc, &mut rec).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Timeout, "{e}");
    assert!(e.to_string().contains("stalled"), "{e}");
    let written = rec.1.lock().unwrap().len();
    assert!(written > 0 && written <= whole.len(), "{written}");
    assert!(e.to_string().contains("not retried"), "{e}");
    assert_eq!(document_requests(&sb) - before, 1, "no retry");

    // download() owns its buffer: it starts over.
    sb.inject(on_documents(FaultAction::StallAfterBytes(answer_len - 10)));
    let before = document_requests(&sb);
    assert!(client.documents().download(&doc).unwrap() == whole);
    assert_eq!(document_requests(&sb) - before, 2, "one retry");
}

#[test]
fn an_expired_address_is_renewed_for_a_streamed_download() {
    let sb = fast_sandbox();
    let client = common::client(&sb, Region::JP);
    let doc = ready_document(&sb, &client);
    sb.inject(on_documents(common::faults::expired_address(
        "AccessDenied",
    )));
    let before = common::requests(&sb, "getReportDocument");
    let mut rec = Recorder::default();
    client.documents().download_to(&doc, &mut rec).unwrap();
    assert!(rec.1.lock().unwrap().starts_with(b"%PDF-"));
    assert_eq!(common::requests(&sb, "getReportDocument") - before, 2);
}

/// The async download's future can move between threads with its writer.
#[allow(dead_code)]
fn download_to_is_send(client: &abws::Client, writer: &mut (dyn Write + Send)) {
    fn send<T: Send>(_: &T) {}
    let documents = client.documents();
    let f = documents.download_to("D-1", writer);
    send(&f);
    let g = documents.download("D-1");
    send(&g);
}
