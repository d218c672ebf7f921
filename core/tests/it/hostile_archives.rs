//! Hostile archives against the one streaming unpacker (`abws::documents`): a corpus built
//! by code — bombs, floods, archives whose local headers and central directory disagree,
//! traversal and device names, ZIP64 edges, truncations, data descriptors — each refused
//! with a `DocumentError` naming its stage, and a bounded fuzz run (seeded, stable Rust,
//! no nightly) that feeds mutated archives through both unpackers in chunk sizes 1..64K:
//! 0 panics, 0 hangs. A valid corpus (the zip crate's archives and ours) must still be
//! read, the same through every chunking, and the same as the zip crate reads it.
//!
//! The reliability scorecard reports the figures (G10, G12); the tests here are the same
//! checks at once, as regression tests.

use std::io::Write;
use std::panic::AssertUnwindSafe;
use std::time::{Duration, Instant};

use abws::documents::{unpack_all, ArchiveUnpacker, StreamUnpacker, MAX_ENTRIES};
use abws::ErrorKind;

pub const PDF: &[u8] = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n";
const LIMIT: u64 = 4 << 20;

// ---------------------------------------------------------------------------------------
// A zip writer of our own: it writes what it is told, consistent or not.

#[derive(Clone)]
pub struct Ent {
    pub name: Vec<u8>,
    pub data: Vec<u8>,
    /// 0 stored, 8 deflate (or anything, written as given).
    pub method: u16,
    /// CRC and sizes after the data.
    pub descriptor: bool,
    /// The descriptor's optional signature.
    pub descriptor_sig: bool,
    /// Sizes (and the central offset) in a ZIP64 extra field.
    pub zip64: bool,
}

impl Ent {
    pub fn new(name: &str, data: &[u8]) -> Ent {
        Ent {
            name: name.as_bytes().to_vec(),
            data: data.to_vec(),
            method: 8,
            descriptor: false,
            descriptor_sig: true,
            zip64: false,
        }
    }
    pub fn stored(mut self) -> Ent {
        self.method = 0;
        self
    }
    pub fn descriptor(mut self) -> Ent {
        self.descriptor = true;
        self
    }
    pub fn zip64(mut self) -> Ent {
        self.zip64 = true;
        self
    }
}

/// Where the records of a built archive are.
pub struct Built {
    pub bytes: Vec<u8>,
    pub locals: Vec<usize>,
    pub centrals: Vec<usize>,
    pub zip64_end: Option<usize>,
    pub eocd: usize,
}

#[derive(Default, Clone)]
pub struct Opts {
    /// A ZIP64 end record and locator, and the end record's fields at their sentinels.
    pub zip64_end: bool,
    pub comment: Vec<u8>,
}

fn deflate(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

pub fn gz(data: &[u8]) -> Vec<u8> {
    gz_level(data, flate2::Compression::default())
}

pub fn gz_level(data: &[u8], level: flate2::Compression) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), level);
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn p16(out: &mut Vec<u8>, v: u16) {
    out.extend_from_slice(&v.to_le_bytes());
}
fn p32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}
fn p64(out: &mut Vec<u8>, v: u64) {
    out.extend_from_slice(&v.to_le_bytes());
}
pub fn put16(b: &mut [u8], at: usize, v: u16) {
    b[at..at + 2].copy_from_slice(&v.to_le_bytes());
}
pub fn put32(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}
pub fn get32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

/// The bytes of `built` after `f` changed it.
fn changed(mut built: Built, f: &dyn Fn(&mut Built)) -> Vec<u8> {
    f(&mut built);
    built.bytes
}

/// A change of one field of a record: its byte mapped, or a little-endian value written.
#[derive(Clone, Copy)]
pub enum Field {
    Byte(fn(u8) -> u8),
    U16(u16),
    U32(u32),
}

impl Field {
    pub fn apply(self, b: &mut [u8], at: usize) {
        match self {
            Field::Byte(f) => b[at] = f(b[at]),
            Field::U16(v) => put16(b, at, v),
            Field::U32(v) => put32(b, at, v),
        }
    }
}

pub fn build(entries: &[Ent], opts: &Opts) -> Built {
    let mut out = Vec::new();
    let mut locals = vec![];
    let mut meta = vec![];
    for e in entries {
        let packed = if e.method == 8 {
            deflate(&e.data)
        } else {
            e.data.clone()
        };
        let crc = {
            let mut h = flate2::Crc::new();
            h.update(&e.data);
            h.sum()
        };
        let (size, csize) = (e.data.len() as u64, packed.len() as u64);
        let at = out.len();
        locals.push(at);
        out.extend_from_slice(b"PK\x03\x04");
        p16(&mut out, if e.zip64 { 45 } else { 20 });
        p16(&mut out, 0x800 | if e.descriptor { 0x08 } else { 0 });
        p16(&mut out, e.method);
        p16(&mut out, 0);
        p16(&mut out, 0x21);
        let (lcrc, lc, ls) = match (e.descriptor, e.zip64) {
            (true, true) => (0, 0xFFFF_FFFF, 0xFFFF_FFFF),
            (true, false) => (0, 0, 0),
            (false, true) => (crc, 0xFFFF_FFFF, 0xFFFF_FFFF),
            (false, false) => (crc, csize as u32, size as u32),
        };
        p32(&mut out, lcrc);
        p32(&mut out, lc);
        p32(&mut out, ls);
        p16(&mut out, e.name.len() as u16);
        p16(&mut out, if e.zip64 { 20 } else { 0 });
        out.extend_from_slice(&e.name);
        if e.zip64 {
            p16(&mut out, 1);
            p16(&mut out, 16);
            p64(&mut out, if e.descriptor { 0 } else { size });
            p64(&mut out, if e.descriptor { 0 } else { csize });
        }
        out.extend_from_slice(&packed);
        if e.descriptor {
            if e.descriptor_sig {
                out.extend_from_slice(b"PK\x07\x08");
            }
            p32(&mut out, crc);
            if e.zip64 {
                p64(&mut out, csize);
                p64(&mut out, size);
            } else {
                p32(&mut out, csize as u32);
                p32(&mut out, size as u32);
            }
        }
        meta.push((crc, csize, size, at as u64));
    }
    let central_start = out.len();
    let mut centrals = vec![];
    for (e, (crc, csize, size, at)) in entries.iter().zip(meta) {
        centrals.push(out.len());
        out.extend_from_slice(b"PK\x01\x02");
        p16(&mut out, 0x031e);
        p16(&mut out, if e.zip64 { 45 } else { 20 });
        p16(&mut out, 0x800 | if e.descriptor { 0x08 } else { 0 });
        p16(&mut out, e.method);
        p16(&mut out, 0);
        p16(&mut out, 0x21);
        p32(&mut out, crc);
        if e.zip64 {
            p32(&mut out, 0xFFFF_FFFF);
            p32(&mut out, 0xFFFF_FFFF);
        } else {
            p32(&mut out, csize as u32);
            p32(&mut out, size as u32);
        }
        p16(&mut out, e.name.len() as u16);
        p16(&mut out, if e.zip64 { 28 } else { 0 });
        p16(&mut out, 0);
        p16(&mut out, 0);
        p16(&mut out, 0);
        p32(&mut out, 0);
        p32(&mut out, if e.zip64 { 0xFFFF_FFFF } else { at as u32 });
        out.extend_from_slice(&e.name);
        if e.zip64 {
            p16(&mut out, 1);
            p16(&mut out, 24);
            p64(&mut out, size);
            p64(&mut out, csize);
            p64(&mut out, at);
        }
    }
    let central_size = (out.len() - central_start) as u64;
    let n = entries.len() as u64;
    let mut zip64_end = None;
    if opts.zip64_end {
        let at = out.len();
        zip64_end = Some(at);
        out.extend_from_slice(b"PK\x06\x06");
        p64(&mut out, 44);
        p16(&mut out, 0x031e);
        p16(&mut out, 45);
        p32(&mut out, 0);
        p32(&mut out, 0);
        p64(&mut out, n);
        p64(&mut out, n);
        p64(&mut out, central_size);
        p64(&mut out, central_start as u64);
        out.extend_from_slice(b"PK\x06\x07");
        p32(&mut out, 0);
        p64(&mut out, at as u64);
        p32(&mut out, 1);
    }
    let eocd = out.len();
    out.extend_from_slice(b"PK\x05\x06");
    p16(&mut out, 0);
    p16(&mut out, 0);
    if opts.zip64_end {
        p16(&mut out, 0xFFFF);
        p16(&mut out, 0xFFFF);
        p32(&mut out, 0xFFFF_FFFF);
        p32(&mut out, 0xFFFF_FFFF);
    } else {
        p16(&mut out, n as u16);
        p16(&mut out, n as u16);
        p32(&mut out, central_size as u32);
        p32(&mut out, central_start as u32);
    }
    p16(&mut out, opts.comment.len() as u16);
    out.extend_from_slice(&opts.comment);
    Built {
        bytes: out,
        locals,
        centrals,
        zip64_end,
        eocd,
    }
}

pub fn zip(entries: &[Ent]) -> Vec<u8> {
    build(entries, &Opts::default()).bytes
}

/// An archive written by the zip crate.
pub fn crate_zip(entries: &[(&str, &[u8])], options: zip::write::SimpleFileOptions) -> Vec<u8> {
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (name, data) in entries {
        if name.ends_with('/') {
            w.add_directory(*name, options).unwrap();
        } else {
            w.start_file(*name, options).unwrap();
            w.write_all(data).unwrap();
        }
    }
    w.finish().unwrap().into_inner()
}

/// A flood: `n` stored entries of `body` each (directories when `dirs`, then empty), with
/// a ZIP64 end record when there are more than 65,535. Built record by record: no zip
/// writer holds a million entries quickly.
pub fn flood(n: usize, dirs: bool, body: &[u8]) -> Vec<u8> {
    let body = if dirs { &[][..] } else { body };
    let crc = {
        let mut h = flate2::Crc::new();
        h.update(body);
        h.sum()
    };
    let mut out = Vec::with_capacity(n * (100 + body.len()));
    let name = |i: usize| {
        let mut s = format!("{i:x}");
        if dirs {
            s.push('/');
        }
        s
    };
    let fixed = |out: &mut Vec<u8>, name: &str| {
        out.extend_from_slice(b"\x00\x08\x00\x00\x00\x00\x21\x00");
        p32(out, crc);
        p32(out, body.len() as u32);
        p32(out, body.len() as u32);
        p16(out, name.len() as u16);
    };
    for i in 0..n {
        let name = name(i);
        out.extend_from_slice(b"PK\x03\x04\x14\x00");
        fixed(&mut out, &name);
        p16(&mut out, 0);
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(body);
    }
    let central_start = out.len();
    let mut offset = 0u64;
    for i in 0..n {
        let name = name(i);
        out.extend_from_slice(b"PK\x01\x02\x1e\x03\x14\x00");
        fixed(&mut out, &name);
        out.extend_from_slice(&[0; 8]);
        p32(&mut out, 0);
        p32(&mut out, offset.min(0xFFFF_FFFF) as u32);
        out.extend_from_slice(name.as_bytes());
        offset += (30 + name.len() + body.len()) as u64;
    }
    let central_size = (out.len() - central_start) as u64;
    let big = n > 0xFFFF;
    if big {
        let at = out.len() as u64;
        out.extend_from_slice(b"PK\x06\x06");
        p64(&mut out, 44);
        p16(&mut out, 0x031e);
        p16(&mut out, 45);
        p64(&mut out, 0);
        p64(&mut out, n as u64);
        p64(&mut out, n as u64);
        p64(&mut out, central_size);
        p64(&mut out, central_start as u64);
        out.extend_from_slice(b"PK\x06\x07");
        p32(&mut out, 0);
        p64(&mut out, at);
        p32(&mut out, 1);
    }
    out.extend_from_slice(b"PK\x05\x06\x00\x00\x00\x00");
    let count = if big { 0xFFFF } else { n as u16 };
    p16(&mut out, count);
    p16(&mut out, count);
    p32(&mut out, central_size.min(0xFFFF_FFFF) as u32);
    p32(&mut out, (central_start as u64).min(0xFFFF_FFFF) as u32);
    p16(&mut out, 0);
    out
}

// ---------------------------------------------------------------------------------------
// Running an archive through the unpackers.

/// How a refusal names its stage: gunzip, unzip, or the PDF check.
pub fn stage(message: &str) -> Option<&'static str> {
    if message.starts_with("gunzip") {
        Some("gunzip")
    } else if message.starts_with("unzip") {
        Some("unzip")
    } else if message.contains("not a PDF")
        || message.contains("document is empty")
        || message.contains("could not produce the document")
    {
        Some("pdf")
    } else {
        None
    }
}

/// Hands `data` to `push` in the given chunk sizes (cycled).
fn in_chunks(
    data: &[u8],
    chunks: &[usize],
    mut push: impl FnMut(&[u8]) -> abws::Result<()>,
) -> abws::Result<()> {
    let mut rest = data;
    let mut i = 0;
    while !rest.is_empty() {
        let n = chunks[i % chunks.len()].clamp(1, rest.len());
        push(&rest[..n])?;
        rest = &rest[n..];
        i += 1;
    }
    Ok(())
}

/// Pushes `data` through a single-document unpacker in the given chunk sizes (cycled).
pub fn single(data: &[u8], chunks: &[usize], max: u64) -> abws::Result<Vec<u8>> {
    let mut out = Vec::new();
    let mut u = StreamUnpacker::new(&mut out, max);
    in_chunks(data, chunks, |c| u.push(c))?;
    u.finish()?;
    Ok(out)
}

/// Pushes `data` through the archive unpacker (`download_all`) in the given chunk sizes.
pub fn all(data: &[u8], chunks: &[usize], max: u64) -> abws::Result<Vec<(String, Vec<u8>)>> {
    let mut u = ArchiveUnpacker::new(max);
    in_chunks(data, chunks, |c| u.push(c))?;
    Ok(u.finish()?
        .into_iter()
        .map(|d| (d.name.clone(), d.data.clone()))
        .collect())
}

/// How an archive fared: refused (stage named or not), accepted, or a panic.
#[derive(Debug, PartialEq)]
pub enum Outcome {
    Refused(Option<&'static str>),
    NotDocument(String),
    Accepted,
    Panicked,
}

fn outcome<T>(r: &std::thread::Result<abws::Result<T>>) -> Outcome {
    match r {
        Ok(Ok(_)) => Outcome::Accepted,
        Ok(Err(e)) if e.kind() == ErrorKind::Document => Outcome::Refused(stage(&e.to_string())),
        Ok(Err(e)) => Outcome::NotDocument(e.to_string()),
        Err(_) => Outcome::Panicked,
    }
}

// ---------------------------------------------------------------------------------------
// The corpora.

/// Which calls must refuse a hostile archive.
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Refuse {
    /// Every call (one document or all).
    Both,
    /// The calls that want one document (`download_all` reads it).
    Single,
}

pub fn hostile() -> Vec<(String, Vec<u8>, Refuse)> {
    use Refuse::*;
    let mut v: Vec<(String, Vec<u8>, Refuse)> = vec![];
    let mut add = |name: &str, data: Vec<u8>, r: Refuse| v.push((name.to_string(), data, r));
    let one = || vec![Ent::new("a.pdf", PDF)];

    // Bombs.
    let big = vec![b'%'; 3 * LIMIT as usize];
    add(
        "zip bomb (declared)",
        gz(&zip(&[Ent::new("a.pdf", &big)])),
        Both,
    );
    add(
        "zip bomb (data descriptor)",
        gz(&zip(&[Ent::new("a.pdf", &big).descriptor()])),
        Both,
    );
    add("gzip bomb", gz(&vec![0u8; 3 * LIMIT as usize]), Both);
    let mut lying = build(&[Ent::new("a.pdf", &[b'%'; 100_000])], &Opts::default());
    put32(&mut lying.bytes, 22, 100); // declares 100 bytes, unpacks 100,000
    add("declared size smaller than the data", lying.bytes, Both);
    add(
        "nested zip",
        zip(&[Ent::new("inner.zip", &zip(&one()))]),
        Both,
    );
    // Overlapping entries (a "better zip bomb"): two central records name one local entry.
    let mut overlap = build(
        &[Ent::new("a.pdf", PDF), Ent::new("b.pdf", PDF)],
        &Opts::default(),
    );
    let at = overlap.centrals[1] + 42;
    put32(&mut overlap.bytes, at, 0);
    add("overlapping entries", overlap.bytes, Both);
    add(
        "many documents splitting the limit",
        zip(&(0..5)
            .map(|i| Ent::new(&format!("{i}.pdf"), &[b'%'; 1 << 20]))
            .collect::<Vec<_>>()),
        Both,
    );

    // Floods.
    add(
        "flood of 20,000 empty files",
        gz(&flood(20_000, false, b"")),
        Both,
    );
    add(
        "flood of 20,000 directories",
        gz(&flood(20_000, true, b"")),
        Both,
    );
    add(
        "flood of 20,000 tiny documents",
        gz(&flood(20_000, false, b"%PDF-")),
        Both,
    );
    add(
        "flood of 5,000 documents",
        zip(&(0..MAX_ENTRIES + 4)
            .map(|i| Ent::new(&format!("{i}.pdf"), PDF).stored())
            .collect::<Vec<_>>()),
        Both,
    );
    add(
        "two documents",
        zip(&[Ent::new("a.pdf", PDF), Ent::new("b.pdf", PDF)]),
        Single,
    );
    add(
        "the same name twice",
        zip(&[Ent::new("a.pdf", PDF), Ent::new("a.pdf", PDF)]),
        Both,
    );
    add(
        "the same name twice, in another case",
        zip(&[Ent::new("a.pdf", PDF), Ent::new("A.PDF", PDF)]),
        Both,
    );

    // Local headers and central directory that disagree.
    let two = || {
        build(
            &[Ent::new("a.pdf", PDF), Ent::new("b.pdf", PDF)],
            &Opts::default(),
        )
    };
    let base = || build(&one(), &Opts::default());
    let patched = |f: &dyn Fn(&mut Built)| changed(base(), f);
    // One field of the first central record: (case, field offset, the change).
    for (name, field, change) in [
        ("central name differs", 46, Field::Byte(|_| b'b')),
        ("central CRC differs", 16, Field::Byte(|x| x ^ 1)),
        (
            "central compressed size differs",
            20,
            Field::Byte(|x| x ^ 1),
        ),
        ("central size differs", 24, Field::Byte(|x| x ^ 1)),
        ("central method differs", 10, Field::U16(0)),
        ("central offset differs", 42, Field::U32(1)),
        ("central says encrypted", 8, Field::Byte(|x| x | 1)),
        ("central disk number", 34, Field::U16(1)),
    ] {
        let change = |b: &mut Built| change.apply(&mut b.bytes, b.centrals[0] + field);
        add(name, patched(&change), Both);
    }
    // The central directory hides the second entry (one reader sees two documents, another
    // one).
    let mut hidden = two();
    let cut = (hidden.centrals[1], hidden.eocd);
    hidden.bytes.drain(cut.0..cut.1);
    let eocd = hidden.eocd - (cut.1 - cut.0);
    put16(&mut hidden.bytes, eocd + 8, 1);
    put16(&mut hidden.bytes, eocd + 10, 1);
    let size = get32(&hidden.bytes, eocd + 12) - (cut.1 - cut.0) as u32;
    put32(&mut hidden.bytes, eocd + 12, size);
    add("central directory lists fewer entries", hidden.bytes, Both);
    let mut extra = base();
    let record = extra.bytes[extra.centrals[0]..extra.eocd].to_vec();
    let eocd = extra.eocd;
    extra.bytes.splice(eocd..eocd, record.iter().copied());
    let e2 = eocd + record.len();
    put16(&mut extra.bytes, e2 + 8, 2);
    put16(&mut extra.bytes, e2 + 10, 2);
    put32(&mut extra.bytes, e2 + 12, 2 * record.len() as u32);
    add("central directory lists more entries", extra.bytes, Both);
    // One field of the end record: (case, field offset, the change).
    for (name, field, change) in [
        ("end record: wrong entry count", 10, Field::U16(2)),
        ("end record: wrong directory size", 12, Field::U32(1)),
        ("end record: wrong directory offset", 16, Field::U32(0)),
        ("end record: another disk", 4, Field::U16(1)),
    ] {
        add(
            name,
            patched(&|b| change.apply(&mut b.bytes, b.eocd + field)),
            Both,
        );
    }
    add(
        "bytes after the end record",
        patched(&|b| b.bytes.extend_from_slice(b"trailing")),
        Both,
    );
    add(
        "a second archive after the first",
        {
            let mut b = base().bytes;
            b.extend_from_slice(&zip(&[Ent::new("evil.pdf", PDF)]));
            b
        },
        Both,
    );
    add(
        "comment shorter than declared",
        patched(&|b| put16(&mut b.bytes, b.eocd + 20, 10)),
        Both,
    );
    add(
        "a local header after the central directory",
        {
            let mut b = base();
            let local = b.bytes[..b.centrals[0]].to_vec();
            let at = b.eocd;
            b.bytes.splice(at..at, local);
            b.bytes
        },
        Both,
    );
    add(
        "bytes before the first entry (self-extracting stub)",
        {
            let mut b = b"MZ stub".to_vec();
            b.extend_from_slice(&base().bytes);
            b
        },
        Both,
    );
    add(
        "bytes between an entry and the directory",
        {
            let mut b = base();
            b.bytes.insert(b.centrals[0], b'x');
            b.bytes
        },
        Both,
    );
    add(
        "no central directory",
        base().bytes[..base().centrals[0]].to_vec(),
        Both,
    );

    // Names.
    for name in [
        "C:\\x.pdf",
        "C:x.pdf",
        "x.pdf:stream",
        "x.pdf::$DATA",
        "CON.pdf",
        "con",
        "nul.tar.pdf",
        "LPT1.pdf",
        "com9",
        "COM\u{b9}.pdf",
        "CONOUT$.pdf",
        "dir/AUX.pdf",
        "../x.pdf",
        "a/../../x.pdf",
        "./x.pdf",
        "/etc/x.pdf",
        "\\x.pdf",
        "a\\..\\x.pdf",
        "a//x.pdf",
        "x.pdf.",
        "x.pdf ",
        "a\nb.pdf",
        "a\u{0}b.pdf",
        "x?.pdf",
        "x*.pdf",
        "x|y.pdf",
        "\"x\".pdf",
        "<x>.pdf",
        "",
    ] {
        add(
            &format!("entry name {name:?}"),
            zip(&[Ent::new(name, PDF)]),
            Both,
        );
    }
    let mut bad_utf8 = Ent::new("x.pdf", PDF);
    bad_utf8.name = b"\xff\xfe.pdf".to_vec();
    add("entry name not UTF-8", zip(&[bad_utf8]), Both);
    add(
        "entry name of 600 bytes",
        zip(&[Ent::new(&"n".repeat(600), PDF)]),
        Both,
    );
    add(
        "entry name part of 300 bytes",
        zip(&[Ent::new(&format!("d/{}.pdf", "n".repeat(300)), PDF)]),
        Both,
    );

    // ZIP64 edges.
    let z64 = || {
        build(
            &[Ent::new("a.pdf", PDF).zip64()],
            &Opts {
                zip64_end: true,
                ..Default::default()
            },
        )
    };
    let z64_patched = |f: &dyn Fn(&mut Built)| changed(z64(), f);
    add(
        "zip64 end record: wrong entry count",
        z64_patched(&|b| b.bytes[b.zip64_end.unwrap() + 32] = 2),
        Both,
    );
    add(
        "zip64 end record: wrong directory offset",
        z64_patched(&|b| b.bytes[b.zip64_end.unwrap() + 48] ^= 1),
        Both,
    );
    add(
        "zip64 end record: impossible size",
        z64_patched(&|b| b.bytes[b.zip64_end.unwrap() + 4..b.zip64_end.unwrap() + 12].fill(0xFF)),
        Both,
    );
    add(
        "zip64 locator points elsewhere",
        z64_patched(&|b| b.bytes[b.zip64_end.unwrap() + 56 + 8] ^= 1),
        Both,
    );
    add(
        "zip64 end record without its locator",
        z64_patched(&|b| {
            let at = b.zip64_end.unwrap() + 56;
            b.bytes.drain(at..at + 20);
        }),
        Both,
    );
    add(
        "zip64 central size differs",
        z64_patched(&|b| b.bytes[b.centrals[0] + 46 + 5 + 4] ^= 1),
        Both,
    );
    add(
        "zip64 local field too short",
        z64_patched(&|b| put16(&mut b.bytes, b.locals[0] + 30 + 5 + 2, 8)),
        Both,
    );
    add(
        "zip64 sentinels without a zip64 field",
        patched(&|b| {
            put32(&mut b.bytes, b.locals[0] + 18, 0xFFFF_FFFF);
            put32(&mut b.bytes, b.locals[0] + 22, 0xFFFF_FFFF);
        }),
        Both,
    );
    add(
        "end record sentinels without a zip64 record",
        patched(&|b| {
            put16(&mut b.bytes, b.eocd + 8, 0xFFFF);
            put16(&mut b.bytes, b.eocd + 10, 0xFFFF);
        }),
        Both,
    );
    add(
        "zip64 size beyond the limit",
        z64_patched(&|b| b.bytes[b.locals[0] + 30 + 5 + 4 + 7] = 0x7F),
        Both,
    );

    // Data descriptors.
    let dd = || build(&[Ent::new("a.pdf", PDF).descriptor()], &Opts::default());
    let dd_patched = |f: &dyn Fn(&mut Built)| changed(dd(), f);
    add(
        "descriptor CRC wrong",
        dd_patched(&|b| b.bytes[b.centrals[0] - 12] ^= 1),
        Both,
    );
    add(
        "descriptor size wrong",
        dd_patched(&|b| b.bytes[b.centrals[0] - 4] ^= 1),
        Both,
    );
    add(
        "stored entry with a descriptor and no size",
        zip(&[Ent::new("a.pdf", PDF).stored().descriptor()]),
        Both,
    );
    add(
        "zip64 descriptor read as a short one",
        {
            let mut b = build(
                &[Ent::new("a.pdf", PDF).descriptor().zip64()],
                &Opts::default(),
            );
            // The local header's zip64 field removed: the descriptor is 8 bytes too long.
            let at = b.locals[0];
            put16(&mut b.bytes, at + 28, 0);
            b.bytes.drain(at + 35..at + 55);
            b.bytes
        },
        Both,
    );

    // Truncations of a good archive (every cut of the zip and of its gzip).
    let good = zip(&one());
    for cut in (0..good.len()).step_by(7) {
        add(&format!("zip cut at {cut}"), good[..cut].to_vec(), Both);
    }
    let good_gz = gz(&good);
    for cut in (0..good_gz.len()).step_by(5) {
        add(&format!("gzip cut at {cut}"), good_gz[..cut].to_vec(), Both);
    }

    // The rest of the damage.
    let mut bad_crc = gz(&good);
    let n = bad_crc.len();
    bad_crc[n - 6] ^= 0xff;
    add("bad gzip crc", bad_crc, Both);
    add("gzip of text", gz(b"not a zip at all"), Both);
    add("empty zip", zip(&[]), Both);
    add("directory only", zip(&[Ent::new("d/", b"").stored()]), Both);
    add(
        "directory with data",
        zip(&[Ent::new("d/", b"data").stored(), Ent::new("a.pdf", PDF)]),
        Both,
    );
    add("not a pdf", zip(&[Ent::new("a.txt", b"plain text")]), Both);
    add("empty entry", zip(&[Ent::new("a.pdf", b"")]), Both);
    add(
        "encrypted entry",
        patched(&|b| {
            b.bytes[b.locals[0] + 6] |= 1;
            b.bytes[b.centrals[0] + 8] |= 1;
        }),
        Both,
    );
    let mut bzip2 = Ent::new("a.pdf", PDF).stored();
    bzip2.method = 12;
    add("unknown method", zip(&[bzip2]), Both);
    add(
        "stored entry with a bad CRC",
        {
            let mut b = zip(&[Ent::new("a.pdf", PDF).stored()]);
            b[30 + 5 + 10] ^= 1;
            b
        },
        Both,
    );
    add(
        "damaged deflate data",
        {
            let big = (0..20_000u32)
                .flat_map(|i| i.to_le_bytes())
                .collect::<Vec<_>>();
            let mut d = b"%PDF-".to_vec();
            d.extend_from_slice(&big);
            let mut b = zip(&[Ent::new("a.pdf", &d)]);
            b[60] ^= 0x55;
            b
        },
        Both,
    );
    add("nothing", vec![], Both);
    add("gzip magic only", vec![0x1f, 0x8b], Both);
    add(
        "a local header cut short",
        b"PK\x03\x04garbage".to_vec(),
        Both,
    );
    add(
        "error document",
        zip(&[Ent::new(
            "error.json",
            br#"{"errorCode":"CLIENT_ERROR","errorMessage":"no","inputParams":{}}"#,
        )]),
        Both,
    );
    v
}

/// Valid archives, all of which must be read (the same through every chunking).
/// Documents by name, as an unpacker returns them.
pub type Docs = Vec<(String, Vec<u8>)>;

pub fn valid() -> Vec<(String, Vec<u8>, Docs)> {
    use zip::write::SimpleFileOptions as O;
    let pdf2 = [PDF, b"2 0 obj<<>>endobj\n%%EOF\n"].concat();
    let docs = |names: &[(&str, &[u8])]| {
        names
            .iter()
            .filter(|(n, _)| !n.ends_with('/'))
            .map(|(n, d)| (n.to_string(), d.to_vec()))
            .collect::<Vec<_>>()
    };
    let mut v = vec![];
    let sets: Vec<Vec<(&str, &[u8])>> = vec![
        vec![("INV-JP-1.pdf", PDF)],
        vec![("INV-1.pdf", PDF), ("CM-1.pdf", &pdf2)],
        vec![("dir/", b""), ("dir/INV-1.pdf", PDF)],
    ];
    for set in &sets {
        for (what, o) in [
            ("deflate", O::default()),
            (
                "stored",
                O::default().compression_method(zip::CompressionMethod::Stored),
            ),
            ("zip64 (large_file)", O::default().large_file(true)),
        ] {
            let z = crate_zip(set, o);
            v.push((
                format!("zip crate, {what}, {} entries", set.len()),
                z.clone(),
                docs(set),
            ));
            v.push((
                format!("gzip of it ({what}, {})", set.len()),
                gz(&z),
                docs(set),
            ));
        }
        let mut w = zip::ZipWriter::new_stream(Vec::new());
        for (name, data) in set {
            if name.ends_with('/') {
                w.add_directory(*name, O::default()).unwrap();
            } else {
                w.start_file(*name, O::default()).unwrap();
                w.write_all(data).unwrap();
            }
        }
        w.set_comment("a comment").unwrap();
        let streamed = w.finish().unwrap().into_inner();
        v.push((
            format!("zip crate, streamed, {}", set.len()),
            streamed,
            docs(set),
        ));
    }
    let ours: Vec<(&str, Vec<Ent>, Opts)> = vec![
        (
            "ours, descriptor",
            vec![Ent::new("a.pdf", PDF).descriptor()],
            Opts::default(),
        ),
        (
            "ours, descriptor without signature",
            vec![{
                let mut e = Ent::new("a.pdf", PDF).descriptor();
                e.descriptor_sig = false;
                e
            }],
            Opts::default(),
        ),
        (
            "ours, zip64 everywhere",
            vec![
                Ent::new("a.pdf", PDF).zip64(),
                Ent::new("b.pdf", &pdf2).zip64().descriptor(),
            ],
            Opts {
                zip64_end: true,
                comment: b"hello".to_vec(),
            },
        ),
        (
            "ours, stored",
            vec![Ent::new("a.pdf", PDF).stored()],
            Opts::default(),
        ),
    ];
    for (what, ents, opts) in ours {
        let expect = ents
            .iter()
            .map(|e| (String::from_utf8(e.name.clone()).unwrap(), e.data.clone()))
            .collect();
        v.push((what.to_string(), build(&ents, &opts).bytes, expect));
    }
    v.push((
        "a bare PDF".into(),
        PDF.to_vec(),
        vec![("document.pdf".into(), PDF.to_vec())],
    ));
    v.push((
        "gzip of a PDF".into(),
        gz(PDF),
        vec![("document.pdf".into(), PDF.to_vec())],
    ));
    v
}

const CHUNKINGS: [&[usize]; 5] = [&[1], &[7], &[4096], &[65536], &[3, 1, 100, 17, 65536]];

/// Runs the hostile corpus: (refused as expected with the stage named, total, panics,
/// the slowest case, what went wrong).
pub fn run_hostile() -> (usize, usize, usize, Duration, Vec<String>) {
    let corpus = hostile();
    let (mut ok, mut panics, mut slowest, mut wrong) = (0, 0, Duration::ZERO, vec![]);
    for (name, data, refuse) in &corpus {
        let mut good = true;
        for chunks in CHUNKINGS {
            let t = Instant::now();
            let s = outcome(&std::panic::catch_unwind(AssertUnwindSafe(|| {
                single(data, chunks, LIMIT)
            })));
            let a = outcome(&std::panic::catch_unwind(AssertUnwindSafe(|| {
                all(data, chunks, LIMIT)
            })));
            slowest = slowest.max(t.elapsed());
            panics += usize::from(s == Outcome::Panicked) + usize::from(a == Outcome::Panicked);
            let expect_all_refused = *refuse == Refuse::Both;
            let fine = |o: &Outcome, must: bool| match o {
                Outcome::Refused(Some(_)) => true,
                Outcome::Accepted => !must,
                _ => false,
            };
            if !fine(&s, true) || !fine(&a, expect_all_refused) {
                good = false;
                wrong.push(format!(
                    "{name} in chunks of {chunks:?}: one {s:?}, all {a:?}"
                ));
                break;
            }
        }
        ok += usize::from(good);
    }
    (ok, corpus.len(), panics, slowest, wrong)
}

/// Runs the valid corpus: (read as expected, total, what went wrong).
pub fn run_valid() -> (usize, usize, Vec<String>) {
    let corpus = valid();
    let mut ok = 0;
    let mut wrong = vec![];
    for (name, data, expect) in &corpus {
        let mut good = true;
        for chunks in CHUNKINGS {
            let got = all(data, chunks, LIMIT);
            let one = single(data, chunks, LIMIT);
            let fine = match (&got, &one) {
                (Ok(docs), Ok(pdf)) => docs == expect && expect.len() == 1 && pdf == &expect[0].1,
                (Ok(docs), Err(e)) => {
                    docs == expect && expect.len() > 1 && e.to_string().contains("more than one")
                }
                _ => false,
            };
            if !fine {
                good = false;
                wrong.push(format!(
                    "{name} in chunks of {chunks:?}: all {:?}, one {:?}",
                    got.as_ref().map(|d| d.len()).map_err(|e| e.to_string()),
                    one.as_ref().map(|d| d.len()).map_err(|e| e.to_string())
                ));
                break;
            }
        }
        ok += usize::from(good);
    }
    (ok, corpus.len(), wrong)
}

// ---------------------------------------------------------------------------------------
// The fuzz run.

/// A small seeded generator (splitmix64): the same cases on every run and every machine.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// One mutation of `data`, guided by what a zip holds (lengths, sizes, signatures).
fn mutate(rng: &mut Rng, data: &mut Vec<u8>, donors: &[Vec<u8>]) {
    const INTERESTING: [u32; 10] = [
        0,
        1,
        0x7F,
        0x80,
        0xFF,
        0xFFFF,
        0x1_0000,
        0x7FFF_FFFF,
        0xFFFF_FFFE,
        0xFFFF_FFFF,
    ];
    const SIGNATURES: [&[u8]; 6] = [
        b"PK\x03\x04",
        b"PK\x01\x02",
        b"PK\x05\x06",
        b"PK\x06\x06",
        b"PK\x06\x07",
        b"PK\x07\x08",
    ];
    if data.is_empty() {
        data.push(rng.next() as u8);
        return;
    }
    let at = rng.below(data.len());
    match rng.below(10) {
        0 => data[at] ^= 1 << rng.below(8),
        1 => data[at] = rng.next() as u8,
        2 if data.len() >= at + 2 => {
            let v = INTERESTING[rng.below(INTERESTING.len())] as u16;
            data[at..at + 2].copy_from_slice(&v.to_le_bytes());
        }
        3 if data.len() >= at + 4 => {
            let v = INTERESTING[rng.below(INTERESTING.len())];
            data[at..at + 4].copy_from_slice(&v.to_le_bytes());
        }
        4 => {
            let n = rng.below(64).min(data.len() - at);
            data.drain(at..at + n);
        }
        5 => {
            let n = rng.below(64);
            let bytes: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
            data.splice(at..at, bytes);
        }
        6 => {
            let sig = SIGNATURES[rng.below(SIGNATURES.len())];
            let end = (at + 4).min(data.len());
            data.splice(at..end, sig.iter().copied());
        }
        7 => {
            // A range copied elsewhere (records repeated, entries duplicated).
            let n = rng.below(256).min(data.len() - at);
            let piece = data[at..at + n].to_vec();
            let to = rng.below(data.len());
            data.splice(to..to, piece);
        }
        8 => data.truncate(at),
        _ => {
            // Splice with another archive.
            let d = &donors[rng.below(donors.len())];
            if !d.is_empty() {
                let from = rng.below(d.len());
                data.truncate(at);
                data.extend_from_slice(&d[from..]);
            }
        }
    }
}

/// What the fuzz run found.
pub struct FuzzReport {
    pub cases: usize,
    pub accepted: usize,
    pub refused: usize,
    pub panics: usize,
    /// Refusals that were not a DocumentError naming its stage.
    pub untyped: Vec<String>,
    /// Accepted archives the zip crate reads differently.
    pub differential: Vec<String>,
    pub slowest: Duration,
    pub seconds: f64,
}

/// Feeds mutated archives through both unpackers, in random chunk sizes (1..64K), for at
/// most `budget` or `max_cases`; seeded, so a failure replays.
pub fn fuzz(seed: u64, budget: Duration, max_cases: usize) -> FuzzReport {
    let mut rng = Rng::new(seed);
    let seeds: Vec<Vec<u8>> = valid().into_iter().map(|(_, d, _)| d).collect();
    // Mutate the zip under the gzip too: unzipped seeds, gzipped after mutation.
    let started = Instant::now();
    let mut r = FuzzReport {
        cases: 0,
        accepted: 0,
        refused: 0,
        panics: 0,
        untyped: vec![],
        differential: vec![],
        slowest: Duration::ZERO,
        seconds: 0.0,
    };
    while r.cases < max_cases && started.elapsed() < budget {
        let mut data = seeds[rng.below(seeds.len())].clone();
        let gzipped = data.starts_with(&[0x1f, 0x8b]);
        if gzipped && rng.below(2) == 0 {
            // Under the gzip: unwrap, mutate, wrap again.
            let mut d = flate2::read::MultiGzDecoder::new(&data[..]);
            let mut inner = vec![];
            std::io::Read::read_to_end(&mut d, &mut inner).unwrap();
            for _ in 0..1 + rng.below(4) {
                mutate(&mut rng, &mut inner, &seeds);
            }
            data = gz_level(&inner, flate2::Compression::fast());
        } else {
            for _ in 0..1 + rng.below(4) {
                mutate(&mut rng, &mut data, &seeds);
            }
        }
        let chunks: Vec<usize> = (0..8)
            .map(|_| match rng.below(3) {
                0 => 1 + rng.below(16),
                1 => 1 + rng.below(4096),
                _ => 1 + rng.below(65536),
            })
            .collect();
        let t = Instant::now();
        let s = std::panic::catch_unwind(AssertUnwindSafe(|| single(&data, &chunks, LIMIT)));
        let a = std::panic::catch_unwind(AssertUnwindSafe(|| all(&data, &chunks, LIMIT)));
        r.slowest = r.slowest.max(t.elapsed());
        r.cases += 1;
        for o in [outcome(&s), outcome(&a)] {
            match o {
                Outcome::Accepted => r.accepted += 1,
                Outcome::Refused(Some(_)) => r.refused += 1,
                Outcome::Panicked => r.panics += 1,
                other => {
                    if r.untyped.len() < 5 {
                        r.untyped
                            .push(format!("case {} (seed {seed}): {other:?}", r.cases));
                    }
                }
            }
        }
        // What we accept, the zip crate must read the same (when it reads it at all).
        if let Ok(Ok(docs)) = &a {
            if let Some(theirs) = zip_crate_reads(&data) {
                if &theirs != docs && r.differential.len() < 5 {
                    r.differential
                        .push(format!("case {} (seed {seed})", r.cases));
                }
            }
        }
    }
    r.seconds = started.elapsed().as_secs_f64();
    r
}

/// The documents the zip crate reads from an archive (gunzipped first), directories left
/// out; `None` when it cannot read it or it is not a zip.
pub fn zip_crate_reads(data: &[u8]) -> Option<Vec<(String, Vec<u8>)>> {
    let mut bytes = data.to_vec();
    if data.starts_with(&[0x1f, 0x8b]) {
        bytes.clear();
        std::io::Read::read_to_end(&mut flate2::read::MultiGzDecoder::new(data), &mut bytes)
            .ok()?;
    }
    if !bytes.starts_with(b"PK") {
        return None;
    }
    let mut z = zip::ZipArchive::new(std::io::Cursor::new(bytes)).ok()?;
    let mut out = vec![];
    for i in 0..z.len() {
        let mut f = z.by_index(i).ok()?;
        if f.is_dir() {
            continue;
        }
        let mut d = vec![];
        std::io::Read::read_to_end(&mut f, &mut d).ok()?;
        out.push((f.name().ok()?.to_string(), d));
    }
    Some(out)
}

/// The issue's flood: `n` empty deflate entries, all named `a` and all alike, without a
/// central directory (the refusal comes long before it): a million of them gzip to about
/// 100 KB.
pub fn alike_flood(n: usize) -> Vec<u8> {
    let mut entry = b"PK\x03\x04\x14\x00\x00\x00\x08\x00\x00\x00\x21\x00".to_vec();
    p32(&mut entry, 0);
    p32(&mut entry, 2);
    p32(&mut entry, 0);
    p16(&mut entry, 1);
    p16(&mut entry, 0);
    entry.extend_from_slice(b"a\x03\x00");
    entry.repeat(n)
}

/// The floods, each refused by the calls it targets. Returns, per flood, (what, gzip
/// bytes, seconds to refuse, the error).
pub fn flood_figures(distinct: usize) -> Vec<(String, usize, f64, String)> {
    let max = abws::documents::DEFAULT_MAX_DOCUMENT_BYTES;
    let mut out = vec![];
    let issue = gz_level(&alike_flood(1_000_000), flate2::Compression::best());
    let tiny = gz_level(
        &flood(distinct, false, b"%PDF-"),
        flate2::Compression::fast(),
    );
    let dirs = gz_level(&flood(distinct, true, b""), flate2::Compression::fast());
    let cases = [
        (
            "1,000,000 empty entries named alike, one document".to_string(),
            &issue,
            false,
        ),
        (
            "1,000,000 empty entries named alike, download_all".to_string(),
            &issue,
            true,
        ),
        (format!("{distinct} tiny PDFs, one document"), &tiny, false),
        (format!("{distinct} tiny PDFs, download_all"), &tiny, true),
        (format!("{distinct} directories, download_all"), &dirs, true),
    ];
    for (what, packed, every) in cases {
        let t = Instant::now();
        let e = if every {
            all(packed, &[64 * 1024], max).map(|_| ()).unwrap_err()
        } else {
            single(packed, &[64 * 1024], max).map(|_| ()).unwrap_err()
        };
        out.push((what, packed.len(), t.elapsed().as_secs_f64(), e.to_string()));
    }
    out
}

// ---------------------------------------------------------------------------------------
// The regression tests.

#[test]
fn the_hostile_corpus_is_refused_with_its_stage_named() {
    let (ok, total, panics, slowest, wrong) = run_hostile();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert_eq!((ok, panics), (total, 0));
    println!("{total} hostile archives refused; slowest {slowest:?}");
}

#[test]
fn the_valid_corpus_is_read_the_same_in_every_chunking() {
    let (ok, total, wrong) = run_valid();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert_eq!(ok, total);
    // The zip crate reads them the same.
    for (name, data, expect) in valid() {
        if let Some(theirs) = zip_crate_reads(&data) {
            assert_eq!(theirs, expect, "{name}");
        }
    }
}

#[test]
fn a_flood_of_entries_is_refused_at_once() {
    // Small: the figure (a million entries) is the scorecard's (G10).
    let one = single(&gz(&flood(20_000, false, b"%PDF-")), &[65536], LIMIT).unwrap_err();
    assert!(one.to_string().contains("more than one document"), "{one}");
    let empty = single(&gz(&flood(20_000, false, b"")), &[65536], LIMIT).unwrap_err();
    assert!(empty.to_string().contains("empty"), "{empty}");
    for dirs in [true, false] {
        let e = all(&gz(&flood(20_000, dirs, b"%PDF-")), &[65536], LIMIT).unwrap_err();
        assert!(e.to_string().contains("more than 4096 entries"), "{e}");
    }
    // unpack_all is the same unpacker.
    assert!(unpack_all(&flood(5000, true, b""), LIMIT).is_err());
}

#[test]
fn a_short_fuzz_run_finds_nothing() {
    // The scorecard (G12) runs the long one.
    let r = fuzz(1, Duration::from_secs(3), 3000);
    assert_eq!(r.panics, 0);
    assert!(r.untyped.is_empty(), "{:?}", r.untyped);
    assert!(r.differential.is_empty(), "{:?}", r.differential);
    assert!(r.slowest < Duration::from_secs(2), "{:?}", r.slowest);
}

#[test]
#[ignore = "the scorecard's G10 measures it"]
fn flood_figures_print() {
    let t = Instant::now();
    for f in flood_figures(100_000) {
        println!("{f:?}");
    }
    println!("total {:?}", t.elapsed());
}
