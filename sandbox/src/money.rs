//! Exact money on the wire. JSON numbers are emitted with the decimal's own digits: values are
//! built with a marker string that `render` turns into a bare number after serialisation, so no
//! f64 ever touches an amount.

use rust_decimal::Decimal;
use serde_json::{json, Value};

const MARK: &str = "\u{1}N:";
const MARK_JSON: &str = "\"\\u0001N:";

/// A JSON number with exactly the digits of `d`.
pub fn num(d: Decimal) -> Value {
    Value::String(format!("{MARK}{d}"))
}

/// Money with a numeric amount.
pub fn money(d: Decimal, currency: &str) -> Value {
    json!({"currencyCode": currency, "amount": num(d)})
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
    let s = v.to_string();
    if !s.contains(MARK_JSON) {
        return s;
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s.as_str();
    while let Some(p) = rest.find(MARK_JSON) {
        out.push_str(&rest[..p]);
        let after = &rest[p + MARK_JSON.len()..];
        match after.find('"') {
            Some(q) => {
                let digits = &after[..q];
                // Only well-formed decimals become bare numbers; anything else stays a string.
                if !digits.is_empty()
                    && digits
                        .chars()
                        .all(|c| c.is_ascii_digit() || c == '-' || c == '.')
                {
                    out.push_str(digits);
                } else {
                    out.push_str(&rest[p..p + MARK_JSON.len() + q + 1]);
                }
                rest = &after[q + 1..];
            }
            None => {
                rest = after;
                break;
            }
        }
    }
    out.push_str(rest);
    out
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
}
