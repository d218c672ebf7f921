//! The zip layer, read front to back as it streams: every local header and entry's data
//! (CRC-32 and sizes checked), then the central directory, which must repeat them, then the
//! end records (ZIP64 included), and nothing after them.

use super::inflate::Inflater;
use super::limits::{check_declared, check_entry_name, zip_bomb, MAX_ENTRIES};
use super::sink::Sink;
use super::spent;
use crate::error::{Error, Result};
use crate::wipe::WipeBuf;

pub(super) const ZIP_MAGIC: &[u8] = b"PK\x03\x04";
pub(super) const EMPTY_ZIP_MAGIC: &[u8] = b"PK\x05\x06";
pub(super) const ZIP_CENTRAL: &[u8] = b"PK\x01\x02";
const ZIP_DESCRIPTOR: &[u8] = b"PK\x07\x08";
const ZIP64_END: &[u8] = b"PK\x06\x06";
const ZIP64_LOCATOR: &[u8] = b"PK\x06\x07";

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

pub(super) struct ZipPush<S: Sink> {
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
    pub(super) fn new(sink: S, max_bytes: u64) -> Self {
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

    pub(super) fn push(&mut self, mut data: &[u8]) -> Result<()> {
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

    /// The sink the entries go to.
    pub(super) fn sink(&self) -> &S {
        &self.sink
    }

    /// The capacity of the buffers it holds: the record being read, the inflater's ring.
    pub(super) fn buffered_bytes(&self) -> usize {
        self.record.capacity() + self.inflater.as_ref().map_or(0, Inflater::buffered_bytes)
    }

    /// The record goes on to `need` bytes, read in `state` (its variable part); handled at
    /// once when they have all arrived already.
    fn continue_to(&mut self, need: usize, state: ZipState) -> Result<()> {
        self.need = need;
        self.state = state;
        if self.record.len() == self.need {
            return self.record();
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
                let need = 30 + usize::from(u16_at(r, 26)) + usize::from(u16_at(r, 28));
                self.continue_to(need, ZipState::LocalVariable)
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
                let need = 46
                    + usize::from(u16_at(r, 28))
                    + usize::from(u16_at(r, 30))
                    + usize::from(u16_at(r, 32));
                self.continue_to(need, ZipState::CentralVariable)
            }
            ZipState::CentralVariable => self.central_record(),
            ZipState::Zip64End => {
                let size = u64_at(&self.record, 4);
                if !(44..=64 * 1024).contains(&size) {
                    return Err(damaged("a zip64 end record of an impossible size"));
                }
                self.continue_to(12 + size as usize, ZipState::Zip64EndRest)
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

    pub(super) fn finish(self) -> Result<S> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::documents::testdata::streamed_zip_of;
    use crate::documents::tests::{unpack_chunked, CHUNKS, PDF};
    use crate::documents::unpack;

    #[test]
    fn data_descriptor_entries() {
        let packed = streamed_zip_of(&[("a.pdf", PDF)], ::zip::CompressionMethod::Deflated);
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
        let stored = streamed_zip_of(&[("a.pdf", PDF)], ::zip::CompressionMethod::Stored);
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
}
