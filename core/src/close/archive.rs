//! The sealed archive: the month's PDFs in one zip, sealed by the core's own sealing
//! (`sealed.rs`, the "abws sealed file": AES-256-GCM in segments under the caller's
//! 32-byte key) as it is written, so no plain PDF reaches the disk. `python -m abws
//! decrypt` (or any AES-GCM library, `docs/close.md`) opens it into the plain zip.
//!
//! With a password instead of a key, the key is scrypt's of the password under a salt
//! the job state records (`Sealing`: every run of the close derives the same key, and a
//! run with another password is refused before any request), and the archive is a
//! password-sealed file (`sealed::password`): the prefix `ABWSPWD1` | kdf 1 (scrypt) |
//! log2 N | r | p | salt (34 bytes), then the abws sealed file under the derived key.
//!
//! The zip is a plain one (entries stored: PDFs barely compress), written in one pass
//! with each entry's size and CRC-32 in its local header; entry names are the checked
//! names of the job state (`files::check_name`) with `.pdf`; times are 1980-01-01.

use std::io::Write;
use std::path::Path;

use zeroize::Zeroizing;

use super::files;
use super::state::SealingRecord;
use crate::documents::NamedDocument;
use crate::error::{Error, Result};
use crate::fs::SafeFile;
use crate::seal;
use crate::sealed::password::{self, Scrypt};
use crate::sealed::{self, DocumentKey, SealWriter};
use crate::Secret;

/// The archive's file name ends so: `invoices-JP-2026-10.zip.sealed`.
pub const ARCHIVE_SUFFIX: &str = ".zip.sealed";

/// The sandbox's documented demo key: SHA-256 of `abws month-end sandbox demo key
/// (sandbox data only)` (what the example script used). It protects nothing: for the
/// made-up sandbox data only.
pub fn sandbox_demo_key() -> DocumentKey {
    let digest = ring::digest::digest(
        &ring::digest::SHA256,
        b"abws month-end sandbox demo key (sandbox data only)",
    );
    DocumentKey::from_bytes(digest.as_ref()).expect("32 bytes")
}

/// `sandbox_demo_key` as 64 hex digits (`CloseParams::archive_key`'s form).
pub fn sandbox_demo_key_hex() -> String {
    sealed::hex(sandbox_demo_key().bytes())
}

/// The secret a close was given: its key, or a password.
pub(crate) enum Given {
    Key(DocumentKey),
    Password(Secret),
}

/// What a close seals its parts and archive under: the key, and with a password the
/// scrypt cost and salt the key was derived with (the archive's prefix).
pub(crate) struct Sealing {
    pub key: DocumentKey,
    pub scrypt: Option<Scrypt>,
}

/// A key's check value: HMAC-SHA256 of a fixed text under the key, its first 16 bytes in
/// hex. The job state keeps it to tell a re-run's key (or password) from another; it
/// reveals neither.
fn check_value(key: &DocumentKey) -> String {
    let mac = ring::hmac::Key::new(ring::hmac::HMAC_SHA256, key.bytes());
    sealed::hex(&ring::hmac::sign(&mac, b"abws close archive check v1").as_ref()[..16])
}

impl Sealing {
    /// The sealing of a close given `given`, whose job state holds `recorded` (none on a
    /// first run: this one is recorded). A password is derived under the recorded salt;
    /// a key or password other than the recorded one's is refused, so one archive never
    /// mixes parts of two keys.
    pub(crate) fn resolve(given: Given, recorded: &mut Option<SealingRecord>) -> Result<Sealing> {
        let again = " this close's earlier run in `out` sealed its parts";
        let start_over = "or close with `fresh` to start over (its parts are removed)";
        let (sealing, param) = match (given, recorded.as_ref()) {
            (Given::Key(_), Some(r)) if r.kdf != "key" => {
                return Err(Error::validation(
                    "archive_key",
                    format!("is not what{again} under: a password; give archive_password (or ABWS_ARCHIVE_PASSWORD), {start_over}"),
                ))
            }
            (Given::Password(_), Some(r)) if r.kdf != "scrypt" => {
                return Err(Error::validation(
                    "archive_password",
                    format!("is not what{again} under: a key; give archive_key (or ABWS_ARCHIVE_KEY), {start_over}"),
                ))
            }
            (Given::Key(key), _) => (Sealing { key, scrypt: None }, "archive_key"),
            (Given::Password(pw), r) => {
                let scrypt = match r {
                    Some(r) => r.scrypt()?,
                    None => Scrypt::generate()?,
                };
                let key = scrypt.derive(&pw)?;
                (
                    Sealing {
                        key,
                        scrypt: Some(scrypt),
                    },
                    "archive_password",
                )
            }
        };
        let check = check_value(&sealing.key);
        match recorded {
            Some(r) if r.check != check => Err(Error::validation(
                param,
                format!(
                    "is not the {} that{again} with: give that one, {start_over}",
                    if param == "archive_key" {
                        "key"
                    } else {
                        "password"
                    }
                ),
            )),
            Some(_) => Ok(sealing),
            None => {
                *recorded = Some(SealingRecord::new(sealing.scrypt.as_ref(), check));
                Ok(sealing)
            }
        }
    }
}

/// The PDFs of a sealed archive, each with its entry name. Also opens the archives the
/// old example script sealed under a key (`ABWSMEC1`, `.zip.aes`). A password-sealed
/// archive is refused (`Validation`): `open_archive_with_password` opens it.
pub fn open_archive(key: &DocumentKey, path: &Path) -> Result<Vec<NamedDocument>> {
    open_either(Some(key), None, path)
}

/// The PDFs of an archive sealed with a password (`CloseParams::archive_password`); also
/// the old example script's password-sealed archives (`ABWSMEC1`, scrypt N = 2^15 or
/// 2^17, r = 8, p = 1). A wrong password is a `Document` error; an archive sealed under
/// a key is refused (`Validation`): `open_archive` opens it.
pub fn open_archive_with_password(password: &Secret, path: &Path) -> Result<Vec<NamedDocument>> {
    open_either(None, Some(password), path)
}

fn open_either(
    key: Option<&DocumentKey>,
    password: Option<&Secret>,
    path: &Path,
) -> Result<Vec<NamedDocument>> {
    let sealed = files::read_file(path)?
        .ok_or_else(|| Error::document(format!("{} does not exist", path.display())))?;
    let plain = if sealed.starts_with(SCRIPT_MAGIC) {
        let derived;
        let key = match (sealed.get(8).copied(), key, password) {
            (Some(0), Some(key), _) => key,
            (Some(0), None, _) => {
                return Err(Error::validation(
                    "password",
                    "cannot open this archive of the old example script: it was sealed \
                     under a key (ABWS_ARCHIVE_KEY), not a password; open it with its key",
                ))
            }
            (Some(kdf @ (1 | 2)), _, Some(pw)) if sealed.len() >= SCRIPT_HEADER => {
                let log_n = if kdf == 1 { 15 } else { 17 };
                derived = password::scrypt_key(pw, &sealed[9..25], log_n, 8, 1)?;
                &derived
            }
            (Some(1 | 2), _, None) => {
                return Err(Error::validation(
                    "key",
                    "cannot open this archive of the old example script: it was sealed \
                     with a password (scrypt); open it with open_archive_with_password \
                     (ABWS_ARCHIVE_PASSWORD)",
                ))
            }
            _ => {
                return Err(Error::document(
                    "not a sealed month-end archive (an unknown key derivation, or too short)",
                ))
            }
        };
        open_script_archive(key, sealed)?
    } else {
        let mut plain = Zeroizing::new(Vec::new());
        sealed::open_with(key, password, &mut &sealed[..], &mut *plain)?;
        plain
    };
    crate::documents::unpack_all(&plain, u64::MAX)
}

/// The example script's archive format: `ABWSMEC1`, the key derivation (0: the raw key;
/// 1 and 2: scrypt of a password), a 16-byte salt, a 12-byte nonce, then AES-256-GCM of
/// the zip with the 37 header bytes as associated data.
const SCRIPT_MAGIC: &[u8] = b"ABWSMEC1";
const SCRIPT_HEADER: usize = 37;

fn open_script_archive(key: &DocumentKey, mut blob: Vec<u8>) -> Result<Zeroizing<Vec<u8>>> {
    if blob.len() < SCRIPT_HEADER + 16 {
        return Err(Error::document(
            "not a sealed month-end archive (too short)",
        ));
    }
    let header: [u8; SCRIPT_HEADER] = blob[..SCRIPT_HEADER].try_into().expect("37 bytes");
    let nonce = header[25..37].try_into().expect("12 bytes");
    let n = seal::open_at(
        &seal::raw_key(key.bytes()),
        nonce,
        &header,
        &mut blob[SCRIPT_HEADER..],
    )
    .ok_or_else(|| Error::document("the archive is damaged, or the key or password is wrong"))?
    .len();
    let mut plain = Zeroizing::new(blob);
    plain.drain(..SCRIPT_HEADER);
    plain.truncate(n);
    Ok(plain)
}

/// Writes the archive `path` of `entries` (entry name, sealed part), each part opened
/// under the sealing's key and sealed again, in the zip, under the same key (behind the
/// password prefix when the key is a password's).
pub(crate) fn write_archive(
    path: &Path,
    entries: &[(String, std::path::PathBuf)],
    sealing: &Sealing,
) -> Result<()> {
    let file = SafeFile::create(path)?;
    let key = &sealing.key;
    let out = match &sealing.scrypt {
        Some(scrypt) => password::seal_writer(file, scrypt, key)?,
        None => SealWriter::new(file, key)?,
    };
    let mut zip = ZipWriter {
        out,
        offset: 0,
        central: Vec::new(),
        count: 0,
    };
    for (name, part) in entries {
        let sealed_part = files::read_file(part)?
            .ok_or_else(|| Error::document(format!("{} is gone", part.display())))?;
        let mut pdf = Zeroizing::new(Vec::new());
        sealed::open(key, &mut &sealed_part[..], &mut *pdf)?;
        zip.add(name, &pdf)
            .map_err(|e| files::io_error("writing", path, e))?;
    }
    let out = zip
        .finish()
        .map_err(|e| files::io_error("writing", path, e))?;
    out.finish()
        .map_err(|e| files::io_error("writing", path, e))?
        .commit()
}

/// A zip of stored entries, written in one pass.
struct ZipWriter<W: Write> {
    out: W,
    offset: u64,
    central: Vec<u8>,
    count: u16,
}

const DOS_DATE_1980_01_01: u16 = (1 << 5) | 1;

impl<W: Write> ZipWriter<W> {
    fn add(&mut self, name: &str, data: &[u8]) -> std::io::Result<()> {
        let too_big =
            || std::io::Error::other("the archive would need zip64 (4 GiB or 65535 entries)");
        let size = u32::try_from(data.len()).map_err(|_| too_big())?;
        let offset = u32::try_from(self.offset).map_err(|_| too_big())?;
        self.count = self.count.checked_add(1).ok_or_else(too_big)?;
        let mut crc = flate2::Crc::new();
        crc.update(data);
        let crc = crc.sum();
        let name_len = name.len() as u16;
        // Version 2.0, no flags, stored, time 00:00, date 1980-01-01.
        let common = |v: &mut Vec<u8>| {
            v.extend_from_slice(&20u16.to_le_bytes());
            v.extend_from_slice(&0u16.to_le_bytes());
            v.extend_from_slice(&0u16.to_le_bytes());
            v.extend_from_slice(&0u16.to_le_bytes());
            v.extend_from_slice(&DOS_DATE_1980_01_01.to_le_bytes());
            v.extend_from_slice(&crc.to_le_bytes());
            v.extend_from_slice(&size.to_le_bytes());
            v.extend_from_slice(&size.to_le_bytes());
            v.extend_from_slice(&name_len.to_le_bytes());
            v.extend_from_slice(&0u16.to_le_bytes());
        };
        let mut local = 0x0403_4b50u32.to_le_bytes().to_vec();
        common(&mut local);
        local.extend_from_slice(name.as_bytes());
        self.out.write_all(&local)?;
        self.out.write_all(data)?;
        self.offset += local.len() as u64 + data.len() as u64;
        let c = &mut self.central;
        c.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
        c.extend_from_slice(&((3u16 << 8) | 20).to_le_bytes()); // made by: Unix, 2.0
        common(c);
        c.extend_from_slice(&[0; 6]); // comment length, disk, internal attributes
        c.extend_from_slice(&(0o100600u32 << 16).to_le_bytes());
        c.extend_from_slice(&offset.to_le_bytes());
        c.extend_from_slice(name.as_bytes());
        Ok(())
    }

    fn finish(mut self) -> std::io::Result<W> {
        let too_big = || std::io::Error::other("the archive would need zip64 (4 GiB)");
        let start = u32::try_from(self.offset).map_err(|_| too_big())?;
        let size = u32::try_from(self.central.len()).map_err(|_| too_big())?;
        self.out.write_all(&self.central)?;
        let mut end = 0x0605_4b50u32.to_le_bytes().to_vec();
        end.extend_from_slice(&[0; 4]);
        end.extend_from_slice(&self.count.to_le_bytes());
        end.extend_from_slice(&self.count.to_le_bytes());
        end.extend_from_slice(&size.to_le_bytes());
        end.extend_from_slice(&start.to_le_bytes());
        end.extend_from_slice(&0u16.to_le_bytes());
        self.out.write_all(&end)?;
        Ok(self.out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A zip of one PDF, by the archive's own writer.
    fn one_pdf_zip(name: &str, pdf: &[u8]) -> Vec<u8> {
        let mut z = ZipWriter {
            out: Vec::new(),
            offset: 0,
            central: Vec::new(),
            count: 0,
        };
        z.add(name, pdf).unwrap();
        z.finish().unwrap()
    }

    /// An archive as the script's `write_archive` sealed it: `ABWSMEC1`, the kdf byte, the
    /// salt, the nonce, then AES-256-GCM of the zip under `key` (the raw key, kdf 0; or
    /// scrypt(password, salt, N, r = 8, p = 1)) with the 37 header bytes as associated data.
    fn script_archive(key: &[u8; 32], kdf: u8, salt: [u8; 16], zip: &[u8]) -> Vec<u8> {
        use ring::aead::{Aad, LessSafeKey, Nonce, UnboundKey, AES_256_GCM};
        let mut header = SCRIPT_MAGIC.to_vec();
        header.push(kdf);
        header.extend_from_slice(&salt);
        header.extend_from_slice(&[7; 12]);
        let aead = LessSafeKey::new(UnboundKey::new(&AES_256_GCM, key).unwrap());
        let nonce = Nonce::try_assume_unique_for_key(&[7; 12]).unwrap();
        let mut body = zip.to_vec();
        aead.seal_in_place_append_tag(nonce, Aad::from(&header[..]), &mut body)
            .unwrap();
        header.extend_from_slice(&body);
        header
    }

    #[test]
    fn the_example_scripts_keyed_archives_still_open() {
        // Sealed as the script did (kdf 0: the raw key, zero salt), of a zip of one PDF.
        let key = DocumentKey::generate().unwrap();
        let zip = one_pdf_zip("INV-1.pdf", b"%PDF-1.4 old");
        let dir = std::env::temp_dir().join(format!("abws-old-archive-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("invoices-JP-2026-10.zip.aes");
        std::fs::write(&path, script_archive(key.bytes(), 0, [0; 16], &zip)).unwrap();
        let docs = open_archive(&key, &path).unwrap();
        assert_eq!(
            (docs[0].name.as_str(), docs[0].data.as_slice()),
            ("INV-1.pdf", &b"%PDF-1.4 old"[..])
        );
        assert!(open_archive(&DocumentKey::generate().unwrap(), &path).is_err());
        let e = open_archive_with_password(&Secret::new("pw"), &path).unwrap_err();
        assert_eq!(e.kind(), crate::ErrorKind::Validation, "{e}");
        assert!(e.to_string().contains("sealed under a key"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_example_scripts_password_archives_open_with_the_password() {
        let zip = one_pdf_zip("INV-9.pdf", b"%PDF-1.4 by password");
        let dir = std::env::temp_dir().join(format!("abws-old-pw-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("invoices-JP-2026-10.zip.aes");
        // kdf 2 (N = 2^17, what the script wrote) and kdf 1 (N = 2^15, the earlier one).
        let salt = [0x5a; 16];
        for (kdf, log_n) in [(2, 17), (1, 15)] {
            let params = scrypt::Params::new(log_n, 8, 1).unwrap();
            let mut key = [0u8; 32];
            scrypt::scrypt(b"correct horse", &salt, &params, &mut key).unwrap();
            std::fs::write(&path, script_archive(&key, kdf, salt, &zip)).unwrap();
            let docs = open_archive_with_password(&Secret::new("correct horse"), &path).unwrap();
            assert_eq!(
                (docs[0].name.as_str(), docs[0].data.as_slice()),
                ("INV-9.pdf", &b"%PDF-1.4 by password"[..]),
                "kdf {kdf}"
            );
        }
        // kdf 1 is the cheaper one: a wrong password and a key are refused on it.
        let e = open_archive_with_password(&Secret::new("wrong horse"), &path).unwrap_err();
        assert_eq!(e.kind(), crate::ErrorKind::Document, "{e}");
        let e = open_archive(&DocumentKey::generate().unwrap(), &path).unwrap_err();
        assert_eq!(e.kind(), crate::ErrorKind::Validation, "{e}");
        assert!(e.to_string().contains("with a password"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_zip_is_read_back_by_the_cores_own_unpacker() {
        let mut z = ZipWriter {
            out: Vec::new(),
            offset: 0,
            central: Vec::new(),
            count: 0,
        };
        z.add("INV-1.pdf", b"%PDF-1.4 one").unwrap();
        z.add("CM-2.pdf", b"%PDF-1.4 two").unwrap();
        let bytes = z.finish().unwrap();
        let docs = crate::documents::unpack_all(&bytes, u64::MAX).unwrap();
        let names: Vec<_> = docs
            .iter()
            .map(|d| (d.name.as_str(), d.data.as_slice()))
            .collect();
        assert_eq!(
            names,
            [
                ("INV-1.pdf", &b"%PDF-1.4 one"[..]),
                ("CM-2.pdf", &b"%PDF-1.4 two"[..])
            ]
        );
    }
}
