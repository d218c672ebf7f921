//! The deterministic data set: customer, legal entities, buyers, groups, catalog, orders,
//! shipments, packages, invoices, credit memos and transactions, all derived from the seed and
//! the anchor date so that every operation tells the same story.

use chrono::{DateTime, Datelike, Duration, NaiveDate, Utc};
use rust_decimal::Decimal;

use crate::money::dec;
use crate::rng::Rng;

pub struct LegalEntity {
    pub id: String,
    pub name: String,
    /// Documented MLE Auxiliary key/values identifying this entity.
    pub aux: Vec<(String, String)>,
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
    pub registration: Option<String>,
    pub city: String,
}

pub struct Category {
    pub id: &'static str,
    pub name: &'static str,
    pub subs: &'static [&'static str],
    pub nouns: &'static [&'static str],
    /// Consumption tax rate in percent (8 reduced for food, else 10).
    pub tax_percent: i64,
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
        tax_percent: 10,
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
        tax_percent: 10,
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
        tax_percent: 10,
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
        tax_percent: 10,
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
        tax_percent: 8,
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
        tax_percent: 10,
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
    pub fn tax_percent(&self) -> i64 {
        CATEGORIES[self.category].tax_percent
    }
}

#[derive(Clone)]
pub struct OrderLine {
    pub id: String,
    pub product: usize,
    pub offer: usize,
    pub qty: u32,
    pub unit_price: Decimal,
    pub tax_percent: i64,
    pub shipment: usize,
    pub principal: Decimal,
    pub discount: Decimal,
    pub tax: Decimal,
    /// Shipping fee carried by this line (first line of a shipment).
    pub shipping: Decimal,
    pub shipping_tax: Decimal,
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

#[derive(Clone)]
pub struct Order {
    pub id: String,
    pub date: DateTime<Utc>,
    pub region: String,
    pub currency: String,
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
    pub tax_percent: i64,
    pub principal: Decimal,
    pub discount: Decimal,
    pub tax: Decimal,
    pub shipping: Decimal,
    pub shipping_tax: Decimal,
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
    /// (rate percent, exclusive, tax)
    pub breakdown: Vec<(i64, Decimal, Decimal)>,
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
        let mut by_rate: std::collections::BTreeMap<i64, (Decimal, Decimal)> = Default::default();
        for l in &self.lines {
            t.item_subtotal += l.principal;
            t.shipping += l.shipping;
            t.promos += l.discount;
            t.tax += l.tax + l.shipping_tax;
            let e = by_rate.entry(l.tax_percent).or_default();
            e.0 += l.principal + l.discount;
            e.1 += l.tax;
            if !l.shipping.is_zero() {
                // Shipping is taxed at the standard 10 %.
                let s = by_rate.entry(10).or_default();
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

    pub fn new_item_id(&mut self) -> String {
        self.next_item += 1;
        format!("CI-{:08}", self.next_item)
    }

    /// Generates the whole data set.
    pub fn generate(seed: u64, now: DateTime<Utc>) -> World {
        let today = now.date_naive();
        let mut rng = Rng::new(seed);
        let legal_entities = vec![
            LegalEntity {
                id: "LE-0001".into(),
                name: "Sandbox Trading K.K.".into(),
                aux: vec![
                    ("legalEntity".into(), "Sandbox Trading K.K.".into()),
                    ("taxId".into(), "T9000000000001".into()),
                ],
            },
            LegalEntity {
                id: "LE-0002".into(),
                name: "Sandbox Manufacturing K.K.".into(),
                aux: vec![
                    ("legalEntity".into(), "Sandbox Manufacturing K.K.".into()),
                    ("taxId".into(), "T9000000000002".into()),
                ],
            },
        ];
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
            },
            Seller {
                id: "S-A1".into(),
                name: "Osaka Office Supply Co.".into(),
                registration: Some(format!("T{}", rng.digits(13))),
                city: "Osaka".into(),
            },
            Seller {
                id: "S-B2".into(),
                name: "Nagoya Industrial Ltd.".into(),
                registration: Some(format!("T{}", rng.digits(13))),
                city: "Nagoya".into(),
            },
            Seller {
                id: "S-C3".into(),
                name: "Fukuoka Small Goods".into(),
                registration: None,
                city: "Fukuoka".into(),
            },
            Seller {
                id: "S-D4".into(),
                name: "Sapporo Craft Shop".into(),
                registration: None,
                city: "Sapporo".into(),
            },
        ];
        let products = gen_products(&mut rng, sellers.len());
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
            },
            rng: Rng::new(seed ^ 0xC0FFEE),
            next_order: 0,
            next_item: 0,
        };
        gen_orders(&mut w, &mut rng);
        gen_invoices(&mut w, &mut rng);
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
        w
    }
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

fn floor_tax(base: Decimal, percent: i64) -> Decimal {
    (base * dec(percent, 2)).floor()
}

/// Fills line amounts of one shipment: item tax per rate (allocated to lines, remainder on the
/// last line of the rate), shipping fee with its own 10 % tax on the first line.
pub fn price_shipment(lines: &mut [OrderLine], promo: bool) {
    let subtotal: Decimal = lines.iter().map(|l| l.principal).sum();
    if promo {
        if let Some(l) = lines.first_mut() {
            l.discount = -(l.principal * dec(5, 2)).floor().min(dec(500, 0));
        }
    }
    let mut rates: Vec<i64> = lines.iter().map(|l| l.tax_percent).collect();
    rates.sort();
    rates.dedup();
    for r in rates {
        let idx: Vec<usize> = (0..lines.len())
            .filter(|&i| lines[i].tax_percent == r)
            .collect();
        let base: Decimal = idx
            .iter()
            .map(|&i| lines[i].principal + lines[i].discount)
            .sum();
        let total_tax = floor_tax(base, r);
        let mut given = Decimal::ZERO;
        for (n, &i) in idx.iter().enumerate() {
            let t = if n + 1 == idx.len() {
                total_tax - given
            } else {
                floor_tax(lines[i].principal + lines[i].discount, r)
            };
            lines[i].tax = t;
            given += t;
        }
    }
    if subtotal < dec(3500, 0) {
        if let Some(l) = lines.first_mut() {
            l.shipping = dec(350, 0);
            l.shipping_tax = floor_tax(l.shipping, 10);
        }
    }
}

fn gen_orders(w: &mut World, rng: &mut Rng) {
    // Purchasable (product, offer) pairs per seller.
    let mut by_seller: Vec<Vec<(usize, usize)>> = vec![Vec::new(); w.sellers.len()];
    for (pi, p) in w.products.iter().enumerate() {
        if p.asin_type == "VARIATION_PARENT" || !p.available {
            continue;
        }
        for (oi, o) in p.offers.iter().enumerate() {
            by_seller[o.seller].push((pi, oi));
        }
    }
    let now = w.now;
    let mut po = 1000;
    for days_ago in (1..=120i64).rev() {
        let day = w.today - Duration::days(days_ago);
        let n = 1 + (rng.chance(55) as u64);
        for k in 0..n {
            let date = at_hour(
                day,
                1 + rng.range(0, 8) as u32 + k as u32 * 9,
                rng.range(0, 59) as u32,
            );
            let group = match rng.range(0, 9) {
                0..=5 => 0,
                6 | 7 => 1,
                _ => 2,
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
                0
            };
            let order_id = w.new_order_id();
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
                let seller = rng.range(0, w.sellers.len() as u64 - 1) as usize;
                let pool = &by_seller[seller];
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
                        "Yamato Transport"
                    } else {
                        "Sagawa Express"
                    },
                }];
                if rng.chance(15) {
                    packages.push(Package {
                        id: format!("{}", 200 + s),
                        tracking_id: format!("SBX{}", rng.digits(10)),
                        carrier: "Japan Post",
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
                    let unit = w.products[pi].offers[oi].price;
                    let n = lines.len() + 1;
                    lines.push(OrderLine {
                        id: format!("{}{}", rng.digits(10), n),
                        product: pi,
                        offer: oi,
                        qty,
                        unit_price: unit,
                        tax_percent: w.products[pi].tax_percent(),
                        shipment: sidx,
                        principal: unit * Decimal::from(qty),
                        discount: Decimal::ZERO,
                        tax: Decimal::ZERO,
                        shipping: Decimal::ZERO,
                        shipping_tax: Decimal::ZERO,
                        po_line: format!("{n}"),
                    });
                }
                let promo = rng.chance(15);
                price_shipment(&mut lines[first..], promo);
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
                region: "JP".into(),
                currency: "JPY".into(),
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
    // Specials: a few digital orders, one FATAL and one error-document order, all shipped
    // more than 30 days ago and in the default group.
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
    // Status of recent orders follows their shipments.
    for o in w.orders.iter_mut() {
        if o.shipments.iter().any(|s| s.date > now) {
            o.status = "PENDING_FULFILLMENT";
        } else if o.shipments.iter().any(|s| s.delivered.is_none()) {
            o.status = "PAYMENT_CONFIRMED";
        }
    }
    // A package shipped more than 90 days ago (tracking answers 404).
    if let Some(o) = w.orders.first() {
        if let (Some(s), true) = (o.shipments.first(), (now - o.date).num_days() > 91) {
            w.specials.old_package = Some((o.id.clone(), s.id.clone(), s.packages[0].id.clone()));
        }
    }
}

fn gen_invoices(w: &mut World, rng: &mut Rng) {
    let now = w.now;
    let mut tx_n = 0u64;
    for oi in 0..w.orders.len() {
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
                    tax_percent: l.tax_percent,
                    principal: l.principal,
                    discount: l.discount,
                    tax: l.tax,
                    shipping: l.shipping,
                    shipping_tax: l.shipping_tax,
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
                number: format!("JP{}", rng.alnum(10)),
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
                scale: 1 + (rng.next_u64() % 2) as u32,
            });
            // Some invoices get a credit memo for one line.
            if rng.chance(12) {
                let memo_date = ship.date + Duration::days(rng.range(3, 10) as i64);
                if memo_date <= now {
                    let src = w.invoices[idx].lines[0].clone();
                    let tax = -floor_tax(src.principal, src.tax_percent);
                    let memo_line = InvLine {
                        principal: -src.principal,
                        discount: Decimal::ZERO,
                        tax,
                        shipping: Decimal::ZERO,
                        shipping_tax: Decimal::ZERO,
                        ..src
                    };
                    let midx = w.invoices.len();
                    let periodic = w.invoices[idx].periodic;
                    let consolidated = w.invoices[idx].consolidated.clone();
                    w.invoices.push(Invoice {
                        number: format!("JPCM{}", rng.alnum(8)),
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
