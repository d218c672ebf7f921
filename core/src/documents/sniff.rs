//! Sniffing the layers by their first bytes, and the gzip layer: the body is gunzipped
//! when it starts with gzip's magic (1f 8b), then read as a zip when it starts with a zip
//! record's signature, or else taken as the document itself.

use std::io::Write;

use zeroize::Zeroizing;

use super::limits::gzip_bomb;
use super::sink::Sink;
use super::spent;
use super::zip::{ZipPush, EMPTY_ZIP_MAGIC, ZIP_MAGIC};
use crate::error::{Error, Result};

pub(super) const GZIP_MAGIC: &[u8] = &[0x1f, 0x8b];

pub(super) struct Unpacker<S: Sink> {
    stage: Outer<S>,
    failed: bool,
}

enum Outer<S: Sink> {
    /// The first two bytes, until they tell gzip from the rest.
    Sniff(Head, Inner<S>),
    Gzip(Box<flate2::write::MultiGzDecoder<Inner<S>>>),
    Plain(Inner<S>),
    Gone,
}

impl<S: Sink> Unpacker<S> {
    pub(super) fn new(sink: S, max_bytes: u64) -> Self {
        Unpacker {
            stage: Outer::Sniff(Head::default(), Inner::new(sink, max_bytes)),
            failed: false,
        }
    }

    pub(super) fn push(&mut self, chunk: &[u8]) -> Result<()> {
        if self.failed {
            return Err(spent());
        }
        let r = self.push_inner(chunk);
        if r.is_err() {
            self.failed = true;
            self.abandon();
        }
        r
    }

    pub(super) fn finish(mut self) -> Result<S> {
        if self.failed {
            return Err(spent());
        }
        if matches!(self.stage, Outer::Sniff(..)) {
            self.decide()?;
        }
        match std::mem::replace(&mut self.stage, Outer::Gone) {
            Outer::Gzip(mut dec) => {
                if let Err(e) = dec.try_finish() {
                    dec.get_mut().abandoned = true;
                    return Err(gunzip_error(e));
                }
                match dec.finish() {
                    Ok(inner) => inner.finish(),
                    Err(e) => Err(gunzip_error(e)),
                }
            }
            Outer::Plain(inner) => inner.finish(),
            Outer::Sniff(..) | Outer::Gone => Err(spent()),
        }
    }

    pub(super) fn written(&self) -> u64 {
        self.inner().and_then(Inner::sink).map_or(0, Sink::written)
    }

    pub(super) fn buffered_bytes(&self) -> usize {
        self.inner().map(Inner::buffered_bytes).unwrap_or(0) + 4
    }

    fn inner(&self) -> Option<&Inner<S>> {
        match &self.stage {
            Outer::Sniff(_, inner) | Outer::Plain(inner) => Some(inner),
            Outer::Gzip(dec) => Some(dec.get_ref()),
            Outer::Gone => None,
        }
    }

    fn push_inner(&mut self, mut chunk: &[u8]) -> Result<()> {
        if let Outer::Sniff(head, _) = &mut self.stage {
            let n = head.fill(chunk, GZIP_MAGIC.len());
            chunk = &chunk[n..];
            if head.len < GZIP_MAGIC.len() {
                return Ok(());
            }
            self.decide()?;
        }
        if chunk.is_empty() {
            return Ok(());
        }
        match &mut self.stage {
            // flate2 keeps up to 32 KiB of output until the next write: flushing passes it
            // on now (to our stages only: `Inner::flush` does not flush the writer).
            Outer::Gzip(dec) => dec
                .write_all(chunk)
                .and_then(|()| dec.flush())
                .map_err(gunzip_error),
            Outer::Plain(inner) => inner.push(chunk),
            Outer::Sniff(..) | Outer::Gone => Err(spent()),
        }
    }

    /// Gzip or not, from the first bytes; they go on to the next stage.
    fn decide(&mut self) -> Result<()> {
        if !matches!(self.stage, Outer::Sniff(..)) {
            return Ok(());
        }
        let Outer::Sniff(head, mut inner) = std::mem::replace(&mut self.stage, Outer::Gone) else {
            return Err(spent());
        };
        if head.get().starts_with(GZIP_MAGIC) {
            inner.gunzipped = true;
            let mut dec = Box::new(flate2::write::MultiGzDecoder::new(inner));
            let r = dec.write_all(head.get()).map_err(gunzip_error);
            self.stage = Outer::Gzip(dec);
            r
        } else {
            let r = inner.push(head.get());
            self.stage = Outer::Plain(inner);
            r
        }
    }

    /// Makes sure nothing more reaches the writer: flate2's decoder writes out what it
    /// holds when dropped.
    fn abandon(&mut self) {
        if let Outer::Gzip(dec) = &mut self.stage {
            dec.get_mut().abandoned = true;
        }
    }
}

impl<S: Sink> Drop for Unpacker<S> {
    fn drop(&mut self) {
        self.abandon();
    }
}

/// The first bytes of a stream, kept until they tell what it is.
#[derive(Clone, Default)]
struct Head {
    bytes: Zeroizing<[u8; 4]>,
    len: usize,
}

impl Head {
    /// Takes what it lacks of `want` bytes from `data`; returns how many it took.
    fn fill(&mut self, data: &[u8], want: usize) -> usize {
        let n = want.saturating_sub(self.len).min(data.len());
        self.bytes[self.len..self.len + n].copy_from_slice(&data[..n]);
        self.len += n;
        n
    }
    fn get(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

/// The stream after the gzip layer (or without one): a zip, or the document itself.
struct Inner<S: Sink> {
    head: Head,
    state: InnerState<S>,
    received: u64,
    max_bytes: u64,
    gunzipped: bool,
    /// The unpacker gave up: what the gzip decoder still writes is dropped.
    abandoned: bool,
}

enum InnerState<S: Sink> {
    /// The first four bytes, until they tell a zip from the rest.
    Sniff(S),
    Zip(Box<ZipPush<S>>),
    /// Not a zip: the document itself.
    Raw(S),
    Gone,
}

impl<S: Sink> Inner<S> {
    fn new(sink: S, max_bytes: u64) -> Self {
        Inner {
            head: Head::default(),
            state: InnerState::Sniff(sink),
            received: 0,
            max_bytes,
            gunzipped: false,
            abandoned: false,
        }
    }

    fn push(&mut self, mut data: &[u8]) -> Result<()> {
        if self.abandoned {
            return Ok(());
        }
        self.received += data.len() as u64;
        if self.received > self.max_bytes {
            return Err(if self.gunzipped {
                gzip_bomb(self.max_bytes)
            } else {
                Error::document(format!(
                    "the document is more than {} bytes (raise the limit if this is expected)",
                    self.max_bytes
                ))
            });
        }
        if let InnerState::Sniff(_) = self.state {
            let n = self.head.fill(data, ZIP_MAGIC.len());
            data = &data[n..];
            if self.head.len < ZIP_MAGIC.len() {
                return Ok(());
            }
            self.decide()?;
        }
        self.feed(data)
    }

    /// A zip or not, from the first bytes; they go on to the next stage.
    fn decide(&mut self) -> Result<()> {
        if !matches!(self.state, InnerState::Sniff(_)) {
            return Ok(());
        }
        let InnerState::Sniff(mut sink) = std::mem::replace(&mut self.state, InnerState::Gone)
        else {
            return Err(spent());
        };
        let head = std::mem::take(&mut self.head);
        let h = head.get();
        self.state = if h.starts_with(ZIP_MAGIC) || h.starts_with(EMPTY_ZIP_MAGIC) {
            InnerState::Zip(Box::new(ZipPush::new(sink, self.max_bytes)))
        } else {
            sink.begin(None, None)?;
            InnerState::Raw(sink)
        };
        self.feed(h)
    }

    fn feed(&mut self, data: &[u8]) -> Result<()> {
        if data.is_empty() {
            return Ok(());
        }
        match &mut self.state {
            InnerState::Zip(zip) => zip.push(data),
            InnerState::Raw(sink) => sink.data(data),
            InnerState::Sniff(_) | InnerState::Gone => Err(spent()),
        }
    }

    fn finish(mut self) -> Result<S> {
        self.decide()?;
        match std::mem::replace(&mut self.state, InnerState::Gone) {
            InnerState::Zip(zip) => zip.finish(),
            InnerState::Raw(mut sink) => {
                sink.end()?;
                Ok(sink)
            }
            InnerState::Sniff(_) | InnerState::Gone => Err(spent()),
        }
    }

    fn sink(&self) -> Option<&S> {
        match &self.state {
            InnerState::Sniff(sink) | InnerState::Raw(sink) => Some(sink),
            InnerState::Zip(zip) => Some(zip.sink()),
            InnerState::Gone => None,
        }
    }

    fn buffered_bytes(&self) -> usize {
        let zip = match &self.state {
            InnerState::Zip(zip) => zip.buffered_bytes(),
            _ => 0,
        };
        4 + zip + self.sink().map_or(0, Sink::buffered)
    }
}

impl<S: Sink> Write for Inner<S> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.push(buf)
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, ErrorHolder(e)))?;
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// An error of a later stage, carried through flate2's writer as an `io::Error`.
#[derive(Debug)]
struct ErrorHolder(Error);
impl std::fmt::Display for ErrorHolder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}
impl std::error::Error for ErrorHolder {}

/// An error out of the gzip decoder: a later stage's, or the gzip layer's own.
fn gunzip_error(e: std::io::Error) -> Error {
    if e.get_ref().is_some_and(|i| i.is::<ErrorHolder>()) {
        if let Some(inner) = e.into_inner() {
            if let Ok(held) = inner.downcast::<ErrorHolder>() {
                return held.0;
            }
        }
        return Error::document("gunzip failed");
    }
    Error::document(format!("gunzip failed: the gzip layer is damaged ({e})"))
}

#[cfg(test)]
mod tests {
    use crate::documents::testdata::{gzip_of, zip_of};
    use crate::documents::tests::PDF;
    use crate::documents::unpack;

    #[test]
    fn gzip_zip_pdf() {
        let packed = gzip_of(&zip_of(&[("INV-1.pdf", PDF)]));
        assert_eq!(unpack(&packed, 1 << 20).unwrap(), PDF);
        // Each layer is optional: recognised by its bytes.
        assert_eq!(unpack(&zip_of(&[("a.pdf", PDF)]), 1 << 20).unwrap(), PDF);
        assert_eq!(unpack(&gzip_of(PDF), 1 << 20).unwrap(), PDF);
        assert_eq!(unpack(PDF, 1 << 20).unwrap(), PDF);
    }
}
