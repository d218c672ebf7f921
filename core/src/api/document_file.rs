//! Downloading a document into a file the caller names: the one place where the SDK
//! writes to disk, and only when asked (every other download path stays in memory; the
//! reliability check G8 holds `documents.rs`, `api/documents.rs` and `transport.rs` to
//! that).
//!
//! The file is encrypted (`sealed`: AES-256-GCM under the caller's key) unless the caller
//! asks for the plain PDF by name (`download_to_path_plaintext`). Either way it is written
//! safely (`fs::SafeFile`).

use std::io::Write;
use std::path::Path;

use super::documents::{document_hint, Documents, FetchPdfParams};
use crate::error::Result;
use crate::fs::{file_error, SafeFile};
use crate::sealed::{DocumentKey, SealWriter};

impl Documents<'_> {
    /// Downloads a report document into the file `path`, ENCRYPTED under `key` (the
    /// `sealed` format: `python -m abws decrypt`, or any AES-GCM library, opens it). The
    /// body is streamed: unpacked, encrypted and written as it arrives, into a temporary
    /// file that is renamed to `path` once complete and synced (see `SafeFile`), so a
    /// failed download leaves no file behind. `progress`, when given, is called with the
    /// PDF bytes written so far after each piece. Returns the PDF's size.
    pub async fn download_to_path(
        &self,
        report_document_id: &str,
        path: &Path,
        key: &DocumentKey,
        progress: Option<&(dyn Fn(u64) + Send + Sync)>,
    ) -> Result<u64> {
        let file = SafeFile::create(path)?;
        self.seal_into(file, report_document_id, key, progress)
            .await
    }

    /// create → wait → document → download into the file `path`, ENCRYPTED under `key`:
    /// `fetch_pdf` and `download_to_path` in one call, so that filing a PDF at rest takes
    /// one call and never puts the plain PDF on disk. The destination is checked and its
    /// temporary file created before the report is asked for (a path that cannot be
    /// written fails before any request); a failure at any step leaves no file. Returns
    /// the PDF's size.
    pub async fn fetch_pdf_to_path(
        &self,
        p: &FetchPdfParams,
        poll_interval: std::time::Duration,
        timeout: Option<std::time::Duration>,
        path: &Path,
        key: &DocumentKey,
        progress: Option<&(dyn Fn(u64) + Send + Sync)>,
    ) -> Result<u64> {
        let file = SafeFile::create(path)?;
        let (report_id, document_id) = self.create_and_wait(p, poll_interval, timeout).await?;
        self.seal_into(file, &document_id, key, progress)
            .await
            .map_err(|e| document_hint(e, &report_id))
    }

    /// Streams a document, sealed under `key`, into `file`, committed once complete.
    async fn seal_into(
        &self,
        file: SafeFile,
        report_document_id: &str,
        key: &DocumentKey,
        progress: Option<&(dyn Fn(u64) + Send + Sync)>,
    ) -> Result<u64> {
        let dest = file.dest().to_path_buf();
        let mut out = Progress {
            inner: SealWriter::new(file, key)?,
            written: 0,
            progress,
        };
        let n = self.download_to(report_document_id, &mut out).await?;
        let file = out
            .inner
            .finish()
            .map_err(|e| file_error("writing", &dest, e))?;
        file.commit()?;
        Ok(n)
    }

    /// Downloads a report document into the file `path` as a PLAIN PDF: readable by
    /// anyone who can read the file. Reports hold sensitive data and must not be written
    /// unencrypted to disk (docs/decisions/015-documents.md); this method is for callers that take that on (an encrypted
    /// volume, a viewer that must open it). Written like `download_to_path` (a temporary
    /// file, 0600, no symbolic link followed, renamed once complete).
    pub async fn download_to_path_plaintext(
        &self,
        report_document_id: &str,
        path: &Path,
        progress: Option<&(dyn Fn(u64) + Send + Sync)>,
    ) -> Result<u64> {
        let mut out = Progress {
            inner: SafeFile::create(path)?,
            written: 0,
            progress,
        };
        let n = self.download_to(report_document_id, &mut out).await?;
        out.inner.commit()?;
        Ok(n)
    }
}

/// A writer that reports the bytes written so far after each piece.
struct Progress<'a, W: Write> {
    inner: W,
    written: u64,
    progress: Option<&'a (dyn Fn(u64) + Send + Sync)>,
}

impl<W: Write> Write for Progress<'_, W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.written += n as u64;
        if let Some(report) = self.progress {
            report(self.written);
        }
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}
