//! Downloading a document into a file the caller names: the one place where the SDK
//! writes to disk, and only when asked (every other download path stays in memory; the
//! reliability check G8 holds `documents.rs`, `api/documents.rs` and `transport.rs` to
//! that).
//!
//! The file is encrypted (`sealed`: AES-256-GCM under the caller's key) unless the caller
//! asks for the plain PDF by name (`download_to_path_plaintext`). Either way it is written
//! safely (`SafeFile`): a temporary file with a random name in the destination's
//! directory, created exclusively (O_EXCL), without following a symbolic link
//! (O_NOFOLLOW) and owner-only (0600); synced, then renamed over the destination, and the
//! directory synced. A destination that is a symbolic link (or a directory) is refused.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::documents::{document_hint, Documents, FetchPdfParams};
use crate::error::{Error, Result};
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
        let dest = file.dest.clone();
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

fn file_error(what: &str, p: &Path, e: std::io::Error) -> Error {
    Error::document(format!("{what} {} failed: {e}", p.display()))
}

/// A file written safely: bytes go to a temporary file with a random name beside the
/// destination — created with `create_new` (O_CREAT|O_EXCL: a file or link already there
/// is never opened), O_NOFOLLOW and mode 0600 — which `commit` syncs and renames over the
/// destination (then syncs the directory). Dropped without `commit`, the temporary file
/// is removed. A destination that is a symbolic link or a directory is refused before
/// anything is created; a link put there later is replaced by the rename, not followed.
pub(crate) struct SafeFile {
    file: Option<std::fs::File>,
    temp: PathBuf,
    dest: PathBuf,
}

impl SafeFile {
    pub(crate) fn create(dest: &Path) -> Result<SafeFile> {
        // Checked before anything is opened or sent: an argument, not a file system error.
        if dest.as_os_str().is_empty() {
            return Err(Error::validation(
                "path",
                "is required: the name of the file to write",
            ));
        }
        match std::fs::symlink_metadata(dest) {
            Ok(m) if m.file_type().is_symlink() => {
                return Err(Error::document(format!(
                    "refusing to write to {}: it is a symbolic link",
                    dest.display()
                )))
            }
            Ok(m) if m.is_dir() => {
                return Err(Error::document(format!(
                    "refusing to write to {}: it is a directory",
                    dest.display()
                )))
            }
            _ => {}
        }
        let name = dest.file_name().ok_or_else(|| {
            Error::validation(
                "path",
                "must name a file, not end in `/` or `..` (a directory)",
            )
        })?;
        let dir = match dest.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let mut last = None;
        // A name already taken (by chance or on purpose) is skipped, never opened.
        for _ in 0..8 {
            let mut temp_name = std::ffi::OsString::from(".");
            temp_name.push(name);
            temp_name.push(format!(".{:016x}.abws-part", rand::random::<u64>()));
            let temp = dir.join(temp_name);
            match open_exclusive(&temp) {
                Ok(file) => {
                    return Ok(SafeFile {
                        file: Some(file),
                        temp,
                        dest: dest.to_path_buf(),
                    })
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
                Err(e) => return Err(file_error("creating a file in", &dir, e)),
            }
        }
        Err(file_error(
            "creating a file in",
            &dir,
            last.unwrap_or_else(|| std::io::Error::other("no free name")),
        ))
    }

    /// The temporary file's path (until `commit`).
    #[cfg(test)]
    fn temp_path(&self) -> &Path {
        &self.temp
    }

    /// Syncs the file, renames it over the destination and syncs the directory.
    pub(crate) fn commit(mut self) -> Result<()> {
        let file = self
            .file
            .take()
            .ok_or_else(|| Error::document("already committed"))?;
        file.sync_all()
            .map_err(|e| file_error("writing", &self.dest, e))?;
        drop(file);
        std::fs::rename(&self.temp, &self.dest)
            .map_err(|e| file_error("renaming the file to", &self.dest, e))?;
        self.temp = PathBuf::new();
        #[cfg(unix)]
        if let Some(dir) = self.dest.parent() {
            let dir = if dir.as_os_str().is_empty() {
                Path::new(".")
            } else {
                dir
            };
            // Durability of the rename; a directory that cannot be opened is no failure.
            if let Ok(d) = std::fs::File::open(dir) {
                let _ = d.sync_all();
            }
        }
        Ok(())
    }
}

impl Write for SafeFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match &mut self.file {
            Some(f) => f.write(buf),
            None => Err(std::io::Error::other("the file was committed")),
        }
    }
    fn flush(&mut self) -> std::io::Result<()> {
        match &mut self.file {
            Some(f) => f.flush(),
            None => Ok(()),
        }
    }
}

impl Drop for SafeFile {
    fn drop(&mut self) {
        if !self.temp.as_os_str().is_empty() {
            drop(self.file.take());
            let _ = std::fs::remove_file(&self.temp);
        }
    }
}

fn open_exclusive(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC);
    }
    options.open(path)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn dir() -> PathBuf {
        let d = std::env::temp_dir().join(format!(
            "abws-safefile-{}-{:x}",
            std::process::id(),
            rand::random::<u32>()
        ));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn writes_through_a_temporary_file_renamed_once_committed() {
        let d = dir();
        let dest = d.join("a.pdf");
        let mut f = SafeFile::create(&dest).unwrap();
        let temp = f.temp_path().to_path_buf();
        f.write_all(b"%PDF-1.4").unwrap();
        assert!(!dest.exists() && temp.exists());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&temp).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        f.commit().unwrap();
        assert_eq!(std::fs::read(&dest).unwrap(), b"%PDF-1.4");
        assert!(!temp.exists());
        // Dropped without commit: nothing left.
        let f = SafeFile::create(&d.join("b.pdf")).unwrap();
        let temp = f.temp_path().to_path_buf();
        drop(f);
        assert!(!temp.exists() && !d.join("b.pdf").exists());
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn symbolic_links_are_refused_and_never_followed() {
        let d = dir();
        let target = d.join("target");
        std::fs::write(&target, b"keep").unwrap();
        let link = d.join("link.pdf");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let e = SafeFile::create(&link).err().unwrap();
        assert!(e.to_string().contains("symbolic link"), "{e}");
        // A link put in place after the check is replaced, not written through.
        let dest = d.join("late.pdf");
        let mut f = SafeFile::create(&dest).unwrap();
        std::os::unix::fs::symlink(&target, &dest).unwrap();
        f.write_all(b"%PDF-").unwrap();
        f.commit().unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"keep");
        assert!(!std::fs::symlink_metadata(&dest)
            .unwrap()
            .file_type()
            .is_symlink());
        // The old `.part` name, pre-created or a link, receives nothing.
        let part = d.join("c.pdf.part");
        std::os::unix::fs::symlink(&target, &part).unwrap();
        let mut f = SafeFile::create(&d.join("c.pdf")).unwrap();
        f.write_all(b"%PDF-").unwrap();
        f.commit().unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"keep");
        assert!(open_exclusive(&part).is_err());
        assert!(SafeFile::create(&d).is_err());
        std::fs::remove_dir_all(&d).unwrap();
    }
}
