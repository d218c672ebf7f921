//! The deterministic data set: customer, legal entities, buyers, groups, catalog, orders,
//! shipments, packages, invoices, credit memos and transactions, all derived from the seed and
//! the anchor date so that every operation tells the same story.

use chrono::{DateTime, Datelike, Duration, NaiveDate, Utc};
use rust_decimal::Decimal;

use crate::money::dec;
use crate::regions::{self, Profile, TaxClass};
use crate::rng::Rng;

pub struct LegalEntity {
    pub id: String,
    pub name: String,
    /// Documented MLE Auxiliary key/values identifying this entity.
    pub aux: Vec<(String, String)>,
    /// The marketplace whose orders bill this entity.
    pub region: &'static str,
    /// Bill-to address: line 1, line 2, city, state or region, postal code, country, phone.
    pub address: [String; 7],
}

impl LegalEntity {
    /// Entity `LE-000n`, known to the MLE attribute by its name and tax id.
    fn new(n: usize, name: &str, tax_id: &str, region: &'static str, address: [String; 7]) -> Self {
        LegalEntity {
            id: format!("LE-{n:04}"),
            name: name.into(),
            aux: vec![
                ("legalEntity".into(), name.into()),
                ("taxId".into(), tax_id.into()),
            ],
            region,
            address,
        }
    }
}

pub struct User {
    pub id: String,
    pub name: String,
    pub email: String,
    pub group: usize,
}

pub struct Group {
    pub id: String,
    pub name: String,
    pub einvoicing: bool,
    pub mle: bool,
}

pub struct Seller {
    pub id: String,
    pub name: String,
    /// Tax registration number (JP T-number, EU VAT number, CA GST/HST, MX RFC), if any.
    pub registration: Option<String>,
    pub city: String,
    /// The marketplace the seller sells in.
    pub region: &'static str,
    pub address_line1: String,
    pub state: String,
    pub postal_code: String,
}

pub struct Category {
    pub id: &'static str,
    pub name: &'static str,
    pub subs: &'static [&'static str],
    pub nouns: &'static [&'static str],
    /// How the category is taxed; each region's rates are in `regions.rs`.
    pub tax_class: TaxClass,
    pub unspsc: &'static str,
}

pub static CATEGORIES: &[Category] = &[
    Category {
        id: "OFFICE_PRODUCTS",
        name: "Office Products",
        subs: &["PAPER", "WRITING_INSTRUMENTS", "FILING"],
        nouns: &[
            "Copy Paper",
            "Gel Pen",
            "Ring Binder",
            "Sticky Notes",
            "Stapler",
            "Desk Organizer",
        ],
        tax_class: TaxClass::Standard,
        unspsc: "44120000",
    },
    Category {
        id: "INDUSTRIAL_SCIENTIFIC",
        name: "Industrial & Scientific",
        subs: &["SAFETY", "FASTENERS", "LAB_SUPPLIES"],
        nouns: &[
            "Safety Gloves",
            "Hex Bolt Set",
            "Nitrile Gloves",
            "Safety Glasses",
            "Beaker Set",
            "Ear Plugs",
        ],
        tax_class: TaxClass::Standard,
        unspsc: "46180000",
    },
    Category {
        id: "ELECTRONICS",
        name: "Electronics",
        subs: &["CABLES", "STORAGE", "PERIPHERALS"],
        nouns: &[
            "USB-C Cable",
            "SSD Drive",
            "Wireless Mouse",
            "Keyboard",
            "HDMI Cable",
            "Power Strip",
        ],
        tax_class: TaxClass::Standard,
        unspsc: "43200000",
    },
    Category {
        id: "JANITORIAL",
        name: "Janitorial & Sanitation",
        subs: &["CLEANING", "PAPER_TOWELS"],
        nouns: &[
            "Paper Towels",
            "Hand Soap",
            "Trash Bags",
            "Disinfectant Wipes",
            "Mop Refill",
        ],
        tax_class: TaxClass::Standard,
        unspsc: "47130000",
    },
    Category {
        id: "GROCERY",
        name: "Grocery",
        subs: &["BEVERAGES", "SNACKS"],
        nouns: &[
            "Green Tea",
            "Coffee Beans",
            "Mineral Water",
            "Rice Crackers",
            "Drip Coffee",
        ],
        tax_class: TaxClass::Food,
        unspsc: "50200000",
    },
    Category {
        id: "BOOKS",
        name: "Books",
        subs: &["BUSINESS", "TECHNICAL"],
        nouns: &[
            "Accounting Handbook",
            "Rust Programming Guide",
            "Procurement Manual",
            "Logistics Primer",
        ],
        tax_class: TaxClass::Books,
        unspsc: "55101500",
    },
];

const BRANDS: &[&str] = &[
    "Kokuyo-Style",
    "Nakamura",
    "Sakura Works",
    "Fujiline",
    "Hikari",
    "Tanaka Tools",
    "Midori",
    "Asahi Basics",
];
const ADJ: &[&str] = &[
    "Premium",
    "Eco",
    "Heavy Duty",
    "Compact",
    "Professional",
    "Standard",
    "Value Pack",
];

pub struct Offer {
    pub offer_id: String,
    pub seller: usize,
    /// Tax-exclusive unit price in yen.
    pub price: Decimal,
    pub list_price: Decimal,
    pub stock: u32,
    pub preferred: bool,
    pub platform_fulfilled: bool,
    /// (minimum quantity, discount percent) tiers.
    pub tiers: Vec<(u32, i64)>,
}

pub struct Product {
    pub asin: String,
    pub title: String,
    pub category: usize,
    pub sub: &'static str,
    pub brand: String,
    pub asin_type: &'static str,
    pub parent: Option<usize>,
    pub children: Vec<usize>,
    pub color: Option<&'static str>,
    pub upc: String,
    pub ean: String,
    pub part_number: String,
    pub model_number: String,
    pub available: bool,
    pub rating: (u32, Decimal),
    pub offers: Vec<Offer>,
    pub free_shipping: bool,
    pub prime: bool,
    pub custom_quote: bool,
}

impl Product {
    /// The tax rate of this product in a region, in percent.
    pub fn tax_rate(&self, p: &Profile) -> Decimal {
        p.rate(CATEGORIES[self.category].tax_class)
    }
}

#[derive(Clone)]
pub struct OrderLine {
    pub id: String,
    pub product: usize,
    pub offer: usize,
    pub qty: u32,
    pub unit_price: Decimal,
    /// Tax rate in percent.
    pub tax_rate: Decimal,
    pub shipment: usize,
    pub principal: Decimal,
    pub discount: Decimal,
    pub tax: Decimal,
    /// Shipping fee carried by this line (first line of a shipment).
    pub shipping: Decimal,
    pub shipping_tax: Decimal,
    /// Tax rate of the shipping fee (the region's standard rate).
    pub shipping_tax_rate: Decimal,
    pub po_line: String,
}

impl OrderLine {
    pub fn total(&self) -> Decimal {
        self.principal + self.discount + self.tax + self.shipping + self.shipping_tax
    }
}

#[derive(Clone)]
pub struct Package {
    pub id: String,
    pub tracking_id: String,
    pub carrier: &'static str,
}

#[derive(Clone)]
pub struct Shipment {
    pub id: String,
    pub date: DateTime<Utc>,
    pub seller: usize,
    pub packages: Vec<Package>,
    pub delivered: Option<DateTime<Utc>>,
    /// Invoice index, once issued.
    pub invoice: Option<usize>,
}

/// How an order was paid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Payment {
    /// JP's Business Credit Account.
    Bca,
    /// Pay by Invoice (NA, EU): the business credit account outside JP.
    PayByInvoice,
    /// A corporate card.
    Card { last4: u16 },
}

impl Payment {
    /// The invoices' paymentMethodTypes value: BCA for the credit account (JP's BCA and
    /// Pay by Invoice elsewhere), CARD otherwise.
    pub fn method_type(self) -> &'static str {
        match self {
            Payment::Bca | Payment::PayByInvoice => "BCA",
            Payment::Card { .. } => "CARD",
        }
    }

    /// The reconciliation transactions' paymentInstrumentType.
    pub fn instrument(self) -> &'static str {
        match self {
            Payment::Bca | Payment::PayByInvoice => "BCA",
            Payment::Card { .. } => "CreditCard",
        }
    }

    /// The invoice detail's paymentMethod text.
    pub fn label(self, p: &Profile) -> String {
        match self {
            Payment::Bca | Payment::PayByInvoice => p.invoice_payment_label.to_string(),
            Payment::Card { last4 } => format!("Visa ending in {last4:04}"),
        }
    }

    pub fn is_card(self) -> bool {
        matches!(self, Payment::Card { .. })
    }
}

#[derive(Clone)]
pub struct Order {
    pub id: String,
    pub date: DateTime<Utc>,
    pub region: String,
    pub currency: String,
    pub payment: Payment,
    pub buyer: usize,
    pub group: usize,
    pub legal_entity: usize,
    pub po_number: String,
    pub digital: bool,
    pub status: &'static str,
    pub lines: Vec<OrderLine>,
    pub shipments: Vec<Shipment>,
    pub business_info: Vec<(String, String)>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum InvoiceKind {
    Standard,
    CreditMemo,
}

impl InvoiceKind {
    pub fn wire(self) -> &'static str {
        match self {
            InvoiceKind::Standard => "STANDARD",
            InvoiceKind::CreditMemo => "CREDIT_MEMO",
        }
    }
}

/// One invoice line (or reversal unit): amounts already signed.
#[derive(Clone)]
pub struct InvLine {
    pub order_line: usize,
    pub qty: u32,
    pub unit_price: Decimal,
    pub tax_rate: Decimal,
    pub principal: Decimal,
    pub discount: Decimal,
    pub tax: Decimal,
    pub shipping: Decimal,
    pub shipping_tax: Decimal,
    pub shipping_tax_rate: Decimal,
}

impl InvLine {
    pub fn total(&self) -> Decimal {
        self.principal + self.discount + self.tax + self.shipping + self.shipping_tax
    }
}

pub struct Invoice {
    pub number: String,
    pub kind: InvoiceKind,
    pub issue_date: DateTime<Utc>,
    pub status: &'static str,
    pub periodic: bool,
    pub order: usize,
    pub shipment: usize,
    pub lines: Vec<InvLine>,
    pub seller: usize,
    /// Credit memos reversing lines of this invoice.
    pub credit_memos: Vec<usize>,
    /// For a credit memo: the invoice it corrects.
    pub associated: Option<usize>,
    pub consolidated: Option<String>,
}

pub struct Totals {
    pub item_subtotal: Decimal,
    pub shipping: Decimal,
    pub promos: Decimal,
    pub tax: Decimal,
    pub total: Decimal,
    /// (rate percent, exclusive, tax), highest rate first.
    pub breakdown: Vec<(Decimal, Decimal, Decimal)>,
}

impl Invoice {
    pub fn totals(&self) -> Totals {
        let mut t = Totals {
            item_subtotal: Decimal::ZERO,
            shipping: Decimal::ZERO,
            promos: Decimal::ZERO,
            tax: Decimal::ZERO,
            total: Decimal::ZERO,
            breakdown: Vec::new(),
        };
        let mut by_rate: std::collections::BTreeMap<Decimal, (Decimal, Decimal)> =
            Default::default();
        for l in &self.lines {
            t.item_subtotal += l.principal;
            t.shipping += l.shipping;
            t.promos += l.discount;
            t.tax += l.tax + l.shipping_tax;
            let e = by_rate.entry(l.tax_rate).or_default();
            e.0 += l.principal + l.discount;
            e.1 += l.tax;
            if !l.shipping.is_zero() {
                // Shipping is taxed at the region's standard rate.
                let s = by_rate.entry(l.shipping_tax_rate).or_default();
                s.0 += l.shipping;
                s.1 += l.shipping_tax;
            }
        }
        t.total = t.item_subtotal + t.shipping + t.promos + t.tax;
        t.breakdown = by_rate
            .into_iter()
            .rev()
            .map(|(r, (e, x))| (r, e, x))
            .collect();
        t
    }

    pub fn qualified(&self, w: &World) -> bool {
        w.sellers[self.seller].registration.is_some()
    }
}

pub struct Transaction {
    pub id: String,
    pub invoice: usize,
    pub date: DateTime<Utc>,
    pub feed_date: DateTime<Utc>,
    /// Decimal places used for this transaction's string amounts (1 or 2).
    pub scale: u32,
}

pub struct CartItem {
    pub item_id: String,
    pub product: usize,
    pub offer: usize,
    pub qty: u32,
    pub added: DateTime<Utc>,
    pub modified: DateTime<Utc>,
}

pub struct Cart {
    pub id: String,
    pub owner: usize,
    pub region: String,
    pub items: Vec<CartItem>,
}

/// Orders with special document behaviour.
pub struct Specials {
    pub fatal_order: String,
    pub error_document_order: String,
    pub digital_orders: Vec<String>,
    pub pending_consolidated: Option<String>,
    pub old_package: Option<(String, String, String)>,
    pub low_stock_asin: String,
    pub unavailable_asin: String,
    /// Notable orders of the regions outside JP, by region code.
    pub regional: Vec<(&'static str, RegionalSpecials)>,
}

/// A shipped line of an order: (orderId, orderLineItemId, shipmentId).
pub type LineRef = (String, String, String);

/// Notable orders of one region (a shipped line of each, invoiced last month when possible).
#[derive(Default)]
pub struct RegionalSpecials {
    pub pay_by_invoice: Option<LineRef>,
    pub card: Option<LineRef>,
    pub credit_memo: Option<LineRef>,
    pub digital: Vec<String>,
}

pub struct World {
    pub today: NaiveDate,
    /// The instant the data set is anchored at (the clock's start).
    pub now: DateTime<Utc>,
    pub customer_id: String,
    pub customer_name: String,
    pub platform_entity: (String, String),
    pub legal_entities: Vec<LegalEntity>,
    pub users: Vec<User>,
    pub groups: Vec<Group>,
    pub sellers: Vec<Seller>,
    pub products: Vec<Product>,
    pub orders: Vec<Order>,
    pub invoices: Vec<Invoice>,
    pub transactions: Vec<Transaction>,
    pub carts: Vec<Cart>,
    pub specials: Specials,
    pub rng: Rng,
    pub next_order: u64,
    pub next_item: u64,
}

pub const REGISTERED_EMAIL: &str = "buyer@sandbox-business.example";

impl World {
    pub fn product(&self, asin: &str) -> Option<usize> {
        self.products.iter().position(|p| p.asin == asin)
    }

    pub fn offer(&self, offer_id: &str) -> Option<(usize, usize)> {
        for (pi, p) in self.products.iter().enumerate() {
            if let Some(oi) = p.offers.iter().position(|o| o.offer_id == offer_id) {
                return Some((pi, oi));
            }
        }
        None
    }

    pub fn user_by_email(&self, email: &str) -> Option<usize> {
        self.users
            .iter()
            .position(|u| u.email.eq_ignore_ascii_case(email))
    }

    pub fn invoice(&self, number: &str) -> Option<usize> {
        self.invoices.iter().position(|i| i.number == number)
    }

    pub fn order(&self, id: &str) -> Option<usize> {
        self.orders.iter().position(|o| o.id == id)
    }

    pub fn new_order_id(&mut self) -> String {
        self.next_order += 1;
        let n = self.next_order;
        format!("D01-{:07}-{:07}", 1_000_000 + n * 7919 % 8_999_999, n)
    }

    /// A new order id in a region's form (JP keeps its historical `D01-` ids).
    pub fn new_order_id_in(&mut self, region: &str) -> String {
        if region == "JP" {
            return self.new_order_id();
        }
        self.next_order += 1;
        let n = self.next_order;
        format!(
            "{}-{:07}-{:07}",
            regions::profile(region).order_prefix,
            9_000_000 + n * 7919 % 999_999,
            n
        )
    }

    /// The sellers of a marketplace, by index into `sellers`.
    pub fn region_sellers(&self, region: &str) -> Vec<usize> {
        (0..self.sellers.len())
            .filter(|&i| self.sellers[i].region == region)
            .collect()
    }

    /// Who sells an offer in a region: offers are listed once (with JP's five sellers)
    /// and sold in every marketplace by the seller of the same rank there.
    pub fn seller_in(&self, offer_seller: usize, region: &str) -> usize {
        let list = self.region_sellers(region);
        if list.is_empty() || list.contains(&offer_seller) {
            return offer_seller;
        }
        list[offer_seller % list.len()]
    }

    /// The legal entity billed for a marketplace's orders (JP: the first; MLE orders pick).
    pub fn entity_of(&self, region: &str) -> usize {
        self.legal_entities
            .iter()
            .position(|l| l.region == region)
            .unwrap_or(0)
    }

    pub fn new_item_id(&mut self) -> String {
        self.next_item += 1;
        format!("CI-{:08}", self.next_item)
    }

    /// Generates the whole data set.
    pub fn generate(seed: u64, now: DateTime<Utc>) -> World {
        let today = now.date_naive();
        let mut rng = Rng::new(seed);
        let mut legal_entities = vec![
            LegalEntity::new(
                1,
                "Sandbox Trading K.K.",
                "T9000000000001",
                "JP",
                jp_address(0),
            ),
            LegalEntity::new(
                2,
                "Sandbox Manufacturing K.K.",
                "T9000000000002",
                "JP",
                jp_address(1),
            ),
        ];
        for p in regions::with_history().filter(|p| p.code != "JP") {
            let e = &p.entity;
            let address = [
                e.address_line1,
                e.address_line2,
                e.city,
                e.state,
                e.postal_code,
                e.country,
                e.phone,
            ]
            .map(String::from);
            let n = legal_entities.len() + 1;
            legal_entities.push(LegalEntity::new(n, e.name, e.tax_id, p.code, address));
        }
        let groups = vec![
            Group {
                id: "grp-default".into(),
                name: "Default Purchasing".into(),
                einvoicing: false,
                mle: false,
            },
            Group {
                id: "grp-einvoice-01".into(),
                name: "E-Invoicing Procurement".into(),
                einvoicing: true,
                mle: false,
            },
            Group {
                id: "grp-mle-01".into(),
                name: "Multi-Entity Purchasing".into(),
                einvoicing: false,
                mle: true,
            },
        ];
        let users = vec![
            User {
                id: "U-1001".into(),
                name: "Hanako Sato".into(),
                email: REGISTERED_EMAIL.into(),
                group: 0,
            },
            User {
                id: "U-1002".into(),
                name: "Taro Suzuki".into(),
                email: "einvoice.buyer@sandbox-business.example".into(),
                group: 1,
            },
            User {
                id: "U-1003".into(),
                name: "Yuki Takahashi".into(),
                email: "mle.buyer@sandbox-business.example".into(),
                group: 2,
            },
            User {
                id: "U-1004".into(),
                name: "Kenji Watanabe".into(),
                email: "approver@sandbox-business.example".into(),
                group: 0,
            },
        ];
        let sellers = vec![
            Seller {
                id: "S-PLATFORM".into(),
                name: "Sandbox Retail Japan".into(),
                registration: Some(format!("T{}", rng.digits(13))),
                city: "Tokyo".into(),
                ..jp_seller()
            },
            Seller {
                id: "S-A1".into(),
                name: "Osaka Office Supply Co.".into(),
                registration: Some(format!("T{}", rng.digits(13))),
                city: "Osaka".into(),
                ..jp_seller()
            },
            Seller {
                id: "S-B2".into(),
                name: "Nagoya Industrial Ltd.".into(),
                registration: Some(format!("T{}", rng.digits(13))),
                city: "Nagoya".into(),
                ..jp_seller()
            },
            Seller {
                id: "S-C3".into(),
                name: "Fukuoka Small Goods".into(),
                registration: None,
                city: "Fukuoka".into(),
                ..jp_seller()
            },
            Seller {
                id: "S-D4".into(),
                name: "Sapporo Craft Shop".into(),
                registration: None,
                city: "Sapporo".into(),
                ..jp_seller()
            },
        ];
        let mut sellers = sellers;
        for s in sellers.iter_mut() {
            s.state = s.city.clone();
        }
        for p in regions::with_history() {
            for (k, spec) in p.sellers.iter().enumerate() {
                sellers.push(Seller {
                    id: format!("S-{}{}", p.code, k + 1),
                    name: spec.name.into(),
                    registration: spec.registration.map(String::from),
                    city: spec.city.into(),
                    region: p.code,
                    address_line1: spec.address_line1.into(),
                    state: spec.state.into(),
                    postal_code: spec.postal_code.into(),
                });
            }
        }
        // Offers are listed with JP's five sellers (see `seller_in`).
        let products = gen_products(&mut rng, 5);
        let mut w = World {
            today,
            now,
            customer_id: "CUST-SBX-0001".into(),
            customer_name: "Sandbox Business Customer".into(),
            platform_entity: (
                "Sandbox Commerce Japan G.K.".into(),
                format!("T{}", rng.digits(13)),
            ),
            legal_entities,
            users,
            groups,
            sellers,
            products,
            orders: Vec::new(),
            invoices: Vec::new(),
            transactions: Vec::new(),
            carts: Vec::new(),
            specials: Specials {
                fatal_order: String::new(),
                error_document_order: String::new(),
                digital_orders: Vec::new(),
                pending_consolidated: None,
                old_package: None,
                low_stock_asin: String::new(),
                unavailable_asin: String::new(),
                regional: Vec::new(),
            },
            rng: Rng::new(seed ^ 0xC0FFEE),
            next_order: 0,
            next_item: 0,
        };
        gen_orders(&mut w, &mut rng, regions::profile("JP"));
        gen_invoices(&mut w, &mut rng, 0);
        gen_carts(&mut w, &mut rng);
        w.specials.low_stock_asin = w
            .products
            .iter()
            .find(|p| {
                p.asin_type != "VARIATION_PARENT"
                    && p.available
                    && p.offers.first().map(|o| o.stock) == Some(3)
            })
            .map(|p| p.asin.clone())
            .unwrap_or_default();
        w.specials.unavailable_asin = w
            .products
            .iter()
            .find(|p| !p.available)
            .map(|p| p.asin.clone())
            .unwrap_or_default();
        // The other marketplaces, each from its own generator so that JP's data (and every
        // id the tests know) stays what it was.
        for p in regions::with_history().filter(|p| p.code != "JP") {
            let mut r = Rng::new(seed ^ region_salt(p.code));
            let first = w.orders.len();
            gen_orders(&mut w, &mut r, p);
            gen_invoices(&mut w, &mut r, first);
            let specials = regional_specials(&mut w, p, first);
            w.specials.regional.push((p.code, specials));
        }
        gen_regional_carts(&mut w, seed);
        w
    }
}

fn region_salt(code: &str) -> u64 {
    code.bytes().fold(0x5EED_0000_u64, |h, b| {
        h.wrapping_mul(131).wrapping_add(b as u64)
    })
}

/// A JP seller's fields beyond name, registration and city (as the reports always showed).
fn jp_seller() -> Seller {
    Seller {
        id: String::new(),
        name: String::new(),
        registration: None,
        city: String::new(),
        region: "JP",
        address_line1: "1-2-3 Chuo".into(),
        state: String::new(),
        postal_code: "100-0001".into(),
    }
}

/// The bill-to address of JP's legal entity `le`.
fn jp_address(le: usize) -> [String; 7] {
    [
        format!("{}-1-1 Marunouchi", le + 1),
        "Chiyoda-ku".into(),
        "Tokyo".into(),
        "Tokyo".into(),
        "100-0005".into(),
        "JP".into(),
        "+81-3-0000-0000".into(),
    ]
}

/// Marks EU digital orders and picks each region's notable orders.
fn regional_specials(w: &mut World, p: &Profile, first: usize) -> RegionalSpecials {
    let mut out = RegionalSpecials::default();
    let last_month = {
        let first_this = w.today.with_day(1).unwrap_or(w.today);
        let first_prev = (first_this - Duration::days(1))
            .with_day(1)
            .unwrap_or(first_this);
        (at_hour(first_prev, 0, 0), at_hour(first_this, 0, 0))
    };
    let line_ref = |o: &Order| -> LineRef {
        let l = &o.lines[0];
        (
            o.id.clone(),
            l.id.clone(),
            o.shipments[l.shipment].id.clone(),
        )
    };
    // Prefer orders invoiced last month (what a month-end close sees), then any shipped one.
    let mut candidates: Vec<usize> = (first..w.orders.len())
        .filter(|&i| w.orders[i].shipments.iter().all(|s| s.invoice.is_some()))
        .collect();
    candidates.sort_by_key(|&i| {
        let d = w.orders[i].shipments[0].date;
        !(d >= last_month.0 && d < last_month.1)
    });
    if p.group == "EU" && matches!(p.code, "UK" | "DE") {
        // One digital order per large EU marketplace: no documents (EU rule).
        if let Some(&i) = candidates
            .iter()
            .find(|&&i| w.orders[i].shipments.len() == 1 && !w.orders[i].payment.is_card())
        {
            w.orders[i].digital = true;
            out.digital.push(w.orders[i].id.clone());
        }
    }
    let usable = |o: &Order| !o.digital && o.lines.len() > 1;
    out.pay_by_invoice = candidates
        .iter()
        .map(|&i| &w.orders[i])
        .find(|o| usable(o) && !o.payment.is_card())
        .map(line_ref);
    out.card = candidates
        .iter()
        .map(|&i| &w.orders[i])
        .find(|o| usable(o) && o.payment.is_card())
        .map(line_ref);
    out.credit_memo = candidates
        .iter()
        .map(|&i| &w.orders[i])
        .find(|o| {
            !o.digital
                && !o.payment.is_card()
                && o.shipments.iter().any(|s| {
                    s.invoice
                        .is_some_and(|v| !w.invoices[v].credit_memos.is_empty())
                })
        })
        .map(|o| {
            let s = o
                .shipments
                .iter()
                .position(|s| {
                    s.invoice
                        .is_some_and(|v| !w.invoices[v].credit_memos.is_empty())
                })
                .unwrap_or(0);
            let memo = w.invoices[o.shipments[s].invoice.unwrap_or(0)].credit_memos[0];
            let l = w.invoices[memo].lines[0].order_line;
            (
                o.id.clone(),
                o.lines[l].id.clone(),
                o.shipments[s].id.clone(),
            )
        });
    out
}

fn gen_products(rng: &mut Rng, n_sellers: usize) -> Vec<Product> {
    let mut products: Vec<Product> = Vec::new();
    let colors = ["Black", "Blue", "Red"];
    for (ci, cat) in CATEGORIES.iter().enumerate() {
        let n_standard = if cat.id == "BOOKS" || cat.id == "GROCERY" {
            9
        } else {
            10
        };
        for k in 0..n_standard {
            let p = new_product(rng, ci, k, "STANDARD", n_sellers);
            products.push(p);
        }
        // One variation family in the first three categories.
        if ci < 3 {
            let parent_idx = products.len();
            let mut parent = new_product(rng, ci, 99, "VARIATION_PARENT", n_sellers);
            parent.offers.clear();
            products.push(parent);
            for (j, color) in colors.iter().enumerate() {
                let mut child = new_product(rng, ci, 100 + j, "VARIATION_CHILD", n_sellers);
                child.title = format!("{}, {}", products[parent_idx].title, color);
                child.parent = Some(parent_idx);
                child.color = Some(color);
                let idx = products.len();
                products.push(child);
                products[parent_idx].children.push(idx);
            }
        }
    }
    // Fixed roles used by the documented scenarios.
    let low = products
        .iter()
        .position(|p| p.asin_type == "STANDARD")
        .unwrap_or(0);
    if let Some(o) = products[low].offers.first_mut() {
        o.stock = 3;
    }
    let gone = products
        .iter()
        .rposition(|p| p.asin_type == "STANDARD" && CATEGORIES[p.category].id == "OFFICE_PRODUCTS")
        .unwrap_or(1);
    products[gone].available = false;
    for o in products[gone].offers.iter_mut() {
        o.stock = 0;
    }
    products
}

fn new_product(
    rng: &mut Rng,
    ci: usize,
    k: usize,
    asin_type: &'static str,
    n_sellers: usize,
) -> Product {
    let cat = &CATEGORIES[ci];
    let brand = rng.pick(BRANDS).to_string();
    let noun = cat.nouns[k % cat.nouns.len()];
    let adj = rng.pick(ADJ);
    let title = format!("{brand} {adj} {noun}");
    let base = dec(rng.range(2, 400) as i64 * 50, 0); // 100 .. 20000 yen
    let n_offers = if asin_type == "VARIATION_PARENT" {
        0
    } else {
        rng.range(1, 3) as usize
    };
    let first_seller = (k + ci) % n_sellers;
    let mut offers = Vec::new();
    for j in 0..n_offers {
        let seller = if j == 0 {
            first_seller
        } else {
            rng.range(0, n_sellers as u64 - 1) as usize
        };
        let price = base + dec(rng.range(0, 10) as i64 * 10, 0) * dec(j as i64, 0);
        let tiers = if rng.chance(40) {
            vec![(1, 0), (10, 5), (50, 10)]
        } else {
            vec![(1, 0)]
        };
        offers.push(Offer {
            offer_id: format!("OFR{}", rng.token(40).replace(['-', '_'], "x")),
            seller,
            price,
            list_price: price + dec(rng.range(0, 5) as i64 * 100, 0),
            stock: rng.range(20, 900) as u32,
            preferred: j == 0 && rng.chance(50),
            platform_fulfilled: seller == 0 || rng.chance(50),
            tiers,
        });
    }
    Product {
        asin: format!("B0{}", rng.alnum(8)),
        title,
        category: ci,
        sub: cat.subs[k % cat.subs.len()],
        brand,
        asin_type,
        parent: None,
        children: Vec::new(),
        color: None,
        upc: rng.digits(12),
        ean: format!("49{}", rng.digits(11)),
        part_number: format!("PN-{}", rng.alnum(6)),
        model_number: format!("M{}", rng.digits(5)),
        available: true,
        rating: (rng.range(0, 900) as u32, dec(rng.range(30, 50) as i64, 1)),
        offers,
        free_shipping: rng.chance(50),
        prime: rng.chance(60),
        custom_quote: rng.chance(20),
    }
}

fn at_hour(d: NaiveDate, h: u32, m: u32) -> DateTime<Utc> {
    d.and_hms_opt(h, m, 0).unwrap_or_default().and_utc()
}

/// Fills line amounts of one shipment in a region: item tax per rate (allocated to lines,
/// remainder on the last line of the rate), shipping fee with the standard rate's tax on the
/// first line, and (when `promo`) a 5 % promotion on the first line.
pub fn price_shipment(lines: &mut [OrderLine], promo: bool, p: &Profile) {
    let subtotal: Decimal = lines.iter().map(|l| l.principal).sum();
    if promo {
        if let Some(l) = lines.first_mut() {
            let five = l.principal * dec(5, 2);
            l.discount = if p.currency == "JPY" {
                -five.floor().min(dec(500, 0))
            } else {
                -p.amount(five.min(crate::money::convert(dec(500, 0), p.code)))
            };
        }
    }
    let mut rates: Vec<Decimal> = lines.iter().map(|l| l.tax_rate).collect();
    rates.sort();
    rates.dedup();
    for r in rates {
        let idx: Vec<usize> = (0..lines.len())
            .filter(|&i| lines[i].tax_rate == r)
            .collect();
        let base: Decimal = idx
            .iter()
            .map(|&i| lines[i].principal + lines[i].discount)
            .sum();
        let total_tax = p.tax(base, r);
        let mut given = p.amount(Decimal::ZERO);
        for (n, &i) in idx.iter().enumerate() {
            let t = if n + 1 == idx.len() {
                total_tax - given
            } else {
                p.tax(lines[i].principal + lines[i].discount, r)
            };
            lines[i].tax = t;
            given += t;
        }
    }
    if subtotal < p.free_shipping_from() {
        if let Some(l) = lines.first_mut() {
            l.shipping = p.shipping_fee();
            l.shipping_tax_rate = p.standard_rate();
            l.shipping_tax = p.tax(l.shipping, l.shipping_tax_rate);
        }
    }
}

/// 120 days of orders of one marketplace. JP's pattern (and its draws from `rng`) is the
/// historical one; the other marketplaces have their own volume, no MLE group, a card share
/// and their own sellers, carriers, tax rates and currency.
fn gen_orders(w: &mut World, rng: &mut Rng, rp: &Profile) {
    let jp = rp.code == "JP";
    let sellers = w.region_sellers(rp.code);
    // Purchasable (product, offer) pairs per seller of the region.
    let mut by_seller: Vec<Vec<(usize, usize)>> = vec![Vec::new(); sellers.len()];
    for (pi, p) in w.products.iter().enumerate() {
        if p.asin_type == "VARIATION_PARENT" || !p.available {
            continue;
        }
        for (oi, o) in p.offers.iter().enumerate() {
            by_seller[o.seller % sellers.len()].push((pi, oi));
        }
    }
    let now = w.now;
    let first_order = w.orders.len();
    let mut po = if jp { 1000 } else { 5000 };
    for days_ago in (1..=120i64).rev() {
        let day = w.today - Duration::days(days_ago);
        let n = if jp {
            1 + (rng.chance(55) as u64)
        } else {
            rng.chance(rp.orders_per_day.0) as u64 + rng.chance(rp.orders_per_day.1) as u64
        };
        for k in 0..n {
            let date = if jp {
                at_hour(
                    day,
                    1 + rng.range(0, 8) as u32 + k as u32 * 9,
                    rng.range(0, 59) as u32,
                )
            } else {
                at_hour(day, 0, 0)
                    + Duration::hours(rp.first_hour_utc + rng.range(0, 8) as i64 + k as i64 * 4)
                    + Duration::minutes(rng.range(0, 59) as i64)
            };
            let group = match rng.range(0, 9) {
                0..=5 => 0,
                6 | 7 => 1,
                _ if jp => 2,
                _ => 0,
            };
            let buyer = match group {
                0 => {
                    if rng.chance(70) {
                        0
                    } else {
                        3
                    }
                }
                g => g,
            };
            let legal_entity = if group == 2 {
                rng.range(0, 1) as usize
            } else {
                w.entity_of(rp.code)
            };
            let order_id = if jp {
                w.new_order_id()
            } else {
                format!("{}-{}-{}", rp.order_prefix, rng.digits(7), rng.digits(7))
            };
            let payment = if jp {
                Payment::Bca
            } else if rng.chance(rp.card_percent) {
                Payment::Card {
                    last4: rng.range(1000, 9999) as u16,
                }
            } else {
                Payment::PayByInvoice
            };
            po += 1;
            let po_number = if rng.chance(15) {
                String::new()
            } else {
                format!("PO-{po}")
            };
            let n_ship = if rng.chance(20) { 2 } else { 1 };
            let mut lines: Vec<OrderLine> = Vec::new();
            let mut shipments = Vec::new();
            for s in 0..n_ship {
                let rank = rng.range(0, sellers.len() as u64 - 1) as usize;
                let seller = sellers[rank];
                let pool = &by_seller[rank];
                if pool.is_empty() {
                    continue;
                }
                let n_lines = if n_ship == 1 {
                    rng.range(1, 12)
                } else {
                    rng.range(1, 5)
                };
                let ship_date = date + Duration::hours(20 + rng.range(0, 30) as i64);
                let sidx = shipments.len();
                let mut packages = vec![Package {
                    id: format!("{}", 100 + s),
                    tracking_id: format!("SBX{}", rng.digits(10)),
                    carrier: if rng.chance(50) {
                        rp.carriers[0]
                    } else {
                        rp.carriers[1]
                    },
                }];
                if rng.chance(15) {
                    packages.push(Package {
                        id: format!("{}", 200 + s),
                        tracking_id: format!("SBX{}", rng.digits(10)),
                        carrier: rp.carriers[2],
                    });
                }
                let delivered = ship_date + Duration::hours(20 + rng.range(0, 50) as i64);
                shipments.push(Shipment {
                    id: format!("SH{}", rng.digits(9)),
                    date: ship_date,
                    seller,
                    packages,
                    delivered: if delivered <= now {
                        Some(delivered)
                    } else {
                        None
                    },
                    invoice: None,
                });
                let first = lines.len();
                for _ in 0..n_lines {
                    let (pi, oi) = *rng.pick(pool);
                    let qty = rng.range(1, 6) as u32;
                    let unit = crate::money::convert(w.products[pi].offers[oi].price, rp.code);
                    let n = lines.len() + 1;
                    lines.push(OrderLine {
                        id: format!("{}{}", rng.digits(10), n),
                        product: pi,
                        offer: oi,
                        qty,
                        unit_price: unit,
                        tax_rate: w.products[pi].tax_rate(rp),
                        shipment: sidx,
                        principal: unit * Decimal::from(qty),
                        discount: rp.amount(Decimal::ZERO),
                        tax: rp.amount(Decimal::ZERO),
                        shipping: rp.amount(Decimal::ZERO),
                        shipping_tax: rp.amount(Decimal::ZERO),
                        shipping_tax_rate: rp.standard_rate(),
                        po_line: format!("{n}"),
                    });
                }
                let promo = rng.chance(15);
                price_shipment(&mut lines[first..], promo, rp);
            }
            if lines.is_empty() {
                continue;
            }
            let mut business_info = vec![(
                "costCenter".to_string(),
                format!("CC-{}", rng.range(100, 120)),
            )];
            if rng.chance(50) {
                business_info.push(("project".into(), format!("PRJ-{}", rng.alnum(4))));
            }
            w.orders.push(Order {
                id: order_id,
                date,
                region: rp.code.into(),
                currency: rp.currency.into(),
                payment,
                buyer,
                group,
                legal_entity,
                po_number,
                digital: false,
                status: "CLOSED",
                lines,
                shipments,
                business_info,
            });
        }
    }
    // Status of recent orders follows their shipments.
    for o in w.orders[first_order..].iter_mut() {
        if o.shipments.iter().any(|s| s.date > now) {
            o.status = "PENDING_FULFILLMENT";
        } else if o.shipments.iter().any(|s| s.delivered.is_none()) {
            o.status = "PAYMENT_CONFIRMED";
        }
    }
    if !jp {
        return;
    }
    // JP's specials: a few digital orders, one FATAL and one error-document order, all
    // shipped more than 30 days ago and in the default group.
    let candidates: Vec<usize> = (0..w.orders.len())
        .filter(|&i| w.orders[i].group == 0 && w.orders[i].shipments.len() == 1)
        .collect();
    let pick = |n: usize| candidates.get(n * 5 + 2).copied();
    for (n, slot) in [0usize, 1, 2].iter().enumerate() {
        if let Some(i) = pick(*slot) {
            w.orders[i].digital = true;
            w.specials.digital_orders.push(w.orders[i].id.clone());
            let _ = n;
        }
    }
    if let Some(i) = pick(3) {
        w.specials.fatal_order = w.orders[i].id.clone();
    }
    if let Some(i) = pick(4) {
        w.specials.error_document_order = w.orders[i].id.clone();
    }
    // A package shipped more than 90 days ago (tracking answers 404).
    if let Some(o) = w.orders.first() {
        if let (Some(s), true) = (o.shipments.first(), (now - o.date).num_days() > 91) {
            w.specials.old_package = Some((o.id.clone(), s.id.clone(), s.packages[0].id.clone()));
        }
    }
}

/// One invoice per shipped shipment of the orders from `first` on, some credit memos, and
/// a transaction for each.
fn gen_invoices(w: &mut World, rng: &mut Rng, first: usize) {
    let now = w.now;
    let mut tx_n = w.transactions.len() as u64;
    for oi in first..w.orders.len() {
        let rp = regions::profile(&w.orders[oi].region);
        for si in 0..w.orders[oi].shipments.len() {
            let ship = w.orders[oi].shipments[si].clone();
            if ship.date > now {
                continue;
            }
            let order = &w.orders[oi];
            let lines: Vec<InvLine> = order
                .lines
                .iter()
                .enumerate()
                .filter(|(_, l)| l.shipment == si)
                .map(|(li, l)| InvLine {
                    order_line: li,
                    qty: l.qty,
                    unit_price: l.unit_price,
                    tax_rate: l.tax_rate,
                    principal: l.principal,
                    discount: l.discount,
                    tax: l.tax,
                    shipping: l.shipping,
                    shipping_tax: l.shipping_tax,
                    shipping_tax_rate: l.shipping_tax_rate,
                })
                .collect();
            let periodic = order.group == 2;
            let consolidated = periodic.then(|| {
                format!(
                    "CI{}{:02}{}",
                    ship.date.year(),
                    ship.date.month(),
                    order.legal_entity + 1
                )
            });
            let age = (now - ship.date).num_days();
            let idx = w.invoices.len();
            w.invoices.push(Invoice {
                number: format!("{}{}", rp.code, rng.alnum(10)),
                kind: InvoiceKind::Standard,
                issue_date: ship.date,
                status: if age > 45 { "Closed" } else { "Issued" },
                periodic,
                order: oi,
                shipment: si,
                lines,
                seller: ship.seller,
                credit_memos: Vec::new(),
                associated: None,
                consolidated,
            });
            w.orders[oi].shipments[si].invoice = Some(idx);
            tx_n += 1;
            w.transactions.push(Transaction {
                id: format!("TX{:010}", 5_000_000 + tx_n * 37),
                invoice: idx,
                date: ship.date,
                feed_date: ship.date + Duration::hours(6),
                // JPY amounts come with 1 or 2 decimals ("1751.0", "1751.00"); cents with 2.
                scale: (1 + (rng.next_u64() % 2) as u32).max(rp.decimals()),
            });
            // Some invoices get a credit memo for one line.
            if rng.chance(12) {
                let memo_date = ship.date + Duration::days(rng.range(3, 10) as i64);
                if memo_date <= now {
                    let src = w.invoices[idx].lines[0].clone();
                    let tax = -rp.tax(src.principal, src.tax_rate);
                    let memo_line = InvLine {
                        principal: -src.principal,
                        discount: rp.amount(Decimal::ZERO),
                        tax,
                        shipping: rp.amount(Decimal::ZERO),
                        shipping_tax: rp.amount(Decimal::ZERO),
                        ..src
                    };
                    let midx = w.invoices.len();
                    let periodic = w.invoices[idx].periodic;
                    let consolidated = w.invoices[idx].consolidated.clone();
                    w.invoices.push(Invoice {
                        number: format!("{}CM{}", rp.code, rng.alnum(8)),
                        kind: InvoiceKind::CreditMemo,
                        issue_date: memo_date,
                        status: if (now - memo_date).num_days() > 45 {
                            "Closed"
                        } else {
                            "Issued"
                        },
                        periodic,
                        order: oi,
                        shipment: si,
                        lines: vec![memo_line],
                        seller: ship.seller,
                        credit_memos: Vec::new(),
                        associated: Some(idx),
                        consolidated,
                    });
                    w.invoices[idx].credit_memos.push(midx);
                    tx_n += 1;
                    w.transactions.push(Transaction {
                        id: format!("TX{:010}", 5_000_000 + tx_n * 37),
                        invoice: midx,
                        date: memo_date,
                        feed_date: memo_date + Duration::hours(6),
                        scale: 2,
                    });
                }
            }
        }
    }
    w.transactions.sort_by_key(|t| t.feed_date);
    // The newest consolidated invoice number reads "Pending" at first.
    w.specials.pending_consolidated = w
        .invoices
        .iter()
        .filter_map(|i| i.consolidated.clone())
        .max();
}

fn gen_carts(w: &mut World, rng: &mut Rng) {
    let start = at_hour(w.today - Duration::days(3), 9, 0);
    let purch: Vec<(usize, usize)> = w
        .products
        .iter()
        .enumerate()
        .filter(|(_, p)| p.asin_type != "VARIATION_PARENT" && p.available && !p.offers.is_empty())
        .map(|(i, _)| (i, 0))
        .collect();
    let unavailable = w.products.iter().position(|p| !p.available);
    let regions = ["JP", "JP", "JP", "JP", "JP", "JP", "US"];
    for (n, region) in regions.iter().enumerate() {
        let mut items = Vec::new();
        let n_items = if n == 5 { 0 } else { rng.range(1, 4) };
        for _ in 0..n_items {
            let (pi, oi) = *rng.pick(&purch);
            if items.iter().any(|i: &CartItem| i.product == pi) {
                continue;
            }
            let id = w.new_item_id();
            items.push(CartItem {
                item_id: id,
                product: pi,
                offer: oi,
                qty: rng.range(1, 3) as u32,
                added: start,
                modified: start,
            });
        }
        // The second cart holds an item that is no longer available.
        if n == 1 {
            if let Some(pi) = unavailable {
                let id = w.new_item_id();
                items.push(CartItem {
                    item_id: id,
                    product: pi,
                    offer: 0,
                    qty: 1,
                    added: start,
                    modified: start,
                });
            }
        }
        w.carts.push(Cart {
            id: format!("cart-{:04}", n + 1),
            owner: 0,
            region: region.to_string(),
            items,
        });
    }
    let id = w.new_item_id();
    let (pi, oi) = purch[0];
    w.carts.push(Cart {
        id: "cart-0101".into(),
        owner: 3,
        region: "JP".into(),
        items: vec![CartItem {
            item_id: id,
            product: pi,
            offer: oi,
            qty: 1,
            added: start,
            modified: start,
        }],
    });
}

/// One cart of the registered user in every other marketplace with history:
/// `cart-0008` (US), then CA, MX, UK, DE, FR, IT, ES (`cart-0015`).
fn gen_regional_carts(w: &mut World, seed: u64) {
    let mut rng = Rng::new(seed ^ region_salt("carts"));
    let start = at_hour(w.today - Duration::days(2), 10, 0);
    let purch: Vec<usize> = (0..w.products.len())
        .filter(|&i| {
            let p = &w.products[i];
            p.asin_type != "VARIATION_PARENT"
                && p.available
                && p.offers.first().is_some_and(|o| o.stock > 10)
        })
        .collect();
    let codes: Vec<&'static str> = regions::with_history()
        .filter(|p| p.code != "JP")
        .map(|p| p.code)
        .collect();
    for code in codes {
        let mut items: Vec<CartItem> = Vec::new();
        for _ in 0..rng.range(2, 3) {
            let pi = *rng.pick(&purch);
            if items.iter().any(|i| i.product == pi) {
                continue;
            }
            let id = w.new_item_id();
            items.push(CartItem {
                item_id: id,
                product: pi,
                offer: 0,
                qty: rng.range(1, 3) as u32,
                added: start,
                modified: start,
            });
        }
        let n = w.carts.iter().filter(|c| c.id != "cart-0101").count();
        w.carts.push(Cart {
            id: format!("cart-{:04}", n + 1),
            owner: 0,
            region: code.to_string(),
            items,
        });
    }
}
