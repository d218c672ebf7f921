//! A small, valid, hand-written PDF 1.4 (one page, Helvetica, correct xref table).

fn escape(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_ascii() && !c.is_ascii_control())
        .map(|c| match c {
            '(' => "\\(".to_string(),
            ')' => "\\)".to_string(),
            '\\' => "\\\\".to_string(),
            c => c.to_string(),
        })
        .collect()
}

/// A one-page PDF showing `lines` (the first in a larger font).
pub fn render(lines: &[String]) -> Vec<u8> {
    let mut content = String::from("BT\n/F1 16 Tf\n50 790 Td\n");
    for (i, l) in lines.iter().take(48).enumerate() {
        if i == 1 {
            content.push_str("/F1 10 Tf\n");
        }
        if i > 0 {
            content.push_str("0 -15 Td\n");
        }
        content.push_str(&format!("({}) Tj\n", escape(l)));
    }
    content.push_str("ET\n");
    let objects = [
        "<< /Type /Catalog /Pages 2 0 R >>".to_string(),
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_string(),
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>".to_string(),
        format!("<< /Length {} >>\nstream\n{}endstream", content.len(), content),
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".to_string(),
    ];
    let mut out: Vec<u8> = b"%PDF-1.4\n%\xE2\xE3\xCF\xD3\n".to_vec();
    let mut offsets = Vec::new();
    for (i, o) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n{}\nendobj\n", i + 1, o).as_bytes());
    }
    let xref = out.len();
    out.extend_from_slice(
        format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes(),
    );
    for off in offsets {
        out.extend_from_slice(format!("{off:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{}\n%%EOF\n",
            objects.len() + 1,
            xref
        )
        .as_bytes(),
    );
    out
}

#[cfg(test)]
mod tests {
    fn at(hay: &[u8], off: usize, needle: &str) -> bool {
        hay[off..].starts_with(needle.as_bytes())
    }

    #[test]
    fn xref_offsets_point_at_objects() {
        let pdf = super::render(&["Invoice JP123".into(), "a (b) c".into()]);
        assert!(pdf.starts_with(b"%PDF-1.4"));
        let sx = pdf.windows(10).rposition(|w| w == b"startxref\n").unwrap();
        let tail = String::from_utf8(pdf[sx + 10..].to_vec()).unwrap();
        let off: usize = tail.lines().next().unwrap().parse().unwrap();
        assert!(at(&pdf, off, "xref"));
        let table = String::from_utf8(pdf[off..].to_vec()).unwrap();
        for (i, line) in table.lines().skip(3).take(5).enumerate() {
            let o: usize = line[..10].parse().unwrap();
            assert!(at(&pdf, o, &format!("{} 0 obj", i + 1)));
            assert_eq!(line.len() + 1, 20);
        }
        assert!(String::from_utf8_lossy(&pdf).contains("(Invoice JP123) Tj"));
        assert!(String::from_utf8_lossy(&pdf).contains("(a \\(b\\) c) Tj"));
    }
}
