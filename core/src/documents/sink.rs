//! Where the unpacked documents go: one to a writer (`Single`), or every one in memory by
//! name (`Collect`).

use std::io::Write;

use super::limits::more_than_one;
use super::pdf::PdfCheck;
use super::{spent, NamedDocument};
use crate::error::{Error, Result};
use crate::wipe::WipeBuf;

/// A document of `download_all` whose size its entry does not declare grows in blocks of
/// this size (no doubling: see `DocBuf`).
const ROPE_BLOCK: usize = 256 * 1024;

/// The receiver of an archive's documents, one after the other.
pub(super) trait Sink {
    /// A document starts: its entry's name (`None` when the body is not a zip) and the
    /// size the entry declares (checked against the limit), if it does.
    fn begin(&mut self, name: Option<&str>, declared: Option<u64>) -> Result<()>;
    /// The document's next bytes.
    fn data(&mut self, bytes: &[u8]) -> Result<()>;
    /// The document is complete (its CRC-32 checked): is it a PDF?
    fn end(&mut self) -> Result<()>;
    /// Bytes passed on so far.
    fn written(&self) -> u64;
    /// The capacity of the buffers it holds itself (not the documents collected).
    fn buffered(&self) -> usize;
}

/// One document, to a writer: a second one is an error.
pub(super) struct Single<W: Write> {
    pdf: PdfCheck<W>,
    begun: bool,
}

impl<W: Write> Single<W> {
    pub(super) fn new(pdf: PdfCheck<W>) -> Self {
        Single { pdf, begun: false }
    }
}

impl<W: Write> Sink for Single<W> {
    fn begin(&mut self, _: Option<&str>, declared: Option<u64>) -> Result<()> {
        if std::mem::replace(&mut self.begun, true) {
            return Err(more_than_one());
        }
        if let Some(size) = declared {
            self.pdf.size_hint(size);
        }
        Ok(())
    }
    fn data(&mut self, bytes: &[u8]) -> Result<()> {
        self.pdf.push(bytes)
    }
    fn end(&mut self) -> Result<()> {
        self.pdf.verdict()
    }
    fn written(&self) -> u64 {
        self.pdf.written
    }
    fn buffered(&self) -> usize {
        self.pdf.head.capacity()
    }
}

/// Every document, in memory, by name (`download_all`).
pub(super) struct Collect {
    pub(super) docs: Vec<NamedDocument>,
    current: Option<(String, PdfCheck<DocBuf>)>,
}

impl Collect {
    pub(super) fn new() -> Self {
        Collect {
            docs: Vec::new(),
            current: None,
        }
    }
}

impl Sink for Collect {
    fn begin(&mut self, name: Option<&str>, declared: Option<u64>) -> Result<()> {
        let buf = match declared.map(usize::try_from) {
            Some(Ok(size)) => {
                let mut b = WipeBuf::new();
                b.try_reserve_exact(size).map_err(|_| {
                    Error::document(format!("no memory for a document of {size} bytes"))
                })?;
                DocBuf::Flat(b)
            }
            _ => DocBuf::Rope(Vec::new(), 0),
        };
        let name = name.unwrap_or("document.pdf").to_string();
        self.current = Some((name, PdfCheck::new(buf)));
        Ok(())
    }
    fn data(&mut self, bytes: &[u8]) -> Result<()> {
        match &mut self.current {
            Some((_, pdf)) => pdf.push(bytes),
            None => Err(spent()),
        }
    }
    fn end(&mut self) -> Result<()> {
        let (name, mut pdf) = self.current.take().ok_or_else(spent)?;
        pdf.verdict()?;
        let data = pdf.inner.into_vec()?;
        self.docs.push(NamedDocument { name, data });
        Ok(())
    }
    fn written(&self) -> u64 {
        let done: u64 = self.docs.iter().map(|d| d.data.len() as u64).sum();
        done + self.current.as_ref().map_or(0, |(_, p)| p.written)
    }
    fn buffered(&self) -> usize {
        self.current.as_ref().map_or(0, |(_, p)| p.head.capacity())
    }
}

/// A document of `download_all` being collected: room reserved from the size its entry
/// declares, or (a data descriptor: no size before the data) blocks that are joined once
/// at its end, so a document never sits in memory more than twice, briefly, instead of
/// the three times a doubling buffer reaches while it grows.
enum DocBuf {
    Flat(WipeBuf),
    Rope(Vec<WipeBuf>, usize),
}

impl DocBuf {
    fn into_vec(self) -> Result<Vec<u8>> {
        match self {
            DocBuf::Flat(b) => Ok(b.into_vec()),
            DocBuf::Rope(mut blocks, len) => {
                if blocks.len() == 1 {
                    return Ok(blocks.remove(0).into_vec());
                }
                let mut out = Vec::new();
                out.try_reserve_exact(len).map_err(|_| {
                    Error::document(format!("no memory for a document of {len} bytes"))
                })?;
                for block in blocks.drain(..) {
                    out.extend_from_slice(&block);
                }
                Ok(out)
            }
        }
    }
}

impl Write for DocBuf {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            DocBuf::Flat(b) => b.extend_from_slice(buf),
            DocBuf::Rope(blocks, len) => {
                let mut rest = buf;
                while !rest.is_empty() {
                    match blocks.last_mut() {
                        Some(b) if b.len() < b.capacity() => {
                            let n = (b.capacity() - b.len()).min(rest.len());
                            b.extend_from_slice(&rest[..n]);
                            rest = &rest[n..];
                        }
                        _ => blocks.push(WipeBuf::with_capacity(ROPE_BLOCK)),
                    }
                }
                *len += buf.len();
            }
        }
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::documents::testdata::{big_pdf, gzip_of, stored_zip_of, zip_of};
    use crate::documents::tests::PDF;
    use crate::documents::unpack_all;
    use crate::documents::zip::ZIP_CENTRAL;

    #[test]
    fn unpack_all_reads_every_entry_and_checks_it() {
        let pdf = big_pdf(300_000);
        let packed = gzip_of(&zip_of(&[("INV-1.pdf", &pdf), ("CM-1.pdf", PDF)]));
        let docs = unpack_all(&packed, 1 << 30).unwrap();
        let names: Vec<&str> = docs.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names, ["INV-1.pdf", "CM-1.pdf"]);
        assert!(docs[0].data == pdf && docs[1].data == PDF);
        let stored = stored_zip_of(&[("dir/", b""), ("a.pdf", PDF)]);
        assert_eq!(unpack_all(&stored, 1 << 20).unwrap()[0].data, PDF);
        // A damaged entry, a bomb, a cut deflate stream.
        let mut bad = stored_zip_of(&[("a.pdf", b"%PDF-1.4 stored entry body")]);
        let at = bad.windows(6).position(|w| w == b"stored").unwrap();
        bad[at] ^= 0x20;
        assert!(unpack_all(&bad, 1 << 20)
            .unwrap_err()
            .to_string()
            .contains("CRC"));
        let bomb = zip_of(&[("a.pdf", &vec![b'%'; 3_000_000])]);
        let e = unpack_all(&bomb, 1_000_000).unwrap_err();
        assert!(e.to_string().contains("bomb"), "{e}");
        let z = zip_of(&[("a.pdf", &pdf)]);
        let mut cut = z.clone();
        let start = 30 + "a.pdf".len();
        let central = z.windows(4).position(|w| w == ZIP_CENTRAL).unwrap();
        cut[start + 100..central].fill(0);
        assert_eq!(
            unpack_all(&cut, 1 << 30).unwrap_err().kind(),
            crate::ErrorKind::Document
        );
    }
}
