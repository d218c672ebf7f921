//! Writing a file the caller names, safely (`SafeFile`): a temporary file with a random
//! name in the destination's directory, created exclusively (O_EXCL), without following a
//! symbolic link (O_NOFOLLOW) and owner-only (0600); synced, then renamed over the
//! destination, and the directory synced. A destination that is a symbolic link (or a
//! directory) is refused. Used by the document downloads to a path, `sealed::open_file` and
//! the close's files and archive.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

pub(crate) fn file_error(what: &str, p: &Path, e: std::io::Error) -> Error {
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

    /// The destination's path.
    pub(crate) fn dest(&self) -> &Path {
        &self.dest
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
