//! The PDF check: what comes out of the archive must start with `%PDF-`, or be the
//! service's JSON error document, which becomes a `Document` error.

use std::io::Write;

use crate::error::{Error, Result};
use crate::wipe::WipeBuf;

const PDF_MAGIC: &[u8] = b"%PDF-";
/// How much of a document that is not a PDF is kept to describe it (an error document).
const HELD_BACK: usize = 1 << 20;
/// The error document found inside an archive when retrieval failed.
#[derive(Clone, Debug, PartialEq, serde::Deserialize)]
pub struct ErrorDocument {
    /// The service's explanation (`errorMessage`).
    #[serde(rename = "errorMessage", default)]
    pub error_message: String,
    /// The service's error code (`errorCode`).
    #[serde(rename = "errorCode", default)]
    pub error_code: String,
    /// The parameters of the failed retrieval, as the service echoes them
    /// (`inputParams`).
    #[serde(rename = "inputParams", default)]
    pub input_params: serde_json::Value,
}

/// Passes bytes through once the first ones show a PDF; holds back and parses an error
/// document instead (it is small), and rejects anything else.
pub(super) struct PdfCheck<W: Write> {
    pub(super) inner: W,
    pub(super) head: WipeBuf,
    decided: Option<bool>,
    pub(super) written: u64,
    pub(super) hint: Option<fn(&mut W, u64)>,
}

impl<W: Write> PdfCheck<W> {
    pub(super) fn new(inner: W) -> Self {
        PdfCheck {
            inner,
            head: WipeBuf::new(),
            decided: None,
            written: 0,
            hint: None,
        }
    }

    pub(super) fn size_hint(&mut self, size: u64) {
        if self.written == 0 {
            if let Some(f) = self.hint.take() {
                f(&mut self.inner, size);
            }
        }
    }

    pub(super) fn push(&mut self, buf: &[u8]) -> Result<()> {
        match self.decided {
            Some(true) => self.deliver(buf),
            Some(false) => {
                let room = HELD_BACK.saturating_sub(self.head.len()).min(buf.len());
                self.head.extend_from_slice(&buf[..room]);
                Ok(())
            }
            None => {
                let n = (PDF_MAGIC.len() - self.head.len()).min(buf.len());
                self.head.extend_from_slice(&buf[..n]);
                if self.head.len() < PDF_MAGIC.len() {
                    return Ok(());
                }
                let is_pdf = self.head.starts_with(PDF_MAGIC);
                self.decided = Some(is_pdf);
                if is_pdf {
                    let head = std::mem::take(&mut self.head);
                    self.deliver(&head)?;
                }
                self.push(&buf[n..])
            }
        }
    }

    fn deliver(&mut self, buf: &[u8]) -> Result<()> {
        if buf.is_empty() {
            return Ok(());
        }
        self.inner
            .write_all(buf)
            .map_err(|e| Error::document(format!("writing the document failed: {e}")))?;
        self.written += buf.len() as u64;
        Ok(())
    }

    /// The document is complete: a PDF (the writer is flushed), or an error.
    pub(super) fn verdict(&mut self) -> Result<()> {
        match self.decided {
            Some(true) => self
                .inner
                .flush()
                .map_err(|e| Error::document(format!("writing the document failed: {e}"))),
            _ => Err(classify_non_pdf(&self.head)),
        }
    }
}

fn classify_non_pdf(head: &[u8]) -> Error {
    let text = String::from_utf8_lossy(head);
    let trimmed = text.trim_start();
    if trimmed.starts_with('{') {
        if let Ok(doc) = serde_json::from_str::<ErrorDocument>(trimmed) {
            // Server text (an errorMessage may be up to 1 MiB): filtered and bounded.
            let code = if doc.error_code.is_empty() {
                "UNKNOWN".to_string()
            } else {
                crate::error::server_text(&doc.error_code)
            };
            let params = match &doc.input_params {
                serde_json::Value::Null => String::new(),
                v => format!(" for {}", crate::error::server_text(&v.to_string())),
            };
            return Error::document(format!(
                "the service could not produce the document ({code}: {}){params}",
                crate::error::server_text(&doc.error_message)
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
    use crate::documents::testdata::{gzip_of, zip_of};
    use crate::documents::tests::{unpack_chunked, CHUNKS};
    use crate::documents::{unpack, StreamUnpacker};

    #[test]
    fn error_document() {
        let doc = br#"{"errorMessage":"Invoice not available","inputParams":{"requestPreferences":{"orderId":"O-1"}},"errorCode":"CLIENT_ERROR"}"#;
        let packed = gzip_of(&zip_of(&[("error.json", doc)]));
        let e = unpack(&packed, 1 << 20).unwrap_err();
        assert_eq!(e.kind(), crate::ErrorKind::Document);
        assert_eq!(e.document_code(), Some("CLIENT_ERROR"));
        assert!(e.to_string().contains("Invoice not available") && e.to_string().contains("O-1"));
        for chunk in CHUNKS {
            let e = unpack_chunked(&packed, chunk, 1 << 20).unwrap_err();
            assert_eq!(e.document_code(), Some("CLIENT_ERROR"), "chunks of {chunk}");
        }
        // Nothing of it reached the writer.
        let mut out = Vec::new();
        let mut u = StreamUnpacker::new(&mut out, 1 << 20);
        // Refused at the entry's end, before the central directory.
        let e = u.push(&packed).unwrap_err();
        assert_eq!(e.document_code(), Some("CLIENT_ERROR"));
        assert_eq!(u.written(), 0);
        assert!(u.finish().is_err());
        assert!(out.is_empty());
    }
}
