//! Downloading a document into a file the caller names: the one place where the SDK
//! writes to disk, and only when asked (every other download path stays in memory; the
//! reliability check G8 holds `documents.rs`, `api/documents.rs` and `transport.rs` to
//! that).

use std::io::Write;

use super::documents::Documents;
use crate::error::{Error, Result};

impl Documents<'_> {
    /// Downloads a report document into the file `path`, streamed: the PDF is written to
    /// `<path>.part` (created owner-only on Unix) and renamed to `path` once complete and
    /// synced, so a failed download leaves no file behind. `progress`, when given, is
    /// called with the bytes written so far after each piece. Returns the PDF's size.
    pub async fn download_to_path(
        &self,
        report_document_id: &str,
        path: &std::path::Path,
        progress: Option<&(dyn Fn(u64) + Send + Sync)>,
    ) -> Result<u64> {
        let mut part = path.as_os_str().to_owned();
        part.push(".part");
        let part = std::path::PathBuf::from(part);
        let file_error = |what: &str, p: &std::path::Path, e: std::io::Error| {
            Error::document(format!("{what} {} failed: {e}", p.display()))
        };
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create(true).truncate(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let file = options
            .open(&part)
            .map_err(|e| file_error("creating", &part, e))?;
        let mut out = Progress {
            inner: file,
            written: 0,
            progress,
        };
        let result = match self.download_to(report_document_id, &mut out).await {
            Ok(n) => out
                .inner
                .sync_all()
                .and_then(|()| std::fs::rename(&part, path))
                .map(|()| n)
                .map_err(|e| file_error("writing", path, e)),
            Err(e) => Err(e),
        };
        if result.is_err() {
            let _ = std::fs::remove_file(&part);
        }
        result
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
