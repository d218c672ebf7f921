//! The one sealing helper: an AES-256-GCM key (derived by HKDF-SHA256, or taken as it is),
//! and the two ways the crate seals under it. A short value is sealed as one blob, its
//! random nonce before it (the shared state's tokens in Redis, `shared/tokens.rs`); a buffer
//! is sealed in place at a nonce its format makes (the segments of a sealed file,
//! `sealed.rs`; the example script's archives, `close/archive.rs`). The formats are fixed:
//! values written by another process (or an older version) and files sealed by the
//! documented recipe must open, byte for byte (the known-answer tests of the callers).

use ring::aead::{Aad, LessSafeKey, Nonce, Tag, UnboundKey, AES_256_GCM};

pub(crate) use ring::aead::NONCE_LEN;

/// The length of AES-256-GCM's tag, after the ciphertext.
pub(crate) const TAG_LEN: usize = 16;

/// The AES-256-GCM key HKDF-SHA256 derives from `secret` (the input key material), `salt`
/// and `info`. The derived bytes go straight into the key: no copy of ours is left to wipe.
pub(crate) fn derive(secret: &[u8], salt: &[u8], info: &[&[u8]]) -> LessSafeKey {
    let prk = ring::hkdf::Salt::new(ring::hkdf::HKDF_SHA256, salt).extract(secret);
    let okm = prk
        .expand(info, &AES_256_GCM)
        .expect("32 bytes is a valid HKDF-SHA256 length");
    LessSafeKey::new(UnboundKey::from(okm))
}

/// A key of 32 bytes taken as they are (a format whose key is not derived: the example
/// script's archives, `close/archive.rs`).
pub(crate) fn raw_key(bytes: &[u8; 32]) -> LessSafeKey {
    LessSafeKey::new(UnboundKey::new(&AES_256_GCM, bytes).expect("a 256-bit key"))
}

/// Seals `buf` in place at `nonce` with `aad` as associated data; returns the tag, which
/// the caller stores after the ciphertext. `None` only for a buffer longer than AES-GCM
/// allows (64 GiB).
pub(crate) fn seal_at(
    key: &LessSafeKey,
    nonce: [u8; NONCE_LEN],
    aad: &[u8],
    buf: &mut [u8],
) -> Option<Tag> {
    key.seal_in_place_separate_tag(Nonce::assume_unique_for_key(nonce), Aad::from(aad), buf)
        .ok()
}

/// Opens `buf` (ciphertext, then its tag) in place; returns the plaintext, at its start.
/// `None` when the tag fails: a wrong key, nonce or `aad`, or damaged bytes.
pub(crate) fn open_at<'b>(
    key: &LessSafeKey,
    nonce: [u8; NONCE_LEN],
    aad: &[u8],
    buf: &'b mut [u8],
) -> Option<&'b mut [u8]> {
    key.open_in_place(Nonce::assume_unique_for_key(nonce), Aad::from(aad), buf)
        .ok()
}

/// `nonce | AES-256-GCM(plain, aad) | tag` under a random nonce.
pub(crate) fn seal_blob(key: &LessSafeKey, aad: &[u8], plain: &[u8]) -> Vec<u8> {
    seal_blob_at(key, rand::random(), aad, plain)
}

/// `seal_blob` at a given nonce (the known-answer tests).
pub(crate) fn seal_blob_at(
    key: &LessSafeKey,
    nonce: [u8; NONCE_LEN],
    aad: &[u8],
    plain: &[u8],
) -> Vec<u8> {
    let mut out = Vec::with_capacity(NONCE_LEN + plain.len() + TAG_LEN);
    out.extend_from_slice(&nonce);
    out.extend_from_slice(plain);
    let tag = seal_at(key, nonce, aad, &mut out[NONCE_LEN..]).expect("sealing a short value");
    out.extend_from_slice(tag.as_ref());
    out
}

/// Opens a blob of `seal_blob`: `None` when it is too short or its tag fails.
pub(crate) fn open_blob(key: &LessSafeKey, aad: &[u8], blob: &[u8]) -> Option<Vec<u8>> {
    let nonce: [u8; NONCE_LEN] = blob.get(..NONCE_LEN)?.try_into().ok()?;
    let mut data = blob[NONCE_LEN..].to_vec();
    let len = open_at(key, nonce, aad, &mut data)?.len();
    data.truncate(len);
    Some(data)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_blob_opens_under_its_key_and_aad_only() {
        let key = derive(b"secret", b"salt", &[b"info"]);
        let blob = seal_blob(&key, b"aad", b"value");
        assert_eq!(blob.len(), NONCE_LEN + 5 + TAG_LEN);
        assert_eq!(open_blob(&key, b"aad", &blob).unwrap(), b"value");
        assert!(open_blob(&key, b"other", &blob).is_none());
        assert!(open_blob(&derive(b"secret", b"salt", &[b"other"]), b"aad", &blob).is_none());
        assert!(open_blob(&derive(b"secret", b"other", &[b"info"]), b"aad", &blob).is_none());
        assert!(open_blob(&derive(b"other", b"salt", &[b"info"]), b"aad", &blob).is_none());
        for cut in [0, NONCE_LEN - 1, NONCE_LEN, blob.len() - 1] {
            assert!(
                open_blob(&key, b"aad", &blob[..cut]).is_none(),
                "cut at {cut}"
            );
        }
        for at in 0..blob.len() {
            let mut bad = blob.clone();
            bad[at] ^= 1;
            assert!(open_blob(&key, b"aad", &bad).is_none(), "flip at {at}");
        }
        // A fresh nonce every time.
        assert_ne!(seal_blob(&key, b"aad", b"value"), blob);
    }
}
