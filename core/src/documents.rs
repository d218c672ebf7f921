//! Unpacking a downloaded document in memory: gunzip (recognised by its bytes, not by a
//! header), then unzip (exactly one entry), then check that a PDF came out — or turn the
//! error document the service puts in the archive instead into a `Document` error.
//! Nothing is written to disk; the buffers we own are wiped when dropped.

use std::io::{Read, Write};

use zeroize::Zeroizing;

use crate::error::{Error, Result};

const GZIP_MAGIC: &[u8] = &[0x1f, 0x8b];
const ZIP_MAGIC: &[u8] = b"PK\x03\x04";
const EMPTY_ZIP_MAGIC: &[u8] = b"PK\x05\x06";
const PDF_MAGIC: &[u8] = b"%PDF-";

/// The default ceiling of a document's unpacked size (zip and gzip bombs stop there).
pub const DEFAULT_MAX_DOCUMENT_BYTES: u64 = 1 << 30;

/// The error document found inside an archive when retrieval failed.
#[derive(Clone, Debug, PartialEq, serde::Deserialize)]
pub struct ErrorDocument {
    #[serde(rename = "errorMessage", default)]
    pub error_message: String,
    #[serde(rename = "errorCode", default)]
    pub error_code: String,
    #[serde(rename = "inputParams", default)]
    pub input_params: serde_json::Value,
}

/// Unpacks `data` (gzip and/or zip around a PDF) and returns the PDF.
pub fn unpack(data: &[u8], max_bytes: u64) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    unpack_to(data, &mut out, max_bytes)?;
    Ok(out)
}

/// Unpacks `data` and writes the PDF to `writer`; returns the number of bytes written.
pub fn unpack_to(data: &[u8], writer: &mut dyn Write, max_bytes: u64) -> Result<u64> {
    let gunzipped: Zeroizing<Vec<u8>>;
    let stage1: &[u8] = if data.starts_with(GZIP_MAGIC) {
        gunzipped = Zeroizing::new(gunzip(data, max_bytes)?);
        &gunzipped
    } else {
        data
    };
    if stage1.starts_with(ZIP_MAGIC) || stage1.starts_with(EMPTY_ZIP_MAGIC) {
        unzip_single(stage1, writer, max_bytes)
    } else {
        let mut w = PdfCheck::new(writer);
        w.write_all(stage1).map_err(write_error)?;
        w.finish()
    }
}

/// One document of an archive.
#[derive(Clone, PartialEq, Eq)]
pub struct NamedDocument {
    /// The entry's name in the archive (e.g. `INV-1.pdf`).
    pub name: String,
    /// The PDF.
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
/// returns the invoice and its credit memos): every entry, each checked to be a PDF.
pub fn unpack_all(data: &[u8], max_bytes: u64) -> Result<Vec<NamedDocument>> {
    let gunzipped: Zeroizing<Vec<u8>>;
    let stage1: &[u8] = if data.starts_with(GZIP_MAGIC) {
        gunzipped = Zeroizing::new(gunzip(data, max_bytes)?);
        &gunzipped
    } else {
        data
    };
    if !(stage1.starts_with(ZIP_MAGIC) || stage1.starts_with(EMPTY_ZIP_MAGIC)) {
        let mut out = Vec::new();
        unpack_to(stage1, &mut out, max_bytes)?;
        return Ok(vec![NamedDocument {
            name: "document.pdf".into(),
            data: out,
        }]);
    }
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(stage1))
        .map_err(|e| Error::document(format!("unzip failed: the zip layer is damaged ({e})")))?;
    let mut docs = Vec::new();
    let mut total = 0u64;
    for i in 0..archive.len() {
        let mut entry = archive
            .by_index(i)
            .map_err(|e| Error::document(format!("unzip failed: cannot open entry {i} ({e})")))?;
        if entry.is_dir() {
            continue;
        }
        let name = entry.name().map(|n| n.to_string()).unwrap_or_default();
        check_entry(&entry, &name, max_bytes)?;
        let mut out = Vec::new();
        let mut w = PdfCheck::new(&mut out);
        let n = copy_limited(&mut entry, &mut w, max_bytes.saturating_sub(total))?;
        w.finish()?;
        total += n;
        docs.push(NamedDocument { name, data: out });
    }
    if docs.is_empty() {
        return Err(Error::document(
            "unzip failed: the archive holds no document",
        ));
    }
    Ok(docs)
}

fn check_entry(
    entry: &zip::read::ZipFile<'_, std::io::Cursor<&[u8]>>,
    name: &str,
    max_bytes: u64,
) -> Result<()> {
    if entry.encrypted() {
        return Err(Error::document("unzip failed: the entry is encrypted"));
    }
    if name.starts_with('/') || name.split(['/', '\\']).any(|p| p == "..") {
        return Err(Error::document(format!(
            "unzip failed: unsafe entry name {name:?}"
        )));
    }
    if entry.size() > max_bytes {
        return Err(Error::document(format!(
            "unzip stopped: the entry declares {} bytes, more than the {max_bytes}-byte limit (a zip bomb, or raise the limit)",
            entry.size()
        )));
    }
    Ok(())
}

fn copy_limited(reader: &mut dyn Read, w: &mut dyn Write, max_bytes: u64) -> Result<u64> {
    let mut limited = reader.take(max_bytes + 1);
    let mut buf = Zeroizing::new(vec![0u8; 64 * 1024]);
    let mut total = 0u64;
    loop {
        let n = limited
            .read(&mut buf)
            .map_err(|e| Error::document(format!("unzip failed: the entry is damaged ({e})")))?;
        if n == 0 {
            return Ok(total);
        }
        total += n as u64;
        if total > max_bytes {
            return Err(Error::document(format!(
                "unzip stopped: the entry unpacks to more than {max_bytes} bytes (a zip bomb, or raise the limit)"
            )));
        }
        w.write_all(&buf[..n]).map_err(write_error)?;
    }
}

fn gunzip(data: &[u8], max_bytes: u64) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    let mut dec = flate2::read::MultiGzDecoder::new(data).take(max_bytes + 1);
    dec.read_to_end(&mut out)
        .map_err(|e| Error::document(format!("gunzip failed: the gzip layer is damaged ({e})")))?;
    if out.len() as u64 > max_bytes {
        out.iter_mut().for_each(|b| *b = 0);
        return Err(Error::document(format!(
            "gunzip stopped: the document unpacks to more than {max_bytes} bytes (a gzip bomb, or raise the limit)"
        )));
    }
    Ok(out)
}

fn unzip_single(data: &[u8], writer: &mut dyn Write, max_bytes: u64) -> Result<u64> {
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(data))
        .map_err(|e| Error::document(format!("unzip failed: the zip layer is damaged ({e})")))?;
    let files: Vec<usize> = (0..archive.len())
        .filter(|&i| archive.by_index_raw(i).map(|f| !f.is_dir()).unwrap_or(true))
        .collect();
    match files.len() {
        1 => {}
        0 => return Err(Error::document("unzip failed: the archive holds no document")),
        n => {
            return Err(Error::document(format!(
                "the archive holds {n} documents (an invoice and its credit memos when documentType is omitted): \
                 ask for one documentType, or use download_all"
            )))
        }
    }
    let mut entry = archive
        .by_index(files[0])
        .map_err(|e| Error::document(format!("unzip failed: cannot open the entry ({e})")))?;
    let name = entry.name().map(|n| n.to_string()).unwrap_or_default();
    check_entry(&entry, &name, max_bytes)?;
    let mut w = PdfCheck::new(writer);
    copy_limited(&mut entry, &mut w, max_bytes)?;
    w.finish()
}

fn write_error(e: std::io::Error) -> Error {
    if e.kind() == std::io::ErrorKind::InvalidData {
        if let Some(inner) = e.get_ref().and_then(|i| i.downcast_ref::<ErrorHolder>()) {
            return inner.0.clone();
        }
    }
    Error::document(format!("writing the document failed: {e}"))
}

#[derive(Debug)]
struct ErrorHolder(Error);
impl std::fmt::Display for ErrorHolder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}
impl std::error::Error for ErrorHolder {}

/// Passes bytes through once the first ones show a PDF; holds back and parses an error
/// document instead (it is small), and rejects anything else.
struct PdfCheck<'a> {
    inner: &'a mut dyn Write,
    head: Zeroizing<Vec<u8>>,
    decided: Option<bool>,
    written: u64,
}

impl<'a> PdfCheck<'a> {
    fn new(inner: &'a mut dyn Write) -> Self {
        PdfCheck {
            inner,
            head: Zeroizing::new(Vec::new()),
            decided: None,
            written: 0,
        }
    }

    fn finish(self) -> Result<u64> {
        match self.decided {
            Some(true) => {
                self.inner.flush().map_err(write_error)?;
                Ok(self.written)
            }
            _ => Err(classify_non_pdf(&self.head)),
        }
    }
}

impl Write for PdfCheck<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self.decided {
            Some(true) => {
                self.inner.write_all(buf)?;
                self.written += buf.len() as u64;
            }
            Some(false) => {
                if self.head.len() < 1 << 20 {
                    self.head.extend_from_slice(buf);
                }
            }
            None => {
                self.head.extend_from_slice(buf);
                if self.head.len() >= PDF_MAGIC.len() {
                    let is_pdf = self.head.starts_with(PDF_MAGIC);
                    self.decided = Some(is_pdf);
                    if is_pdf {
                        let head = std::mem::take(&mut *self.head);
                        self.inner.write_all(&head)?;
                        self.written += head.len() as u64;
                    }
                }
            }
        }
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

fn classify_non_pdf(head: &[u8]) -> Error {
    let text = String::from_utf8_lossy(head);
    let trimmed = text.trim_start();
    if trimmed.starts_with('{') {
        if let Ok(doc) = serde_json::from_str::<ErrorDocument>(trimmed) {
            let code = if doc.error_code.is_empty() {
                "UNKNOWN".to_string()
            } else {
                doc.error_code.clone()
            };
            let params = match &doc.input_params {
                serde_json::Value::Null => String::new(),
                v => format!(" for {v}"),
            };
            return Error::document(format!(
                "the service could not produce the document ({code}: {}){params}",
                doc.error_message
            ))
            .with_document_code(code);
        }
    }
    if head.is_empty() {
        Error::document("the archive's document is empty")
    } else {
        Error::document("the archive's document is not a PDF (it does not start with %PDF-)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        for (name, data) in entries {
            w.start_file(*name, zip::write::SimpleFileOptions::default())
                .unwrap();
            w.write_all(data).unwrap();
        }
        w.finish().unwrap().into_inner()
    }

    fn gzip_of(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    const PDF: &[u8] = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n";

    #[test]
    fn gzip_zip_pdf() {
        let packed = gzip_of(&zip_of(&[("INV-1.pdf", PDF)]));
        assert_eq!(unpack(&packed, 1 << 20).unwrap(), PDF);
        // Each layer is optional: recognised by its bytes.
        assert_eq!(unpack(&zip_of(&[("a.pdf", PDF)]), 1 << 20).unwrap(), PDF);
        assert_eq!(unpack(&gzip_of(PDF), 1 << 20).unwrap(), PDF);
        assert_eq!(unpack(PDF, 1 << 20).unwrap(), PDF);
    }

    #[test]
    fn error_document() {
        let doc = br#"{"errorMessage":"Invoice not available","inputParams":{"requestPreferences":{"orderId":"O-1"}},"errorCode":"CLIENT_ERROR"}"#;
        let e = unpack(&gzip_of(&zip_of(&[("error.json", doc)])), 1 << 20).unwrap_err();
        assert_eq!(e.kind(), crate::ErrorKind::Document);
        assert_eq!(e.document_code(), Some("CLIENT_ERROR"));
        assert!(e.to_string().contains("Invoice not available") && e.to_string().contains("O-1"));
    }

    #[test]
    fn corrupt_archives_are_document_errors() {
        let good = gzip_of(&zip_of(&[("a.pdf", PDF)]));
        let cases: Vec<(&str, Vec<u8>)> = vec![
            ("truncated gzip", good[..good.len() / 2].to_vec()),
            ("gzip of non-zip", gzip_of(b"hello")),
            ("empty zip", zip_of(&[])),
            ("two entries", zip_of(&[("a.pdf", PDF), ("b.pdf", PDF)])),
            ("not a pdf", zip_of(&[("a.txt", b"plain text here")])),
            (
                "nested zip",
                zip_of(&[("inner.zip", &zip_of(&[("a.pdf", PDF)]))]),
            ),
            ("dotdot name", zip_of(&[("../a.pdf", PDF)])),
            ("empty entry", zip_of(&[("a.pdf", b"")])),
        ];
        for (name, data) in cases {
            let e = unpack(&data, 1 << 20).unwrap_err();
            assert_eq!(e.kind(), crate::ErrorKind::Document, "{name}: {e}");
        }
        let mut bad_crc = gzip_of(&zip_of(&[("a.pdf", PDF)]));
        let n = bad_crc.len();
        bad_crc[n - 6] ^= 0xff; // the gzip trailer's CRC
        assert!(unpack(&bad_crc, 1 << 20).is_err());
    }

    #[test]
    fn bombs_stop_at_the_limit() {
        let big = vec![b'%'; 5_000_000];
        let packed = gzip_of(&zip_of(&[("a.pdf", &big)]));
        assert!(packed.len() < 100_000);
        let e = unpack(&packed, 1_000_000).unwrap_err();
        assert!(e.to_string().contains("bomb"), "{e}");
    }
}
