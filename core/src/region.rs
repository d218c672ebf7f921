//! Regions, their regional groups and the platform's marketplace ids: what a setting, a
//! parameter and the endpoint table name a region by.

use std::fmt;
use std::str::FromStr;

use crate::error::Error;

/// The expected form of a region, as error messages state it.
pub const REGION_FORM: &str = "one of AU, CA, DE, ES, FR, IN, IT, JP, MX, UK, US";

/// A marketplace region code of the specification.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Region {
    /// Australia (Far East group).
    AU,
    /// Canada (North America group).
    CA,
    /// Germany (Europe group).
    DE,
    /// Spain (Europe group).
    ES,
    /// France (Europe group).
    FR,
    /// India (served by the Europe group).
    IN,
    /// Italy (Europe group).
    IT,
    /// Japan (Far East group).
    JP,
    /// Mexico (North America group).
    MX,
    /// The United Kingdom (Europe group); `GB` is read as `UK`.
    UK,
    /// The United States (North America group).
    US,
}

impl Region {
    /// Every region, in the specification's order.
    pub const ALL: [Region; 11] = [
        Region::AU,
        Region::CA,
        Region::DE,
        Region::ES,
        Region::FR,
        Region::IN,
        Region::IT,
        Region::JP,
        Region::MX,
        Region::UK,
        Region::US,
    ];

    /// The wire code, e.g. `"JP"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Region::AU => "AU",
            Region::CA => "CA",
            Region::DE => "DE",
            Region::ES => "ES",
            Region::FR => "FR",
            Region::IN => "IN",
            Region::IT => "IT",
            Region::JP => "JP",
            Region::MX => "MX",
            Region::UK => "UK",
            Region::US => "US",
        }
    }

    /// The regional group whose address serves this region.
    pub fn group(self) -> RegionGroup {
        match self {
            Region::US | Region::CA | Region::MX => RegionGroup::NorthAmerica,
            Region::UK | Region::DE | Region::FR | Region::IT | Region::ES | Region::IN => {
                RegionGroup::Europe
            }
            Region::JP | Region::AU => RegionGroup::FarEast,
        }
    }

    /// The platform's marketplace id of this region.
    pub fn marketplace_id(self) -> &'static str {
        MARKETPLACE_IDS
            .iter()
            .find(|(r, _)| *r == self)
            .map(|(_, id)| *id)
            .unwrap_or("")
    }

    /// The region of a marketplace id, when it is one the library knows.
    pub fn from_marketplace_id(id: &str) -> Option<Region> {
        MARKETPLACE_IDS
            .iter()
            .find(|(_, m)| *m == id)
            .map(|(r, _)| *r)
    }

    /// Parses a region code in any case; `GB` is `UK` (`normalize::region`).
    pub fn parse(text: &str) -> Result<Region, Error> {
        Region::parse_as("region", text)
    }

    /// A region code in the spec's form (case-insensitive; `GB` is `UK`), or a validation
    /// error naming `param`.
    pub(crate) fn parse_as(param: &str, text: &str) -> Result<Region, Error> {
        let upper = text.trim().to_ascii_uppercase();
        let code = if upper == "GB" { "UK" } else { upper.as_str() };
        Region::ALL
            .into_iter()
            .find(|r| r.as_str() == code)
            .ok_or_else(|| {
                Error::validation(
                    param,
                    format!("must be {REGION_FORM} (GB is accepted for UK) (got {text:?})"),
                )
            })
    }
}

impl FromStr for Region {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Region::parse(s)
    }
}

impl fmt::Display for Region {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The three regional groups; each has its own API address and token set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RegionGroup {
    /// US, CA and MX (`NA`).
    NorthAmerica,
    /// UK, DE, FR, IT, ES and IN (`EU`).
    Europe,
    /// JP and AU (`FE`).
    FarEast,
}

impl RegionGroup {
    /// Short wire-style name: NA, EU or FE.
    pub fn as_str(self) -> &'static str {
        match self {
            RegionGroup::NorthAmerica => "NA",
            RegionGroup::Europe => "EU",
            RegionGroup::FarEast => "FE",
        }
    }
}

/// The platform's marketplace identifiers per region (they name the operator's stores).
pub const MARKETPLACE_IDS: [(Region, &str); 11] = [
    (Region::US, "ATVPDKIKX0DER"),
    (Region::CA, "A2EUQ1WTGCTBG2"),
    (Region::MX, "A1AM78C64UM0Y8"),
    (Region::UK, "A1F83G8C2ARO7P"),
    (Region::DE, "A1PA6795UKMFR9"),
    (Region::FR, "A13V1IB3VIYZZH"),
    (Region::IT, "APJ6JRA9NG5V4"),
    (Region::ES, "A1RKKUPIHCS9HS"),
    (Region::IN, "A21TJRUUN4KGV"),
    (Region::JP, "A1VC38T7YXB528"),
    (Region::AU, "A39IBJ37TRP1C6"),
];
