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
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Money {
    /// `None` when the field was absent; `Some("")` when sent empty.
    pub currency_code: Option<String>,
    /// The exact amount.
    pub amount: Amount,
    /// Fields this version does not know, kept exactly.
    pub extra: crate::model::Extra,
}

impl Money {
    /// An amount in a currency (written as a JSON number).
    pub fn new(amount: Decimal, currency_code: &str) -> Money {
        Money {
            currency_code: Some(currency_code.to_string()),
            amount: Amount::from(amount),
            extra: Default::default(),
        }
    }
    /// The exact value.
    pub fn value(&self) -> Decimal {
        self.amount.value
    }
    /// The currency code, empty when absent.
    pub fn currency(&self) -> &str {
        self.currency_code.as_deref().unwrap_or("")
    }
}

impl fmt::Display for Money {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.currency() {
            "" => write!(f, "{}", self.amount),
            c => write!(f, "{} {}", self.amount, c),
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
                let mut currency_code = None;
                let mut amount = None;
                let mut extra = crate::model::Extra::default();
                while let Some(key) = map.next_key::<crate::model::Key>()? {
                    match key.as_str() {
                        "currencyCode" => currency_code = Some(map.next_value::<Option<String>>()?),
                        "amount" => amount = Some(map.next_value::<Amount>()?),
                        _ => {
                            let raw = map.next_value::<Box<RawValue>>()?;
                            extra.push(key.into_string(), raw);
                        }
                    }
                }
                let amount = amount.ok_or_else(|| de::Error::missing_field("amount"))?;
                Ok(Money {
                    currency_code: currency_code.flatten(),
                    amount,
                    extra,
                })
            }
        }
        d.deserialize_map(MoneyVisitor)
    }
}

impl Serialize for Money {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        if let Some(c) = &self.currency_code {
            m.serialize_entry("currencyCode", c)?;
        }
        m.serialize_entry("amount", &self.amount)?;
        for (k, v) in self.extra.raw_entries() {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}
