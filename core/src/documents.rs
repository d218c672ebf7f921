//! Unpacking a downloaded document: gunzip (recognised by its bytes, not by a header),
//! then unzip (exactly one entry), then check that a PDF came out — or turn the error
//! document the service puts in the archive instead into a `Document` error.
//!
//! [`StreamUnpacker`] does it as the bytes arrive: it is fed the body chunk by chunk and
//! writes the PDF out as it is decoded, holding only small fixed buffers (a few dozen KiB,
//! whatever the document's size). Nothing is written to disk; the buffers we own are
//! wiped when dropped or grown (`WipeBuf`); the zip stage inflates into a ring of ours.
//! The gzip layer's decoder (flate2) keeps copies of its output and frees them unwiped,
//! out of our reach: for the service's archives that output is the zip, still deflated.

use std::io::Write;

use miniz_oxide::inflate::core::{decompress, inflate_flags, DecompressorOxide};
use miniz_oxide::inflate::TINFLStatus;
use zeroize::Zeroizing;

use crate::error::{Error, Result};
use crate::wipe::WipeBuf;

const GZIP_MAGIC: &[u8] = &[0x1f, 0x8b];
const ZIP_MAGIC: &[u8] = b"PK\x03\x04";
const EMPTY_ZIP_MAGIC: &[u8] = b"PK\x05\x06";
const PDF_MAGIC: &[u8] = b"%PDF-";

const ZIP_CENTRAL: &[u8] = b"PK\x01\x02";
const ZIP_DESCRIPTOR: &[u8] = b"PK\x07\x08";
/// The inflater's output ring of a zip entry: deflate's 32 KiB window, a power of two.
const INFLATE_RING: usize = 32 * 1024;
/// How much of a document that is not a PDF is kept to describe it (an error document).
const HELD_BACK: usize = 1 << 20;

/// The default ceiling of a document's unpacked size (zip and gzip bombs stop there).
pub const DEFAULT_MAX_DOCUMENT_BYTES: u64 = 1 << 30;

/// The error document found inside an archive when retrieval failed.
#[derive(Clone, Debug, PartialEq, serde::Deserialize)]
pub struct ErrorDocument {
    #[serde(rename = "errorMessage", default)]
    pub error_message: String,
    #[serde(rename = "errorCode", default)]
    pub error_code: String,
    #[serde(rename = "inputParams", default)]
    pub input_params: serde_json::Value,
}

/// Unpacks `data` (gzip and/or zip around a PDF) and returns the PDF (the caller's: it
/// is not wiped when dropped; every copy made on the way is).
pub fn unpack(data: &[u8], max_bytes: u64) -> Result<Vec<u8>> {
    let mut out = WipeBuf::new();
    let mut unpacker = StreamUnpacker::with_size_hint(&mut out, max_bytes, reserve);
    unpacker.push(data)?;
    unpacker.finish()?;
    Ok(out.into_vec())
}

/// A size hint for a `WipeBuf` writer: room for the declared size (the archive's word,
/// checked against the limit), if it can be had.
pub(crate) fn reserve(buf: &mut &mut WipeBuf, size: u64) {
    if let Ok(size) = usize::try_from(size) {
        let _ = buf.try_reserve_exact(size.saturating_sub(buf.len()));
    }
}

/// Unpacks `data` and writes the PDF to `writer`; returns the number of bytes written.
pub fn unpack_to(data: &[u8], writer: &mut dyn Write, max_bytes: u64) -> Result<u64> {
    let mut unpacker = StreamUnpacker::new(writer, max_bytes);
    unpacker.push(data)?;
    unpacker.finish()
}

/// One document of an archive.
#[derive(Clone, PartialEq, Eq)]
pub struct NamedDocument {
    /// The entry's name in the archive (e.g. `INV-1.pdf`).
    pub name: String,
    /// The PDF (wiped when the `NamedDocument` is dropped, not once taken out of it).
    pub data: Vec<u8>,
}

impl std::fmt::Debug for NamedDocument {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "NamedDocument({:?}, {} bytes)",
            self.name,
            self.data.len()
        )
    }
}

impl Drop for NamedDocument {
    fn drop(&mut self) {
        zeroize::Zeroize::zeroize(&mut self.data);
    }
}

/// Unpacks an archive that may hold several documents (a report without documentType
/// returns the invoice and its credit memos): every entry, each checked to be a PDF.
/// This one works in memory (the zip's central directory names the entries).
pub fn unpack_all(data: &[u8], max_bytes: u64) -> Result<Vec<NamedDocument>> {
    let gunzipped: WipeBuf;
    let stage1: &[u8] = if data.starts_with(GZIP_MAGIC) {
        gunzipped = gunzip(data, max_bytes)?;
        &gunzipped
    } else {
        data
    };
    if !(stage1.starts_with(ZIP_MAGIC) || stage1.starts_with(EMPTY_ZIP_MAGIC)) {
        return Ok(vec![NamedDocument {
            name: "document.pdf".into(),
            data: unpack(stage1, max_bytes)?,
        }]);
    }
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(stage1))
        .map_err(|e| Error::document(format!("unzip failed: the zip layer is damaged ({e})")))?;
    let mut docs = Vec::new();
    let mut total = 0u64;
    let mut inflater = Inflater::new();
    for i in 0..archive.len() {
        // Read raw, and inflated here: the zip crate's decoder would keep a window of it.
        let mut entry = archive
            .by_index_raw(i)
            .map_err(|e| Error::document(format!("unzip failed: cannot open entry {i} ({e})")))?;
        if entry.is_dir() {
            continue;
        }
        let name = entry.name().map(|n| n.to_string()).unwrap_or_default();
        check_entry(&entry, &name, max_bytes)?;
        let mut out = WipeBuf::new();
        let mut w = PdfCheck::new(&mut out);
        w.hint = Some(reserve);
        w.size_hint(entry.size());
        let n = copy_entry(
            &mut entry,
            &mut inflater,
            &mut w,
            max_bytes.saturating_sub(total),
        )?;
        w.finish()?;
        total += n;
        docs.push(NamedDocument {
            name,
            data: out.into_vec(),
        });
    }
    if docs.is_empty() {
        return Err(Error::document(
            "unzip failed: the archive holds no document",
        ));
    }
    Ok(docs)
}

fn check_entry(
    entry: &zip::read::ZipFile<'_, std::io::Cursor<&[u8]>>,
    name: &str,
    max_bytes: u64,
) -> Result<()> {
    if entry.encrypted() {
        return Err(Error::document("unzip failed: the entry is encrypted"));
    }
    check_name(name)?;
    check_declared(entry.size(), max_bytes)
}

fn check_name(name: &str) -> Result<()> {
    if name.starts_with('/') || name.starts_with('\\') || name.split(['/', '\\']).any(|p| p == "..")
    {
        return Err(Error::document(format!(
            "unzip failed: unsafe entry name {name:?}"
        )));
    }
    Ok(())
}

fn check_declared(size: u64, max_bytes: u64) -> Result<()> {
    if size > max_bytes {
        return Err(Error::document(format!(
            "unzip stopped: the entry declares {size} bytes, more than the {max_bytes}-byte limit (a zip bomb, or raise the limit)"
        )));
    }
    Ok(())
}

fn zip_bomb(max_bytes: u64) -> Error {
    Error::document(format!(
        "unzip stopped: the entry unpacks to more than {max_bytes} bytes (a zip bomb, or raise the limit)"
    ))
}

/// An entry's data (stored or deflate), checked against its CRC-32 and size, to `w`.
fn copy_entry<W: Write>(
    entry: &mut zip::read::ZipFile<'_, std::io::Cursor<&[u8]>>,
    inflater: &mut Inflater,
    w: &mut PdfCheck<W>,
    max_bytes: u64,
) -> Result<u64> {
    use std::io::Read;
    let (method, crc, size) = (entry.compression(), entry.crc32(), entry.size());
    let deflated = match method {
        zip::CompressionMethod::Stored => false,
        zip::CompressionMethod::Deflated => true,
        m => {
            return Err(Error::document(format!(
                "unzip failed: the entry uses compression method {m} (only stored and deflate are read)"
            )))
        }
    };
    inflater.reset();
    let mut hasher = flate2::Crc::new();
    let mut total = 0u64;
    let mut emit = |piece: &[u8]| {
        total += piece.len() as u64;
        if total > max_bytes {
            return Err(zip_bomb(max_bytes));
        }
        hasher.update(piece);
        w.push(piece)
    };
    let mut buf = Zeroizing::new(vec![0u8; 64 * 1024]);
    let mut ended = !deflated;
    loop {
        let n = entry
            .read(&mut buf)
            .map_err(|e| Error::document(format!("unzip failed: the entry is damaged ({e})")))?;
        if n == 0 {
            break;
        }
        if !deflated {
            emit(&buf[..n])?;
        } else if !ended {
            ended = inflater.inflate(&buf[..n], &mut emit)?.1;
        }
    }
    if !ended {
        return Err(damaged(
            "an entry's deflate data ends before its deflate stream",
        ));
    }
    if hasher.sum() != crc || total != size {
        return Err(Error::document(
            "unzip failed: the entry is damaged (its CRC-32 or size does not match its data)",
        ));
    }
    Ok(total)
}

fn gunzip(data: &[u8], max_bytes: u64) -> Result<WipeBuf> {
    use std::io::Read;
    let mut out = WipeBuf::new();
    // The bufread decoder reads `data` in place (the read one would copy it to a buffer).
    let mut dec = flate2::bufread::MultiGzDecoder::new(data);
    let mut piece = Zeroizing::new([0u8; 16 * 1024]);
    loop {
        let n = dec.read(&mut piece[..]).map_err(|e| {
            Error::document(format!("gunzip failed: the gzip layer is damaged ({e})"))
        })?;
        if n == 0 {
            return Ok(out);
        }
        if (out.len() + n) as u64 > max_bytes {
            return Err(gzip_bomb(max_bytes));
        }
        out.extend_from_slice(&piece[..n]);
    }
}

fn gzip_bomb(max_bytes: u64) -> Error {
    Error::document(format!(
        "gunzip stopped: the document unpacks to more than {max_bytes} bytes (a gzip bomb, or raise the limit)"
    ))
}

// ---------------------------------------------------------------------------------------
// The push unpacker.

/// Unpacks a document fed to it chunk by chunk, as the body arrives, and writes the PDF to
/// its writer as it comes out.
///
/// The layers are recognised by their bytes: gzip (1f 8b) is gunzipped as it streams, a
/// zip (`PK\x03\x04`) is read from its local file header (one document: stored or deflate,
/// not encrypted, a safe name, CRC-32 checked, data descriptors understood), and what
/// comes out must start with `%PDF-` — or be the service's JSON error document, which is
/// held back (at most 1 MiB) and becomes a `Document` error with its `document_code`.
/// `max_bytes` bounds every unpacked layer (zip and gzip bombs stop there).
///
/// Bytes reach the writer as soon as they are known to belong to a PDF, so a failure
/// found later (a damaged CRC, a second document) comes after part of the PDF was
/// written: `written()` tells how much. The unpacker holds only fixed buffers
/// (`buffered_bytes()`: about 32 KiB, plus the gzip decoder's own), whatever the
/// document's size; they are wiped when dropped.
pub struct StreamUnpacker<W: Write> {
    stage: Outer<W>,
    failed: bool,
}

enum Outer<W: Write> {
    /// The first two bytes, until they tell gzip from the rest.
    Sniff(Head, Inner<W>),
    Gzip(Box<flate2::write::MultiGzDecoder<Inner<W>>>),
    Plain(Inner<W>),
    Gone,
}

impl<W: Write> StreamUnpacker<W> {
    /// An unpacker writing the PDF to `writer`; no layer may unpack to more than
    /// `max_bytes`.
    pub fn new(writer: W, max_bytes: u64) -> Self {
        StreamUnpacker {
            stage: Outer::Sniff(
                Head::default(),
                Inner::new(PdfCheck::new(writer), max_bytes),
            ),
            failed: false,
        }
    }

    /// Like `new`; `size_hint` is called once with the writer and the PDF's size when the
    /// archive declares it, before any byte is written (e.g. to reserve room in a `Vec`).
    pub fn with_size_hint(writer: W, max_bytes: u64, size_hint: fn(&mut W, u64)) -> Self {
        let mut out = PdfCheck::new(writer);
        out.hint = Some(size_hint);
        StreamUnpacker {
            stage: Outer::Sniff(Head::default(), Inner::new(out, max_bytes)),
            failed: false,
        }
    }

    /// Feeds the next piece of the body. After an error the unpacker is spent: further
    /// calls fail.
    pub fn push(&mut self, chunk: &[u8]) -> Result<()> {
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

    /// Ends the body: checks that every layer is complete and that a PDF came out, flushes
    /// the writer, and returns the number of bytes written to it.
    pub fn finish(mut self) -> Result<u64> {
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

    /// The bytes written to the writer so far.
    pub fn written(&self) -> u64 {
        self.inner().and_then(Inner::out).map_or(0, |o| o.written)
    }

    /// The capacity of the buffers the unpacker holds itself: headers being read, the
    /// zip inflater's 32 KiB ring, the first bytes of the PDF (or an error document held
    /// back). Decoder state is not counted: the gzip decoder's (flate2's 32 KiB window
    /// and 32 KiB output buffer) and the zip inflater's tables (about 10 KiB).
    pub fn buffered_bytes(&self) -> usize {
        self.inner().map(Inner::buffered_bytes).unwrap_or(0) + 4
    }

    fn inner(&self) -> Option<&Inner<W>> {
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

impl<W: Write> Drop for StreamUnpacker<W> {
    fn drop(&mut self) {
        self.abandon();
    }
}

fn spent() -> Error {
    Error::document("the document unpacker already failed (or finished)")
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
struct Inner<W: Write> {
    head: Head,
    state: InnerState<W>,
    received: u64,
    max_bytes: u64,
    gunzipped: bool,
    /// The unpacker gave up: what the gzip decoder still writes is dropped.
    abandoned: bool,
}

enum InnerState<W: Write> {
    /// The first four bytes, until they tell a zip from the rest.
    Sniff(PdfCheck<W>),
    Zip(Box<ZipPush<W>>),
    Pdf(PdfCheck<W>),
    Gone,
}

impl<W: Write> Inner<W> {
    fn new(out: PdfCheck<W>, max_bytes: u64) -> Self {
        Inner {
            head: Head::default(),
            state: InnerState::Sniff(out),
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
        let InnerState::Sniff(out) = std::mem::replace(&mut self.state, InnerState::Gone) else {
            return Err(spent());
        };
        let head = std::mem::take(&mut self.head);
        let h = head.get();
        self.state = if h.starts_with(ZIP_MAGIC) || h.starts_with(EMPTY_ZIP_MAGIC) {
            InnerState::Zip(Box::new(ZipPush::new(out, self.max_bytes)))
        } else {
            InnerState::Pdf(out)
        };
        self.feed(h)
    }

    fn feed(&mut self, data: &[u8]) -> Result<()> {
        if data.is_empty() {
            return Ok(());
        }
        match &mut self.state {
            InnerState::Zip(zip) => zip.push(data),
            InnerState::Pdf(out) => out.push(data),
            InnerState::Sniff(_) | InnerState::Gone => Err(spent()),
        }
    }

    fn finish(mut self) -> Result<u64> {
        self.decide()?;
        match std::mem::replace(&mut self.state, InnerState::Gone) {
            InnerState::Zip(zip) => zip.finish(),
            InnerState::Pdf(out) => out.finish(),
            InnerState::Sniff(_) | InnerState::Gone => Err(spent()),
        }
    }

    fn out(&self) -> Option<&PdfCheck<W>> {
        match &self.state {
            InnerState::Sniff(out) | InnerState::Pdf(out) => Some(out),
            InnerState::Zip(zip) => Some(&zip.out),
            InnerState::Gone => None,
        }
    }

    fn buffered_bytes(&self) -> usize {
        let zip = match &self.state {
            InnerState::Zip(zip) => {
                zip.record.capacity() + zip.inflater.as_ref().map_or(0, |i| i.ring.len())
            }
            _ => 0,
        };
        4 + zip + self.out().map_or(0, |o| o.head.capacity())
    }
}

impl<W: Write> Write for Inner<W> {
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

// ---------------------------------------------------------------------------------------
// The zip layer, read front to back.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ZipState {
    /// A record's signature (4 bytes).
    Signature,
    /// A local file header's fixed part (30 bytes, the signature included).
    LocalHeader,
    /// Its name and extra field.
    LocalVariable,
    /// The entry's data.
    Data,
    /// A data descriptor's first four bytes: its optional signature, or the CRC.
    DescriptorStart,
    /// The rest of the data descriptor.
    Descriptor,
    /// The central directory: the entries are over, the rest is skipped.
    End,
}

/// The entry being read.
struct Entry {
    method: u16,
    /// Flag bit 3: the CRC and sizes follow the data.
    descriptor: bool,
    zip64: bool,
    crc: u32,
    compressed: u64,
    size: u64,
    name_len: usize,
    /// The document written out (the first one); the others are only counted.
    document: bool,
    /// Compressed bytes consumed.
    read: u64,
    /// Unpacked bytes.
    written: u64,
    hasher: flate2::Crc,
}

struct ZipPush<W: Write> {
    out: PdfCheck<W>,
    max_bytes: u64,
    state: ZipState,
    /// The record being read (a header or a data descriptor), `need` bytes long.
    record: WipeBuf,
    need: usize,
    entry: Option<Entry>,
    inflater: Option<Inflater>,
    entries: usize,
    documents: usize,
    unpacked: u64,
}

fn damaged(what: &str) -> Error {
    Error::document(format!("unzip failed: the zip layer is damaged ({what})"))
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}
fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}
fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from(u32_at(b, at)) | (u64::from(u32_at(b, at + 4)) << 32)
}

impl<W: Write> ZipPush<W> {
    fn new(out: PdfCheck<W>, max_bytes: u64) -> Self {
        ZipPush {
            out,
            max_bytes,
            state: ZipState::Signature,
            record: WipeBuf::with_capacity(64),
            need: 4,
            entry: None,
            inflater: None,
            entries: 0,
            documents: 0,
            unpacked: 0,
        }
    }

    fn push(&mut self, mut data: &[u8]) -> Result<()> {
        while !data.is_empty() {
            match self.state {
                ZipState::End => return Ok(()),
                ZipState::Data => {
                    let n = self.entry_data(data)?;
                    if n == 0 && self.state == ZipState::Data {
                        return Err(damaged("an entry's data does not progress"));
                    }
                    data = &data[n..];
                }
                _ => {
                    let n = (self.need - self.record.len()).min(data.len());
                    self.record.extend_from_slice(&data[..n]);
                    data = &data[n..];
                    if self.record.len() == self.need {
                        self.record()?;
                    }
                }
            }
        }
        Ok(())
    }

    /// A whole record (`need` bytes) has arrived.
    fn record(&mut self) -> Result<()> {
        match self.state {
            ZipState::Signature => {
                let sig = &self.record[..4];
                if sig == ZIP_MAGIC {
                    self.state = ZipState::LocalHeader;
                    self.need = 30;
                    Ok(())
                } else if sig == ZIP_CENTRAL || sig == EMPTY_ZIP_MAGIC {
                    self.state = ZipState::End;
                    self.record.clear();
                    self.check_count()
                } else if self.entries == 0 {
                    Err(damaged("no local file header"))
                } else {
                    Err(damaged(
                        "an entry is followed by neither an entry nor the central directory",
                    ))
                }
            }
            ZipState::LocalHeader => {
                let r = &self.record;
                let name_len = usize::from(u16_at(r, 26));
                let extra_len = usize::from(u16_at(r, 28));
                self.entry = Some(Entry {
                    method: u16_at(r, 8),
                    descriptor: u16_at(r, 6) & 0x08 != 0,
                    zip64: false,
                    crc: u32_at(r, 14),
                    compressed: u64::from(u32_at(r, 18)),
                    size: u64::from(u32_at(r, 22)),
                    name_len,
                    document: false,
                    read: 0,
                    written: 0,
                    hasher: flate2::Crc::new(),
                });
                if u16_at(r, 6) & 0x01 != 0 {
                    return Err(Error::document("unzip failed: the entry is encrypted"));
                }
                self.state = ZipState::LocalVariable;
                self.need = 30 + name_len + extra_len;
                if self.record.len() == self.need {
                    self.record()?;
                }
                Ok(())
            }
            ZipState::LocalVariable => self.start_entry(),
            ZipState::DescriptorStart => {
                let body = if self.entry.as_ref().is_some_and(|e| e.zip64) {
                    20
                } else {
                    12
                };
                self.need = if &self.record[..4] == ZIP_DESCRIPTOR {
                    4 + body
                } else {
                    body
                };
                self.state = ZipState::Descriptor;
                Ok(())
            }
            ZipState::Descriptor => {
                let entry = self.entry.take().ok_or_else(spent)?;
                let d = &self.record[self.record.len() - if entry.zip64 { 20 } else { 12 }..];
                let (crc, compressed, size) = if entry.zip64 {
                    (u32_at(d, 0), u64_at(d, 4), u64_at(d, 12))
                } else {
                    (
                        u32_at(d, 0),
                        u64::from(u32_at(d, 4)),
                        u64::from(u32_at(d, 8)),
                    )
                };
                Self::verify(&entry, crc, compressed, size)?;
                self.next_record();
                Ok(())
            }
            ZipState::Data | ZipState::End => Ok(()),
        }
    }

    fn next_record(&mut self) {
        self.record.clear();
        self.state = ZipState::Signature;
        self.need = 4;
    }

    /// The local header is complete: checks the entry and gets ready for its data.
    fn start_entry(&mut self) -> Result<()> {
        let mut entry = self.entry.take().ok_or_else(spent)?;
        let name = String::from_utf8_lossy(&self.record[30..30 + entry.name_len]).into_owned();
        check_name(&name)?;
        let mut extra = &self.record[30 + entry.name_len..];
        while extra.len() >= 4 {
            let (id, len) = (u16_at(extra, 0), usize::from(u16_at(extra, 2)));
            let field = extra
                .get(4..4 + len)
                .ok_or_else(|| damaged("an extra field overruns the header"))?;
            if id == 0x0001 {
                // Zip64: the sizes the header marks 0xFFFFFFFF, in this order.
                entry.zip64 = true;
                let mut at = 0;
                for v in [&mut entry.size, &mut entry.compressed] {
                    if *v == 0xFFFF_FFFF {
                        if field.len() < at + 8 {
                            return Err(damaged("a zip64 field is too short"));
                        }
                        *v = u64_at(field, at);
                        at += 8;
                    }
                }
            }
            extra = &extra[4 + len..];
        }
        match entry.method {
            0 | 8 => {}
            m => {
                return Err(Error::document(format!(
                    "unzip failed: the entry uses compression method {m} (only stored and deflate are read)"
                )))
            }
        }
        if entry.method == 0 && entry.descriptor && entry.compressed == 0 {
            return Err(Error::document(
                "unzip failed: a stored entry whose size comes after its data (a data descriptor) cannot be read as it streams",
            ));
        }
        if !entry.descriptor {
            check_declared(entry.size, self.max_bytes)?;
        }
        self.entries += 1;
        if !name.ends_with('/') {
            self.documents += 1;
            entry.document = self.documents == 1;
        }
        if entry.document && !entry.descriptor {
            self.out.size_hint(entry.size);
        }
        if entry.method == 8 {
            self.inflater.get_or_insert_with(Inflater::new).reset();
        }
        let empty = entry.method == 0 && entry.compressed == 0;
        self.entry = Some(entry);
        self.record.clear();
        self.state = ZipState::Data;
        if empty {
            self.end_data()?;
        }
        Ok(())
    }

    /// Entry data; returns how much of `data` belonged to the entry.
    fn entry_data(&mut self, data: &[u8]) -> Result<usize> {
        let entry = self.entry.as_mut().ok_or_else(spent)?;
        if entry.method == 0 {
            let n = (entry.compressed - entry.read).min(data.len() as u64) as usize;
            entry.read += n as u64;
            self.emit(&data[..n])?;
            if self.entry.as_ref().is_some_and(|e| e.read == e.compressed) {
                self.end_data()?;
            }
            return Ok(n);
        }
        let avail = if entry.descriptor {
            data.len()
        } else {
            (entry.compressed - entry.read).min(data.len() as u64) as usize
        };
        if avail == 0 {
            return Err(damaged(
                "an entry's deflate data does not end within its compressed size",
            ));
        }
        let mut inflater = self.inflater.take().ok_or_else(spent)?;
        let result = inflater.inflate(&data[..avail], &mut |piece| self.emit(piece));
        self.inflater = Some(inflater);
        let (used, done) = result?;
        if let Some(e) = self.entry.as_mut() {
            e.read += used as u64;
        }
        if done {
            self.end_data()?;
        }
        if self.state == ZipState::Data
            && self
                .entry
                .as_ref()
                .is_some_and(|e| !e.descriptor && e.read == e.compressed)
        {
            return Err(damaged(
                "an entry's deflate data ends before its deflate stream",
            ));
        }
        Ok(used)
    }

    /// Unpacked bytes of the entry: counted, checksummed, and written if it is the document.
    fn emit(&mut self, bytes: &[u8]) -> Result<()> {
        let entry = self.entry.as_mut().ok_or_else(spent)?;
        entry.hasher.update(bytes);
        entry.written += bytes.len() as u64;
        self.unpacked += bytes.len() as u64;
        if self.unpacked > self.max_bytes {
            return Err(zip_bomb(self.max_bytes));
        }
        if !entry.descriptor && entry.written > entry.size {
            return Err(damaged("an entry unpacks to more than its declared size"));
        }
        if entry.document {
            self.out.push(bytes)?;
        }
        Ok(())
    }

    /// The entry's data is over: its CRC and sizes now, or after its data descriptor.
    fn end_data(&mut self) -> Result<()> {
        let descriptor = self.entry.as_ref().is_some_and(|e| e.descriptor);
        if descriptor {
            self.record.clear();
            self.state = ZipState::DescriptorStart;
            self.need = 4;
            return Ok(());
        }
        let entry = self.entry.take().ok_or_else(spent)?;
        Self::verify(&entry, entry.crc, entry.compressed, entry.size)?;
        self.next_record();
        Ok(())
    }

    fn verify(entry: &Entry, crc: u32, compressed: u64, size: u64) -> Result<()> {
        if entry.hasher.sum() != crc {
            return Err(Error::document(
                "unzip failed: the entry is damaged (its CRC-32 does not match its data)",
            ));
        }
        if entry.written != size || entry.read != compressed {
            return Err(damaged("an entry's sizes do not match its data"));
        }
        Ok(())
    }

    fn check_count(&self) -> Result<()> {
        match self.documents {
            1 => Ok(()),
            0 => Err(Error::document("unzip failed: the archive holds no document")),
            n => Err(Error::document(format!(
                "the archive holds {n} documents (an invoice and its credit memos when documentType is omitted): \
                 ask for one documentType, or use download_all"
            ))),
        }
    }

    fn finish(self) -> Result<u64> {
        match self.state {
            ZipState::End => self.out.finish(),
            ZipState::Signature if self.record.is_empty() && self.entries > 0 => {
                Err(damaged("the archive ends before its central directory"))
            }
            _ => Err(damaged("the archive is cut off")),
        }
    }
}

// ---------------------------------------------------------------------------------------
// Deflate.

/// Raw deflate, decoded into a ring of our own: miniz_oxide's core decoder keeps no copy
/// of the output (the ring is deflate's window), so every unpacked byte sits in memory we
/// wipe. (flate2's decoders keep a 32 KiB window of the output, freed as it is.)
struct Inflater {
    state: Box<DecompressorOxide>,
    ring: Zeroizing<Vec<u8>>,
    at: usize,
}

impl Inflater {
    fn new() -> Self {
        Inflater {
            state: Box::default(),
            ring: Zeroizing::new(vec![0u8; INFLATE_RING]),
            at: 0,
        }
    }

    fn reset(&mut self) {
        self.state.init();
        self.ring.fill(0);
        self.at = 0;
    }

    /// Decodes `input`, passing each piece of output to `out`; returns the input used
    /// and whether the deflate stream ended (the bytes after it are not used).
    fn inflate(
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

// ---------------------------------------------------------------------------------------
// The PDF check.

/// Passes bytes through once the first ones show a PDF; holds back and parses an error
/// document instead (it is small), and rejects anything else.
struct PdfCheck<W: Write> {
    inner: W,
    head: WipeBuf,
    decided: Option<bool>,
    written: u64,
    hint: Option<fn(&mut W, u64)>,
}

impl<W: Write> PdfCheck<W> {
    fn new(inner: W) -> Self {
        PdfCheck {
            inner,
            head: WipeBuf::new(),
            decided: None,
            written: 0,
            hint: None,
        }
    }

    fn size_hint(&mut self, size: u64) {
        if self.written == 0 {
            if let Some(f) = self.hint.take() {
                f(&mut self.inner, size);
            }
        }
    }

    fn push(&mut self, buf: &[u8]) -> Result<()> {
        match self.decided {
            Some(true) => self.deliver(buf),
            Some(false) => {
                let room = HELD_BACK.saturating_sub(self.head.len()).min(buf.len());
                self.head.extend_from_slice(&buf[..room]);
                Ok(())
            }
            None => {
                let n = (PDF_MAGIC.len() - self.head.len()).min(buf.len());
                self.head.extend_from_slice(&buf[..n]);
                if self.head.len() < PDF_MAGIC.len() {
                    return Ok(());
                }
                let is_pdf = self.head.starts_with(PDF_MAGIC);
                self.decided = Some(is_pdf);
                if is_pdf {
                    let head = std::mem::take(&mut self.head);
                    self.deliver(&head)?;
                }
                self.push(&buf[n..])
            }
        }
    }

    fn deliver(&mut self, buf: &[u8]) -> Result<()> {
        if buf.is_empty() {
            return Ok(());
        }
        self.inner
            .write_all(buf)
            .map_err(|e| Error::document(format!("writing the document failed: {e}")))?;
        self.written += buf.len() as u64;
        Ok(())
    }

    fn finish(mut self) -> Result<u64> {
        match self.decided {
            Some(true) => {
                self.inner
                    .flush()
                    .map_err(|e| Error::document(format!("writing the document failed: {e}")))?;
                Ok(self.written)
            }
            _ => Err(classify_non_pdf(&self.head)),
        }
    }
}

fn classify_non_pdf(head: &[u8]) -> Error {
    let text = String::from_utf8_lossy(head);
    let trimmed = text.trim_start();
    if trimmed.starts_with('{') {
        if let Ok(doc) = serde_json::from_str::<ErrorDocument>(trimmed) {
            // Server text (an errorMessage may be up to 1 MiB): filtered and bounded.
            let code = if doc.error_code.is_empty() {
                "UNKNOWN".to_string()
            } else {
                crate::error::server_text(&doc.error_code)
            };
            let params = match &doc.input_params {
                serde_json::Value::Null => String::new(),
                v => format!(" for {}", crate::error::server_text(&v.to_string())),
            };
            return Error::document(format!(
                "the service could not produce the document ({code}: {}){params}",
                crate::error::server_text(&doc.error_message)
            ))
            .with_document_code(code);
        }
    }
    if head.is_empty() {
        Error::document("the archive's document is empty")
    } else {
        Error::document("the archive's document is not a PDF (it does not start with %PDF-)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        for (name, data) in entries {
            w.start_file(*name, zip::write::SimpleFileOptions::default())
                .unwrap();
            w.write_all(data).unwrap();
        }
        w.finish().unwrap().into_inner()
    }

    fn stored_zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        for (name, data) in entries {
            w.start_file(
                *name,
                zip::write::SimpleFileOptions::default()
                    .compression_method(zip::CompressionMethod::Stored),
            )
            .unwrap();
            w.write_all(data).unwrap();
        }
        w.finish().unwrap().into_inner()
    }

    /// Written on a writer that cannot seek: the CRC and sizes follow each entry's data
    /// (a data descriptor).
    fn streamed_zip_of(entries: &[(&str, &[u8])], method: zip::CompressionMethod) -> Vec<u8> {
        let mut w = zip::ZipWriter::new_stream(Vec::new());
        for (name, data) in entries {
            w.start_file(
                *name,
                zip::write::SimpleFileOptions::default().compression_method(method),
            )
            .unwrap();
            w.write_all(data).unwrap();
        }
        w.finish().unwrap().into_inner()
    }

    fn gzip_of(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    const PDF: &[u8] = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n";
    const CHUNKS: [usize; 4] = [1, 7, 4096, 1 << 20];

    /// A PDF of `n` bytes, partly compressible and partly not.
    fn big_pdf(n: usize) -> Vec<u8> {
        let mut out = b"%PDF-1.7\n".to_vec();
        let mut x: u32 = 12345;
        let mut i = 0u64;
        while out.len() < n {
            out.extend_from_slice(format!("{i} 0 obj << /Length 40 >> stream\n").as_bytes());
            for _ in 0..40 {
                x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
                out.push((x >> 16) as u8);
            }
            out.extend_from_slice(b"\nendstream endobj\n");
            i += 1;
        }
        out.truncate(n);
        out
    }

    /// Pushes `data` in pieces of `chunk` bytes.
    fn unpack_chunked(data: &[u8], chunk: usize, max: u64) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        let mut u = StreamUnpacker::new(&mut out, max);
        for piece in data.chunks(chunk) {
            u.push(piece)?;
        }
        let n = u.finish()?;
        assert_eq!(n as usize, out.len());
        Ok(out)
    }

    #[test]
    fn gzip_zip_pdf() {
        let packed = gzip_of(&zip_of(&[("INV-1.pdf", PDF)]));
        assert_eq!(unpack(&packed, 1 << 20).unwrap(), PDF);
        // Each layer is optional: recognised by its bytes.
        assert_eq!(unpack(&zip_of(&[("a.pdf", PDF)]), 1 << 20).unwrap(), PDF);
        assert_eq!(unpack(&gzip_of(PDF), 1 << 20).unwrap(), PDF);
        assert_eq!(unpack(PDF, 1 << 20).unwrap(), PDF);
    }

    #[test]
    fn every_layering_in_every_chunk_size() {
        let pdf = big_pdf(300_000);
        let layerings: Vec<(&str, Vec<u8>)> = vec![
            ("gzip(zip(pdf))", gzip_of(&zip_of(&[("INV-1.pdf", &pdf)]))),
            ("zip(pdf)", zip_of(&[("INV-1.pdf", &pdf)])),
            ("gzip(pdf)", gzip_of(&pdf)),
            ("pdf", pdf.clone()),
            ("stored zip", stored_zip_of(&[("INV-1.pdf", &pdf)])),
            (
                "gzip(stored zip)",
                gzip_of(&stored_zip_of(&[("a.pdf", &pdf)])),
            ),
            (
                "gzip(zip with data descriptor)",
                gzip_of(&streamed_zip_of(
                    &[("INV-1.pdf", &pdf)],
                    zip::CompressionMethod::Deflated,
                )),
            ),
            (
                "zip with a directory",
                zip_of(&[("dir/", b""), ("dir/INV-1.pdf", &pdf)]),
            ),
            ("two gzip members", {
                let mut two = gzip_of(&pdf[..1000]);
                two.extend_from_slice(&gzip_of(&pdf[1000..]));
                two
            }),
        ];
        for (name, packed) in &layerings {
            for chunk in CHUNKS {
                let got = unpack_chunked(packed, chunk, 1 << 30)
                    .unwrap_or_else(|e| panic!("{name} in chunks of {chunk}: {e}"));
                assert!(got == pdf, "{name} in chunks of {chunk}: different bytes");
            }
            assert!(unpack(packed, 1 << 30).unwrap() == pdf, "{name}");
        }
        // A small PDF too (shorter than the zip's sniffing and the PDF check).
        for chunk in CHUNKS {
            let packed = gzip_of(&zip_of(&[("INV-1.pdf", PDF)]));
            assert_eq!(unpack_chunked(&packed, chunk, 1 << 20).unwrap(), PDF);
            assert_eq!(unpack_chunked(PDF, chunk, 1 << 20).unwrap(), PDF);
        }
    }

    #[test]
    fn unpack_all_reads_every_entry_and_checks_it() {
        let pdf = big_pdf(300_000);
        let packed = gzip_of(&zip_of(&[("INV-1.pdf", &pdf), ("CM-1.pdf", PDF)]));
        let docs = unpack_all(&packed, 1 << 30).unwrap();
        let names: Vec<&str> = docs.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names, ["INV-1.pdf", "CM-1.pdf"]);
        assert!(docs[0].data == pdf && docs[1].data == PDF);
        let stored = stored_zip_of(&[("dir/", b""), ("a.pdf", PDF)]);
        assert_eq!(unpack_all(&stored, 1 << 20).unwrap()[0].data, PDF);
        // A damaged entry, a bomb, a cut deflate stream.
        let mut bad = stored_zip_of(&[("a.pdf", b"%PDF-1.4 stored entry body")]);
        let at = bad.windows(6).position(|w| w == b"stored").unwrap();
        bad[at] ^= 0x20;
        assert!(unpack_all(&bad, 1 << 20)
            .unwrap_err()
            .to_string()
            .contains("CRC"));
        let bomb = zip_of(&[("a.pdf", &vec![b'%'; 3_000_000])]);
        let e = unpack_all(&bomb, 1_000_000).unwrap_err();
        assert!(e.to_string().contains("bomb"), "{e}");
        let z = zip_of(&[("a.pdf", &pdf)]);
        let mut cut = z.clone();
        let start = 30 + "a.pdf".len();
        let central = z.windows(4).position(|w| w == ZIP_CENTRAL).unwrap();
        cut[start + 100..central].fill(0);
        assert_eq!(
            unpack_all(&cut, 1 << 30).unwrap_err().kind(),
            crate::ErrorKind::Document
        );
    }

    #[test]
    fn data_descriptor_entries() {
        let packed = streamed_zip_of(&[("a.pdf", PDF)], zip::CompressionMethod::Deflated);
        let flags = u16::from_le_bytes([packed[6], packed[7]]);
        assert_ne!(flags & 0x08, 0, "the writer used a data descriptor");
        for chunk in CHUNKS {
            assert_eq!(unpack_chunked(&packed, chunk, 1 << 20).unwrap(), PDF);
        }
        // A damaged CRC in the descriptor.
        let mut bad = packed.clone();
        let at = bad.windows(4).position(|w| w == ZIP_DESCRIPTOR).unwrap();
        bad[at + 4] ^= 0xff;
        let e = unpack(&bad, 1 << 20).unwrap_err();
        assert!(e.to_string().contains("CRC"), "{e}");
        // A descriptor without its (optional) signature.
        let mut unsigned = packed.clone();
        unsigned.drain(at..at + 4);
        assert_eq!(unpack(&unsigned, 1 << 20).unwrap(), PDF);
        // Stored with a descriptor and no size: cannot be streamed; refused, not guessed.
        let stored = streamed_zip_of(&[("a.pdf", PDF)], zip::CompressionMethod::Stored);
        let flags = u16::from_le_bytes([stored[6], stored[7]]);
        let size = u32::from_le_bytes([stored[18], stored[19], stored[20], stored[21]]);
        match unpack(&stored, 1 << 20) {
            Ok(pdf) => assert!(flags & 0x08 == 0 || size != 0, "{pdf:?}"),
            Err(e) => {
                assert_eq!(e.kind(), crate::ErrorKind::Document);
                assert!(flags & 0x08 != 0 && size == 0, "{e}");
            }
        }
    }

    #[test]
    fn error_document() {
        let doc = br#"{"errorMessage":"Invoice not available","inputParams":{"requestPreferences":{"orderId":"O-1"}},"errorCode":"CLIENT_ERROR"}"#;
        let packed = gzip_of(&zip_of(&[("error.json", doc)]));
        let e = unpack(&packed, 1 << 20).unwrap_err();
        assert_eq!(e.kind(), crate::ErrorKind::Document);
        assert_eq!(e.document_code(), Some("CLIENT_ERROR"));
        assert!(e.to_string().contains("Invoice not available") && e.to_string().contains("O-1"));
        for chunk in CHUNKS {
            let e = unpack_chunked(&packed, chunk, 1 << 20).unwrap_err();
            assert_eq!(e.document_code(), Some("CLIENT_ERROR"), "chunks of {chunk}");
        }
        // Nothing of it reached the writer.
        let mut out = Vec::new();
        let mut u = StreamUnpacker::new(&mut out, 1 << 20);
        u.push(&packed).unwrap();
        assert_eq!(u.written(), 0);
        assert!(u.finish().is_err());
        assert!(out.is_empty());
    }

    /// The corrupt archives of this module and of the reliability harness (G5).
    fn corpus() -> Vec<(&'static str, Vec<u8>)> {
        let good = gzip_of(&zip_of(&[("a.pdf", PDF)]));
        let mut bad_crc = good.clone();
        let n = bad_crc.len();
        bad_crc[n - 6] ^= 0xff; // the gzip trailer's CRC
        let mut stored_bad = stored_zip_of(&[("a.pdf", b"%PDF-1.4 stored entry body")]);
        let pos = stored_bad.windows(6).position(|w| w == b"stored").unwrap();
        stored_bad[pos] ^= 0x20; // the data no longer matches the entry's CRC
        let mut deflate_bad = zip_of(&[("a.pdf", &big_pdf(10_000))]);
        deflate_bad[60] ^= 0x55; // inside the deflate data
        let mut encrypted = zip_of(&[("a.pdf", PDF)]);
        encrypted[6] |= 1;
        let mut bzip2 = zip_of(&[("a.pdf", PDF)]);
        bzip2[8] = 12;
        let mut trailing = zip_of(&[("a.pdf", PDF)]);
        let central = trailing.windows(4).position(|w| w == ZIP_CENTRAL).unwrap();
        trailing.insert(central, b'x');
        vec![
            ("truncated gzip", good[..good.len() / 2].to_vec()),
            ("bad gzip crc", bad_crc),
            ("gzip of non-zip", gzip_of(b"hello")),
            ("gzip of text", gzip_of(b"not a zip at all")),
            ("empty zip", zip_of(&[])),
            ("two entries", zip_of(&[("a.pdf", PDF), ("b.pdf", PDF)])),
            ("not a pdf", zip_of(&[("a.txt", b"plain text here")])),
            (
                "nested zip",
                zip_of(&[("inner.zip", &zip_of(&[("a.pdf", PDF)]))]),
            ),
            ("dotdot name", zip_of(&[("../a.pdf", PDF)])),
            ("deep dotdot name", zip_of(&[("../../etc/a.pdf", PDF)])),
            ("absolute name", zip_of(&[("/abs/a.pdf", PDF)])),
            ("empty entry", zip_of(&[("a.pdf", b"")])),
            ("stored entry with a bad crc", gzip_of(&stored_bad)),
            ("damaged deflate data", deflate_bad),
            ("encrypted entry", encrypted),
            ("unknown method", bzip2),
            ("bytes between entry and directory", trailing),
            (
                "zip bomb",
                gzip_of(&zip_of(&[("a.pdf", &vec![b'%'; 3_000_000])])),
            ),
            ("gzip bomb", gzip_of(&vec![0u8; 3_000_000])),
            ("nothing", Vec::new()),
            ("a local header cut short", b"PK\x03\x04garbage".to_vec()),
            ("a zip cut short", zip_of(&[("a.pdf", PDF)])[..40].to_vec()),
            ("a zip without its directory", {
                let z = zip_of(&[("a.pdf", PDF)]);
                z[..z.windows(4).position(|w| w == ZIP_CENTRAL).unwrap()].to_vec()
            }),
            ("gzip magic only", GZIP_MAGIC.to_vec()),
        ]
    }

    #[test]
    fn corrupt_archives_are_document_errors() {
        for (name, data) in corpus() {
            let e = unpack(&data, 1_000_000).unwrap_err();
            assert_eq!(e.kind(), crate::ErrorKind::Document, "{name}: {e}");
            for chunk in CHUNKS {
                let e = unpack_chunked(&data, chunk, 1_000_000).unwrap_err();
                assert_eq!(e.kind(), crate::ErrorKind::Document, "{name}/{chunk}: {e}");
            }
        }
    }

    #[test]
    fn errors_name_their_stage() {
        let two = unpack(&zip_of(&[("a.pdf", PDF), ("b.pdf", PDF)]), 1 << 20).unwrap_err();
        assert!(
            two.to_string().contains("the archive holds 2 documents"),
            "{two}"
        );
        let three = unpack(
            &gzip_of(&zip_of(&[("a.pdf", PDF), ("b.pdf", PDF), ("c.pdf", PDF)])),
            1 << 20,
        )
        .unwrap_err();
        assert!(three.to_string().contains("holds 3 documents"), "{three}");
        let cut = gzip_of(&zip_of(&[("a.pdf", PDF)]));
        let e = unpack(&cut[..cut.len() / 2], 1 << 20).unwrap_err();
        assert!(e.to_string().starts_with("gunzip failed"), "{e}");
        let e = unpack(&zip_of(&[("../a.pdf", PDF)]), 1 << 20).unwrap_err();
        assert!(e.to_string().contains("unsafe entry name"), "{e}");
        let e = unpack(&zip_of(&[("a.txt", b"plain text")]), 1 << 20).unwrap_err();
        assert!(e.to_string().contains("not a PDF"), "{e}");
        let e = unpack(&zip_of(&[]), 1 << 20).unwrap_err();
        assert!(e.to_string().contains("no document"), "{e}");
    }

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
            zip::CompressionMethod::Deflated,
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

    #[test]
    fn the_writer_gets_bytes_as_they_come_and_its_errors_come_back() {
        let pdf = big_pdf(200_000);
        let packed = gzip_of(&zip_of(&[("a.pdf", &pdf)]));
        let mut out = Vec::new();
        let mut u = StreamUnpacker::new(&mut out, 1 << 20);
        u.push(&packed[..packed.len() / 2]).unwrap();
        let halfway = u.written();
        assert!(halfway > 0 && halfway < pdf.len() as u64, "{halfway}");
        u.push(&packed[packed.len() / 2..]).unwrap();
        assert_eq!(u.finish().unwrap(), pdf.len() as u64);

        struct Full(usize);
        impl Write for Full {
            fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
                if self.0 >= 100 {
                    return Err(std::io::Error::other("disk full"));
                }
                let n = b.len().min(100 - self.0);
                self.0 += n;
                Ok(n)
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let e = unpack_to(&packed, &mut Full(0), 1 << 20).unwrap_err();
        assert!(e.to_string().contains("disk full"), "{e}");
        assert_eq!(e.kind(), crate::ErrorKind::Document);
    }

    #[test]
    fn the_size_hint_comes_before_the_first_byte() {
        let pdf = big_pdf(100_000);
        let packed = gzip_of(&zip_of(&[("a.pdf", &pdf)]));
        let mut out: Vec<u8> = Vec::new();
        let mut u = StreamUnpacker::with_size_hint(&mut out, 1 << 20, |v, n| {
            assert!(v.is_empty());
            v.reserve_exact(n as usize);
        });
        for piece in packed.chunks(4096) {
            u.push(piece).unwrap();
        }
        u.finish().unwrap();
        assert_eq!(out, pdf);
        assert!(out.capacity() < pdf.len() + pdf.len() / 10);
    }

    #[test]
    fn the_buffers_stay_small() {
        let pdf = big_pdf(4 << 20);
        let packed = gzip_of(&zip_of(&[("a.pdf", &pdf)]));
        let mut sink = std::io::sink();
        let mut u = StreamUnpacker::new(&mut sink, 1 << 30);
        let mut most = 0;
        for piece in packed.chunks(64 * 1024) {
            u.push(piece).unwrap();
            most = most.max(u.buffered_bytes());
        }
        assert_eq!(u.finish().unwrap(), pdf.len() as u64);
        assert!(most <= 40 * 1024, "{most} bytes buffered");
    }
}
