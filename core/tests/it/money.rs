//! Exact money: both wire forms read without a float and written back as they came.

use abws::{Amount, AmountForm, Decimal, Money};
use std::str::FromStr;

fn round_trip(json: &str) -> (Money, String) {
    let m: Money = serde_json::from_str(json).unwrap();
    let back = serde_json::to_string(&m).unwrap();
    (m, back)
}

#[test]
fn number_form_round_trips_exactly() {
    let (m, back) = round_trip(r#"{"currencyCode":"JPY","amount":1234567.89}"#);
    assert_eq!(m.value(), Decimal::from_str("1234567.89").unwrap());
    assert_eq!(m.amount.form(), AmountForm::Number);
    assert_eq!(back, r#"{"currencyCode":"JPY","amount":1234567.89}"#);
}

#[test]
fn scale_is_kept() {
    let (m, back) = round_trip(r#"{"currencyCode":"USD","amount":0.10}"#);
    assert_eq!(m.value().to_string(), "0.10");
    assert_eq!(back, r#"{"currencyCode":"USD","amount":0.10}"#);
    let (_, back) = round_trip(r#"{"currencyCode":"USD","amount":"1751.0"}"#);
    assert_eq!(back, r#"{"currencyCode":"USD","amount":"1751.0"}"#);
}

#[test]
fn string_form_round_trips_exactly() {
    let (m, back) = round_trip(r#"{"currencyCode":"USD","amount":"19.99"}"#);
    assert_eq!(m.value(), Decimal::from_str("19.99").unwrap());
    assert_eq!(m.amount.form(), AmountForm::String);
    assert_eq!(back, r#"{"currencyCode":"USD","amount":"19.99"}"#);
}

#[test]
fn empty_currency_and_negative_values() {
    let (m, back) = round_trip(r#"{"currencyCode":"","amount":"0"}"#);
    assert_eq!(m.currency(), "");
    assert_eq!(m.currency_code.as_deref(), Some(""));
    assert_eq!(back, r#"{"currencyCode":"","amount":"0"}"#);
    let (m, back) = round_trip(r#"{"currencyCode":"JPY","amount":"-61.00"}"#);
    assert!(m.value().is_sign_negative());
    assert_eq!(back, r#"{"currencyCode":"JPY","amount":"-61.00"}"#);
    let (_, back) = round_trip(r#"{"amount":-50.0}"#);
    assert_eq!(back, r#"{"amount":-50.0}"#);
}

#[test]
fn values_beyond_a_double_stay_exact() {
    // 0.1 + 0.2 style drift and 17+ significant digits would show through an f64.
    let (m, back) = round_trip(r#"{"currencyCode":"JPY","amount":12345678901234567.12}"#);
    assert_eq!(m.value().to_string(), "12345678901234567.12");
    assert_eq!(
        back,
        r#"{"currencyCode":"JPY","amount":12345678901234567.12}"#
    );
    let (m, _) = round_trip(r#"{"currencyCode":"JPY","amount":1234567890123456789012345.678}"#);
    assert_eq!(m.value().to_string(), "1234567890123456789012345.678");
}

#[test]
fn sums_are_exact() {
    let a: Money = serde_json::from_str(r#"{"currencyCode":"USD","amount":0.1}"#).unwrap();
    let b: Money = serde_json::from_str(r#"{"currencyCode":"USD","amount":"0.2"}"#).unwrap();
    assert_eq!((a.value() + b.value()).to_string(), "0.3");
}

#[test]
fn bad_amounts_are_decode_errors() {
    for bad in [
        r#"{"currencyCode":"USD","amount":"abc"}"#,
        r#"{"currencyCode":"USD","amount":""}"#,
        r#"{"currencyCode":"USD","amount":true}"#,
        r#"{"currencyCode":"USD"}"#,
    ] {
        assert!(serde_json::from_str::<Money>(bad).is_err(), "{bad}");
    }
}

#[test]
fn exponent_numbers_are_read_exactly() {
    let a: Amount = serde_json::from_str("1.5e3").unwrap();
    assert_eq!(a.value(), Decimal::from(1500));
}

/// More digits after the point than the decimal holds (28) is an error naming the amount,
/// never a rounded value: not in the number form, the string form or the exponent form.
#[test]
fn an_amount_too_precise_to_hold_is_refused_not_rounded() {
    for json in [
        r#"{"amount": 0.12345678901234567890123456789, "currencyCode": "USD"}"#,
        r#"{"amount": "1.00000000000000000000000000001", "currencyCode": "USD"}"#,
        r#"{"amount": 0.000000000000000000000000000001, "currencyCode": "USD"}"#,
        r#"{"amount": 1.00000000000000000000000000001e0, "currencyCode": "USD"}"#,
    ] {
        let err = serde_json::from_str::<Money>(json).unwrap_err().to_string();
        assert!(err.contains("not an exact decimal"), "{json}: {err}");
    }
    // 28 places still read exactly.
    let (m, back) = round_trip(r#"{"amount":0.1234567890123456789012345678,"currencyCode":"USD"}"#);
    assert_eq!(m.value().to_string(), "0.1234567890123456789012345678");
    assert!(back.contains("0.1234567890123456789012345678"), "{back}");
}
