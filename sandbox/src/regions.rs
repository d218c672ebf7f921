//! The marketplaces of the data set and their rules: group, currency, marketplace id, tax
//! rates, rounding, shipping fee, carriers, time zone, the customer's billing entity and the
//! volume of generated orders. Every route reads a region's rules from here, so a region is
//! described in one place (docs/sandbox.md, "Regions").

use chrono::FixedOffset;
use rust_decimal::{Decimal, RoundingStrategy};

/// How a product is taxed: the standard rate, the reduced rate of food, the rate of books.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TaxClass {
    Standard,
    Food,
    Books,
}

/// The customer's billing entity in a marketplace.
pub struct Entity {
    pub name: &'static str,
    pub tax_id: &'static str,
    pub address_line1: &'static str,
    pub address_line2: &'static str,
    pub city: &'static str,
    pub state: &'static str,
    pub postal_code: &'static str,
    /// ISO 3166 country code (GB for the UK marketplace).
    pub country: &'static str,
    pub phone: &'static str,
}

/// A seller of the marketplace (JP's five sellers live in `data.rs`, as before).
pub struct SellerSpec {
    pub name: &'static str,
    pub registration: Option<&'static str>,
    pub address_line1: &'static str,
    pub city: &'static str,
    pub state: &'static str,
    pub postal_code: &'static str,
}

pub struct Profile {
    /// Region code of the spec's Region enum.
    pub code: &'static str,
    /// NA, EU or FE.
    pub group: &'static str,
    pub currency: &'static str,
    pub marketplace_id: &'static str,
    /// Tax rates in percent as (units, scale): standard, food, books.
    pub rates: [(i64, u32); 3],
    /// Shipping fee and the item subtotal from which shipping is free (local currency).
    pub shipping: (i64, u32),
    pub free_from: (i64, u32),
    /// Offset of local time from UTC, in minutes.
    pub utc_offset_minutes: i32,
    /// First carrier, second carrier, carrier of a second package.
    pub carriers: [&'static str; 3],
    /// Where packages leave from and pass through (tracking events).
    pub facility: &'static str,
    pub hub: &'static str,
    /// Generated order history: (percent chance of a first, of a second order per day);
    /// (0, 0) = no history (IN and AU). JP keeps its own pattern (1–2 a day).
    pub orders_per_day: (u64, u64),
    /// Share of card-paid orders in percent (the rest pay by invoice).
    pub card_percent: u64,
    /// First order hour of a business day, UTC.
    pub first_hour_utc: i64,
    /// First segment of generated order ids.
    pub order_prefix: &'static str,
    /// Label of the business credit account (Pay by Invoice) on invoices.
    pub invoice_payment_label: &'static str,
    pub entity: Entity,
    pub sellers: &'static [SellerSpec],
}

impl Profile {
    /// The tax rate (percent) of a class.
    pub fn rate(&self, class: TaxClass) -> Decimal {
        let (u, s) = self.rates[match class {
            TaxClass::Standard => 0,
            TaxClass::Food => 1,
            TaxClass::Books => 2,
        }];
        Decimal::new(u, s).normalize()
    }

    pub fn standard_rate(&self) -> Decimal {
        self.rate(TaxClass::Standard)
    }

    /// Decimal places of the currency (JPY has none).
    pub fn decimals(&self) -> u32 {
        decimals(self.currency)
    }

    /// Tax on `base` at `rate` percent: floored to the yen in JP (the JP invoices' rule),
    /// rounded half away from zero to the cent elsewhere.
    pub fn tax(&self, base: Decimal, rate: Decimal) -> Decimal {
        let t = base * rate / Decimal::ONE_HUNDRED;
        if self.currency == "JPY" {
            t.floor()
        } else {
            cents(t)
        }
    }

    /// An amount in this currency's form (0 or 2 decimals).
    pub fn amount(&self, d: Decimal) -> Decimal {
        if self.currency == "JPY" {
            d
        } else {
            cents(d)
        }
    }

    pub fn shipping_fee(&self) -> Decimal {
        self.amount(Decimal::new(self.shipping.0, self.shipping.1))
    }

    pub fn free_shipping_from(&self) -> Decimal {
        self.amount(Decimal::new(self.free_from.0, self.free_from.1))
    }

    pub fn offset(&self) -> FixedOffset {
        FixedOffset::east_opt(self.utc_offset_minutes * 60)
            .unwrap_or(FixedOffset::east_opt(0).expect("zero offset"))
    }

    /// True when the data set generates an order history for this region.
    pub fn has_history(&self) -> bool {
        self.code == "JP" || self.orders_per_day != (0, 0)
    }
}

/// Decimal places of a currency.
pub fn decimals(currency: &str) -> u32 {
    if currency == "JPY" {
        0
    } else {
        2
    }
}

/// Rounded half away from zero to two places, always written with two.
pub fn cents(d: Decimal) -> Decimal {
    let mut x = d.round_dp_with_strategy(2, RoundingStrategy::MidpointAwayFromZero);
    x.rescale(2);
    x
}

/// "10%", "8.25%", "5.5%", "0%".
pub fn rate_text(rate: Decimal) -> String {
    format!("{}%", rate.normalize())
}

/// The rules of a region code (every value of the Region enum has one).
pub fn profile(code: &str) -> &'static Profile {
    PROFILES
        .iter()
        .find(|p| p.code == code)
        .unwrap_or(&PROFILES[0])
}

/// Regions with a generated order history, in generation order (JP first).
pub fn with_history() -> impl Iterator<Item = &'static Profile> {
    PROFILES.iter().filter(|p| p.has_history())
}

/// The region a marketplace places an order in when the request names none: the group's
/// first marketplace (US, UK, JP).
pub fn default_region(group: Option<&str>) -> &'static str {
    match group {
        Some("NA") => "US",
        Some("EU") => "UK",
        _ => "JP",
    }
}

#[allow(clippy::too_many_arguments)]
const fn e(
    name: &'static str,
    tax_id: &'static str,
    address_line1: &'static str,
    address_line2: &'static str,
    city: &'static str,
    state: &'static str,
    postal_code: &'static str,
    country: &'static str,
    phone: &'static str,
) -> Entity {
    Entity {
        name,
        tax_id,
        address_line1,
        address_line2,
        city,
        state,
        postal_code,
        country,
        phone,
    }
}

const fn s(
    name: &'static str,
    registration: Option<&'static str>,
    address_line1: &'static str,
    city: &'static str,
    state: &'static str,
    postal_code: &'static str,
) -> SellerSpec {
    SellerSpec {
        name,
        registration,
        address_line1,
        city,
        state,
        postal_code,
    }
}

pub static PROFILES: &[Profile] = &[
    Profile {
        code: "JP",
        group: "FE",
        currency: "JPY",
        marketplace_id: "A1VC38T7YXB528",
        rates: [(10, 0), (8, 0), (10, 0)],
        shipping: (350, 0),
        free_from: (3500, 0),
        utc_offset_minutes: 9 * 60,
        carriers: ["Yamato Transport", "Sagawa Express", "Japan Post"],
        facility: "Chiba",
        hub: "Saitama",
        orders_per_day: (100, 55),
        card_percent: 0,
        first_hour_utc: 1,
        order_prefix: "D01",
        invoice_payment_label: "Business Credit Account (BCA)",
        // JP's legal entities and sellers are the historical ones of data.rs.
        entity: e(
            "Sandbox Trading K.K.",
            "T9000000000001",
            "1-1-1 Marunouchi",
            "Chiyoda-ku",
            "Tokyo",
            "Tokyo",
            "100-0005",
            "JP",
            "+81-3-0000-0000",
        ),
        sellers: &[],
    },
    Profile {
        code: "US",
        group: "NA",
        currency: "USD",
        marketplace_id: "ATVPDKIKX0DER",
        // Austin, Texas: 6.25 % state + 2 % local; groceries exempt.
        rates: [(825, 2), (0, 0), (825, 2)],
        shipping: (599, 2),
        free_from: (3500, 2),
        utc_offset_minutes: -6 * 60,
        carriers: ["UPS", "FedEx", "USPS"],
        facility: "Dallas",
        hub: "Round Rock",
        orders_per_day: (85, 20),
        card_percent: 40,
        first_hour_utc: 15,
        order_prefix: "111",
        invoice_payment_label: "Pay by Invoice",
        entity: e(
            "Sandbox Trading Inc.",
            "12-3456789",
            "500 Congress Ave",
            "Suite 1200",
            "Austin",
            "TX",
            "78701",
            "US",
            "+1-512-555-0100",
        ),
        sellers: &[
            s(
                "Sandbox Retail US LLC",
                None,
                "410 Terry Ave N",
                "Seattle",
                "WA",
                "98109",
            ),
            s(
                "Lone Star Office Supply LLC",
                None,
                "1200 E 6th St",
                "Austin",
                "TX",
                "78702",
            ),
            s(
                "Great Lakes Industrial Inc.",
                None,
                "900 W Jackson Blvd",
                "Chicago",
                "IL",
                "60607",
            ),
        ],
    },
    Profile {
        code: "CA",
        group: "NA",
        currency: "CAD",
        marketplace_id: "A2EUQ1WTGCTBG2",
        // Ontario HST 13 %; basic groceries zero-rated; books carry the 5 % GST only.
        rates: [(13, 0), (0, 0), (5, 0)],
        shipping: (799, 2),
        free_from: (5000, 2),
        utc_offset_minutes: -5 * 60,
        carriers: ["Canada Post", "Purolator", "UPS"],
        facility: "Mississauga",
        hub: "Brampton",
        orders_per_day: (30, 0),
        card_percent: 40,
        first_hour_utc: 14,
        order_prefix: "701",
        invoice_payment_label: "Pay by Invoice",
        entity: e(
            "Sandbox Trading Canada Ltd.",
            "812345670RT0001",
            "100 King St W",
            "Suite 5600",
            "Toronto",
            "ON",
            "M5X 1C9",
            "CA",
            "+1-416-555-0100",
        ),
        sellers: &[
            s(
                "Sandbox Retail Canada Inc.",
                Some("823456781RT0001"),
                "120 Bremner Blvd",
                "Toronto",
                "ON",
                "M5J 0A8",
            ),
            s(
                "Maple Office Supplies Ltd.",
                Some("834567892RT0001"),
                "555 W Hastings St",
                "Vancouver",
                "BC",
                "V6B 4N6",
            ),
            s(
                "Prairie Industrial Co.",
                None,
                "220 4 Ave SE",
                "Calgary",
                "AB",
                "T2G 4X3",
            ),
        ],
    },
    Profile {
        code: "MX",
        group: "NA",
        currency: "MXN",
        marketplace_id: "A1AM78C64UM0Y8",
        // IVA 16 %; food and books at 0 %.
        rates: [(16, 0), (0, 0), (0, 0)],
        shipping: (9900, 2),
        free_from: (59900, 2),
        utc_offset_minutes: -6 * 60,
        carriers: ["Estafeta", "DHL Express", "Redpack"],
        facility: "Tepotzotlan",
        hub: "Cuautitlan",
        orders_per_day: (30, 0),
        card_percent: 50,
        first_hour_utc: 15,
        order_prefix: "702",
        invoice_payment_label: "Pay by Invoice",
        entity: e(
            "Sandbox Comercial S.A. de C.V.",
            "SCO200101AB1",
            "Paseo de la Reforma 250",
            "Piso 10",
            "Ciudad de Mexico",
            "CDMX",
            "06600",
            "MX",
            "+52-55-5555-0100",
        ),
        sellers: &[
            s(
                "Sandbox Retail Mexico S. de R.L.",
                Some("SRM150101AB2"),
                "Av. Juan Salvador Agraz 73",
                "Ciudad de Mexico",
                "CDMX",
                "05348",
            ),
            s(
                "Suministros Monterrey S.A.",
                Some("SMO090312KL3"),
                "Av. Constitucion 400",
                "Monterrey",
                "NL",
                "64000",
            ),
            s(
                "Papeleria Guadalajara",
                None,
                "Av. Juarez 200",
                "Guadalajara",
                "JAL",
                "44100",
            ),
        ],
    },
    Profile {
        code: "UK",
        group: "EU",
        currency: "GBP",
        marketplace_id: "A1F83G8C2ARO7P",
        // VAT 20 %; most food and books zero-rated.
        rates: [(20, 0), (0, 0), (0, 0)],
        shipping: (399, 2),
        free_from: (2500, 2),
        utc_offset_minutes: 0,
        carriers: ["Royal Mail", "DPD UK", "Evri"],
        facility: "Coventry",
        hub: "Daventry",
        orders_per_day: (60, 10),
        card_percent: 30,
        first_hour_utc: 8,
        order_prefix: "202",
        invoice_payment_label: "Pay by Invoice",
        entity: e(
            "Sandbox Trading Ltd.",
            "GB123456789",
            "1 Poultry",
            "",
            "London",
            "Greater London",
            "EC2R 8EJ",
            "GB",
            "+44-20-5555-0100",
        ),
        sellers: &[
            s(
                "Sandbox Retail UK Ltd",
                Some("GB727255821"),
                "1 Principal Place",
                "London",
                "Greater London",
                "EC2A 2FA",
            ),
            s(
                "Manchester Office Supplies Ltd",
                Some("GB123456782"),
                "10 Piccadilly",
                "Manchester",
                "Greater Manchester",
                "M1 1AE",
            ),
            s(
                "Leeds Craft Workshop",
                None,
                "5 Briggate",
                "Leeds",
                "West Yorkshire",
                "LS1 4DY",
            ),
        ],
    },
    Profile {
        code: "DE",
        group: "EU",
        currency: "EUR",
        marketplace_id: "A1PA6795UKMFR9",
        // MwSt 19 %, reduced 7 % for food and books.
        rates: [(19, 0), (7, 0), (7, 0)],
        shipping: (499, 2),
        free_from: (2900, 2),
        utc_offset_minutes: 60,
        carriers: ["DHL Paket", "Hermes", "DPD"],
        facility: "Leipzig",
        hub: "Bad Hersfeld",
        orders_per_day: (60, 10),
        card_percent: 30,
        first_hour_utc: 7,
        order_prefix: "302",
        invoice_payment_label: "Pay by Invoice",
        entity: e(
            "Sandbox Handel GmbH",
            "DE123456789",
            "Friedrichstrasse 100",
            "",
            "Berlin",
            "Berlin",
            "10117",
            "DE",
            "+49-30-5555-0100",
        ),
        sellers: &[
            s(
                "Sandbox Retail Deutschland GmbH",
                Some("DE814584193"),
                "Marcel-Breuer-Strasse 12",
                "Muenchen",
                "Bayern",
                "80807",
            ),
            s(
                "Hamburg Buerobedarf GmbH",
                Some("DE123456788"),
                "Moenckebergstrasse 7",
                "Hamburg",
                "Hamburg",
                "20095",
            ),
            s(
                "Koeln Werkzeuge KG",
                Some("DE987654321"),
                "Hohe Strasse 50",
                "Koeln",
                "Nordrhein-Westfalen",
                "50667",
            ),
        ],
    },
    Profile {
        code: "FR",
        group: "EU",
        currency: "EUR",
        marketplace_id: "A13V1IB3VIYZZH",
        // TVA 20 %, 5.5 % for food and books.
        rates: [(20, 0), (55, 1), (55, 1)],
        shipping: (499, 2),
        free_from: (3500, 2),
        utc_offset_minutes: 60,
        carriers: ["Colissimo", "Chronopost", "DPD France"],
        facility: "Saran",
        hub: "Bretigny-sur-Orge",
        orders_per_day: (30, 0),
        card_percent: 30,
        first_hour_utc: 7,
        order_prefix: "402",
        invoice_payment_label: "Pay by Invoice",
        entity: e(
            "Sandbox Commerce SAS",
            "FR12345678901",
            "10 Rue de la Paix",
            "",
            "Paris",
            "Ile-de-France",
            "75002",
            "FR",
            "+33-1-5555-0100",
        ),
        sellers: &[
            s(
                "Sandbox Retail France SAS",
                Some("FR12487773327"),
                "67 Boulevard du General Leclerc",
                "Clichy",
                "Ile-de-France",
                "92110",
            ),
            s(
                "Lyon Fournitures SARL",
                Some("FR45123456789"),
                "20 Rue de la Republique",
                "Lyon",
                "Auvergne-Rhone-Alpes",
                "69002",
            ),
            s(
                "Marseille Papeterie",
                None,
                "5 La Canebiere",
                "Marseille",
                "Provence-Alpes-Cote d'Azur",
                "13001",
            ),
        ],
    },
    Profile {
        code: "IT",
        group: "EU",
        currency: "EUR",
        marketplace_id: "APJ6JRA9NG5V4",
        // IVA 22 %, 10 % for food, 4 % for books.
        rates: [(22, 0), (10, 0), (4, 0)],
        shipping: (499, 2),
        free_from: (2900, 2),
        utc_offset_minutes: 60,
        carriers: ["Poste Italiane", "BRT", "GLS Italy"],
        facility: "Castel San Giovanni",
        hub: "Passo Corese",
        orders_per_day: (30, 0),
        card_percent: 30,
        first_hour_utc: 7,
        order_prefix: "403",
        invoice_payment_label: "Pay by Invoice",
        entity: e(
            "Sandbox Commercio S.r.l.",
            "IT12345678901",
            "Via Dante 10",
            "",
            "Milano",
            "MI",
            "20121",
            "IT",
            "+39-02-5555-0100",
        ),
        sellers: &[
            s(
                "Sandbox Retail Italia S.r.l.",
                Some("IT08973230967"),
                "Viale Monte Grappa 3",
                "Milano",
                "MI",
                "20124",
            ),
            s(
                "Torino Forniture S.r.l.",
                Some("IT01234567890"),
                "Via Roma 100",
                "Torino",
                "TO",
                "10121",
            ),
            s(
                "Napoli Cancelleria S.n.c.",
                Some("IT09876543210"),
                "Via Toledo 50",
                "Napoli",
                "NA",
                "80134",
            ),
        ],
    },
    Profile {
        code: "ES",
        group: "EU",
        currency: "EUR",
        marketplace_id: "A1RKKUPIHCS9HS",
        // IVA 21 %, 10 % for food, 4 % for books.
        rates: [(21, 0), (10, 0), (4, 0)],
        shipping: (499, 2),
        free_from: (2900, 2),
        utc_offset_minutes: 60,
        carriers: ["Correos", "SEUR", "MRW"],
        facility: "San Fernando de Henares",
        hub: "El Prat de Llobregat",
        orders_per_day: (30, 0),
        card_percent: 30,
        first_hour_utc: 7,
        order_prefix: "404",
        invoice_payment_label: "Pay by Invoice",
        entity: e(
            "Sandbox Comercio S.L.",
            "ESB12345678",
            "Calle de Alcala 50",
            "",
            "Madrid",
            "Madrid",
            "28014",
            "ES",
            "+34-91-555-0100",
        ),
        sellers: &[
            s(
                "Sandbox Retail Espana S.L.",
                Some("ESB84570936"),
                "Calle Ramirez de Prado 5",
                "Madrid",
                "Madrid",
                "28045",
            ),
            s(
                "Valencia Suministros S.L.",
                Some("ESB12345674"),
                "Calle de Colon 20",
                "Valencia",
                "Valencia",
                "46004",
            ),
            s(
                "Sevilla Papeleria S.L.",
                Some("ESB98765432"),
                "Calle Sierpes 30",
                "Sevilla",
                "Sevilla",
                "41004",
            ),
        ],
    },
    // IN and AU: served (products, carts, ordering, empty listings) but without an order
    // history; see docs/sandbox.md, "Regions".
    Profile {
        code: "IN",
        group: "EU",
        currency: "INR",
        marketplace_id: "A21TJRUUN4KGV",
        // GST 18 %, 5 % for food, books exempt.
        rates: [(18, 0), (5, 0), (0, 0)],
        shipping: (4000, 2),
        free_from: (49900, 2),
        utc_offset_minutes: 5 * 60 + 30,
        carriers: ["Delhivery", "Blue Dart", "India Post"],
        facility: "Bhiwandi",
        hub: "Hoskote",
        orders_per_day: (0, 0),
        card_percent: 0,
        first_hour_utc: 4,
        order_prefix: "405",
        invoice_payment_label: "Pay by Invoice",
        entity: e(
            "Sandbox Trading India Pvt. Ltd.",
            "29ABCDE1234F1Z5",
            "1 MG Road",
            "",
            "Bengaluru",
            "KA",
            "560001",
            "IN",
            "+91-80-5555-0100",
        ),
        sellers: &[],
    },
    Profile {
        code: "AU",
        group: "FE",
        currency: "AUD",
        marketplace_id: "A39IBJ37TRP1C6",
        // GST 10 %; basic food GST-free.
        rates: [(10, 0), (0, 0), (10, 0)],
        shipping: (699, 2),
        free_from: (4900, 2),
        utc_offset_minutes: 10 * 60,
        carriers: ["Australia Post", "StarTrack", "Aramex"],
        facility: "Moorebank",
        hub: "Dandenong South",
        orders_per_day: (0, 0),
        card_percent: 0,
        first_hour_utc: 22,
        order_prefix: "503",
        invoice_payment_label: "Pay by Invoice",
        entity: e(
            "Sandbox Trading Pty Ltd",
            "51824753556",
            "1 Martin Place",
            "",
            "Sydney",
            "NSW",
            "2000",
            "AU",
            "+61-2-5555-0100",
        ),
        sellers: &[],
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_region_has_rules_and_rounding_fits_the_currency() {
        for code in [
            "AU", "CA", "DE", "ES", "FR", "IN", "IT", "JP", "MX", "UK", "US",
        ] {
            assert_eq!(profile(code).code, code);
        }
        let jp = profile("JP");
        assert_eq!(
            jp.tax(Decimal::new(1999, 0), jp.standard_rate()),
            Decimal::new(199, 0)
        );
        assert_eq!(rate_text(jp.rate(TaxClass::Food)), "8%");
        let us = profile("US");
        assert_eq!(
            us.tax(Decimal::new(1000, 2), us.standard_rate())
                .to_string(),
            "0.83"
        );
        assert_eq!(rate_text(us.standard_rate()), "8.25%");
        assert_eq!(rate_text(profile("FR").rate(TaxClass::Books)), "5.5%");
        assert_eq!(us.shipping_fee().to_string(), "5.99");
        assert_eq!(cents(Decimal::new(5, 0)).to_string(), "5.00");
    }
}
