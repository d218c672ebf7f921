//! Unpacking a downloaded document: gunzip (recognised by its bytes, not by a header),
//! then unzip, then check that a PDF came out — or turn the error document the service
//! puts in the archive instead into a `Document` error.
//!
//! One unpacker serves every path (`download`, `download_to`, `download_to_path`,
//! `download_all`, `unpack`, `unpack_all`): it is fed the body chunk by chunk and writes
//! the PDF out as it is decoded, holding only small fixed buffers (a few dozen KiB,
//! whatever the document's size). The zip layer is read front to back — every local
//! header, every entry's data (CRC-32 and sizes checked), then the central directory,
//! which must list the same entries with the same names, offsets, methods, CRCs and sizes,
//! then the end records (ZIP64 included), and nothing after them. An archive that two zip
//! readers could read differently is refused. At most [`MAX_ENTRIES`] entries; a call
//! that wants one document fails at the second one's local header.
//!
//! Nothing is written to disk; the buffers we own are wiped when dropped or grown
//! (`WipeBuf`); the zip stage inflates into a ring of ours. The gzip layer's decoder
//! (flate2) keeps copies of its output and frees them unwiped, out of our reach: for the
//! service's archives that output is the zip, still deflated.

mod inflate;
mod limits;
mod pdf;
mod sink;
mod sniff;
#[cfg(test)]
mod testdata;
mod zip;

use std::io::Write;

pub use limits::{check_entry_name, DEFAULT_MAX_DOCUMENT_BYTES, MAX_ENTRIES, MAX_NAME_BYTES};
pub use pdf::ErrorDocument;

use crate::error::{Error, Result};
use crate::wipe::WipeBuf;
use pdf::PdfCheck;
use sink::{Collect, Single, Sink};
use sniff::Unpacker;

/// Unpacks `data` (gzip and/or zip around a PDF) and returns the PDF (the caller's: it
/// is not wiped when dropped; every copy made on the way is).
pub fn unpack(data: &[u8], max_bytes: u64) -> Result<Vec<u8>> {
    let mut out = WipeBuf::new();
    let mut unpacker = StreamUnpacker::with_size_hint(&mut out, max_bytes, reserve);
    unpacker.push(data)?;
    unpacker.finish()?;
    Ok(out.into_vec())
}

/// A size hint for a `WipeBuf` writer: room for the declared size (the archive's word,
/// checked against the limit), if it can be had.
pub(crate) fn reserve(buf: &mut &mut WipeBuf, size: u64) {
    if let Ok(size) = usize::try_from(size) {
        let _ = buf.try_reserve_exact(size.saturating_sub(buf.len()));
    }
}

/// Unpacks `data` and writes the PDF to `writer`; returns the number of bytes written.
pub fn unpack_to(data: &[u8], writer: &mut dyn Write, max_bytes: u64) -> Result<u64> {
    let mut unpacker = StreamUnpacker::new(writer, max_bytes);
    unpacker.push(data)?;
    unpacker.finish()
}

/// One document of an archive.
#[derive(Clone, PartialEq, Eq)]
pub struct NamedDocument {
    /// The entry's name in the archive (e.g. `INV-1.pdf`), checked by [`check_entry_name`]:
    /// usable as a relative file name on Windows, macOS and Linux.
    pub name: String,
    /// The PDF (wiped when the `NamedDocument` is dropped, not once taken out of it).
    pub data: Vec<u8>,
}

impl std::fmt::Debug for NamedDocument {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "NamedDocument({:?}, {} bytes)",
            self.name,
            self.data.len()
        )
    }
}

impl Drop for NamedDocument {
    fn drop(&mut self) {
        zeroize::Zeroize::zeroize(&mut self.data);
    }
}

/// Unpacks an archive that may hold several documents (a report without documentType
/// returns the invoice and its credit memos): every entry, each checked to be a PDF, by
/// the same streaming unpacker as `unpack` ([`ArchiveUnpacker`]).
pub fn unpack_all(data: &[u8], max_bytes: u64) -> Result<Vec<NamedDocument>> {
    let mut unpacker = ArchiveUnpacker::new(max_bytes);
    unpacker.push(data)?;
    unpacker.finish()
}

/// Unpacks a document fed to it chunk by chunk, as the body arrives, and writes the PDF to
/// its writer as it comes out.
///
/// The layers are recognised by their bytes: gzip (1f 8b) is gunzipped as it streams, a
/// zip (`PK\x03\x04`) is read front to back and checked whole (see the module's
/// documentation): one document (stored or deflate, not encrypted, a safe name, CRC-32
/// checked, data descriptors understood; a second document fails at its local header),
/// and what comes out must start with `%PDF-` — or be the service's JSON error document,
/// which is held back (at most 1 MiB) and becomes a `Document` error with its
/// `document_code`. `max_bytes` bounds every unpacked layer (zip and gzip bombs stop there).
///
/// Bytes reach the writer as soon as they are known to belong to a PDF, so a failure
/// found later (a damaged CRC, a central directory that disagrees) comes after part of the
/// PDF was written: `written()` tells how much. The unpacker holds only fixed buffers
/// (`buffered_bytes()`: about 32 KiB, plus the gzip decoder's own), whatever the
/// document's size; they are wiped when dropped.
pub struct StreamUnpacker<W: Write>(Unpacker<Single<W>>);

impl<W: Write> StreamUnpacker<W> {
    /// An unpacker writing the PDF to `writer`; no layer may unpack to more than
    /// `max_bytes`.
    pub fn new(writer: W, max_bytes: u64) -> Self {
        Self::of(PdfCheck::new(writer), max_bytes)
    }

    /// Like `new`; `size_hint` is called once with the writer and the PDF's size when the
    /// archive declares it, before any byte is written (e.g. to reserve room in a `Vec`).
    pub fn with_size_hint(writer: W, max_bytes: u64, size_hint: fn(&mut W, u64)) -> Self {
        let mut pdf = PdfCheck::new(writer);
        pdf.hint = Some(size_hint);
        Self::of(pdf, max_bytes)
    }

    fn of(pdf: PdfCheck<W>, max_bytes: u64) -> Self {
        StreamUnpacker(Unpacker::new(Single::new(pdf), max_bytes))
    }

    /// Feeds the next piece of the body. After an error the unpacker is spent: further
    /// calls fail.
    pub fn push(&mut self, chunk: &[u8]) -> Result<()> {
        self.0.push(chunk)
    }

    /// Ends the body: checks that every layer is complete and that a PDF came out, flushes
    /// the writer, and returns the number of bytes written to it.
    pub fn finish(self) -> Result<u64> {
        self.0.finish().map(|s| s.written())
    }

    /// The bytes written to the writer so far.
    pub fn written(&self) -> u64 {
        self.0.written()
    }

    /// The capacity of the buffers the unpacker holds itself: headers being read, the
    /// zip inflater's 32 KiB ring, the first bytes of the PDF (or an error document held
    /// back). Decoder state is not counted: the gzip decoder's (flate2's 32 KiB window
    /// and 32 KiB output buffer) and the zip inflater's tables (about 10 KiB).
    pub fn buffered_bytes(&self) -> usize {
        self.0.buffered_bytes()
    }
}

/// The unpacker of `download_all` and `unpack_all`: the same layers and checks as
/// [`StreamUnpacker`], every document of the archive collected in memory by name (at most
/// `max_bytes` in all; each in room reserved from its declared size when there is one).
pub struct ArchiveUnpacker(Unpacker<Collect>);

impl ArchiveUnpacker {
    /// An unpacker that keeps at most `max_bytes` of documents in all.
    pub fn new(max_bytes: u64) -> Self {
        ArchiveUnpacker(Unpacker::new(Collect::new(), max_bytes))
    }

    /// Feeds the next piece of the body; after an error the unpacker is spent.
    pub fn push(&mut self, chunk: &[u8]) -> Result<()> {
        self.0.push(chunk)
    }

    /// Ends the body: every layer complete, at least one document; returns them in the
    /// archive's order.
    pub fn finish(self) -> Result<Vec<NamedDocument>> {
        let mut sink = self.0.finish()?;
        if sink.docs.is_empty() {
            return Err(Error::document(
                "unzip failed: the archive holds no document",
            ));
        }
        Ok(std::mem::take(&mut sink.docs))
    }

    /// Document bytes collected so far.
    pub fn written(&self) -> u64 {
        self.0.written()
    }
}

fn spent() -> Error {
    Error::document("the document unpacker already failed (or finished)")
}

#[cfg(test)]
mod tests {
    use super::sniff::GZIP_MAGIC;
    use super::testdata::{
        big_pdf, gzip_of, stored_zip_of, streamed_zip_of, zip_of, FailingWriter,
    };
    use super::zip::ZIP_CENTRAL;
    use super::*;

    pub(crate) const PDF: &[u8] = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n";

    pub(crate) const CHUNKS: [usize; 4] = [1, 7, 4096, 1 << 20];

    /// Pushes `data` in pieces of `chunk` bytes.
    pub(crate) fn unpack_chunked(data: &[u8], chunk: usize, max: u64) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        let mut u = StreamUnpacker::new(&mut out, max);
        for piece in data.chunks(chunk) {
            u.push(piece)?;
        }
        let n = u.finish()?;
        assert_eq!(n as usize, out.len());
        Ok(out)
    }

    #[test]
    fn every_layering_in_every_chunk_size() {
        let pdf = big_pdf(300_000);
        let layerings: Vec<(&str, Vec<u8>)> = vec![
            ("gzip(zip(pdf))", gzip_of(&zip_of(&[("INV-1.pdf", &pdf)]))),
            ("zip(pdf)", zip_of(&[("INV-1.pdf", &pdf)])),
            ("gzip(pdf)", gzip_of(&pdf)),
            ("pdf", pdf.clone()),
            ("stored zip", stored_zip_of(&[("INV-1.pdf", &pdf)])),
            (
                "gzip(stored zip)",
                gzip_of(&stored_zip_of(&[("a.pdf", &pdf)])),
            ),
            (
                "gzip(zip with data descriptor)",
                gzip_of(&streamed_zip_of(
                    &[("INV-1.pdf", &pdf)],
                    ::zip::CompressionMethod::Deflated,
                )),
            ),
            (
                "zip with a directory",
                zip_of(&[("dir/", b""), ("dir/INV-1.pdf", &pdf)]),
            ),
            ("two gzip members", {
                let mut two = gzip_of(&pdf[..1000]);
                two.extend_from_slice(&gzip_of(&pdf[1000..]));
                two
            }),
        ];
        for (name, packed) in &layerings {
            for chunk in CHUNKS {
                let got = unpack_chunked(packed, chunk, 1 << 30)
                    .unwrap_or_else(|e| panic!("{name} in chunks of {chunk}: {e}"));
                assert!(got == pdf, "{name} in chunks of {chunk}: different bytes");
            }
            assert!(unpack(packed, 1 << 30).unwrap() == pdf, "{name}");
        }
        // A small PDF too (shorter than the zip's sniffing and the PDF check).
        for chunk in CHUNKS {
            let packed = gzip_of(&zip_of(&[("INV-1.pdf", PDF)]));
            assert_eq!(unpack_chunked(&packed, chunk, 1 << 20).unwrap(), PDF);
            assert_eq!(unpack_chunked(PDF, chunk, 1 << 20).unwrap(), PDF);
        }
    }

    /// The corrupt archives of this module and of the reliability harness (G5).
    fn corpus() -> Vec<(&'static str, Vec<u8>)> {
        let good = gzip_of(&zip_of(&[("a.pdf", PDF)]));
        let mut bad_crc = good.clone();
        let n = bad_crc.len();
        bad_crc[n - 6] ^= 0xff; // the gzip trailer's CRC
        let mut stored_bad = stored_zip_of(&[("a.pdf", b"%PDF-1.4 stored entry body")]);
        let pos = stored_bad.windows(6).position(|w| w == b"stored").unwrap();
        stored_bad[pos] ^= 0x20; // the data no longer matches the entry's CRC
        let mut deflate_bad = zip_of(&[("a.pdf", &big_pdf(10_000))]);
        deflate_bad[60] ^= 0x55; // inside the deflate data
        let mut encrypted = zip_of(&[("a.pdf", PDF)]);
        encrypted[6] |= 1;
        let mut bzip2 = zip_of(&[("a.pdf", PDF)]);
        bzip2[8] = 12;
        let mut trailing = zip_of(&[("a.pdf", PDF)]);
        let central = trailing.windows(4).position(|w| w == ZIP_CENTRAL).unwrap();
        trailing.insert(central, b'x');
        vec![
            ("truncated gzip", good[..good.len() / 2].to_vec()),
            ("bad gzip crc", bad_crc),
            ("gzip of non-zip", gzip_of(b"hello")),
            ("gzip of text", gzip_of(b"not a zip at all")),
            ("empty zip", zip_of(&[])),
            ("two entries", zip_of(&[("a.pdf", PDF), ("b.pdf", PDF)])),
            ("not a pdf", zip_of(&[("a.txt", b"plain text here")])),
            (
                "nested zip",
                zip_of(&[("inner.zip", &zip_of(&[("a.pdf", PDF)]))]),
            ),
            ("dotdot name", zip_of(&[("../a.pdf", PDF)])),
            ("deep dotdot name", zip_of(&[("../../etc/a.pdf", PDF)])),
            ("absolute name", zip_of(&[("/abs/a.pdf", PDF)])),
            ("empty entry", zip_of(&[("a.pdf", b"")])),
            ("stored entry with a bad crc", gzip_of(&stored_bad)),
            ("damaged deflate data", deflate_bad),
            ("encrypted entry", encrypted),
            ("unknown method", bzip2),
            ("bytes between entry and directory", trailing),
            (
                "zip bomb",
                gzip_of(&zip_of(&[("a.pdf", &vec![b'%'; 3_000_000])])),
            ),
            ("gzip bomb", gzip_of(&vec![0u8; 3_000_000])),
            ("nothing", Vec::new()),
            ("a local header cut short", b"PK\x03\x04garbage".to_vec()),
            ("a zip cut short", zip_of(&[("a.pdf", PDF)])[..40].to_vec()),
            ("a zip without its directory", {
                let z = zip_of(&[("a.pdf", PDF)]);
                z[..z.windows(4).position(|w| w == ZIP_CENTRAL).unwrap()].to_vec()
            }),
            ("gzip magic only", GZIP_MAGIC.to_vec()),
        ]
    }

    #[test]
    fn corrupt_archives_are_document_errors() {
        for (name, data) in corpus() {
            let e = unpack(&data, 1_000_000).unwrap_err();
            assert_eq!(e.kind(), crate::ErrorKind::Document, "{name}: {e}");
            for chunk in CHUNKS {
                let e = unpack_chunked(&data, chunk, 1_000_000).unwrap_err();
                assert_eq!(e.kind(), crate::ErrorKind::Document, "{name}/{chunk}: {e}");
            }
        }
    }

    #[test]
    fn errors_name_their_stage() {
        let two = unpack(&zip_of(&[("a.pdf", PDF), ("b.pdf", PDF)]), 1 << 20).unwrap_err();
        assert!(
            two.to_string().contains("holds more than one document"),
            "{two}"
        );
        let three = unpack(
            &gzip_of(&zip_of(&[("a.pdf", PDF), ("b.pdf", PDF), ("c.pdf", PDF)])),
            1 << 20,
        )
        .unwrap_err();
        assert!(
            three.to_string().contains("more than one document"),
            "{three}"
        );
        let cut = gzip_of(&zip_of(&[("a.pdf", PDF)]));
        let e = unpack(&cut[..cut.len() / 2], 1 << 20).unwrap_err();
        assert!(e.to_string().starts_with("gunzip failed"), "{e}");
        let e = unpack(&zip_of(&[("../a.pdf", PDF)]), 1 << 20).unwrap_err();
        assert!(e.to_string().contains("unsafe entry name"), "{e}");
        let e = unpack(&zip_of(&[("a.txt", b"plain text")]), 1 << 20).unwrap_err();
        assert!(e.to_string().contains("not a PDF"), "{e}");
        let e = unpack(&zip_of(&[]), 1 << 20).unwrap_err();
        assert!(e.to_string().contains("no document"), "{e}");
    }

    #[test]
    fn the_writer_gets_bytes_as_they_come_and_its_errors_come_back() {
        let pdf = big_pdf(200_000);
        let packed = gzip_of(&zip_of(&[("a.pdf", &pdf)]));
        let mut out = Vec::new();
        let mut u = StreamUnpacker::new(&mut out, 1 << 20);
        u.push(&packed[..packed.len() / 2]).unwrap();
        let halfway = u.written();
        assert!(halfway > 0 && halfway < pdf.len() as u64, "{halfway}");
        u.push(&packed[packed.len() / 2..]).unwrap();
        assert_eq!(u.finish().unwrap(), pdf.len() as u64);

        let e = unpack_to(&packed, &mut FailingWriter(0), 1 << 20).unwrap_err();
        assert!(e.to_string().contains("disk full"), "{e}");
        assert_eq!(e.kind(), crate::ErrorKind::Document);
    }

    #[test]
    fn the_size_hint_comes_before_the_first_byte() {
        let pdf = big_pdf(100_000);
        let packed = gzip_of(&zip_of(&[("a.pdf", &pdf)]));
        let mut out: Vec<u8> = Vec::new();
        let mut u = StreamUnpacker::with_size_hint(&mut out, 1 << 20, |v, n| {
            assert!(v.is_empty());
            v.reserve_exact(n as usize);
        });
        for piece in packed.chunks(4096) {
            u.push(piece).unwrap();
        }
        u.finish().unwrap();
        assert_eq!(out, pdf);
        assert!(out.capacity() < pdf.len() + pdf.len() / 10);
    }

    #[test]
    fn the_buffers_stay_small() {
        let pdf = big_pdf(4 << 20);
        let packed = gzip_of(&zip_of(&[("a.pdf", &pdf)]));
        let mut sink = std::io::sink();
        let mut u = StreamUnpacker::new(&mut sink, 1 << 30);
        let mut most = 0;
        for piece in packed.chunks(64 * 1024) {
            u.push(piece).unwrap();
            most = most.max(u.buffered_bytes());
        }
        assert_eq!(u.finish().unwrap(), pdf.len() as u64);
        assert!(most <= 40 * 1024, "{most} bytes buffered");
    }
}
