//! What the unpacker's tests feed it: archives built by the zip and flate2 crates, a PDF, a
//! failing writer. The integration tests (`core/tests/it/main.rs`) compile this file too.

use std::io::Write;

pub fn zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (name, data) in entries {
        w.start_file(*name, zip::write::SimpleFileOptions::default())
            .unwrap();
        w.write_all(data).unwrap();
    }
    w.finish().unwrap().into_inner()
}

pub fn stored_zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
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
pub fn streamed_zip_of(entries: &[(&str, &[u8])], method: zip::CompressionMethod) -> Vec<u8> {
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

pub fn gzip_of(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// A PDF of `n` bytes, partly compressible and partly not.
pub fn big_pdf(n: usize) -> Vec<u8> {
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

/// A writer that accepts 100 bytes, then fails ("disk full").
pub struct FailingWriter(pub usize);

impl Write for FailingWriter {
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
