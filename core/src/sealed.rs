//! Encrypted document files: what `download_to_path` writes by default (reports
//! hold sensitive data and must not be written unencrypted to disk).
//!
//! The format ("abws sealed file", version 1) is AES-256-GCM over 64 KiB segments, with a
//! key of its own for every file, so that any AES-GCM library opens it in a few lines
//! (`docs/python-api.md` gives them; `python -m abws decrypt` is the packaged way):
//!
//! ```text
//! header   magic "ABWSENC1" (8 bytes) | segment size, u32 big-endian (65536) | salt (16 random bytes)
//! file key HKDF-SHA256(input key = the caller's 32-byte key, salt, info = "abws document v1") -> 32 bytes
//! segments each: AES-256-GCM(file key, nonce, aad = the 28-byte header, plaintext) = ciphertext || 16-byte tag
//!          every segment holds `segment size` plaintext bytes, the last one 0..=segment size
//!          nonce = 7 zero bytes | segment index, u32 big-endian | 1 for the last segment, else 0
//! ```
//!
//! The last-segment flag in the nonce makes a file cut at a segment boundary fail to
//! open, and a segment moved, dropped or repeated fails its tag. The key is the caller's
//! (an argument, or `ABWS_DOCUMENT_KEY` as 64 hex digits); it is held in memory wiped when
//! dropped and never printed (`Debug` redacts it), logged or put in an error.
//!
//! A password instead of a key: `password` (the same format behind a prefix that carries
//! scrypt's cost and salt). `open_with` opens either, whichever the file needs.

pub mod password;

use std::io::{Read, Write};

use ring::aead::LessSafeKey;
use ring::rand::SecureRandom;
use zeroize::Zeroizing;

use crate::error::{Error, Result};
use crate::seal::{self, NONCE_LEN, TAG_LEN as TAG};

/// The first bytes of a sealed file.
pub const MAGIC: &[u8; 8] = b"ABWSENC1";
/// Plaintext bytes per segment.
pub const SEGMENT: usize = 64 * 1024;
/// The header's length: magic, segment size, salt.
pub const HEADER_LEN: usize = 28;
/// HKDF's info string, which names the format's version.
pub const INFO: &[u8] = b"abws document v1";
/// The environment variable a key is read from when none is given (64 hex digits).
pub const KEY_ENV: &str = "ABWS_DOCUMENT_KEY";

/// A caller's 32-byte key for sealed files. Wiped when dropped; its `Debug` shows nothing.
#[derive(Clone)]
pub struct DocumentKey(Zeroizing<[u8; 32]>);

impl std::fmt::Debug for DocumentKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DocumentKey(<redacted>)")
    }
}

impl DocumentKey {
    /// A key of exactly 32 bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<DocumentKey> {
        let mut k = Zeroizing::new([0u8; 32]);
        if bytes.len() != 32 {
            return Err(Error::validation(
                "key",
                format!(
                    "must be 32 bytes (64 hex digits); {} bytes given",
                    bytes.len()
                ),
            ));
        }
        k.copy_from_slice(bytes);
        Ok(DocumentKey(k))
    }

    /// A key written as 64 hex digits (surrounding white space ignored). The error never
    /// repeats the text.
    pub fn from_hex(text: &str) -> Result<DocumentKey> {
        let t = text.trim();
        let bad = || Error::validation("key", "must be 64 hex digits (32 bytes)");
        if t.len() != 64 {
            return Err(bad());
        }
        let mut k = Zeroizing::new([0u8; 32]);
        unhex(t, &mut k[..]).ok_or_else(bad)?;
        Ok(DocumentKey(k))
    }

    /// The key in `ABWS_DOCUMENT_KEY`, if it is set (and not empty).
    pub fn from_env() -> Result<Option<DocumentKey>> {
        match std::env::var(KEY_ENV) {
            Ok(v) if !v.trim().is_empty() => DocumentKey::from_hex(&v)
                .map(Some)
                .map_err(|_| Error::validation(KEY_ENV, "must be 64 hex digits (32 bytes)")),
            _ => Ok(None),
        }
    }

    /// A fresh random key (tests, and callers that keep keys elsewhere).
    pub fn generate() -> Result<DocumentKey> {
        let mut k = Zeroizing::new([0u8; 32]);
        ring::rand::SystemRandom::new()
            .fill(&mut k[..])
            .map_err(|_| Error::document("no randomness for a key"))?;
        Ok(DocumentKey(k))
    }

    /// The key's bytes, for another AES-256-GCM format of the crate's (the example
    /// script's archives, `close::open_archive`).
    pub(crate) fn bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// The file key of a header's salt.
    fn file_key(&self, salt: &[u8]) -> LessSafeKey {
        seal::derive(&self.0[..], salt, &[INFO])
    }
}

/// `bytes` as lowercase hex digits.
pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Hex digits into `out` (exactly `2 * out.len()` of them), or `None`.
pub(crate) fn unhex(text: &str, out: &mut [u8]) -> Option<()> {
    let t = text.as_bytes();
    if t.len() != 2 * out.len() {
        return None;
    }
    for (o, pair) in out.iter_mut().zip(t.chunks(2)) {
        let digit = |c: u8| (c as char).to_digit(16);
        *o = (digit(pair[0])? * 16 + digit(pair[1])?) as u8;
    }
    Some(())
}

fn nonce(index: u32, last: bool) -> [u8; NONCE_LEN] {
    let mut n = [0u8; NONCE_LEN];
    n[7..11].copy_from_slice(&index.to_be_bytes());
    n[11] = u8::from(last);
    n
}

/// Encrypts what is written to it into the sealed format, segment by segment; `finish`
/// seals the last segment. Dropped without `finish`, the output is incomplete and will
/// not open. Holds one segment (wiped when dropped).
pub struct SealWriter<W: Write> {
    inner: W,
    key: LessSafeKey,
    header: [u8; HEADER_LEN],
    index: u32,
    buf: Zeroizing<Vec<u8>>,
}

impl<W: Write> SealWriter<W> {
    /// Writes the header to `inner` and gets ready for the plaintext.
    pub fn new(mut inner: W, key: &DocumentKey) -> Result<SealWriter<W>> {
        let mut header = [0u8; HEADER_LEN];
        header[..8].copy_from_slice(MAGIC);
        header[8..12].copy_from_slice(&(SEGMENT as u32).to_be_bytes());
        ring::rand::SystemRandom::new()
            .fill(&mut header[12..])
            .map_err(|_| Error::document("no randomness for the file's salt"))?;
        let key = key.file_key(&header[12..]);
        inner
            .write_all(&header)
            .map_err(|e| Error::document(format!("writing the sealed file failed: {e}")))?;
        Ok(SealWriter {
            inner,
            key,
            header,
            index: 0,
            buf: Zeroizing::new(Vec::with_capacity(SEGMENT + TAG)),
        })
    }

    fn seal(&mut self, last: bool) -> std::io::Result<()> {
        let tag = seal::seal_at(
            &self.key,
            nonce(self.index, last),
            &self.header,
            &mut self.buf[..],
        )
        .ok_or_else(|| std::io::Error::other("sealing a segment failed"))?;
        self.buf.extend_from_slice(tag.as_ref());
        self.inner.write_all(&self.buf)?;
        zeroize::Zeroize::zeroize(&mut self.buf[..]);
        self.buf.clear();
        self.index = self
            .index
            .checked_add(1)
            .ok_or_else(|| std::io::Error::other("the document is too large to seal"))?;
        Ok(())
    }

    /// Seals the last segment and flushes; returns the inner writer.
    pub fn finish(mut self) -> std::io::Result<W> {
        self.seal(true)?;
        self.inner.flush()?;
        // The buffer is wiped as the rest of `self` goes.
        let SealWriter { inner, .. } = self;
        Ok(inner)
    }
}

impl<W: Write> Write for SealWriter<W> {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        // A full segment is sealed only once more bytes come: the last one is marked.
        if self.buf.len() == SEGMENT && !data.is_empty() {
            self.seal(false)?;
        }
        let n = (SEGMENT - self.buf.len()).min(data.len());
        self.buf.extend_from_slice(&data[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// Seals `data` (a whole document in memory) under `key`: the bytes of a sealed file, as
/// `SealWriter` writes them (`abws.encrypt` in Python).
pub fn seal_bytes(key: &DocumentKey, data: &[u8]) -> Result<Vec<u8>> {
    let segments = data.len() / SEGMENT + 1;
    let mut w = SealWriter::new(
        Vec::with_capacity(HEADER_LEN + data.len() + segments * TAG),
        key,
    )?;
    w.write_all(data)
        .and_then(|()| w.finish())
        .map_err(|e| Error::document(format!("sealing the document failed: {e}")))
}

/// Opens a sealed file read from `reader`, writing the plaintext to `writer`; returns its
/// size. A wrong key, a damaged, cut or reordered file is an error (`Document`): nothing
/// of a segment that fails its tag is written, but the segments before it were. A
/// password-sealed file is refused (`Validation`): `open_with` opens it.
pub fn open(key: &DocumentKey, reader: &mut dyn Read, writer: &mut dyn Write) -> Result<u64> {
    open_under(key, "key", reader, writer)
}

/// Opens a sealed file with whichever of `key` and `password` it needs (its first bytes
/// say): a password-sealed one (`ABWSPWD1`) with the password, any other with the key.
/// Without the one it needs: a `Validation` error naming it.
pub fn open_with(
    key: Option<&DocumentKey>,
    password: Option<&crate::Secret>,
    reader: &mut dyn Read,
    writer: &mut dyn Write,
) -> Result<u64> {
    let mut head = [0u8; 8];
    let n = read_full(reader, &mut head)
        .map_err(|e| Error::document(format!("reading the sealed file failed: {e}")))?;
    let mut whole = (&head[..n]).chain(reader);
    match (password::is_password_sealed(&head[..n]), key, password) {
        (true, _, Some(pw)) => password::open(pw, &mut whole, writer),
        (true, _, None) => Err(Error::validation("password", SEALED_WITH_PASSWORD)),
        (false, Some(key), _) => open(key, &mut whole, writer),
        (false, None, _) if n == 8 && &head == MAGIC => Err(Error::validation(
            "key",
            format!(
                "is needed: the file is sealed under a key (ABWSENC1), not a password; give \
                 its key ({KEY_ENV}: 64 hex digits)"
            ),
        )),
        (false, None, _) => Err(Error::document(
            "not an abws sealed file (it starts with neither ABWSENC1 nor ABWSPWD1)",
        )),
    }
}

const SEALED_WITH_PASSWORD: &str = "is needed: the file is sealed with a password (ABWSPWD1), \
     not a key; give its password (ABWS_ARCHIVE_PASSWORD)";

/// `open`, with `what` opens the file named in the error of a failed tag.
fn open_under(
    key: &DocumentKey,
    what: &str,
    reader: &mut dyn Read,
    writer: &mut dyn Write,
) -> Result<u64> {
    let mut header = [0u8; HEADER_LEN];
    read_full(reader, &mut header)
        .and_then(|n| {
            if n == HEADER_LEN {
                Ok(())
            } else {
                Err(std::io::Error::other("too short"))
            }
        })
        .map_err(|_| Error::document("not an abws sealed file (no header)"))?;
    if password::is_password_sealed(&header) {
        return Err(Error::validation("password", SEALED_WITH_PASSWORD));
    }
    if &header[..8] != MAGIC {
        return Err(Error::document(
            "not an abws sealed file (it does not start with ABWSENC1)",
        ));
    }
    let segment = u32::from_be_bytes([header[8], header[9], header[10], header[11]]) as usize;
    if segment == 0 || segment > 16 << 20 {
        return Err(Error::document("the sealed file's segment size is invalid"));
    }
    let file_key = key.file_key(&header[12..]);
    let wrong = || {
        Error::document(format!(
            "the sealed file is damaged, cut short, or the {what} is wrong"
        ))
    };
    // One segment and one byte more: that byte tells whether the segment is the last.
    let mut buf = Zeroizing::new(vec![0u8; segment + TAG + 1]);
    let mut have = 0;
    let mut index: u32 = 0;
    let mut total = 0u64;
    loop {
        have += read_full(reader, &mut buf[have..])
            .map_err(|e| Error::document(format!("reading the sealed file failed: {e}")))?;
        let last = have <= segment + TAG;
        let len = if last { have } else { segment + TAG };
        if len < TAG {
            return Err(wrong());
        }
        let plain = seal::open_at(&file_key, nonce(index, last), &header, &mut buf[..len])
            .ok_or_else(wrong)?;
        writer
            .write_all(plain)
            .map_err(|e| Error::document(format!("writing the document failed: {e}")))?;
        total += plain.len() as u64;
        if last {
            writer
                .flush()
                .map_err(|e| Error::document(format!("writing the document failed: {e}")))?;
            return Ok(total);
        }
        // The extra byte starts the next segment.
        buf.copy_within(len..have, 0);
        have -= len;
        index = index.checked_add(1).ok_or_else(wrong)?;
    }
}

/// Opens the sealed file `src` and writes the plain PDF to `dest` — an explicit plaintext
/// write (`python -m abws decrypt -o`), done like every file the SDK writes (a temporary
/// file, 0600, no symbolic link followed, renamed once the whole file opened). Returns
/// the PDF's size.
pub fn open_file(key: &DocumentKey, src: &std::path::Path, dest: &std::path::Path) -> Result<u64> {
    open_file_with(Some(key), None, src, dest)
}

/// `open_file` with whichever of `key` and `password` the file needs (`open_with`).
pub fn open_file_with(
    key: Option<&DocumentKey>,
    password: Option<&crate::Secret>,
    src: &std::path::Path,
    dest: &std::path::Path,
) -> Result<u64> {
    let mut reader = std::fs::File::open(src)
        .map_err(|e| Error::document(format!("opening {} failed: {e}", src.display())))?;
    let mut out = crate::fs::SafeFile::create(dest)?;
    let n = open_with(key, password, &mut reader, &mut out)?;
    out.commit()?;
    Ok(n)
}

pub(crate) fn read_full(r: &mut dyn Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seal(key: &DocumentKey, data: &[u8], chunk: usize) -> Vec<u8> {
        let mut w = SealWriter::new(Vec::new(), key).unwrap();
        for piece in data.chunks(chunk.max(1)) {
            w.write_all(piece).unwrap();
        }
        w.finish().unwrap()
    }

    fn unseal(key: &DocumentKey, sealed: &[u8]) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        open(key, &mut &sealed[..], &mut out)?;
        Ok(out)
    }

    #[test]
    fn round_trips_at_every_segment_edge() {
        let key = DocumentKey::generate().unwrap();
        for n in [
            0,
            1,
            SEGMENT - 1,
            SEGMENT,
            SEGMENT + 1,
            3 * SEGMENT,
            3 * SEGMENT + 5,
        ] {
            let data: Vec<u8> = (0..n).map(|i| (i * 7) as u8).collect();
            for chunk in [1000, SEGMENT, 7 * SEGMENT] {
                let s = seal(&key, &data, chunk);
                assert_eq!(s.len(), HEADER_LEN + n + TAG * n.div_ceil(SEGMENT).max(1));
                assert_eq!(unseal(&key, &s).unwrap(), data, "{n}/{chunk}");
            }
            // The in-memory helper writes the same format.
            let s = seal_bytes(&key, &data).unwrap();
            assert_eq!(s.len(), HEADER_LEN + n + TAG * n.div_ceil(SEGMENT).max(1));
            assert_eq!(unseal(&key, &s).unwrap(), data, "{n}");
        }
    }

    #[test]
    fn tampering_cutting_and_wrong_keys_fail() {
        let key = DocumentKey::generate().unwrap();
        let data = vec![b'%'; 2 * SEGMENT + 10];
        let s = seal(&key, &data, SEGMENT);
        let other = DocumentKey::generate().unwrap();
        assert!(unseal(&other, &s).is_err());
        for at in [0, 9, 12, HEADER_LEN, HEADER_LEN + SEGMENT + 3, s.len() - 1] {
            let mut t = s.clone();
            t[at] ^= 1;
            assert!(unseal(&key, &t).is_err(), "flip at {at}");
        }
        // Cut at a segment boundary, or anywhere.
        for cut in [HEADER_LEN, HEADER_LEN + SEGMENT + TAG, s.len() - 1, 5] {
            assert!(unseal(&key, &s[..cut]).is_err(), "cut at {cut}");
        }
        // Two segments swapped.
        let seg = SEGMENT + TAG;
        let mut swapped = s[..HEADER_LEN].to_vec();
        swapped.extend_from_slice(&s[HEADER_LEN + seg..HEADER_LEN + 2 * seg]);
        swapped.extend_from_slice(&s[HEADER_LEN..HEADER_LEN + seg]);
        swapped.extend_from_slice(&s[HEADER_LEN + 2 * seg..]);
        assert!(unseal(&key, &swapped).is_err());
        // The same plaintext seals differently every time (a salt per file).
        assert_ne!(seal(&key, &data, SEGMENT), s);
    }

    #[test]
    fn keys_are_read_strictly_and_never_shown() {
        let hex = "00112233445566778899aabbccddeeff00112233445566778899AABBCCDDEEFF";
        let k = DocumentKey::from_hex(hex).unwrap();
        assert_eq!(format!("{k:?}"), "DocumentKey(<redacted>)");
        for bad in ["", "00", &hex[1..], &format!("{}zz", &hex[2..])] {
            let e = DocumentKey::from_hex(bad).unwrap_err().to_string();
            assert!(!bad.is_empty() && !e.contains(bad) || bad.is_empty(), "{e}");
        }
        assert!(DocumentKey::from_bytes(&[0; 31]).is_err());
        assert!(DocumentKey::from_bytes(&[0; 32]).is_ok());
    }

    #[test]
    fn one_segment_built_by_the_documented_recipe_opens() {
        use ring::aead::{Aad, Nonce, UnboundKey, AES_256_GCM};
        // The steps of the module's documentation, done by hand.
        let key = DocumentKey::from_bytes(&[7u8; 32]).unwrap();
        let mut header = [0u8; HEADER_LEN];
        header[..8].copy_from_slice(MAGIC);
        header[8..12].copy_from_slice(&(SEGMENT as u32).to_be_bytes());
        header[12..].copy_from_slice(&[9u8; 16]);
        let prk = ring::hkdf::Salt::new(ring::hkdf::HKDF_SHA256, &header[12..]).extract(&[7u8; 32]);
        let okm = prk.expand(&[INFO], &AES_256_GCM).unwrap();
        let fk = LessSafeKey::new(UnboundKey::from(okm));
        let mut nonce = [0u8; NONCE_LEN];
        nonce[11] = 1; // segment 0, the last
        let mut body = b"%PDF-1.4 hello".to_vec();
        let tag = fk
            .seal_in_place_separate_tag(
                Nonce::assume_unique_for_key(nonce),
                Aad::from(&header),
                &mut body,
            )
            .unwrap();
        let mut file = header.to_vec();
        file.extend_from_slice(&body);
        file.extend_from_slice(tag.as_ref());
        assert_eq!(unseal(&key, &file).unwrap(), b"%PDF-1.4 hello");
        // The same bytes as the recipe done apart from this code (HKDF-SHA256 and AES-256-GCM
        // of Python's `cryptography`).
        let mut known = vec![0u8; FILE.len() / 2];
        unhex(FILE, &mut known).unwrap();
        assert_eq!(file, known);
    }

    const FILE: &str = "41425753454e43310001000009090909090909090909090909090909\
                        bf47c5337a5fa3ae95f99e2691eab2b581267ec45848aedfac770750cd35";
}
