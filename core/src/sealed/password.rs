//! Password-sealed files: an abws sealed file (`ABWSENC1`, the parent module) under a key
//! derived from a password with scrypt, behind a prefix that carries what the derivation
//! needs, so that the file opens with the password alone (the month-end close's archives
//! sealed with `archive_password` / `ABWS_ARCHIVE_PASSWORD`, `docs/close.md`):
//!
//! ```text
//! prefix  magic "ABWSPWD1" (8 bytes) | kdf (1 byte: 1 = scrypt) | log2 N (1 byte)
//!         | r (u32 big-endian) | p (u32 big-endian) | salt (16 random bytes)      = 34 bytes
//! key     scrypt(the password's UTF-8 bytes, salt, N, r, p) -> 32 bytes
//! body    an abws sealed file under that key: "ABWSENC1" | segment size | salt | segments
//! ```
//!
//! Written with N = 2^17, r = 8, p = 1 (128 MiB, a fraction of a second). The prefix is
//! not sealed itself, but every byte of it goes into the key: a changed byte fails the
//! body's first tag. Opening refuses a cost above 1 GiB of memory (128·r·N) or p above
//! 16, so a crafted file cannot make the opener allocate without bound.

use std::io::{Read, Write};

use ring::rand::SecureRandom;
use zeroize::Zeroizing;

use super::DocumentKey;
use crate::error::{Error, Result};
use crate::Secret;

/// The first bytes of a password-sealed file.
pub const MAGIC: &[u8; 8] = b"ABWSPWD1";
/// The prefix's length: magic, kdf, log2 N, r, p, salt.
pub const PREFIX_LEN: usize = 34;
/// The kdf byte of scrypt (the only one).
pub const KDF_SCRYPT: u8 = 1;
/// The environment variable a password is read from when none is given.
pub const PASSWORD_ENV: &str = "ABWS_ARCHIVE_PASSWORD";

/// scrypt's cost and salt: what a password-sealed file's prefix carries, and what a
/// close's job state records so that its re-runs derive the same key (never the password
/// or the key).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scrypt {
    /// log2 of the cost N.
    pub log_n: u8,
    /// The block size.
    pub r: u32,
    /// The parallelism.
    pub p: u32,
    /// The salt.
    pub salt: [u8; 16],
}

impl Scrypt {
    /// The cost new files are written with (N = 2^17, r = 8, p = 1) and a fresh salt.
    pub fn generate() -> Result<Scrypt> {
        let mut salt = [0u8; 16];
        ring::rand::SystemRandom::new()
            .fill(&mut salt)
            .map_err(|_| Error::document("no randomness for a password's salt"))?;
        Ok(Scrypt {
            log_n: 17,
            r: 8,
            p: 1,
            salt,
        })
    }

    /// Checks the cost against the opener's bounds (1 GiB, p ≤ 16).
    pub fn check(&self) -> Result<()> {
        // log2 N first: the shift must not overflow (a crafted byte goes up to 255).
        let too_costly = self.log_n == 0
            || self.log_n > 30
            || self.r == 0
            || (128u128 * u128::from(self.r)) << self.log_n > 1 << 30;
        if too_costly {
            return Err(Error::document(
                "the password-sealed file asks for a key derivation too costly to run (over 1 GiB)",
            ));
        }
        if self.p == 0 || self.p > 16 {
            return Err(Error::document(
                "the password-sealed file's key derivation is invalid (p)",
            ));
        }
        Ok(())
    }

    /// The key of `password` under this cost and salt.
    pub fn derive(&self, password: &Secret) -> Result<DocumentKey> {
        self.check()?;
        scrypt_key(password, &self.salt, self.log_n, self.r, self.p)
    }

    /// The file's prefix.
    pub fn prefix(&self) -> [u8; PREFIX_LEN] {
        let mut p = [0u8; PREFIX_LEN];
        p[..8].copy_from_slice(MAGIC);
        p[8] = KDF_SCRYPT;
        p[9] = self.log_n;
        p[10..14].copy_from_slice(&self.r.to_be_bytes());
        p[14..18].copy_from_slice(&self.p.to_be_bytes());
        p[18..].copy_from_slice(&self.salt);
        p
    }

    /// The parameters of a file's prefix (checked against the bounds).
    pub fn from_prefix(prefix: &[u8]) -> Result<Scrypt> {
        if prefix.len() < PREFIX_LEN || &prefix[..8] != MAGIC {
            return Err(Error::document(
                "not a password-sealed file (it does not start with ABWSPWD1)",
            ));
        }
        if prefix[8] != KDF_SCRYPT {
            return Err(Error::document(format!(
                "the password-sealed file names an unknown key derivation ({}): a newer version's file?",
                prefix[8]
            )));
        }
        let s = Scrypt {
            log_n: prefix[9],
            r: u32::from_be_bytes(prefix[10..14].try_into().expect("4 bytes")),
            p: u32::from_be_bytes(prefix[14..18].try_into().expect("4 bytes")),
            salt: prefix[18..34].try_into().expect("16 bytes"),
        };
        s.check()?;
        Ok(s)
    }
}

/// scrypt of `password` into a 32-byte key (wiped when dropped).
pub(crate) fn scrypt_key(
    password: &Secret,
    salt: &[u8],
    log_n: u8,
    r: u32,
    p: u32,
) -> Result<DocumentKey> {
    let params = scrypt::Params::new(log_n, r, p)
        .map_err(|_| Error::document("the key derivation's parameters are invalid"))?;
    let mut key = Zeroizing::new([0u8; 32]);
    scrypt::scrypt(password.expose().as_bytes(), salt, &params, &mut key[..])
        .map_err(|_| Error::document("the key derivation failed"))?;
    DocumentKey::from_bytes(&key[..])
}

/// The password of `PASSWORD_ENV`, if it is set and not empty.
pub fn password_from_env() -> Option<Secret> {
    std::env::var(PASSWORD_ENV)
        .ok()
        .filter(|v| !v.is_empty())
        .map(Secret::new)
}

/// Whether `head` (a file's first bytes) starts a password-sealed file.
pub fn is_password_sealed(head: &[u8]) -> bool {
    head.starts_with(MAGIC)
}

/// Writes the prefix of `scrypt` to `out` and returns a writer sealing under `key` (the
/// key `scrypt` derives from the password) after it.
pub fn seal_writer<W: Write>(
    mut out: W,
    scrypt: &Scrypt,
    key: &DocumentKey,
) -> Result<super::SealWriter<W>> {
    out.write_all(&scrypt.prefix())
        .map_err(|e| Error::document(format!("writing the sealed file failed: {e}")))?;
    super::SealWriter::new(out, key)
}

/// Seals `data` under `password` (a fresh salt): the bytes of a password-sealed file.
pub fn seal_bytes(password: &Secret, data: &[u8]) -> Result<Vec<u8>> {
    let scrypt = Scrypt::generate()?;
    let key = scrypt.derive(password)?;
    let mut w = seal_writer(Vec::new(), &scrypt, &key)?;
    w.write_all(data)
        .and_then(|()| w.finish())
        .map_err(|e| Error::document(format!("sealing the document failed: {e}")))
}

/// Opens a password-sealed file read from `reader` (its prefix not yet read), writing the
/// plaintext to `writer`; returns its size. A wrong password, a damaged or cut file is an
/// error (`Document`).
pub fn open(password: &Secret, reader: &mut dyn Read, writer: &mut dyn Write) -> Result<u64> {
    let mut prefix = [0u8; PREFIX_LEN];
    let n = super::read_full(reader, &mut prefix)
        .map_err(|e| Error::document(format!("reading the sealed file failed: {e}")))?;
    let scrypt = Scrypt::from_prefix(&prefix[..n])?;
    let key = scrypt.derive(password)?;
    super::open_under(&key, "password", reader, writer)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A cheap cost for the tests (the format carries it).
    fn cheap() -> Scrypt {
        Scrypt {
            log_n: 10,
            ..Scrypt::generate().unwrap()
        }
    }

    fn seal_cheap(password: &str, data: &[u8]) -> Vec<u8> {
        let s = cheap();
        let key = s.derive(&Secret::new(password)).unwrap();
        let mut w = seal_writer(Vec::new(), &s, &key).unwrap();
        w.write_all(data).unwrap();
        w.finish().unwrap()
    }

    fn open_bytes(
        key: Option<&DocumentKey>,
        password: Option<&str>,
        sealed: &[u8],
    ) -> Result<Vec<u8>> {
        let pw = password.map(Secret::new);
        let mut out = Vec::new();
        super::super::open_with(key, pw.as_ref(), &mut &sealed[..], &mut out)?;
        Ok(out)
    }

    #[test]
    fn a_password_sealed_file_opens_with_its_password_alone() {
        let data = vec![b'%'; super::super::SEGMENT + 7];
        let sealed = seal_cheap("pa55", &data);
        assert_eq!(&sealed[..8], MAGIC);
        assert_eq!(&sealed[PREFIX_LEN..PREFIX_LEN + 8], super::super::MAGIC);
        assert_eq!(open_bytes(None, Some("pa55"), &sealed).unwrap(), data);
        // Both given: the file says which it needs.
        let key = DocumentKey::generate().unwrap();
        assert_eq!(open_bytes(Some(&key), Some("pa55"), &sealed).unwrap(), data);
        let e = open_bytes(None, Some("pa56"), &sealed).unwrap_err();
        assert_eq!(e.kind(), crate::ErrorKind::Document);
        assert!(e.to_string().contains("password is wrong"), "{e}");
        // Every byte of the prefix goes into the key.
        for at in [9, 12, 16, 20, PREFIX_LEN - 1] {
            let mut t = sealed.clone();
            t[at] ^= 1;
            assert!(open_bytes(None, Some("pa55"), &t).is_err(), "flip at {at}");
        }
    }

    #[test]
    fn a_key_for_a_password_file_and_a_password_for_a_key_file_are_named() {
        let key = DocumentKey::generate().unwrap();
        let sealed = seal_cheap("pa55", b"%PDF");
        let e = open_bytes(Some(&key), None, &sealed).unwrap_err();
        assert_eq!(e.kind(), crate::ErrorKind::Validation);
        assert!(e.to_string().contains("sealed with a password"), "{e}");
        let mut out = Vec::new();
        let e = super::super::open(&key, &mut &sealed[..], &mut out).unwrap_err();
        assert!(e.to_string().contains("ABWS_ARCHIVE_PASSWORD"), "{e}");
        let keyed = super::super::seal_bytes(&key, b"%PDF").unwrap();
        let e = open_bytes(None, Some("pa55"), &keyed).unwrap_err();
        assert_eq!(e.kind(), crate::ErrorKind::Validation);
        assert!(e.to_string().contains("sealed under a key"), "{e}");
        assert_eq!(
            open_bytes(Some(&key), Some("pa55"), &keyed).unwrap(),
            b"%PDF"
        );
    }

    /// RFC 7914's test vector (N = 1024, r = 8, p = 16): the first 32 bytes of its 64,
    /// as any scrypt (Python's `hashlib.scrypt`, `cryptography`'s) derives them.
    #[test]
    fn the_derivation_is_standard_scrypt() {
        let k = scrypt_key(&Secret::new("password"), b"NaCl", 10, 8, 16).unwrap();
        assert_eq!(
            super::super::hex(k.bytes()),
            "fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b373162"
        );
    }

    #[test]
    fn a_crafted_cost_is_refused_before_any_derivation() {
        let mut prefix = cheap().prefix();
        for log_n in [24, 255] {
            // 2^24 · 128 · 8: 16 GiB; 255: a shift past any integer.
            prefix[9] = log_n;
            let e = Scrypt::from_prefix(&prefix).unwrap_err();
            assert!(e.to_string().contains("too costly"), "{e}");
        }
        prefix[9] = 10;
        prefix[8] = 2;
        assert!(Scrypt::from_prefix(&prefix).is_err());
        assert_eq!(Scrypt::from_prefix(&cheap().prefix()).unwrap().log_n, 10);
    }
}
