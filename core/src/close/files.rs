//! The output directory of a close: every file the close reads or writes is a plain
//! name inside it, checked (no `..`, no separator, no absolute path), and no symbolic
//! link is followed anywhere under it. Files are written by `SafeFile` (a new file
//! created exclusive and no-follow, 0600, synced, renamed into place); files are read
//! and directories opened with O_NOFOLLOW; a directory is tightened to 0700 through its
//! own open descriptor (never through a path that could be swapped for a link).

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::fs::SafeFile;

/// Longest file name the close makes of an invoice number.
const MAX_NAME: usize = 100;

/// `name` is a plain file name of the close's own making: ASCII letters, digits, `.`,
/// `_` and `-`, not starting with a dot, at most 100 characters. Anything else (`..`,
/// `/`, an absolute path, a NUL) read back from the job state is refused.
pub(crate) fn check_name(what: &str, name: &str) -> Result<()> {
    let plain = !name.is_empty()
        && name.len() <= MAX_NAME
        && !name.starts_with('.')
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
    if plain {
        Ok(())
    } else {
        Err(Error::validation(
            "out",
            format!(
                "holds a job state whose {what} {name:?} is not a plain file name (letters, \
                 digits, `.`, `_`, `-`, no leading dot): refused, nothing outside the output \
                 directory is touched; remove the job state or close with `fresh`"
            ),
        ))
    }
}

const RESERVED: [&str; 22] = [
    "CON", "PRN", "AUX", "NUL", "COM1", "COM2", "COM3", "COM4", "COM5", "COM6", "COM7", "COM8",
    "COM9", "LPT1", "LPT2", "LPT3", "LPT4", "LPT5", "LPT6", "LPT7", "LPT8", "LPT9",
];

/// A safe name (without extension) for an invoice number the service sent, unique
/// (case-insensitively) among `taken`, which it joins.
pub(crate) fn entry_name(number: &str, taken: &mut std::collections::HashSet<String>) -> String {
    let cleaned: String = number
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .take(MAX_NAME - 8)
        .collect();
    let mut base = cleaned.trim_start_matches('.').to_string();
    if base.is_empty() {
        base = "invoice".into();
    }
    let stem = base.split('.').next().unwrap_or("").to_ascii_uppercase();
    if RESERVED.contains(&stem.as_str()) {
        base.insert(0, '_');
    }
    let mut name = base.clone();
    let mut n = 1;
    while taken.contains(&name.to_ascii_lowercase()) {
        n += 1;
        name = format!("{base}-{n}");
    }
    taken.insert(name.to_ascii_lowercase());
    name
}

/// A directory the close owns: created with mode 0700, or an existing one opened
/// without following a link, checked to be a directory of this user, and tightened to
/// 0700 through its descriptor. A symbolic link is refused (`what` names it).
pub(crate) fn private_dir(path: &Path, what: &str) -> Result<()> {
    match std::fs::DirBuilder::new().mode_0700().create(path) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(io_error("creating", path, e)),
    }
    let refused = |why: &str| {
        Error::validation(
            "out",
            format!(
                "{what} {} {why}: refused (choose another `out`)",
                path.display()
            ),
        )
    };
    let meta = std::fs::symlink_metadata(path).map_err(|e| io_error("reading", path, e))?;
    if meta.file_type().is_symlink() {
        return Err(refused("is a symbolic link"));
    }
    if !meta.is_dir() {
        return Err(refused("is not a directory"));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
        let dir = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_DIRECTORY | libc::O_CLOEXEC)
            .open(path)
            .map_err(|_| refused("cannot be opened as a directory (a link?)"))?;
        let meta = dir.metadata().map_err(|e| io_error("reading", path, e))?;
        // SAFETY: getuid has no preconditions.
        if meta.uid() != unsafe { libc::getuid() } {
            return Err(refused("belongs to another user"));
        }
        dir.set_permissions(std::fs::Permissions::from_mode(0o700))
            .map_err(|e| io_error("tightening", path, e))?;
    }
    Ok(())
}

trait Mode0700 {
    fn mode_0700(&mut self) -> &mut Self;
}

impl Mode0700 for std::fs::DirBuilder {
    fn mode_0700(&mut self) -> &mut Self {
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(self, 0o700);
        self
    }
}

/// Reads `path` whole, without following a link; `None` when it does not exist.
pub(crate) fn read_file(path: &Path) -> Result<Option<Vec<u8>>> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC);
    }
    let mut file = match options.open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(io_error(
                "reading (a symbolic link is not followed)",
                path,
                e,
            ))
        }
    };
    if !file
        .metadata()
        .map_err(|e| io_error("reading", path, e))?
        .is_file()
    {
        return Err(io_error(
            "reading",
            path,
            std::io::Error::other("not a file"),
        ));
    }
    let mut data = Vec::new();
    file.read_to_end(&mut data)
        .map_err(|e| io_error("reading", path, e))?;
    Ok(Some(data))
}

/// Writes `data` to `path` whole (`SafeFile`: a link there is refused, never followed).
pub(crate) fn write_file(path: &Path, data: &[u8]) -> Result<()> {
    let mut file = SafeFile::create(path)?;
    file.write_all(data)
        .map_err(|e| io_error("writing", path, e))?;
    file.commit()
}

/// Whether `path` is a regular file (a link is not).
pub(crate) fn is_file(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_file())
}

/// Removes a directory of the close's and what is in it; a link there is removed itself,
/// never followed.
pub(crate) fn remove_tree(path: &Path) -> Result<()> {
    match std::fs::symlink_metadata(path) {
        Err(_) => Ok(()),
        Ok(m) if m.is_dir() => {
            std::fs::remove_dir_all(path).map_err(|e| io_error("removing", path, e))
        }
        Ok(_) => std::fs::remove_file(path).map_err(|e| io_error("removing", path, e)),
    }
}

/// Removes what a crash left in the parts directory: every entry that is not a finished
/// part (`*.part`, a regular file). Links are removed themselves, never followed.
pub(crate) fn sweep_parts(dir: &Path) -> Result<()> {
    let entries = std::fs::read_dir(dir).map_err(|e| io_error("reading", dir, e))?;
    for entry in entries {
        let entry = entry.map_err(|e| io_error("reading", dir, e))?;
        let path: PathBuf = entry.path();
        let kind = entry
            .file_type()
            .map_err(|e| io_error("reading", &path, e))?;
        let part = kind.is_file() && path.extension().is_some_and(|x| x == "part");
        if !part {
            if kind.is_dir() {
                std::fs::remove_dir_all(&path)
            } else {
                std::fs::remove_file(&path)
            }
            .map_err(|e| io_error("removing", &path, e))?;
        }
    }
    Ok(())
}

/// SHA-256 of `parts` (each length-prefixed), in hex.
pub(crate) fn digest_hex(parts: &[&str]) -> String {
    let mut ctx = ring::digest::Context::new(&ring::digest::SHA256);
    for part in parts {
        ctx.update(&(part.len() as u64).to_be_bytes());
        ctx.update(part.as_bytes());
    }
    ctx.finish()
        .as_ref()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

pub(crate) fn io_error(what: &str, path: &Path, e: std::io::Error) -> Error {
    Error::document(format!("{what} {} failed: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_from_the_state_must_be_plain() {
        for bad in [
            "..",
            "../../x",
            "/etc/passwd",
            ".hidden",
            "a/b",
            "",
            "a\0b",
            "x\\y",
        ] {
            assert!(check_name("entry", bad).is_err(), "{bad:?}");
        }
        for good in ["INV-2026-0001", "a.b_c-d"] {
            check_name("entry", good).unwrap();
        }
    }

    #[test]
    fn entry_names_are_safe_and_unique() {
        let mut taken = Default::default();
        assert_eq!(entry_name("../../etc", &mut taken), "_.._etc");
        assert_eq!(entry_name("con", &mut taken), "_con");
        assert_eq!(entry_name("A/1", &mut taken), "A_1");
        assert_eq!(entry_name("a_1", &mut taken), "a_1-2");
        for n in ["", "...", "=1+2"] {
            check_name("entry", &entry_name(n, &mut taken)).unwrap();
        }
    }
}
