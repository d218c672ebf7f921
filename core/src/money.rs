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
