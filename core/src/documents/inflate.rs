//! Raw deflate, for the zip layer's entries.

use miniz_oxide::inflate::core::{decompress, inflate_flags, DecompressorOxide};
use miniz_oxide::inflate::TINFLStatus;
use zeroize::Zeroizing;

use crate::error::{Error, Result};

/// The inflater's output ring of a zip entry: deflate's 32 KiB window, a power of two.
const INFLATE_RING: usize = 32 * 1024;

/// Raw deflate, decoded into a ring of our own: miniz_oxide's core decoder keeps no copy
/// of the output (the ring is deflate's window), so every unpacked byte sits in memory we
/// wipe. (flate2's decoders keep a 32 KiB window of the output, freed as it is.)
pub(super) struct Inflater {
    state: Box<DecompressorOxide>,
    ring: Zeroizing<Vec<u8>>,
    at: usize,
    /// Bytes written into the ring since the last reset (what a reset must wipe): an
    /// empty entry costs no 32 KiB wipe.
    dirty: usize,
}

impl Inflater {
    pub(super) fn new() -> Self {
        Inflater {
            state: Box::default(),
            ring: Zeroizing::new(vec![0u8; INFLATE_RING]),
            at: 0,
            dirty: 0,
        }
    }

    pub(super) fn reset(&mut self) {
        self.state.init();
        self.ring[..self.dirty.min(INFLATE_RING)].fill(0);
        self.at = 0;
        self.dirty = 0;
    }

    /// The capacity of the output ring.
    pub(super) fn buffered_bytes(&self) -> usize {
        self.ring.len()
    }

    /// Decodes `input`, passing each piece of output to `out`; returns the input used
    /// and whether the deflate stream ended (the bytes after it are not used).
    pub(super) fn inflate(
        &mut self,
        input: &[u8],
        out: &mut dyn FnMut(&[u8]) -> Result<()>,
    ) -> Result<(usize, bool)> {
        let mut used = 0;
        loop {
            let flags = inflate_flags::TINFL_FLAG_HAS_MORE_INPUT;
            let (status, consumed, produced) = decompress(
                &mut self.state,
                &input[used..],
                &mut self.ring,
                self.at,
                flags,
            );
            used += consumed;
            self.dirty = self.dirty.saturating_add(produced);
            out(&self.ring[self.at..self.at + produced])?;
            self.at = (self.at + produced) % INFLATE_RING;
            match status {
                TINFLStatus::Done => return Ok((used, true)),
                TINFLStatus::NeedsMoreInput => return Ok((used, false)),
                TINFLStatus::HasMoreOutput => {}
                e => {
                    return Err(Error::document(format!(
                        "unzip failed: the entry is damaged (deflate: {e:?})"
                    )))
                }
            }
        }
    }
}
