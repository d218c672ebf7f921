//! A look at one top-level field of a JSON object's text without decoding the rest: how a
//! one-of (an invoice artifact, by its `artifactType`) is told apart before it is read in
//! its shape. serde reading the object into a one-field struct validates and skips every
//! nested value (a third pass over the artifact); this scan only walks past them.
//!
//! It answers only where that is exact: the text must already be one valid JSON value
//! (a `RawValue`), and anything unusual (an escape in a top-level key or in the field's
//! value, a value that is neither a string nor `null`, a repeated key, not an object) is
//! left to serde, which gives the same answer or the same error as before.

/// The top-level field `key` of the object `raw`: `Some(Some(text))` for a string without
/// escapes, `Some(None)` when the field is absent or `null`, `None` when serde must decide.
pub(crate) fn top_level_str<'a>(raw: &'a str, key: &str) -> Option<Option<&'a str>> {
    let b = raw.as_bytes();
    let mut i = skip_ws(b, 0);
    if b.get(i) != Some(&b'{') {
        return None;
    }
    i += 1;
    let mut found: Option<Option<&'a str>> = None;
    loop {
        i = skip_ws(b, i);
        match b.get(i)? {
            b'}' => break,
            b'"' => {}
            _ => return None,
        }
        let (name, next) = plain_string(raw, i)?;
        i = skip_ws(b, next);
        if b.get(i) != Some(&b':') {
            return None;
        }
        i = skip_ws(b, i + 1);
        if name == key {
            if found.is_some() {
                return None;
            }
            if b.get(i) == Some(&b'"') {
                let (value, next) = plain_string(raw, i)?;
                found = Some(Some(value));
                i = next;
            } else if b[i..].starts_with(b"null") {
                found = Some(None);
                i += 4;
            } else {
                return None;
            }
        } else {
            i = skip_value(b, i)?;
        }
        i = skip_ws(b, i);
        match b.get(i)? {
            b',' => i += 1,
            b'}' => break,
            _ => return None,
        }
    }
    Some(found.flatten())
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while matches!(b.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        i += 1;
    }
    i
}

/// The string starting at `raw[i]` (a `"`) and the index after it; `None` if it holds an
/// escape (its text is then not its value) or does not end.
fn plain_string(raw: &str, i: usize) -> Option<(&str, usize)> {
    let b = raw.as_bytes();
    let len = b[i + 1..].iter().position(|&c| c == b'"' || c == b'\\')?;
    let end = i + 1 + len;
    (b[end] == b'"').then(|| (&raw[i + 1..end], end + 1))
}

/// The index after the value starting at `b[i]` (valid JSON assumed; `None` if it ends first).
fn skip_value(b: &[u8], mut i: usize) -> Option<usize> {
    let mut depth = 0usize;
    loop {
        match *b.get(i)? {
            b'"' => {
                i += 1;
                loop {
                    i += b.get(i..)?.iter().position(|&c| c == b'"' || c == b'\\')?;
                    if b[i] == b'"' {
                        break;
                    }
                    i += 2;
                }
                i += 1;
            }
            b'{' | b'[' => {
                depth += 1;
                i += 1;
            }
            b'}' | b']' => {
                if depth == 0 {
                    return Some(i);
                }
                depth -= 1;
                i += 1;
            }
            b',' if depth == 0 => return Some(i),
            _ => i += 1,
        }
        if depth == 0 && matches!(b.get(i), Some(b',' | b'}' | b']') | None) {
            return Some(i);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::top_level_str;

    #[test]
    fn finds_the_top_level_field_or_leaves_it_to_serde() {
        let k = "artifactType";
        for (raw, want) in [
            (r#"{"artifactType":"A","x":1}"#, Some(Some("A"))),
            (
                r#" { "x" : [1, {"artifactType":"N"}], "artifactType" : "B" } "#,
                Some(Some("B")),
            ),
            (
                r#"{"x":"a\"}b","y":{"z":"}"},"artifactType":"C"}"#,
                Some(Some("C")),
            ),
            (r#"{"x":-1.5e3,"y":true,"z":null}"#, Some(None)),
            (r#"{"artifactType":null}"#, Some(None)),
            (r#"{}"#, Some(None)),
            (r#"{"x":[[],{}],"artifactType":"D"}"#, Some(Some("D"))),
            // serde decides: an escape, another type, a repeated key, not an object
            (r#"{"artifactType":"Billing\u0044etails"}"#, None),
            (r#"{"artifact\u0054ype":"A"}"#, None),
            (r#"{"artifactType":1}"#, None),
            (r#"{"artifactType":"A","artifactType":"B"}"#, None),
            (r#""text""#, None),
            (r#"["A"]"#, None),
        ] {
            assert_eq!(top_level_str(raw, k), want, "{raw}");
        }
    }
}
