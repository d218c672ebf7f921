//! Report archives: files zipped, then the zip gzipped (as the service delivers PDFs).

use std::io::{Cursor, Write};

use flate2::write::GzEncoder;
use flate2::Compression;
use zip::write::SimpleFileOptions;

pub fn zip_then_gzip(files: &[(String, Vec<u8>)]) -> std::io::Result<Vec<u8>> {
    let mut zw = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let opts = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    for (name, bytes) in files {
        zw.start_file(name.as_str(), opts)
            .map_err(std::io::Error::other)?;
        zw.write_all(bytes)?;
    }
    let zipped = zw.finish().map_err(std::io::Error::other)?.into_inner();
    let mut gz = GzEncoder::new(Vec::new(), Compression::default());
    gz.write_all(&zipped)?;
    gz.finish()
}
