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
    assert_eq!(m.value().unwrap(), Decimal::from_str("1234567.89").unwrap());
    assert_eq!(m.amount.unwrap().form(), AmountForm::Number);
    assert_eq!(back, r#"{"currencyCode":"JPY","amount":1234567.89}"#);
}

#[test]
fn scale_is_kept() {
    let (m, back) = round_trip(r#"{"currencyCode":"USD","amount":0.10}"#);
    assert_eq!(m.value().unwrap().to_string(), "0.10");
    assert_eq!(back, r#"{"currencyCode":"USD","amount":0.10}"#);
    let (_, back) = round_trip(r#"{"currencyCode":"USD","amount":"1751.0"}"#);
    assert_eq!(back, r#"{"currencyCode":"USD","amount":"1751.0"}"#);
}

#[test]
fn string_form_round_trips_exactly() {
    let (m, back) = round_trip(r#"{"currencyCode":"USD","amount":"19.99"}"#);
    assert_eq!(m.value().unwrap(), Decimal::from_str("19.99").unwrap());
    assert_eq!(m.amount.unwrap().form(), AmountForm::String);
    assert_eq!(back, r#"{"currencyCode":"USD","amount":"19.99"}"#);
}

#[test]
fn empty_currency_and_negative_values() {
    let (m, back) = round_trip(r#"{"currencyCode":"","amount":"0"}"#);
    assert_eq!(m.currency(), "");
    assert_eq!(m.currency_code.as_deref(), Some(""));
    assert_eq!(back, r#"{"currencyCode":"","amount":"0"}"#);
    let (m, back) = round_trip(r#"{"currencyCode":"JPY","amount":"-61.00"}"#);
    assert!(m.value().unwrap().is_sign_negative());
    assert_eq!(back, r#"{"currencyCode":"JPY","amount":"-61.00"}"#);
    let (_, back) = round_trip(r#"{"amount":-50.0}"#);
    assert_eq!(back, r#"{"amount":-50.0}"#);
}

#[test]
fn values_beyond_a_double_stay_exact() {
    // 0.1 + 0.2 style drift and 17+ significant digits would show through an f64.
    let (m, back) = round_trip(r#"{"currencyCode":"JPY","amount":12345678901234567.12}"#);
    assert_eq!(m.value().unwrap().to_string(), "12345678901234567.12");
    assert_eq!(
        back,
        r#"{"currencyCode":"JPY","amount":12345678901234567.12}"#
    );
    let (m, _) = round_trip(r#"{"currencyCode":"JPY","amount":1234567890123456789012345.678}"#);
    assert_eq!(
        m.value().unwrap().to_string(),
        "1234567890123456789012345.678"
    );
}

#[test]
fn sums_are_exact() {
    let a: Money = serde_json::from_str(r#"{"currencyCode":"USD","amount":0.1}"#).unwrap();
    let b: Money = serde_json::from_str(r#"{"currencyCode":"USD","amount":"0.2"}"#).unwrap();
    assert_eq!((a.value().unwrap() + b.value().unwrap()).to_string(), "0.3");
}

#[test]
fn bad_amounts_are_decode_errors() {
    for bad in [
        r#"{"currencyCode":"USD","amount":"abc"}"#,
        r#"{"currencyCode":"USD","amount":""}"#,
        r#"{"currencyCode":"USD","amount":true}"#,
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
    assert_eq!(
        m.value().unwrap().to_string(),
        "0.1234567890123456789012345678"
    );
    assert!(back.contains("0.1234567890123456789012345678"), "{back}");
}

#[test]
fn a_null_amount_decodes_as_none_and_goes_back_as_null() {
    let (m, back) = round_trip(r#"{"currencyCode":"USD","amount":null}"#);
    assert_eq!(m.amount, None);
    assert_eq!(m.value(), None);
    assert_eq!(m.currency(), "USD");
    assert!(m.nulls.has(Money::AMOUNT));
    assert_eq!(m.to_string(), "null USD");
    assert_eq!(back, r#"{"currencyCode":"USD","amount":null}"#);
    // No amount at all: none, and none written back.
    let (m, back) = round_trip(r#"{"currencyCode":"USD"}"#);
    assert_eq!(m.value(), None);
    assert!(!m.nulls.has(Money::AMOUNT));
    assert_eq!(back, r#"{"currencyCode":"USD"}"#);
}

#[test]
fn a_null_currency_goes_back_as_null_and_an_absent_one_stays_absent() {
    let (m, back) = round_trip(r#"{"amount":5.10,"currencyCode":null}"#);
    assert_eq!(m.currency_code, None);
    assert!(m.nulls.has(Money::CURRENCY_CODE));
    assert_eq!(back, r#"{"currencyCode":null,"amount":5.10}"#);
    let (m, back) = round_trip(r#"{"amount":5.10}"#);
    assert!(!m.nulls.has(Money::CURRENCY_CODE));
    assert_eq!(back, r#"{"amount":5.10}"#);
    // A Money made in code writes what it holds.
    let made = Money::new(Decimal::from_str("1.50").unwrap(), "EUR");
    assert_eq!(
        serde_json::to_string(&made).unwrap(),
        r#"{"currencyCode":"EUR","amount":1.50}"#
    );
}

#[test]
fn unknown_fields_of_a_money_object_are_kept() {
    let (m, back) =
        round_trip(r#"{"amount":1.5,"currencyCode":"USD","formatted":"$1.50","n":null}"#);
    assert_eq!(m.extra.get("formatted"), Some(r#""$1.50""#));
    assert_eq!(
        back,
        r#"{"currencyCode":"USD","amount":1.5,"formatted":"$1.50","n":null}"#
    );
}

#[test]
fn a_null_inside_a_string_map_or_a_money_leaves_the_answer_readable() {
    use abws::api::reconciliation::TransactionsPage;
    let body = r#"{"transactions":[{"transactionId":"T1","amount":{"amount":null,"currencyCode":"USD"},"transactionLineItems":[{"orderId":"O1","businessOrderInfo":{"Cost Center":"CC-1","Project":null}}]}]}"#;
    let page: TransactionsPage = serde_json::from_str(body).unwrap();
    let tx = page.transactions.as_ref().unwrap()[0].as_ref().unwrap();
    assert_eq!(tx.amount.as_ref().unwrap().value(), None);
    let info = tx.transaction_line_items.as_ref().unwrap()[0]
        .as_ref()
        .unwrap()
        .business_order_info
        .as_ref()
        .unwrap();
    assert_eq!(info["Cost Center"].as_deref(), Some("CC-1"));
    assert_eq!(info["Project"], None);
    let back: serde_json::Value = serde_json::to_value(&page).unwrap();
    let want: serde_json::Value = serde_json::from_str(body).unwrap();
    assert_eq!(back, want);
}

/// A number the models do not declare may be money (`1750` yen): `Extra::amount` reads it
/// exactly, in either wire form, its scale kept; the text is what came.
#[test]
fn an_unknown_number_reads_as_an_exact_amount() {
    let json = r#"{"currencyCode":"JPY","amount":1750,"amountInclusive":1925,"rate":0.10,
        "big":12345678901234567.12,"text":"-61.00","note":"x"}"#;
    let m: Money = serde_json::from_str(json).unwrap();
    let amount = |k| m.extra.amount(k).map(|a| a.to_wire_string());
    assert_eq!(amount("amountInclusive").as_deref(), Some("1925"));
    assert_eq!(amount("rate").as_deref(), Some("0.10"));
    assert_eq!(amount("big").as_deref(), Some("12345678901234567.12"));
    assert_eq!(m.extra.amount("text").unwrap().form(), AmountForm::String);
    assert_eq!(amount("text").as_deref(), Some("-61.00"));
    assert_eq!(amount("note"), None);
    assert_eq!(amount("absent"), None);
    assert_eq!(m.extra.get("rate"), Some("0.10"));
    let tx: abws::api::reconciliation::Transaction = serde_json::from_str(
        r#"{"transactionId":"T1","feeTotal":{"amount":350,"currencyCode":"JPY"},"yen":350}"#,
    )
    .unwrap();
    assert_eq!(tx.extra.amount("yen").unwrap().value(), Decimal::from(350));
}
