//! Unpacking a downloaded document: gunzip (recognised by its bytes, not by a header),
//! then unzip, then check that a PDF came out — or turn the error document the service
//! puts in the archive instead into a `Document` error.
//!
//! One unpacker serves every path (`download`, `download_to`, `download_to_path`,
//! `download_all`, `unpack`, `unpack_all`): it is fed the body chunk by chunk and writes
//! the PDF out as it is decoded, holding only small fixed buffers (a few dozen KiB,
//! whatever the document's size). The zip layer is read front to back — every local
//! header, every entry's data (CRC-32 and sizes checked), then the central directory,
//! which must list the same entries with the same names, offsets, methods, CRCs and sizes,
//! then the end records (ZIP64 included), and nothing after them. An archive that two zip
//! readers could read differently is refused. At most [`MAX_ENTRIES`] entries; a call
//! that wants one document fails at the second one's local header.
//!
//! Nothing is written to disk; the buffers we own are wiped when dropped or grown
//! (`WipeBuf`); the zip stage inflates into a ring of ours. The gzip layer's decoder
//! (flate2) keeps copies of its output and frees them unwiped, out of our reach: for the
//! service's archives that output is the zip, still deflated.

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
const ZIP64_END: &[u8] = b"PK\x06\x06";
const ZIP64_LOCATOR: &[u8] = b"PK\x06\x07";
/// The inflater's output ring of a zip entry: deflate's 32 KiB window, a power of two.
const INFLATE_RING: usize = 32 * 1024;
/// How much of a document that is not a PDF is kept to describe it (an error document).
const HELD_BACK: usize = 1 << 20;
/// A document of `download_all` whose size its entry does not declare grows in blocks of
/// this size (no doubling: see `DocBuf`).
const ROPE_BLOCK: usize = 256 * 1024;

/// The default ceiling of a document's unpacked size (zip and gzip bombs stop there).
pub const DEFAULT_MAX_DOCUMENT_BYTES: u64 = 1 << 30;

/// The most entries (documents and directories) an archive may hold. The service's hold
/// one PDF, or an invoice and its credit memos; a flood of entries stops here, after a
/// few hundred KiB of zip, whatever the archive claims.
pub const MAX_ENTRIES: usize = 4096;

/// The longest entry name accepted (bytes), and the longest part of it between slashes.
pub const MAX_NAME_BYTES: usize = 512;
const MAX_NAME_PART: usize = 255;

/// The error document found inside an archive when retrieval failed.
#[derive(Clone, Debug, PartialEq, serde::Deserialize)]
pub struct ErrorDocument {
    /// The service's explanation (`errorMessage`).
    #[serde(rename = "errorMessage", default)]
    pub error_message: String,
    /// The service's error code (`errorCode`).
    #[serde(rename = "errorCode", default)]
    pub error_code: String,
    /// The parameters of the failed retrieval, as the service echoes them
    /// (`inputParams`).
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
    /// The entry's name in the archive (e.g. `INV-1.pdf`), checked by [`check_entry_name`]:
    /// usable as a relative file name on Windows, macOS and Linux.
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
/// returns the invoice and its credit memos): every entry, each checked to be a PDF, by
/// the same streaming unpacker as `unpack` ([`ArchiveUnpacker`]).
pub fn unpack_all(data: &[u8], max_bytes: u64) -> Result<Vec<NamedDocument>> {
    let mut unpacker = ArchiveUnpacker::new(max_bytes);
    unpacker.push(data)?;
    unpacker.finish()
}

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

fn gzip_bomb(max_bytes: u64) -> Error {
    Error::document(format!(
        "gunzip stopped: the document unpacks to more than {max_bytes} bytes (a gzip bomb, or raise the limit)"
    ))
}

fn more_than_one() -> Error {
    Error::document(
        "unzip stopped: the archive holds more than one document (an invoice and its credit memos when documentType is omitted): \
         ask for one documentType, or use download_all",
    )
}

// ---------------------------------------------------------------------------------------
// Where the documents go.

/// The receiver of an archive's documents, one after the other.
trait Sink {
    /// A document starts: its entry's name (`None` when the body is not a zip) and the
    /// size the entry declares (checked against the limit), if it does.
    fn begin(&mut self, name: Option<&str>, declared: Option<u64>) -> Result<()>;
    /// The document's next bytes.
    fn data(&mut self, bytes: &[u8]) -> Result<()>;
    /// The document is complete (its CRC-32 checked): is it a PDF?
    fn end(&mut self) -> Result<()>;
    /// Bytes passed on so far.
    fn written(&self) -> u64;
    /// The capacity of the buffers it holds itself (not the documents collected).
    fn buffered(&self) -> usize;
}

/// One document, to a writer: a second one is an error.
struct Single<W: Write> {
    pdf: PdfCheck<W>,
    begun: bool,
}

impl<W: Write> Sink for Single<W> {
    fn begin(&mut self, _: Option<&str>, declared: Option<u64>) -> Result<()> {
        if std::mem::replace(&mut self.begun, true) {
            return Err(more_than_one());
        }
        if let Some(size) = declared {
            self.pdf.size_hint(size);
        }
        Ok(())
    }
    fn data(&mut self, bytes: &[u8]) -> Result<()> {
        self.pdf.push(bytes)
    }
    fn end(&mut self) -> Result<()> {
        self.pdf.verdict()
    }
    fn written(&self) -> u64 {
        self.pdf.written
    }
    fn buffered(&self) -> usize {
        self.pdf.head.capacity()
    }
}

/// Every document, in memory, by name (`download_all`).
struct Collect {
    docs: Vec<NamedDocument>,
    current: Option<(String, PdfCheck<DocBuf>)>,
}

impl Sink for Collect {
    fn begin(&mut self, name: Option<&str>, declared: Option<u64>) -> Result<()> {
        let buf = match declared.map(usize::try_from) {
            Some(Ok(size)) => {
                let mut b = WipeBuf::new();
                b.try_reserve_exact(size).map_err(|_| {
                    Error::document(format!("no memory for a document of {size} bytes"))
                })?;
                DocBuf::Flat(b)
            }
            _ => DocBuf::Rope(Vec::new(), 0),
        };
        let name = name.unwrap_or("document.pdf").to_string();
        self.current = Some((name, PdfCheck::new(buf)));
        Ok(())
    }
    fn data(&mut self, bytes: &[u8]) -> Result<()> {
        match &mut self.current {
            Some((_, pdf)) => pdf.push(bytes),
            None => Err(spent()),
        }
    }
    fn end(&mut self) -> Result<()> {
        let (name, mut pdf) = self.current.take().ok_or_else(spent)?;
        pdf.verdict()?;
        let data = pdf.inner.into_vec()?;
        self.docs.push(NamedDocument { name, data });
        Ok(())
    }
    fn written(&self) -> u64 {
        let done: u64 = self.docs.iter().map(|d| d.data.len() as u64).sum();
        done + self.current.as_ref().map_or(0, |(_, p)| p.written)
    }
    fn buffered(&self) -> usize {
        self.current.as_ref().map_or(0, |(_, p)| p.head.capacity())
    }
}

/// A document of `download_all` being collected: room reserved from the size its entry
/// declares, or (a data descriptor: no size before the data) blocks that are joined once
/// at its end, so a document never sits in memory more than twice, briefly, instead of
/// the three times a doubling buffer reaches while it grows.
enum DocBuf {
    Flat(WipeBuf),
    Rope(Vec<WipeBuf>, usize),
}

impl DocBuf {
    fn into_vec(self) -> Result<Vec<u8>> {
        match self {
            DocBuf::Flat(b) => Ok(b.into_vec()),
            DocBuf::Rope(mut blocks, len) => {
                if blocks.len() == 1 {
                    return Ok(blocks.remove(0).into_vec());
                }
                let mut out = Vec::new();
                out.try_reserve_exact(len).map_err(|_| {
                    Error::document(format!("no memory for a document of {len} bytes"))
                })?;
                for block in blocks.drain(..) {
                    out.extend_from_slice(&block);
                }
                Ok(out)
            }
        }
    }
}

impl Write for DocBuf {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            DocBuf::Flat(b) => b.extend_from_slice(buf),
            DocBuf::Rope(blocks, len) => {
                let mut rest = buf;
                while !rest.is_empty() {
                    match blocks.last_mut() {
                        Some(b) if b.len() < b.capacity() => {
                            let n = (b.capacity() - b.len()).min(rest.len());
                            b.extend_from_slice(&rest[..n]);
                            rest = &rest[n..];
                        }
                        _ => blocks.push(WipeBuf::with_capacity(ROPE_BLOCK)),
                    }
                }
                *len += buf.len();
            }
        }
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------
// The push unpackers.

/// Unpacks a document fed to it chunk by chunk, as the body arrives, and writes the PDF to
/// its writer as it comes out.
///
/// The layers are recognised by their bytes: gzip (1f 8b) is gunzipped as it streams, a
/// zip (`PK\x03\x04`) is read front to back and checked whole (see the module's
/// documentation): one document (stored or deflate, not encrypted, a safe name, CRC-32
/// checked, data descriptors understood; a second document fails at its local header),
/// and what comes out must start with `%PDF-` — or be the service's JSON error document,
/// which is held back (at most 1 MiB) and becomes a `Document` error with its
/// `document_code`. `max_bytes` bounds every unpacked layer (zip and gzip bombs stop there).
///
/// Bytes reach the writer as soon as they are known to belong to a PDF, so a failure
/// found later (a damaged CRC, a central directory that disagrees) comes after part of the
/// PDF was written: `written()` tells how much. The unpacker holds only fixed buffers
/// (`buffered_bytes()`: about 32 KiB, plus the gzip decoder's own), whatever the
/// document's size; they are wiped when dropped.
pub struct StreamUnpacker<W: Write>(Unpacker<Single<W>>);

impl<W: Write> StreamUnpacker<W> {
    /// An unpacker writing the PDF to `writer`; no layer may unpack to more than
    /// `max_bytes`.
    pub fn new(writer: W, max_bytes: u64) -> Self {
        Self::of(PdfCheck::new(writer), max_bytes)
    }

    /// Like `new`; `size_hint` is called once with the writer and the PDF's size when the
    /// archive declares it, before any byte is written (e.g. to reserve room in a `Vec`).
    pub fn with_size_hint(writer: W, max_bytes: u64, size_hint: fn(&mut W, u64)) -> Self {
        let mut pdf = PdfCheck::new(writer);
        pdf.hint = Some(size_hint);
        Self::of(pdf, max_bytes)
    }

    fn of(pdf: PdfCheck<W>, max_bytes: u64) -> Self {
        StreamUnpacker(Unpacker::new(Single { pdf, begun: false }, max_bytes))
    }

    /// Feeds the next piece of the body. After an error the unpacker is spent: further
    /// calls fail.
    pub fn push(&mut self, chunk: &[u8]) -> Result<()> {
        self.0.push(chunk)
    }

    /// Ends the body: checks that every layer is complete and that a PDF came out, flushes
    /// the writer, and returns the number of bytes written to it.
    pub fn finish(self) -> Result<u64> {
        self.0.finish().map(|s| s.written())
    }

    /// The bytes written to the writer so far.
    pub fn written(&self) -> u64 {
        self.0.written()
    }

    /// The capacity of the buffers the unpacker holds itself: headers being read, the
    /// zip inflater's 32 KiB ring, the first bytes of the PDF (or an error document held
    /// back). Decoder state is not counted: the gzip decoder's (flate2's 32 KiB window
    /// and 32 KiB output buffer) and the zip inflater's tables (about 10 KiB).
    pub fn buffered_bytes(&self) -> usize {
        self.0.buffered_bytes()
    }
}

/// The unpacker of `download_all` and `unpack_all`: the same layers and checks as
/// [`StreamUnpacker`], every document of the archive collected in memory by name (at most
/// `max_bytes` in all; each in room reserved from its declared size when there is one).
pub struct ArchiveUnpacker(Unpacker<Collect>);

impl ArchiveUnpacker {
    /// An unpacker that keeps at most `max_bytes` of documents in all.
    pub fn new(max_bytes: u64) -> Self {
        let sink = Collect {
            docs: Vec::new(),
            current: None,
        };
        ArchiveUnpacker(Unpacker::new(sink, max_bytes))
    }

    /// Feeds the next piece of the body; after an error the unpacker is spent.
    pub fn push(&mut self, chunk: &[u8]) -> Result<()> {
        self.0.push(chunk)
    }

    /// Ends the body: every layer complete, at least one document; returns them in the
    /// archive's order.
    pub fn finish(self) -> Result<Vec<NamedDocument>> {
        let mut sink = self.0.finish()?;
        if sink.docs.is_empty() {
            return Err(Error::document(
                "unzip failed: the archive holds no document",
            ));
        }
        Ok(std::mem::take(&mut sink.docs))
    }

    /// Document bytes collected so far.
    pub fn written(&self) -> u64 {
        self.0.written()
    }
}

struct Unpacker<S: Sink> {
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
    fn new(sink: S, max_bytes: u64) -> Self {
        Unpacker {
            stage: Outer::Sniff(Head::default(), Inner::new(sink, max_bytes)),
            failed: false,
        }
    }

    fn push(&mut self, chunk: &[u8]) -> Result<()> {
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

    fn finish(mut self) -> Result<S> {
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

    fn written(&self) -> u64 {
        self.inner().and_then(Inner::sink).map_or(0, Sink::written)
    }

    fn buffered_bytes(&self) -> usize {
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
            InnerState::Zip(zip) => Some(&zip.sink),
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
    /// A central directory record's fixed part (46 bytes).
    CentralHeader,
    /// Its name, extra field and comment.
    CentralVariable,
    /// The ZIP64 end of central directory record (56 bytes, then its extensible data).
    Zip64End,
    Zip64EndRest,
    /// The ZIP64 end of central directory locator (20 bytes).
    Zip64Locator,
    /// The end of central directory record (22 bytes).
    End,
    /// The archive's comment, skipped.
    Comment,
    /// Past the archive: any byte more is an error.
    Done,
}

/// Which records may come next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Entries,
    Central,
    Zip64End,
    Zip64Locator,
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
    /// A document (not a directory): it goes to the sink.
    document: bool,
    /// Compressed bytes consumed.
    read: u64,
    /// Unpacked bytes.
    written: u64,
    hasher: flate2::Crc,
}

/// An entry as its local header and data gave it, for the central directory's check.
struct Local {
    name: Box<[u8]>,
    offset: u64,
    flags: u16,
    method: u16,
    crc: u32,
    compressed: u64,
    size: u64,
}

/// What the ZIP64 end record says.
struct Zip64End {
    at: u64,
    disk: u32,
    central_disk: u32,
    entries_here: u64,
    entries: u64,
    central_size: u64,
    central_offset: u64,
}

struct ZipPush<S: Sink> {
    sink: S,
    max_bytes: u64,
    state: ZipState,
    phase: Phase,
    /// The record being read (a header or a data descriptor), `need` bytes long.
    record: WipeBuf,
    need: usize,
    /// Bytes of the zip consumed so far, and where the record being read starts.
    pos: u64,
    at: u64,
    entry: Option<Entry>,
    inflater: Option<Inflater>,
    locals: Vec<Local>,
    /// The names seen, lowercased: two entries may not share one (in any case).
    names: std::collections::HashSet<String>,
    documents: usize,
    unpacked: u64,
    /// Central directory records checked, their bytes, and where the first one starts.
    central: usize,
    central_bytes: u64,
    central_start: Option<u64>,
    zip64: Option<Zip64End>,
    comment_left: u64,
}

fn damaged(what: &str) -> Error {
    Error::document(format!("unzip failed: the zip layer is damaged ({what})"))
}

fn disagree(index: usize, what: &str) -> Error {
    Error::document(format!(
        "unzip refused: the archive's local headers and central directory disagree ({what} of entry {index}); \
         zip readers would read it differently"
    ))
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

/// The ZIP64 extended information of an extra field (id 1), if there is one.
fn zip64_field(mut extra: &[u8]) -> Result<Option<&[u8]>> {
    let mut found = None;
    while !extra.is_empty() {
        if extra.len() < 4 {
            return Err(damaged("an extra field is cut short"));
        }
        let (id, len) = (u16_at(extra, 0), usize::from(u16_at(extra, 2)));
        let field = extra
            .get(4..4 + len)
            .ok_or_else(|| damaged("an extra field overruns its header"))?;
        if id == 0x0001 {
            if found.is_some() {
                return Err(damaged("two zip64 fields"));
            }
            found = Some(field);
        }
        extra = &extra[4 + len..];
    }
    Ok(found)
}

/// Reads the 64-bit values a ZIP64 field holds for the fields marked 0xFFFFFFFF, in order.
fn zip64_values(field: Option<&[u8]>, values: &mut [(&mut u64, u64)]) -> Result<()> {
    let mut at = 0;
    for (v, sentinel) in values.iter_mut() {
        if **v == *sentinel {
            let f = field.ok_or_else(|| damaged("a zip64 size without its zip64 field"))?;
            let width = if *sentinel == 0xFFFF { 4 } else { 8 };
            if f.len() < at + width {
                return Err(damaged("a zip64 field is too short"));
            }
            **v = if width == 4 {
                u64::from(u32_at(f, at))
            } else {
                u64_at(f, at)
            };
            at += width;
        }
    }
    Ok(())
}

impl<S: Sink> ZipPush<S> {
    fn new(sink: S, max_bytes: u64) -> Self {
        ZipPush {
            sink,
            max_bytes,
            state: ZipState::Signature,
            phase: Phase::Entries,
            record: WipeBuf::with_capacity(64),
            need: 4,
            pos: 0,
            at: 0,
            entry: None,
            inflater: None,
            locals: Vec::new(),
            names: Default::default(),
            documents: 0,
            unpacked: 0,
            central: 0,
            central_bytes: 0,
            central_start: None,
            zip64: None,
            comment_left: 0,
        }
    }

    fn push(&mut self, mut data: &[u8]) -> Result<()> {
        while !data.is_empty() {
            match self.state {
                ZipState::Done => return Err(damaged("bytes after the end of the archive")),
                ZipState::Comment => {
                    let n = self.comment_left.min(data.len() as u64) as usize;
                    self.comment_left -= n as u64;
                    self.pos += n as u64;
                    data = &data[n..];
                    if self.comment_left == 0 {
                        self.state = ZipState::Done;
                    }
                }
                ZipState::Data => {
                    // (`entry_data` counts what it takes in `pos`, before the next record.)
                    let n = self.entry_data(data)?;
                    if n == 0 && self.state == ZipState::Data {
                        return Err(damaged("an entry's data does not progress"));
                    }
                    data = &data[n..];
                }
                _ => {
                    let n = (self.need - self.record.len()).min(data.len());
                    self.record.extend_from_slice(&data[..n]);
                    self.pos += n as u64;
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
            ZipState::Signature => self.signature(),
            ZipState::LocalHeader => {
                let r = &self.record;
                if u16_at(r, 6) & 0x01 != 0 {
                    return Err(Error::document("unzip failed: the entry is encrypted"));
                }
                self.need = 30 + usize::from(u16_at(r, 26)) + usize::from(u16_at(r, 28));
                self.state = ZipState::LocalVariable;
                if self.record.len() == self.need {
                    return self.start_entry();
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
                self.verify(entry, crc, compressed, size)
            }
            ZipState::CentralHeader => {
                let r = &self.record;
                self.need = 46
                    + usize::from(u16_at(r, 28))
                    + usize::from(u16_at(r, 30))
                    + usize::from(u16_at(r, 32));
                self.state = ZipState::CentralVariable;
                if self.record.len() == self.need {
                    return self.central_record();
                }
                Ok(())
            }
            ZipState::CentralVariable => self.central_record(),
            ZipState::Zip64End => {
                let size = u64_at(&self.record, 4);
                if !(44..=64 * 1024).contains(&size) {
                    return Err(damaged("a zip64 end record of an impossible size"));
                }
                self.need = 12 + size as usize;
                self.state = ZipState::Zip64EndRest;
                if self.record.len() == self.need {
                    return self.zip64_end();
                }
                Ok(())
            }
            ZipState::Zip64EndRest => self.zip64_end(),
            ZipState::Zip64Locator => {
                let r = &self.record;
                let (disk, offset, disks) = (u32_at(r, 4), u64_at(r, 8), u32_at(r, 16));
                let z = self.zip64.as_ref().ok_or_else(spent)?;
                if disk != 0 || disks > 1 || offset != z.at {
                    return Err(damaged(
                        "the zip64 locator does not point at the zip64 end record",
                    ));
                }
                self.phase = Phase::Zip64Locator;
                self.next_record();
                Ok(())
            }
            ZipState::End => self.end_record(),
            ZipState::Data | ZipState::Comment | ZipState::Done => Ok(()),
        }
    }

    /// A record's signature: what may come next depends on what came before.
    fn signature(&mut self) -> Result<()> {
        let sig: [u8; 4] = self.record[..4].try_into().map_err(|_| spent())?;
        let (phase, state, need) = match (&sig[..], self.phase) {
            (ZIP_MAGIC, Phase::Entries) => (Phase::Entries, ZipState::LocalHeader, 30),
            (ZIP_CENTRAL, Phase::Entries | Phase::Central) => {
                if self.central_start.is_none() {
                    self.central_start = Some(self.at);
                }
                (Phase::Central, ZipState::CentralHeader, 46)
            }
            (ZIP64_END, Phase::Entries | Phase::Central) => {
                (Phase::Zip64End, ZipState::Zip64End, 56)
            }
            (ZIP64_LOCATOR, Phase::Zip64End) => (Phase::Zip64End, ZipState::Zip64Locator, 20),
            (EMPTY_ZIP_MAGIC, Phase::Entries | Phase::Central | Phase::Zip64Locator) => {
                (Phase::End, ZipState::End, 22)
            }
            (ZIP_MAGIC, _) => return Err(damaged("a local header after the central directory")),
            _ if self.locals.is_empty() && self.phase == Phase::Entries => {
                return Err(damaged("no local file header"))
            }
            _ if self.phase == Phase::Entries => {
                return Err(damaged(
                    "an entry is followed by neither an entry nor the central directory",
                ))
            }
            _ => return Err(damaged("the central directory's records are out of order")),
        };
        self.phase = phase;
        self.state = state;
        self.need = need;
        Ok(())
    }

    fn next_record(&mut self) {
        self.record.clear();
        self.state = ZipState::Signature;
        self.need = 4;
        self.at = self.pos;
    }

    /// The local header is complete: checks the entry and gets ready for its data.
    fn start_entry(&mut self) -> Result<()> {
        if self.locals.len() >= MAX_ENTRIES {
            return Err(Error::document(format!(
                "unzip stopped: the archive holds more than {MAX_ENTRIES} entries (a flood of entries)"
            )));
        }
        let r = &self.record;
        let flags = u16_at(r, 6);
        let name_len = usize::from(u16_at(r, 26));
        let raw_name = &r[30..30 + name_len];
        let name = check_entry_name(raw_name)?;
        if !self.names.insert(name.to_lowercase()) {
            return Err(Error::document(format!(
                "unzip refused: two entries named {name:?} (names that differ only in case count as one)"
            )));
        }
        let mut entry = Entry {
            method: u16_at(r, 8),
            descriptor: flags & 0x08 != 0,
            zip64: false,
            crc: u32_at(r, 14),
            compressed: u64::from(u32_at(r, 18)),
            size: u64::from(u32_at(r, 22)),
            document: !name.ends_with('/'),
            read: 0,
            written: 0,
            hasher: flate2::Crc::new(),
        };
        let field = zip64_field(&r[30 + name_len..])?;
        entry.zip64 = field.is_some();
        let (mut size, mut compressed) = (entry.size, entry.compressed);
        zip64_values(
            field,
            &mut [(&mut size, 0xFFFF_FFFF), (&mut compressed, 0xFFFF_FFFF)],
        )
        .or_else(|e| if entry.descriptor { Ok(()) } else { Err(e) })?;
        (entry.size, entry.compressed) = (size, compressed);
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
        let declared = (!entry.descriptor).then_some(entry.size);
        if let Some(size) = declared {
            check_declared(size, self.max_bytes.saturating_sub(self.unpacked))?;
        }
        if !entry.document && declared.is_some_and(|s| s > 0) {
            return Err(damaged("a directory entry holds data"));
        }
        self.locals.push(Local {
            name: raw_name.into(),
            offset: self.at,
            flags,
            method: entry.method,
            crc: 0,
            compressed: 0,
            size: 0,
        });
        if entry.document {
            self.documents += 1;
            let name = name.to_string();
            self.sink.begin(Some(&name), declared)?;
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
            self.pos += n as u64;
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
        self.pos += used as u64;
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

    /// Unpacked bytes of the entry: counted, checksummed, and passed on if a document.
    fn emit(&mut self, bytes: &[u8]) -> Result<()> {
        if bytes.is_empty() {
            return Ok(());
        }
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
        if !entry.document {
            return Err(damaged("a directory entry holds data"));
        }
        self.sink.data(bytes)
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
        let (crc, compressed, size) = (entry.crc, entry.compressed, entry.size);
        self.verify(entry, crc, compressed, size)
    }

    /// Checks an entry against its CRC and sizes, hands a document's verdict to the sink,
    /// and keeps what the central directory must repeat.
    fn verify(&mut self, entry: Entry, crc: u32, compressed: u64, size: u64) -> Result<()> {
        if entry.hasher.sum() != crc {
            return Err(Error::document(
                "unzip failed: the entry is damaged (its CRC-32 does not match its data)",
            ));
        }
        if entry.written != size || entry.read != compressed {
            return Err(damaged("an entry's sizes do not match its data"));
        }
        if entry.document {
            self.sink.end()?;
        }
        let local = self.locals.last_mut().ok_or_else(spent)?;
        (local.crc, local.compressed, local.size) = (crc, compressed, size);
        self.next_record();
        Ok(())
    }

    /// A central directory record: it must repeat what the entry of the same index said.
    fn central_record(&mut self) -> Result<()> {
        let i = self.central;
        let r = &self.record;
        let local = self.locals.get(i).ok_or_else(|| {
            damaged("the central directory lists more entries than the archive holds")
        })?;
        let (flags, method, crc) = (u16_at(r, 8), u16_at(r, 10), u32_at(r, 16));
        let mut compressed = u64::from(u32_at(r, 20));
        let mut size = u64::from(u32_at(r, 24));
        let (name_len, extra_len) = (usize::from(u16_at(r, 28)), usize::from(u16_at(r, 30)));
        let mut disk = u64::from(u16_at(r, 34));
        let mut offset = u64::from(u32_at(r, 42));
        let name = &r[46..46 + name_len];
        let field = zip64_field(&r[46 + name_len..46 + name_len + extra_len])?;
        zip64_values(
            field,
            &mut [
                (&mut size, 0xFFFF_FFFF),
                (&mut compressed, 0xFFFF_FFFF),
                (&mut offset, 0xFFFF_FFFF),
                (&mut disk, 0xFFFF),
            ],
        )?;
        let checks = [
            (name == &local.name[..], "the name"),
            (method == local.method, "the compression method"),
            (flags & 0x09 == local.flags & 0x09, "the flags"),
            (crc == local.crc, "the CRC-32"),
            (compressed == local.compressed, "the compressed size"),
            (size == local.size, "the size"),
            (offset == local.offset, "the local header's offset"),
            (disk == 0, "the disk number"),
        ];
        if let Some((_, what)) = checks.iter().find(|(ok, _)| !ok) {
            return Err(disagree(i, what));
        }
        self.central += 1;
        self.central_bytes += self.record.len() as u64;
        self.next_record();
        Ok(())
    }

    fn zip64_end(&mut self) -> Result<()> {
        let r = &self.record;
        self.zip64 = Some(Zip64End {
            at: self.at,
            disk: u32_at(r, 16),
            central_disk: u32_at(r, 20),
            entries_here: u64_at(r, 24),
            entries: u64_at(r, 32),
            central_size: u64_at(r, 40),
            central_offset: u64_at(r, 48),
        });
        self.next_record();
        Ok(())
    }

    /// The end of central directory record: its counts, size and offset (or the ZIP64
    /// record's) must be those of the entries and the central directory read.
    fn end_record(&mut self) -> Result<()> {
        let r = &self.record;
        let (disk, central_disk) = (u64::from(u16_at(r, 4)), u64::from(u16_at(r, 6)));
        let (here, entries) = (u64::from(u16_at(r, 8)), u64::from(u16_at(r, 10)));
        let (size, offset) = (u64::from(u32_at(r, 12)), u64::from(u32_at(r, 16)));
        let comment = u64::from(u16_at(r, 20));
        let actual_entries = self.locals.len() as u64;
        if self.central as u64 != actual_entries {
            return Err(Error::document(format!(
                "unzip refused: the central directory lists {} entries, the archive holds {actual_entries}",
                self.central
            )));
        }
        // Where the central directory starts: its first record, or (none) the end records.
        let actual_offset = self.central_start.unwrap_or(match &self.zip64 {
            Some(z) => z.at,
            None => self.at,
        });
        let actual = [
            (
                disk,
                0xFFFF,
                0,
                self.zip64.as_ref().map(|z| u64::from(z.disk)),
                "disk number",
            ),
            (
                central_disk,
                0xFFFF,
                0,
                self.zip64.as_ref().map(|z| u64::from(z.central_disk)),
                "central directory's disk",
            ),
            (
                here,
                0xFFFF,
                actual_entries,
                self.zip64.as_ref().map(|z| z.entries_here),
                "entry count",
            ),
            (
                entries,
                0xFFFF,
                actual_entries,
                self.zip64.as_ref().map(|z| z.entries),
                "entry count",
            ),
            (
                size,
                0xFFFF_FFFF,
                self.central_bytes,
                self.zip64.as_ref().map(|z| z.central_size),
                "central directory's size",
            ),
            (
                offset,
                0xFFFF_FFFF,
                actual_offset,
                self.zip64.as_ref().map(|z| z.central_offset),
                "central directory's offset",
            ),
        ];
        for (value, sentinel, want, zip64, what) in actual {
            let ok = match zip64 {
                Some(z) => z == want && (value == sentinel || value == want),
                None => value == want,
            };
            if !ok {
                return Err(Error::document(format!(
                    "unzip refused: the end of the central directory gives a wrong {what}"
                )));
            }
        }
        self.record.clear();
        self.comment_left = comment;
        self.state = if comment == 0 {
            ZipState::Done
        } else {
            ZipState::Comment
        };
        Ok(())
    }

    fn finish(self) -> Result<S> {
        match self.state {
            ZipState::Done => {}
            ZipState::Signature
                if self.record.is_empty()
                    && self.phase == Phase::Entries
                    && !self.locals.is_empty() =>
            {
                return Err(damaged("the archive ends before its central directory"))
            }
            _ => return Err(damaged("the archive is cut off")),
        }
        if self.documents == 0 {
            return Err(Error::document(
                "unzip failed: the archive holds no document",
            ));
        }
        Ok(self.sink)
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
    /// Bytes written into the ring since the last reset (what a reset must wipe): an
    /// empty entry costs no 32 KiB wipe.
    dirty: usize,
}

impl Inflater {
    fn new() -> Self {
        Inflater {
            state: Box::default(),
            ring: Zeroizing::new(vec![0u8; INFLATE_RING]),
            at: 0,
            dirty: 0,
        }
    }

    fn reset(&mut self) {
        self.state.init();
        self.ring[..self.dirty.min(INFLATE_RING)].fill(0);
        self.at = 0;
        self.dirty = 0;
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

    /// The document is complete: a PDF (the writer is flushed), or an error.
    fn verdict(&mut self) -> Result<()> {
        match self.decided {
            Some(true) => self
                .inner
                .flush()
                .map_err(|e| Error::document(format!("writing the document failed: {e}"))),
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
        // The central directory now starts 4 bytes earlier: its end record says so.
        let end = unsigned.len() - 22;
        let offset = u32_at(&unsigned, end + 16) - 4;
        unsigned[end + 16..end + 20].copy_from_slice(&offset.to_le_bytes());
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
        // Refused at the entry's end, before the central directory.
        let e = u.push(&packed).unwrap_err();
        assert_eq!(e.document_code(), Some("CLIENT_ERROR"));
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
            two.to_string().contains("holds more than one document"),
            "{two}"
        );
        let three = unpack(
            &gzip_of(&zip_of(&[("a.pdf", PDF), ("b.pdf", PDF), ("c.pdf", PDF)])),
            1 << 20,
        )
        .unwrap_err();
        assert!(
            three.to_string().contains("more than one document"),
            "{three}"
        );
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
