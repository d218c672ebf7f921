//! Memory of the streaming unpacker: a 64 MiB PDF in gzip(zip) pushed through it in
//! chunks, with every heap allocation of the process counted (`allocator`): the measuring
//! tests run alone, in a child process (`alone`).
//!
//! Into a writer that keeps nothing, the heap grows by the unpacker's fixed buffers only
//! (well under a MiB, whatever the document's size); into a `Vec` (what `download` does),
//! by the PDF itself and hardly more (the archive declares the size, so the room is
//! reserved once).

use std::io::Write;

use abws::documents::StreamUnpacker;

use crate::common::faults;
use crate::{allocator, common};

/// Starts a measurement: the peak is reset to the current use, which is returned.
fn baseline() -> isize {
    allocator::start_counting();
    allocator::reset_peak()
}

fn peak_since(base: isize) -> usize {
    (allocator::peak() - base).max(0) as usize
}

const MIB: usize = 1 << 20;
const SIZE: usize = 64 * MIB;

/// One MiB of "PDF" (text objects, partly random so that it does not compress to nothing).
fn pdf_piece() -> Vec<u8> {
    let mut x: u32 = 7;
    let mut piece = b"%PDF-1.7\n".to_vec();
    let mut object = 0u64;
    while piece.len() < MIB {
        piece.extend_from_slice(format!("{object} 0 obj << /Length 64 >> stream\n").as_bytes());
        for _ in 0..64 {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
            piece.push(b'0' + ((x >> 16) % 75) as u8);
        }
        piece.extend_from_slice(b"\nendstream endobj\n");
        object += 1;
    }
    piece.truncate(MIB);
    piece
}

/// Raw deflate of `data` ending on a full flush: byte-aligned, no reference to what came
/// before, so copies of it can follow one another in one deflate stream.
fn deflate_block(data: &[u8]) -> Vec<u8> {
    let mut c = flate2::Compress::new(flate2::Compression::fast(), false);
    let mut out = Vec::with_capacity(data.len() / 2);
    loop {
        if out.len() == out.capacity() {
            out.reserve(64 * 1024);
        }
        let consumed = c.total_in() as usize;
        c.compress_vec(&data[consumed..], &mut out, flate2::FlushCompress::Full)
            .unwrap();
        if c.total_in() as usize == data.len() && out.len() < out.capacity() {
            return out;
        }
    }
}

/// A zip of one deflated entry whose data is `copies` copies of `piece`, written by hand
/// (compressing the same MiB 64 times over takes long in a debug build).
fn zip_of_copies(name: &str, piece: &[u8], copies: usize) -> Vec<u8> {
    let block = deflate_block(piece);
    let mut crc = flate2::Crc::new();
    for _ in 0..copies {
        crc.update(piece);
    }
    let size = (piece.len() * copies) as u32;
    let compressed = (block.len() * copies + 2) as u32;
    let fields = |z: &mut Vec<u8>| {
        z.extend_from_slice(&[20, 0, 0, 0, 8, 0, 0, 0, 0x21, 0]); // version, flags, deflate, time, date
        z.extend_from_slice(&crc.sum().to_le_bytes());
        z.extend_from_slice(&compressed.to_le_bytes());
        z.extend_from_slice(&size.to_le_bytes());
        z.extend_from_slice(&(name.len() as u16).to_le_bytes());
        z.extend_from_slice(&[0, 0]); // no extra field
    };
    let mut z = b"PK\x03\x04".to_vec();
    fields(&mut z);
    z.extend_from_slice(name.as_bytes());
    for _ in 0..copies {
        z.extend_from_slice(&block);
    }
    z.extend_from_slice(&[0x03, 0x00]); // an empty final block
    let central = z.len() as u32;
    z.extend_from_slice(b"PK\x01\x02\x14\x00");
    fields(&mut z);
    z.extend_from_slice(&[0; 14]); // comment, disk, attributes, local header at 0
    z.extend_from_slice(name.as_bytes());
    let central_size = z.len() as u32 - central;
    z.extend_from_slice(b"PK\x05\x06\x00\x00\x00\x00\x01\x00\x01\x00");
    z.extend_from_slice(&central_size.to_le_bytes());
    z.extend_from_slice(&central.to_le_bytes());
    z.extend_from_slice(&[0, 0]);
    z
}

/// A 64 MiB PDF, zipped (its size declared in the local header) and gzipped, as the
/// service sends documents.
fn packed_document() -> Vec<u8> {
    let zipped = zip_of_copies("INV-1.pdf", &pdf_piece(), SIZE / MIB);
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::none());
    gz.write_all(&zipped).unwrap();
    gz.finish().unwrap()
}

/// The measuring tests run in a child process of their own, where nothing else allocates.
#[test]
fn measured_alone() {
    crate::alone::run("streaming_memory::a_64_mib_", false);
}

/// The tests of this module run one at a time: the allocation counts are process-wide.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// The growth of the process's resident-memory peak (VmHWM) over a measurement, where
/// Linux lets it be reset (writing 5 to /proc/self/clear_refs).
struct ResidentPeak(Option<usize>);

impl ResidentPeak {
    fn status(field: &str) -> Option<usize> {
        let text = std::fs::read_to_string("/proc/self/status").ok()?;
        let line = text.lines().find(|l| l.starts_with(field))?;
        let kib: usize = line[field.len()..]
            .trim()
            .trim_end_matches("kB")
            .trim()
            .parse()
            .ok()?;
        Some(kib * 1024)
    }
    fn start() -> ResidentPeak {
        if std::fs::write("/proc/self/clear_refs", "5").is_err() {
            return ResidentPeak(None);
        }
        ResidentPeak(Self::status("VmRSS:"))
    }
    fn growth(self) -> Option<usize> {
        let hwm = Self::status("VmHWM:")?;
        Some(hwm.saturating_sub(self.0?))
    }
}

#[test]
fn the_hand_made_zip_is_a_zip() {
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let piece = &pdf_piece()[..100_000];
    let z = zip_of_copies("a.pdf", piece, 3);
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(z)).unwrap();
    let mut entry = archive.by_index(0).unwrap();
    let mut out = Vec::new();
    std::io::Read::read_to_end(&mut entry, &mut out).unwrap();
    assert_eq!(out, piece.repeat(3));
}

/// Counts what it is given and keeps nothing.
struct CountingSink(u64);
impl Write for CountingSink {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0 += b.len() as u64;
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
#[ignore = "measures every allocation of the process: run alone by measured_alone"]
fn a_64_mib_document_streams_in_fixed_memory() {
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let packed = packed_document();
    let limit = 1u64 << 30;

    // Into a writer that keeps nothing, in chunks of several sizes.
    for chunk in [4096, 64 * 1024, MIB] {
        let rss = ResidentPeak::start();
        let mut sink = CountingSink(0);
        let base = baseline();
        let mut u = StreamUnpacker::new(&mut sink, limit);
        let mut most_buffered = 0;
        for piece in packed.chunks(chunk) {
            u.push(piece).unwrap();
            most_buffered = most_buffered.max(u.buffered_bytes());
        }
        let n = u.finish().unwrap();
        let peak = peak_since(base);
        assert_eq!(n as usize, SIZE);
        assert_eq!(sink.0 as usize, SIZE);
        let rss = rss.growth();
        eprintln!(
            "chunks of {chunk:>7} B: {} MiB packed -> {} MiB PDF; heap peak {} KiB; unpacker's own buffers at most {} KiB; resident peak growth {}",
            packed.len() / MIB,
            SIZE / MIB,
            peak / 1024,
            most_buffered / 1024,
            rss.map_or("not measurable here".into(), |r| format!("{} KiB", r / 1024)),
        );
        if let Some(rss) = rss {
            assert!(rss < 16 * MIB, "resident memory grew by {rss} bytes");
        }
        assert!(most_buffered <= 40 * 1024, "{most_buffered} bytes buffered");
        assert!(
            peak < MIB,
            "the heap grew by {peak} bytes for a 64 MiB document"
        );
    }

    // Into a Vec, as `download` does: the PDF and hardly more.
    let base = baseline();
    let mut out: Vec<u8> = Vec::new();
    let mut u = StreamUnpacker::with_size_hint(&mut out, limit, |v, size| {
        v.reserve_exact(size as usize - v.len())
    });
    for piece in packed.chunks(64 * 1024) {
        u.push(piece).unwrap();
    }
    u.finish().unwrap();
    let peak = peak_since(base);
    assert_eq!(out.len(), SIZE);
    eprintln!(
        "into a Vec: heap peak {:.3} x the PDF ({} KiB over it)",
        peak as f64 / SIZE as f64,
        (peak - SIZE) / 1024
    );
    assert!((peak as f64) < SIZE as f64 * 1.02, "heap peak {peak}");
}

/// Serves `body` to every GET on a loopback port, in 64 KiB writes (a stand-in for the
/// presigned document host: the sandbox's documents are small).
fn serve(body: std::sync::Arc<Vec<u8>>) -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let body = body.clone();
            std::thread::spawn(move || {
                let mut head = Vec::new();
                let mut byte = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") {
                    match std::io::Read::read(&mut stream, &mut byte) {
                        Ok(1) => head.push(byte[0]),
                        _ => return,
                    }
                }
                let _ = write!(
                    stream,
                    "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                    body.len()
                );
                for piece in body.chunks(64 * 1024) {
                    if stream.write_all(piece).is_err() {
                        return;
                    }
                }
            });
        }
    });
    port
}

#[test]
#[ignore = "measures every allocation of the process: run alone by measured_alone"]
fn a_64_mib_download_over_http() {
    use abws_sandbox::FaultRule;
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let packed = std::sync::Arc::new(packed_document());
    let port = serve(packed.clone());
    let sb = common::sandbox();
    let client = common::client(&sb, abws::Region::JP);
    // getReportDocument names our host.
    sb.inject(FaultRule::new(
        "getReportDocument",
        faults::answer(
            200,
            serde_json::json!({
                "reportDocumentId": "D-BIG",
                "url": format!("http://127.0.0.1:{port}/documents/D-BIG"),
            }),
        ),
    ));
    // A first download sets up the runtime, the pools and the token.
    let mut sink = CountingSink(0);
    client.documents().download_to("D-BIG", &mut sink).unwrap();
    assert_eq!(sink.0 as usize, SIZE);

    let mut sink = CountingSink(0);
    let base = baseline();
    let rss = ResidentPeak::start();
    let n = client.documents().download_to("D-BIG", &mut sink).unwrap();
    let (heap, rss) = (peak_since(base), rss.growth());
    assert_eq!((n as usize, sink.0 as usize), (SIZE, SIZE));
    eprintln!(
        "download_to, {} MiB body -> {} MiB PDF over HTTP: heap peak growth {} KiB, resident peak growth {}",
        packed.len() / MIB,
        SIZE / MIB,
        heap / 1024,
        rss.map_or("not measurable here".into(), |r| format!("{} KiB", r / 1024)),
    );
    assert!(heap < 16 * MIB, "the heap grew by {heap} bytes");
    if let Some(rss) = rss {
        assert!(rss < 16 * MIB, "resident memory grew by {rss} bytes");
    }

    let base = baseline();
    let rss = ResidentPeak::start();
    let pdf = client.documents().download("D-BIG").unwrap();
    let (heap, rss) = (peak_since(base), rss.growth());
    assert_eq!(pdf.len(), SIZE);
    eprintln!(
        "download, bytes mode: heap peak growth {:.3} x the PDF, resident peak growth {}",
        heap as f64 / SIZE as f64,
        rss.map_or("not measurable here".into(), |r| format!(
            "{:.3} x the PDF",
            r as f64 / SIZE as f64
        )),
    );
    assert!((heap as f64) < 1.1 * SIZE as f64, "heap peak {heap}");
    if let Some(rss) = rss {
        assert!(
            (rss as f64) < 1.1 * SIZE as f64,
            "resident peak growth {rss}"
        );
    }
}
