//! The unpacker's limits (sizes, entries, names) and the errors that say one was passed.

use crate::error::{Error, Result};

/// The default ceiling of a document's unpacked size (zip and gzip bombs stop there).
pub const DEFAULT_MAX_DOCUMENT_BYTES: u64 = 1 << 30;

/// The most entries (documents and directories) an archive may hold. The service's hold
/// one PDF, or an invoice and its credit memos; a flood of entries stops here, after a
/// few hundred KiB of zip, whatever the archive claims.
pub const MAX_ENTRIES: usize = 4096;

/// The longest entry name accepted (bytes), and the longest part of it between slashes.
pub const MAX_NAME_BYTES: usize = 512;
const MAX_NAME_PART: usize = 255;

/// Checks an entry name: what the service names its PDFs (`INV-JP-1.pdf`,
/// `credit/CM-1.pdf`) passes; a name that is not a safe relative file name on every
/// system is refused, not rewritten (an archive naming its entries so is not the
/// service's). Refused: empty or longer than [`MAX_NAME_BYTES`] (a part longer than
/// 255), not UTF-8, control characters, `\ : * ? " < > |` (drive letters, Windows
/// separators, alternate data streams), a leading `/`, empty, `.` or `..` parts, parts
/// ending in a dot or a space, and Windows device names (`CON`, `PRN`, `AUX`, `NUL`,
/// `COM0`–`COM9`, `LPT0`–`LPT9`, `CONIN$`, `CONOUT$`, with any extension). A trailing
/// `/` marks a directory.
pub fn check_entry_name(raw: &[u8]) -> Result<&str> {
    let unsafe_name = |why: &str| {
        let shown = String::from_utf8_lossy(&raw[..raw.len().min(80)]).into_owned();
        Error::document(format!(
            "unzip refused: unsafe entry name {shown:?} ({why})"
        ))
    };
    if raw.is_empty() {
        return Err(unsafe_name("empty"));
    }
    if raw.len() > MAX_NAME_BYTES {
        return Err(unsafe_name("too long"));
    }
    let name = std::str::from_utf8(raw).map_err(|_| unsafe_name("not UTF-8"))?;
    if let Some(c) = name.chars().find(|c| c.is_control()) {
        return Err(unsafe_name(&format!("control character {:?}", c)));
    }
    if let Some(c) = name.chars().find(|c| "\\:*?\"<>|".contains(*c)) {
        return Err(unsafe_name(&format!("character {c:?}")));
    }
    if name.starts_with('/') {
        return Err(unsafe_name("absolute"));
    }
    let body = name.strip_suffix('/').unwrap_or(name);
    for part in body.split('/') {
        match part {
            "" => return Err(unsafe_name("empty part")),
            "." | ".." => return Err(unsafe_name("dot part")),
            _ => {}
        }
        if part.len() > MAX_NAME_PART {
            return Err(unsafe_name("part too long"));
        }
        if part.ends_with('.') || part.ends_with(' ') {
            return Err(unsafe_name("ends with a dot or a space"));
        }
        let stem = part.split('.').next().unwrap_or("").trim_end();
        if is_device_name(stem) {
            return Err(unsafe_name("a Windows device name"));
        }
    }
    Ok(name)
}

fn is_device_name(stem: &str) -> bool {
    let upper = stem.to_ascii_uppercase();
    if matches!(
        upper.as_str(),
        "CON" | "PRN" | "AUX" | "NUL" | "CONIN$" | "CONOUT$"
    ) {
        return true;
    }
    let (Some(head), Some(tail)) = (upper.get(..3), upper.get(3..)) else {
        return false;
    };
    (head == "COM" || head == "LPT")
        && (tail.len() == 1 && tail.as_bytes()[0].is_ascii_digit()
            || matches!(tail, "\u{b9}" | "\u{b2}" | "\u{b3}"))
}

pub(super) fn check_declared(size: u64, max_bytes: u64) -> Result<()> {
    if size > max_bytes {
        return Err(Error::document(format!(
            "unzip stopped: the entry declares {size} bytes, more than the {max_bytes}-byte limit (a zip bomb, or raise the limit)"
        )));
    }
    Ok(())
}

pub(super) fn zip_bomb(max_bytes: u64) -> Error {
    Error::document(format!(
        "unzip stopped: the entry unpacks to more than {max_bytes} bytes (a zip bomb, or raise the limit)"
    ))
}

pub(super) fn gzip_bomb(max_bytes: u64) -> Error {
    Error::document(format!(
        "gunzip stopped: the document unpacks to more than {max_bytes} bytes (a gzip bomb, or raise the limit)"
    ))
}

pub(super) fn more_than_one() -> Error {
    Error::document(
        "unzip stopped: the archive holds more than one document (an invoice and its credit memos when documentType is omitted): \
         ask for one documentType, or use download_all",
    )
}

#[cfg(test)]
mod tests {
    use crate::documents::testdata::{gzip_of, streamed_zip_of, zip_of};
    use crate::documents::{unpack, StreamUnpacker};

    #[test]
    fn bombs_stop_at_the_limit() {
        let big = vec![b'%'; 5_000_000];
        let packed = gzip_of(&zip_of(&[("a.pdf", &big)]));
        assert!(packed.len() < 100_000);
        let e = unpack(&packed, 1_000_000).unwrap_err();
        assert!(e.to_string().contains("bomb"), "{e}");
        // Without a declared size (a data descriptor), the count stops it.
        let packed = gzip_of(&streamed_zip_of(
            &[("a.pdf", &big)],
            ::zip::CompressionMethod::Deflated,
        ));
        let mut sink = std::io::sink();
        let mut u = StreamUnpacker::new(&mut sink, 1_000_000);
        let e = u.push(&packed).unwrap_err();
        assert!(e.to_string().contains("zip bomb"), "{e}");
        assert!(u.written() <= 1_000_000);
        // A spent unpacker says so.
        assert!(u.push(b"more").is_err());
        let e = unpack(&gzip_of(&vec![0u8; 3_000_000]), 1_000_000).unwrap_err();
        assert!(e.to_string().contains("gzip bomb"), "{e}");
    }
}
