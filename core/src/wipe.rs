//! Buffers that leave nothing behind: documents and secrets pass through buffers that are
//! zeroed before their memory goes back to the allocator — when they grow as well as when
//! they are dropped. (A `Vec<u8>` frees its old block as it was when it grows;
//! `Zeroizing<Vec<u8>>` wipes only the last one.)

use bytes::Bytes;
use zeroize::Zeroize;

/// A growable byte buffer that zeroes every block it lets go of.
///
/// Bytes past `len` are never written, so only `len` bytes are zeroed: room reserved for a
/// large document and not used is not touched.
#[derive(Default)]
pub struct WipeBuf(Vec<u8>);

impl WipeBuf {
    pub fn new() -> WipeBuf {
        WipeBuf(Vec::new())
    }

    pub fn with_capacity(n: usize) -> WipeBuf {
        WipeBuf(Vec::with_capacity(n))
    }

    pub fn capacity(&self) -> usize {
        self.0.capacity()
    }

    /// Room for `additional` more bytes, or an error if it cannot be had.
    pub fn try_reserve_exact(
        &mut self,
        additional: usize,
    ) -> Result<(), std::collections::TryReserveError> {
        if self.0.capacity() - self.0.len() >= additional {
            return Ok(());
        }
        let mut bigger = Vec::new();
        bigger.try_reserve_exact(self.0.len() + additional)?;
        self.move_to(bigger);
        Ok(())
    }

    pub fn extend_from_slice(&mut self, data: &[u8]) {
        if self.0.capacity() - self.0.len() < data.len() {
            let want = (self.0.len() + data.len()).max(self.0.capacity() * 2);
            self.move_to(Vec::with_capacity(want.max(64)));
        }
        self.0.extend_from_slice(data);
    }

    /// Zeroes the content and empties the buffer (its room is kept).
    pub fn clear(&mut self) {
        self.0.as_mut_slice().zeroize();
        self.0.clear();
    }

    /// The bytes, handed over: from here they are the caller's to wipe.
    pub fn into_vec(mut self) -> Vec<u8> {
        std::mem::take(&mut self.0)
    }

    /// The bytes as `Bytes`, still wiped when the last reference is dropped.
    pub fn into_bytes(self) -> Bytes {
        Bytes::from_owner(self)
    }

    fn move_to(&mut self, mut bigger: Vec<u8>) {
        bigger.extend_from_slice(&self.0);
        self.clear();
        self.0 = bigger;
    }
}

impl Drop for WipeBuf {
    fn drop(&mut self) {
        self.0.as_mut_slice().zeroize();
    }
}

impl std::ops::Deref for WipeBuf {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.0
    }
}

impl AsRef<[u8]> for WipeBuf {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

impl std::io::Write for WipeBuf {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// `data` as `Bytes` that are zeroed when the last reference is dropped (a secret header
/// value, a token request's body) — `Bytes::from` would free them as they are. Up to 496
/// bytes (an e-mail, an access token) they are held in the one block that also holds the
/// `Bytes`' reference count: one allocation, and a clone and a read of the value touch the
/// same cache lines (a call through one of a thousand clients, B11). Such a value
/// is put together on the stack and moved into its block, so a copy may stay in the stack
/// until overwritten; what is wiped is the heap (G9 scans freed heap blocks), as before.
pub fn wiped_bytes(data: &[u8]) -> Bytes {
    match data.len() {
        // With the reference count and the length (8 bytes each): blocks of 64, 256 and
        // 512 bytes.
        0..=48 => WipeInline::<48>::bytes(data),
        49..=240 => WipeInline::<240>::bytes(data),
        241..=496 => WipeInline::<496>::bytes(data),
        _ => {
            let mut buf = WipeBuf::with_capacity(data.len());
            buf.extend_from_slice(data);
            buf.into_bytes()
        }
    }
}

/// Up to `N` bytes held inline, zeroed on drop (`wiped_bytes`).
struct WipeInline<const N: usize> {
    len: usize,
    buf: [u8; N],
}

impl<const N: usize> WipeInline<N> {
    fn bytes(data: &[u8]) -> Bytes {
        let mut held = WipeInline {
            len: data.len(),
            buf: [0; N],
        };
        held.buf[..data.len()].copy_from_slice(data);
        Bytes::from_owner(held)
    }
}

impl<const N: usize> AsRef<[u8]> for WipeInline<N> {
    fn as_ref(&self) -> &[u8] {
        &self.buf[..self.len]
    }
}

impl<const N: usize> Drop for WipeInline<N> {
    fn drop(&mut self) {
        self.buf[..self.len].zeroize();
    }
}

/// Drops a piece of a received body, zeroing it first if no one else holds it (a piece
/// still shared with the HTTP client's read buffer is the client's to free).
pub fn wipe_received(piece: Bytes) {
    if let Ok(mut owned) = piece.try_into_mut() {
        owned[..].zeroize();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grows_reserves_clears_and_hands_over() {
        let mut b = WipeBuf::new();
        for i in 0..1000u32 {
            b.extend_from_slice(&i.to_le_bytes());
        }
        assert_eq!(b.len(), 4000);
        assert_eq!(&b[4..8], &1u32.to_le_bytes());
        b.try_reserve_exact(10_000).unwrap();
        assert!(b.0.capacity() >= 14_000);
        b.clear();
        assert!(b.is_empty() && b.0.capacity() >= 14_000);
        b.extend_from_slice(b"%PDF-");
        assert_eq!(b.into_vec(), b"%PDF-");
        assert_eq!(&wiped_bytes(b"token")[..], b"token");
    }

    #[test]
    fn wiped_bytes_hold_every_length_whole_inline_or_not() {
        for n in [0, 1, 48, 49, 165, 240, 241, 496, 497, 5000] {
            let data: Vec<u8> = (0..n).map(|i| b'a' + (i % 26) as u8).collect();
            let b = wiped_bytes(&data);
            assert_eq!(&b[..], &data[..], "{n} bytes");
            let copy = b.clone();
            drop(b);
            assert_eq!(
                &copy[..],
                &data[..],
                "{n} bytes, a clone outliving the original"
            );
            assert_eq!(
                &copy.slice(n / 2..)[..],
                &data[n / 2..],
                "{n} bytes, sliced"
            );
        }
    }
}
