//! Exact money on the wire. JSON numbers are emitted with the decimal's own digits: values are
//! built with a marker string that `render` turns into a bare number after serialisation, so no
//! f64 ever touches an amount.

use rust_decimal::Decimal;
use serde_json::{json, Value};

const MARK: &str = "\u{1}N:";

/// A JSON number with exactly the digits of `d`.
pub fn num(d: Decimal) -> Value {
    Value::String(format!("{MARK}{d}"))
}

/// A tax line: the rate as text, the totals with and without the tax `tax` on `exclusive`,
/// and the tax; the rate and the tax under the names `(rate_key, tax_key)` of the interface.
pub fn tax_line(
    (rate_key, tax_key): (&str, &str),
    rate: Decimal,
    exclusive: Decimal,
    tax: Decimal,
    currency: &str,
) -> Value {
    let mut m = serde_json::Map::new();
    m.insert(rate_key.into(), crate::regions::rate_text(rate).into());
    m.insert("inclusiveTotal".into(), money(exclusive + tax, currency));
    m.insert("exclusiveTotal".into(), money(exclusive, currency));
    m.insert(tax_key.into(), money(tax, currency));
    Value::Object(m)
}

/// Money with a numeric amount.
pub fn money(d: Decimal, currency: &str) -> Value {
    obj!({"currencyCode": currency, "amount": num(d)})
}

/// `d` with exactly `scale` decimals (adds trailing zeros or rounds).
pub fn with_scale(d: Decimal, scale: u32) -> String {
    let mut x = d.round_dp(scale);
    x.rescale(scale);
    x.to_string()
}

/// Money with a string amount (reconciliation).
pub fn money_str(d: Decimal, currency: &str, scale: u32) -> Value {
    json!({"currencyCode": currency, "amount": with_scale(d, scale)})
}

/// Serialises `v`, turning number markers into bare numbers.
pub fn render(v: &Value) -> String {
    let bytes = render_bytes(v);
    // Only JSON text was written: serde_json's escaped strings and ASCII.
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// [`render`] as the bytes of a body: one walk of the tree, written once (a response's
/// whole cost is this and building the tree; `Display` went through `fmt` and then a
/// second pass looked for the markers).
pub fn render_bytes(v: &Value) -> Vec<u8> {
    let mut out = Vec::with_capacity(1024);
    write(&mut out, v);
    out
}

fn write(out: &mut Vec<u8>, v: &Value) {
    match v {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
        Value::Number(n) => {
            let _ = serde_json::to_writer(&mut *out, n);
        }
        Value::String(s) => match s.strip_prefix(MARK) {
            // Only well-formed decimals become bare numbers; anything else stays a string.
            Some(digits)
                if !digits.is_empty()
                    && digits
                        .bytes()
                        .all(|c| c.is_ascii_digit() || c == b'-' || c == b'.') =>
            {
                out.extend_from_slice(digits.as_bytes())
            }
            _ => write_str(out, s),
        },
        Value::Array(a) => {
            out.push(b'[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write(out, x);
            }
            out.push(b']');
        }
        Value::Object(m) => {
            out.push(b'{');
            for (i, (k, x)) in m.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_str(out, k);
                out.push(b':');
                write(out, x);
            }
            out.push(b'}');
        }
    }
}

/// A JSON string, escaped as serde_json escapes it. (Writing a str or a number to a Vec
/// cannot fail.)
fn write_str(out: &mut Vec<u8>, s: &str) {
    let _ = serde_json::to_writer(&mut *out, s);
}

pub fn dec(units: i64, scale: u32) -> Decimal {
    Decimal::new(units, scale)
}

/// Currency of a region.
pub fn currency(region: &str) -> &'static str {
    crate::regions::profile(region).currency
}

/// Converts a yen price into a region's currency (fixed sandbox rates, 2 decimals).
pub fn convert(jpy: Decimal, region: &str) -> Decimal {
    let per_yen = match currency(region) {
        "USD" => dec(67, 4),
        "CAD" => dec(92, 4),
        "MXN" => dec(1150, 4),
        "GBP" => dec(53, 4),
        "EUR" => dec(62, 4),
        "INR" => dec(5600, 4),
        "AUD" => dec(102, 4),
        _ => return jpy,
    };
    crate::regions::cents(jpy * per_yen)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn render_keeps_digits() {
        let v = json!({"a": num(dec(1230, 2)), "b": [num(dec(-500, 1))], "c": "x"});
        assert_eq!(render(&v), r#"{"a":12.30,"b":[-50.0],"c":"x"}"#);
        assert_eq!(with_scale(dec(1751, 0), 1), "1751.0");
        let v = json!({"x": "\u{1}N:1}"});
        assert!(serde_json::from_str::<Value>(&render(&v)).is_ok());
        assert_eq!(with_scale(dec(-61, 0), 2), "-61.00");
    }

    #[test]
    fn render_writes_what_serde_json_writes_without_markers() {
        let v = json!({"s": "a\"b\\c\u{7}\u{1}é/", "n": 1.5, "i": -3, "u": 18446744073709551615u64,
            "t": true, "f": false, "z": null, "e": [], "o": {}, "k\n": [{"x": [1, "2"]}]});
        assert_eq!(render(&v), serde_json::to_string(&v).unwrap());
        // A marker only counts at a string's start, and never in a key.
        let v = json!({"\u{1}N:1": "x\u{1}N:2", "m": "\u{1}N:", "d": num(dec(7, 0))});
        assert_eq!(
            render(&v),
            r#"{"\u0001N:1":"x\u0001N:2","d":7,"m":"\u0001N:"}"#
        );
    }
}
