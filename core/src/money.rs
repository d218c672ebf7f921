//! Exact money: a decimal amount that reads the wire's number form and its string form
//! and writes each back as it came. No value ever passes through a float: the JSON text
//! of a number is taken raw from the parser and read as a decimal.

use std::fmt;

use rust_decimal::Decimal;
use serde::de::{self, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;

use crate::error::Error;

/// How an amount was written on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum AmountForm {
    /// A JSON number: `12.30` (invoices, cart, ordering, reporting).
    #[default]
    Number,
    /// A JSON string: `"12.30"` (reconciliation).
    String,
}

/// An exact decimal amount that remembers its wire form and scale.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Amount {
    value: Decimal,
    form: AmountForm,
    /// "-0.00" was sent: the decimal type has no negative zero, so the sign is kept here.
    negative_zero: bool,
}

impl Amount {
    /// An amount written in `form`.
    pub fn new(value: Decimal, form: AmountForm) -> Amount {
        Amount {
            value,
            form,
            negative_zero: false,
        }
    }
    /// The exact value (scale as received: `"1751.0"` keeps one decimal place).
    pub fn value(&self) -> Decimal {
        self.value
    }
    /// How the amount is written on the wire (JSON number or string).
    pub fn form(&self) -> AmountForm {
        self.form
    }
    /// "-0.00" was sent (the decimal type itself has no negative zero).
    pub fn is_negative_zero(&self) -> bool {
        self.negative_zero
    }

    /// Parses decimal text exactly: `-12.30`, `0.10`, `1e3`; no float involved.
    pub fn parse(text: &str, form: AmountForm) -> Result<Amount, Error> {
        let t = text.trim();
        // `_exact`: more digits than the decimal holds (28 after the point) is an error, where
        // `from_str` would round them away; the exponent form's digits are checked the same way.
        let value = match t.find(['e', 'E']) {
            Some(at) => Decimal::from_str_exact(&t[..at]).and_then(|_| Decimal::from_scientific(t)),
            None => Decimal::from_str_exact(t),
        }
        .map_err(|e| {
            Error::transport(format!("money amount {t:?} is not an exact decimal ({e})"))
        })?;
        Ok(Amount {
            value,
            form,
            negative_zero: value.is_zero() && t.starts_with('-'),
        })
    }

    /// Reads an amount from its JSON text as received: a number (`12.30`) or a string
    /// (`"12.30"`), each remembered in its form.
    pub fn from_json(raw: &str) -> Result<Amount, String> {
        let raw = raw.trim();
        if let Some(quoted) = raw.strip_prefix('"') {
            // The common string has no escape: read between the quotes, no second parse.
            let plain = quoted
                .strip_suffix('"')
                .filter(|s| !s.contains(['\\', '"']));
            let owned;
            let s = match plain {
                Some(s) => s,
                None => {
                    owned = serde_json::from_str::<String>(raw).map_err(|e| e.to_string())?;
                    &owned
                }
            };
            if s.trim().is_empty() {
                return Err("empty string is not an amount".into());
            }
            Amount::parse(s, AmountForm::String).map_err(|e| e.message().to_string())
        } else {
            Amount::parse(raw, AmountForm::Number).map_err(|e| e.message().to_string())
        }
    }
}

impl Amount {
    /// The decimal text, as it came (scale and a negative zero's sign kept).
    pub fn to_wire_string(&self) -> String {
        if self.negative_zero {
            format!("-{}", self.value)
        } else {
            self.value.to_string()
        }
    }
}

impl fmt::Display for Amount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_wire_string())
    }
}

impl From<Decimal> for Amount {
    fn from(value: Decimal) -> Self {
        Amount {
            value,
            form: AmountForm::Number,
            negative_zero: false,
        }
    }
}

impl<'de> Deserialize<'de> for Amount {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = Box::<RawValue>::deserialize(d)?;
        Amount::from_json(raw.get()).map_err(de::Error::custom)
    }
}

impl Serialize for Amount {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.form {
            AmountForm::String => s.serialize_str(&self.to_wire_string()),
            AmountForm::Number => {
                let raw = RawValue::from_string(self.to_wire_string())
                    .map_err(serde::ser::Error::custom)?;
                raw.serialize(s)
            }
        }
    }
}

/// The JSON text `raw` with the amount of every money object in it (an object holding
/// `currencyCode` and `amount`) written as a JSON number, exactly: `"500.00"` becomes
/// `500.00`, the text's digits, no float. Everything else is kept as it is, byte for byte.
/// `Ok(None)`: nothing to change. Text that is not a decimal is a validation error naming
/// the amount's path under `param` (`attributes[0].charge.amount.amount`). What a request
/// passes through as given (an attribute or expectation kind the core does not type) goes
/// through this, since every money amount the service declares is a number.
pub(crate) fn amounts_as_numbers(raw: &str, param: &str) -> Result<Option<String>, Error> {
    /// An object's entries in order, each value as its raw text.
    struct Entries(Vec<(String, Box<RawValue>)>);
    impl<'de> Deserialize<'de> for Entries {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct V;
            impl<'de> Visitor<'de> for V {
                type Value = Entries;
                fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                    f.write_str("an object")
                }
                fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Entries, A::Error> {
                    let mut out = Vec::new();
                    while let Some(entry) = map.next_entry::<String, Box<RawValue>>()? {
                        out.push(entry);
                    }
                    Ok(Entries(out))
                }
            }
            d.deserialize_map(V)
        }
    }
    let bad = |e: serde_json::Error| Error::validation(param, format!("is not valid JSON ({e})"));
    /// A member: its key as JSON text (empty in an array), its new text if it changed, its
    /// text as given.
    type Part = (String, Option<String>, Box<RawValue>);
    let (open, close, parts): (char, char, Vec<Part>) = match raw.trim_start().as_bytes().first() {
        Some(b'{') => {
            let Entries(entries) = serde_json::from_str(raw).map_err(bad)?;
            let money = entries.iter().any(|(k, _)| k == "currencyCode");
            let mut parts = Vec::with_capacity(entries.len());
            for (k, v) in entries {
                let path = format!("{param}.{k}");
                let new = match v.get().trim_start().as_bytes().first() {
                    Some(b'"') if money && k == "amount" => {
                        let a = Amount::from_json(v.get()).map_err(|_| {
                            Error::validation(
                                &path,
                                "must be a decimal number (money is sent as a JSON number)",
                            )
                        })?;
                        Some(a.to_wire_string())
                    }
                    _ => amounts_as_numbers(v.get(), &path)?,
                };
                let key = serde_json::to_string(&k).map_err(bad)?;
                parts.push((key, new, v));
            }
            ('{', '}', parts)
        }
        Some(b'[') => {
            let items: Vec<Box<RawValue>> = serde_json::from_str(raw).map_err(bad)?;
            let mut parts = Vec::with_capacity(items.len());
            for (i, v) in items.into_iter().enumerate() {
                let new = amounts_as_numbers(v.get(), &format!("{param}[{i}]"))?;
                parts.push((String::new(), new, v));
            }
            ('[', ']', parts)
        }
        _ => return Ok(None),
    };
    if parts.iter().all(|(_, new, _)| new.is_none()) {
        return Ok(None);
    }
    let mut out = String::with_capacity(raw.len());
    out.push(open);
    for (i, (key, new, old)) in parts.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        if !key.is_empty() {
            out.push_str(key);
            out.push(':');
        }
        out.push_str(new.as_deref().unwrap_or(old.get()));
    }
    out.push(close);
    Ok(Some(out))
}

/// An amount with its ISO 4217 currency code (which the service may send empty).
///
/// Both fields are optional, as every field of a model is: a money object whose `amount`
/// came as `null` (or not at all) still decodes, with `amount: None`, and the rest of the
/// answer stays readable. Which of the two fields came as an explicit `null` is kept in
/// `nulls`, so serialization gives back `null` for `null` and nothing for an absent key.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Money {
    /// `None` when the field was absent or `null`; `Some("")` when sent empty.
    pub currency_code: Option<String>,
    /// The exact amount; `None` when the field was absent or `null`.
    pub amount: Option<Amount>,
    /// Fields this version does not know, kept exactly.
    pub extra: crate::model::Extra,
    /// Which of `currencyCode` ([`Money::CURRENCY_CODE`]) and `amount`
    /// ([`Money::AMOUNT`]) came as an explicit `null`.
    pub nulls: crate::model::Nulls,
}

impl Money {
    /// The bit of `currencyCode` in [`Money::nulls`].
    pub const CURRENCY_CODE: usize = 0;
    /// The bit of `amount` in [`Money::nulls`].
    pub const AMOUNT: usize = 1;

    /// An amount in a currency (written as a JSON number).
    pub fn new(amount: Decimal, currency_code: &str) -> Money {
        Money {
            currency_code: Some(currency_code.to_string()),
            amount: Some(Amount::from(amount)),
            extra: Default::default(),
            nulls: Default::default(),
        }
    }
    /// The exact value; `None` when the service sent no amount (`null` or absent).
    pub fn value(&self) -> Option<Decimal> {
        self.amount.map(|a| a.value)
    }
    /// The currency code, empty when absent.
    pub fn currency(&self) -> &str {
        self.currency_code.as_deref().unwrap_or("")
    }
}

impl fmt::Display for Money {
    /// `12.30 USD`; an amount that did not come is written `null`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.amount {
            Some(a) => write!(f, "{a}")?,
            None => f.write_str("null")?,
        }
        match self.currency() {
            "" => Ok(()),
            c => write!(f, " {c}"),
        }
    }
}

impl<'de> Deserialize<'de> for Money {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct MoneyVisitor;
        impl<'de> Visitor<'de> for MoneyVisitor {
            type Value = Money;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a money object {currencyCode, amount}")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Money, A::Error> {
                let mut out = Money::default();
                while let Some(key) = map.next_key::<crate::model::Key>()? {
                    match key.as_str() {
                        "currencyCode" => {
                            out.currency_code = map.next_value::<Option<String>>()?;
                            if out.currency_code.is_none() {
                                out.nulls.set(Money::CURRENCY_CODE);
                            }
                        }
                        "amount" => {
                            out.amount = map.next_value::<Option<Amount>>()?;
                            if out.amount.is_none() {
                                out.nulls.set(Money::AMOUNT);
                            }
                        }
                        _ => {
                            let raw = map.next_value::<Box<RawValue>>()?;
                            out.extra.push(key.into_string(), raw);
                        }
                    }
                }
                Ok(out)
            }
        }
        d.deserialize_map(MoneyVisitor)
    }
}

impl Serialize for Money {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        if self.currency_code.is_some() || self.nulls.has(Money::CURRENCY_CODE) {
            m.serialize_entry("currencyCode", &self.currency_code)?;
        }
        if self.amount.is_some() || self.nulls.has(Money::AMOUNT) {
            m.serialize_entry("amount", &self.amount)?;
        }
        for (k, v) in self.extra.raw_entries() {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

crate::describe::leaf! {
    Amount => Decimal,
    Money => Money,
}

impl crate::model::Extra {
    /// An unknown field read as an exact amount: a JSON number (`1750`, `12.30`) or a
    /// string holding one, its text and scale kept, no float involved. `None` when the
    /// field is absent or is not a number. (What an unknown number means is unknown; it
    /// may be money, so it is never read through a float: docs/decisions/002-exact-money.md.)
    pub fn amount(&self, name: &str) -> Option<Amount> {
        Amount::from_json(self.get(name)?).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::amounts_as_numbers;

    #[test]
    fn money_text_becomes_an_exact_number_and_nothing_else_moves() {
        let raw = r#"{"attributeType":"Distribution", "charge":{"amount":{"currencyCode":"JPY","amount":"500.10"}},"accounting":{"segments":[{"id":"7","amount":"x"}]},"n":12.50}"#;
        assert_eq!(
            amounts_as_numbers(raw, "attributes[0]").unwrap().as_deref(),
            Some(
                r#"{"attributeType":"Distribution","charge":{"amount":{"currencyCode":"JPY","amount":500.10}},"accounting":{"segments":[{"id":"7","amount":"x"}]},"n":12.50}"#
            ),
            "a string `amount` outside a money object stays a string"
        );
        let numbers = r#"[{"amount":{"currencyCode":"JPY","amount":1e3}}]"#;
        assert_eq!(amounts_as_numbers(numbers, "x").unwrap(), None);
        assert_eq!(amounts_as_numbers("\"500\"", "x").unwrap(), None);
    }

    #[test]
    fn money_text_that_is_not_a_number_is_refused_naming_its_path() {
        let raw = r#"{"expectations":[{"amount":{"currencyCode":"JPY","amount":"five"}}]}"#;
        let e = amounts_as_numbers(raw, "line_items[1]").unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid line_items[1].expectations[0].amount.amount: must be a decimal number (money is sent as a JSON number)"
        );
    }
}
