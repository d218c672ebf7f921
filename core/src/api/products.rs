//! Product search 2020-08-26: products by keywords or identifiers, with offers and images.
//!
//! Where the spec shows no schema (OffersResult, ProductsByAsins and GetOffersByOfferIds
//! bodies and results), the shapes are the ones docs/decisions/003-unknown-fields.md records; every model
//! keeps unknown fields.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::answer::Answer;
use crate::client::{Call, Client};
use crate::error::{Error, Result};
use crate::model::RawJson;
use crate::money::{Amount, Money};
use crate::operation_row::Row;
use crate::paging::{Pager, TokenStyle};
use crate::{model, normalize, validate, Timestamp};

super::group_rows! {$
    products Products {
        /// One page of a product search (the featured offer of each product).
        SEARCH_PRODUCTS = SEARCH_PRODUCTS => search_products_request(SearchProductsRequestParams) -> SearchProductsResult, pager iter_search_products.products;
        /// One product.
        PRODUCTS_REQUEST = PRODUCTS_REQUEST => products_request(ProductsRequestParams) -> Product;
        /// One page of a product's offers.
        SEARCH_OFFERS = SEARCH_OFFERS => search_offers_request(SearchOffersRequestParams) -> OffersResult, pager iter_search_offers.offers;
        /// Up to 30 products by ASIN.
        GET_PRODUCTS_BY_ASINS = GET_PRODUCTS_BY_ASINS => get_products_by_asins(GetProductsByAsinsParams) -> ProductsByAsinsResponse;
        /// Up to 30 offers by offer id.
        GET_OFFERS_BY_OFFER_IDS = GET_OFFERS_BY_OFFER_IDS => get_offers_by_offer_ids(GetOffersByOfferIdsParams) -> OffersByOfferIdsResponse;
    }
}

/// Search limits.
pub const MAX_PAGE_SIZE: i64 = 24;
/// "At most 13 pages (zero-based pageNumber)": numbers 0 to 12 (docs/decisions/012-paging.md,
/// "The last search page").
pub const MAX_PAGE_NUMBER: i64 = 12;
/// Identifiers per getProductsByAsins / getOffersByOfferIds call.
pub const MAX_IDS: usize = 30;

model! {
    /// A size variant of an image.
    pub struct ImageVariant {
        "height" height: i64,
        "width" width: i64,
        "url" url: String,
    }
}

model! {
    /// A product image in several sizes.
    pub struct Image {
        "altText" alt_text: String,
        "original" original: ImageVariant,
        "large" large: ImageVariant,
        "medium" medium: ImageVariant,
        "small" small: ImageVariant,
        "thumbnail" thumbnail: ImageVariant,
    }
}

model! {
    /// A price with its display form.
    pub struct Price {
        "value" value: Money,
        "formattedPrice" formatted_price: String,
        "priceType" price_type: String,
    }
}

model! {
    /// The seller of an offer.
    pub struct Merchant {
        "merchantId" merchant_id: String,
        "name" name: String,
        "meanFeedbackRating" mean_feedback_rating: Amount,
        "totalFeedbackCount" total_feedback_count: i64,
        "certificates" certificates: Vec<Option<RawJson>>,
    }
}

model! {
    /// Who ships an offer.
    pub struct Fulfiller {
        "name" name: String,
        "fulfillmentType" fulfillment_type: String,
    }
}

model! {
    /// A shipping cost.
    pub struct ShippingCost {
        "value" value: Money,
    }
}

model! {
    /// Earliest and latest delivery.
    pub struct DeliveryRange {
        "min" min: Timestamp,
        "max" max: Timestamp,
    }
}

model! {
    /// A way to ship an offer.
    pub struct ShippingOption {
        "shippingCost" shipping_cost: ShippingCost,
        "deliveryRange" delivery_range: DeliveryRange,
        "deliveryInformation" delivery_information: String,
        "thresholdCost" threshold_cost: RawJson,
    }
}

model! {
    /// An offer's condition.
    pub struct Condition {
        "conditionValue" condition_value: String,
        "conditionNote" condition_note: String,
        "subCondition" sub_condition: String,
    }
}

model! {
    /// How many units one order may take.
    pub struct QuantityLimits {
        "maxQuantity" max_quantity: i64,
        "minQuantity" min_quantity: i64,
    }
}

model! {
    /// A quantity discount tier.
    pub struct QuantityPriceTier {
        "quantityDisplay" quantity_display: String,
        "unitPrice" unit_price: Money,
        "minQuantity" min_quantity: i64,
        "price" price: RawJson,
        "savingMessage" saving_message: String,
        "taxExclusivePrice" tax_exclusive_price: RawJson,
    }
}

model! {
    /// Quantity discounts.
    pub struct QuantityPrice {
        "quantityPriceTiers" quantity_price_tiers: Vec<Option<QuantityPriceTier>>,
    }
}

model! {
    /// The price without tax, as displayed.
    pub struct TaxExclusivePrice {
        "taxExclusiveAmount" tax_exclusive_amount: RawJson,
        "displayString" display_string: String,
        "formattedPrice" formatted_price: String,
        "label" label: String,
    }
}

model! {
    /// A buying option (offer) of a product.
    pub struct Offer {
        "offerId" offer_id: String,
        "availability" availability: String,
        "buyingGuidance" buying_guidance: String,
        "buyingGuidanceV2" buying_guidance_v2: RawJson,
        "buyingRestrictions" buying_restrictions: Vec<Option<RawJson>>,
        "fulfillmentType" fulfillment_type: String,
        "merchant" merchant: Merchant,
        "fulfiller" fulfiller: Fulfiller,
        "price" price: Price,
        "listPrice" list_price: Price,
        "shippingOptions" shipping_options: Vec<Option<ShippingOption>>,
        "badges" badges: Vec<Option<RawJson>>,
        "quantityInStock" quantity_in_stock: i64,
        "productCondition" product_condition: String,
        "productConditionNote" product_condition_note: String,
        "condition" condition: Condition,
        "quantityLimits" quantity_limits: QuantityLimits,
        "quantityPrice" quantity_price: QuantityPrice,
        "taxExclusivePrice" tax_exclusive_price: TaxExclusivePrice,
        "deliveryInformation" delivery_information: String,
    }
}

model! {
    /// The data requested through `facets`.
    pub struct IncludedDataTypes {
        "OFFERS" offers: Vec<Option<Offer>>,
        "IMAGES" images: Vec<Option<Image>>,
    }
}

model! {
    /// A classification of the product (UNSPSC, ECLASS).
    pub struct Taxonomy {
        "taxonomyCode" taxonomy_code: String,
        "title" title: String,
        "type" r#type: String,
    }
}

model! {
    /// ISBN numbers.
    pub struct Isbn {
        "isbn10" isbn10: String,
        "isbn13" isbn13: String,
    }
}

model! {
    /// Book data.
    pub struct BookInformation {
        "isbn" isbn: Isbn,
        "publicationDate" publication_date: String,
        "publishedLanguage" published_language: String,
    }
}

model! {
    /// A value of a variation dimension.
    pub struct DimensionValue {
        "index" index: i64,
        "displayString" display_string: String,
    }
}

model! {
    /// A variation dimension (Color, Size, ...).
    pub struct VariationDimension {
        "index" index: i64,
        "displayString" display_string: String,
        "dimensionValues" dimension_values: Vec<Option<DimensionValue>>,
    }
}

model! {
    /// Which dimension value a variation has.
    pub struct VariationValue {
        "index" index: i64,
        "value" value: i64,
    }
}

model! {
    /// A child product of a variation family.
    pub struct Variation {
        "asin" asin: String,
        "variationValues" variation_values: Vec<Option<VariationValue>>,
    }
}

model! {
    /// The variations of a VARIATION_PARENT.
    pub struct ProductVariations {
        "dimensions" dimensions: Vec<Option<VariationDimension>>,
        "variations" variations: Vec<Option<Variation>>,
    }
}

model! {
    /// A star rating (0 to 5).
    pub struct StarRating {
        "value" value: Amount,
    }
}

model! {
    /// Ratings.
    pub struct CustomerReviewsSummary {
        "numberOfRatings" number_of_ratings: i64,
        "starRating" star_rating: StarRating,
    }
}

model! {
    /// A product (the body of productsRequest, and an element of search results).
    pub struct Product {
        "asin" asin: String,
        /// STANDARD (purchasable), VARIATION_PARENT (not purchasable), VARIATION_CHILD.
        "asinType" asin_type: String,
        "signedProductId" signed_product_id: String,
        "includedDataTypes" included_data_types: IncludedDataTypes,
        "features" features: Vec<Option<String>>,
        "editorialReviews" editorial_reviews: Vec<Option<RawJson>>,
        "taxonomies" taxonomies: Vec<Option<Taxonomy>>,
        "packageTypeNames" package_type_names: Vec<Option<String>>,
        "title" title: String,
        "url" url: String,
        "format" format: String,
        "bookInformation" book_information: BookInformation,
        "byLine" by_line: Vec<Option<RawJson>>,
        "mediaInformation" media_information: RawJson,
        "productOverview" product_overview: BTreeMap<String, Option<String>>,
        "productDetails" product_details: RawJson,
        "productVariations" product_variations: ProductVariations,
        "customerReviewsSummary" customer_reviews_summary: CustomerReviewsSummary,
        "productDescription" product_description: String,
        "upcValues" upc_values: Vec<Option<String>>,
        "eanValues" ean_values: Vec<Option<String>>,
        "modelNumber" model_number: String,
        "manufacturerName" manufacturer_name: String,
        "bundleQuantity" bundle_quantity: i64,
        "badges" badges: Vec<Option<RawJson>>,
    }
}

model! {
    /// A choice of a search refinement.
    pub struct RefinementValue {
        "displayName" display_name: String,
        "searchRefinementValue" search_refinement_value: String,
    }
}

model! {
    /// A dynamic search refinement (per product type).
    pub struct SearchRefinement {
        "selectionType" selection_type: String,
        "displayValue" display_value: String,
        "refinementValues" refinement_values: Vec<Option<RefinementValue>>,
    }
}

model! {
    /// A static refinement option.
    pub struct RefinementOption {
        "displayName" display_name: String,
        "id" id: String,
    }
}

model! {
    /// The static refinements of a search.
    pub struct Refinements {
        "categories" categories: Vec<Option<RefinementOption>>,
        "subCategories" sub_categories: Vec<Option<RefinementOption>>,
        "availabilityOptions" availability_options: Vec<Option<RefinementOption>>,
        "deliveryDayOptions" delivery_day_options: Vec<Option<RefinementOption>>,
        "eligibleForFreeShippingOptions" eligible_for_free_shipping_options: Vec<Option<RefinementOption>>,
        "primeEligible" prime_eligible: Vec<Option<RefinementOption>>,
    }
}

model! {
    /// A page of searchProductsRequest.
    pub struct SearchProductsResult {
        "matchingProductCount" matching_product_count: i64,
        "searchRefinements" search_refinements: Vec<Option<SearchRefinement>>,
        "refinements" refinements: Refinements,
        "numberOfPages" number_of_pages: i64,
        "products" products: Vec<Option<Product>>,
    }
}

model! {
    /// A page of searchOffersRequest.
    pub struct OffersResult {
        "numberOfPages" number_of_pages: i64,
        "offerCount" offer_count: i64,
        "offers" offers: Vec<Option<Offer>>,
    }
}

model! {
    /// The body of getProductsByAsins.
    pub struct ProductsByAsinsResponse {
        "products" products: Vec<Option<Product>>,
    }
}

model! {
    /// The body of getOffersByOfferIds.
    pub struct OffersByOfferIdsResponse {
        "offers" offers: Vec<Option<Offer>>,
    }
}

fn next_number(current: Option<&str>, pages: Option<i64>) -> Option<String> {
    let cur: i64 = current.and_then(|c| c.parse().ok()).unwrap_or(0);
    let next = cur + 1;
    (next < pages.unwrap_or(0) && next <= MAX_PAGE_NUMBER).then(|| next.to_string())
}

crate::api::page!(SearchProductsResult, products -> Product, numbered);

crate::api::page!(OffersResult, offers -> Offer, numbered);

/// Where and for whom a product request is made (shared by every product operation).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ProductContext {
    /// Required: the marketplace region of the products (US, JP, DE, ...).
    pub product_region: Option<String>,
    /// Required: language-COUNTRY, e.g. en-US.
    pub locale: Option<String>,
    /// Region to ship to (must not conflict with product_region).
    pub shipping_region: Option<String>,
    /// Postal code to ship to.
    pub shipping_postal_code: Option<String>,
    /// Needed only if the user belongs to several buying groups.
    pub group_tag: Option<String>,
}

/// Declares the parameter struct of a product operation: the fields every product
/// operation shares (where and for whom), then its own.
macro_rules! product_params {
    ($(#[doc = $doc:literal])* pub struct $name:ident { $($rest:tt)* }) => {
        crate::params! {
            $(#[doc = $doc])*
            pub struct $name {
                $($rest)*
                /// The marketplace region of the products (US, JP, DE, ...; any case, GB is UK).
                req product_region: String,
                /// language-COUNTRY, e.g. en-US (en_us and EN-us are sent as en-US).
                req locale: String,
                /// Region to ship to (must not conflict with product_region).
                opt shipping_region: String,
                /// Postal code to ship to.
                opt shipping_postal_code: String,
                /// Needed only if the user belongs to several buying groups.
                opt group_tag: String,
                /// The buying user (x-svc-user-email; default: the client's).
                opt user_email: String,
            }
        }

        impl $name {
            fn context(&self) -> ProductContext {
                ProductContext {
                    product_region: Some(self.product_region.clone()),
                    locale: Some(self.locale.clone()),
                    shipping_region: self.shipping_region.clone(),
                    shipping_postal_code: self.shipping_postal_code.clone(),
                    group_tag: self.group_tag.clone(),
                }
            }
        }
    };
}

impl ProductContext {
    /// Checks the context and returns it in the spec's form (`normalize`): productRegion
    /// and shippingRegion upper-cased (`GB` is `UK`), the locale as language-COUNTRY.
    fn normalized(&self) -> Result<ProductContext> {
        let region = self
            .product_region
            .as_deref()
            .ok_or_else(|| Error::validation("product_region", "is required"))?;
        let region = normalize::region("product_region", region)?;
        let locale = self
            .locale
            .as_deref()
            .ok_or_else(|| Error::validation("locale", "is required"))?;
        let locale = normalize::locale("locale", locale)?;
        let shipping_region = match &self.shipping_region {
            None => None,
            Some(ship) => {
                let (wire, group) = normalize::region_or_group("shipping_region", ship)?;
                if group != region.group() {
                    return Err(Error::validation(
                        "shipping_region",
                        format!(
                            "{wire} conflicts with product_region {region} (regional group {})",
                            region.group().as_str()
                        ),
                    ));
                }
                Some(wire)
            }
        };
        for (name, v) in [
            ("shipping_postal_code", &self.shipping_postal_code),
            ("group_tag", &self.group_tag),
        ] {
            if let Some(v) = v {
                validate::non_empty(name, v)?;
            }
        }
        Ok(ProductContext {
            product_region: Some(region.as_str().to_string()),
            locale: Some(locale),
            shipping_region,
            ..self.clone()
        })
    }

    /// A call of the GET operation `P` with this context in its query.
    fn call<P: Row>(&self) -> Call {
        crate::wire!(P {
            product_region = &self.product_region,
            locale = &self.locale,
            shipping_region = &self.shipping_region,
            shipping_postal_code = &self.shipping_postal_code,
            group_tag = &self.group_tag,
        })
    }
}

/// An optional "array csv" parameter: `validate::csv`'s rules (an empty list is left out).
fn csv(param: &str, v: &Option<Vec<String>>) -> Result<Option<String>> {
    validate::csv(param, v.as_deref(), 0, usize::MAX)
}

product_params! {
    /// The arguments of searchProductsRequest.
    pub struct SearchProductsRequestParams {
        opt keywords: Vec<String>,
        /// OFFERS and/or IMAGES.
        opt facets: Vec<String>,
        /// Zero-based, 0 to 12 (at most 13 pages).
        opt page_number: i64,
        /// At most 24.
        opt page_size: i64,
        opt category: String,
        opt sub_category: String,
        opt availability: String,
        opt delivery_day: String,
        opt eligible_for_free_shipping: String,
        opt prime_eligible: String,
        opt upc: String,
        opt isbn: String,
        opt sku: String,
        opt ean: String,
        opt part_number: String,
        opt oem_part_number: String,
        opt search_refinements: Vec<String>,
        opt product_filters: Vec<String>,
        opt inclusions_for_products: Vec<String>,
        opt inclusions_for_offers: Vec<String>,
        opt sort_key: String,
        /// Minimum price, whole currency units, at least 0.
        opt min_price: i64,
        /// Maximum price, whole currency units.
        opt max_price: i64,
    }
}

product_params! {
    /// The arguments of productsRequest.
    pub struct ProductsRequestParams {
        /// The product (ASIN).
        req product_id: String,
        /// Drives quantity discounts (default 1).
        opt quantity: i64,
        opt facets: Vec<String>,
        opt inclusions_for_products: Vec<String>,
        opt inclusions_for_offers: Vec<String>,
    }
}

product_params! {
    /// The arguments of searchOffersRequest.
    pub struct SearchOffersRequestParams {
        /// The product (ASIN).
        req product_id: String,
        /// Zero-based, 0 to 12 (at most 13 pages).
        opt page_number: i64,
        /// At most 24.
        opt page_size: i64,
        opt filter_ids: Vec<String>,
        opt quantity: i64,
        opt inclusions_for_offers: Vec<String>,
    }
}

product_params! {
    /// The arguments of getProductsByAsins.
    pub struct GetProductsByAsinsParams {
        /// 1 to 30 ASINs.
        req product_ids: Vec<String>,
        opt quantity: i64,
        opt facets: Vec<String>,
        opt inclusions_for_products: Vec<String>,
        opt inclusions_for_offers: Vec<String>,
    }
}

product_params! {
    /// The arguments of getOffersByOfferIds. The offer ids are sent as the body's
    /// `offersByOfferIdsRequest: [{"offerId": ...}]`, with productRegion, locale and the
    /// shipping fields: what the published model declares, and nothing else.
    pub struct GetOffersByOfferIdsParams {
        /// 1 to 30 offer ids (buying option identifiers).
        req offer_ids: Vec<String>,
        /// Required by the service for this operation.
        req inclusions_for_offers: Vec<String>,
    }
}

fn page_args(number: Option<i64>, size: Option<i64>) -> Result<()> {
    if let Some(n) = number {
        validate::int_range("page_number", n, 0, MAX_PAGE_NUMBER)?;
    }
    if let Some(n) = size {
        validate::int_range("page_size", n, 1, MAX_PAGE_SIZE)?;
    }
    Ok(())
}

fn quantity_arg(q: Option<i64>) -> Result<Option<String>> {
    if let Some(q) = q {
        validate::int_range("quantity", q, 1, i64::from(i32::MAX))?;
    }
    Ok(q.map(|q| q.to_string()))
}

/// The product search operations. Get one with `Client::products`.
pub struct Products<'a> {
    pub(crate) client: &'a Client,
}

impl Client {
    /// Product search 2020-08-26.
    pub fn products(&self) -> Products<'_> {
        Products { client: self }
    }
}

fn with_user(mut call: Call, user_email: &Option<String>) -> Call {
    call.user_email = user_email.clone();
    call
}

fn search_call(p: &SearchProductsRequestParams) -> Result<Call> {
    let context = p.context().normalized()?;
    page_args(p.page_number, p.page_size)?;
    for (name, v) in [("min_price", p.min_price), ("max_price", p.max_price)] {
        if let Some(v) = v {
            validate::int_range(name, v, 0, i64::MAX)?;
        }
    }
    if let (Some(lo), Some(hi)) = (p.min_price, p.max_price) {
        if lo > hi {
            return Err(Error::validation(
                "min_price",
                "must not be more than max_price",
            ));
        }
    }
    if let Some(k) = &p.sort_key {
        validate::non_empty("sort_key", k)?;
    }
    let call = crate::wire!(context.call::<SearchProductsRequestParams>() => SearchProductsRequestParams, p {
        keywords = csv("keywords", &p.keywords)?,
        facets = csv("facets", &p.facets)?,
        page_size,
        category,
        sub_category,
        availability,
        delivery_day,
        eligible_for_free_shipping,
        prime_eligible,
        upc,
        isbn,
        sku,
        ean,
        part_number,
        oem_part_number,
        search_refinements = csv("search_refinements", &p.search_refinements)?,
        product_filters = csv("product_filters", &p.product_filters)?,
        inclusions_for_products = csv("inclusions_for_products", &p.inclusions_for_products)?,
        inclusions_for_offers = csv("inclusions_for_offers", &p.inclusions_for_offers)?,
        sort_key,
        min_price,
        max_price,
    });
    Ok(with_user(call, &p.user_email))
}

/// One page of a page-numbered search `P`: its call with the page number asked for.
async fn numbered_page<P: Row, O: crate::paging::Page + crate::describe::Describe>(
    c: &Client,
    call: Call,
    page: Option<i64>,
) -> Result<Answer<O>> {
    let call = crate::wire!(call => P { page_number = page });
    let resp = c.execute(&call).await?;
    Ok(Answer::new(resp, P::ROW.id))
}

/// Every page of a page-numbered search `P`, from the page number asked for.
fn numbered_pager<P: Row, O: crate::paging::Page>(
    c: &Client,
    call: Call,
    page: Option<i64>,
) -> Pager<O> {
    let token = TokenStyle::WithParams(crate::wire_name!(P, page_number));
    Pager::new(c.clone(), call, token, page.map(|n| n.to_string()))
}

/// searchProductsRequest: one page of products (featured offer per product).
pub(crate) async fn search_products_request(
    c: &Client,
    p: &SearchProductsRequestParams,
) -> Result<Answer<SearchProductsResult>> {
    numbered_page::<SearchProductsRequestParams, _>(c, search_call(p)?, p.page_number).await
}

/// Every page of a search (at most 13 pages: numbers 0 to 12).
pub(crate) fn iter_search_products(
    c: &Client,
    p: &SearchProductsRequestParams,
) -> Result<Pager<SearchProductsResult>> {
    Ok(numbered_pager::<SearchProductsRequestParams, _>(
        c,
        search_call(p)?,
        p.page_number,
    ))
}

/// productsRequest: one product.
pub(crate) async fn products_request(
    c: &Client,
    p: &ProductsRequestParams,
) -> Result<Answer<Product>> {
    validate::non_empty("product_id", &p.product_id)?;
    let context = p.context().normalized()?;
    let call = crate::wire!(context.call::<ProductsRequestParams>() => ProductsRequestParams {
        product_id = &p.product_id,
        quantity = quantity_arg(p.quantity)?,
        facets = csv("facets", &p.facets)?,
        inclusions_for_products = csv("inclusions_for_products", &p.inclusions_for_products)?,
        inclusions_for_offers = csv("inclusions_for_offers", &p.inclusions_for_offers)?,
    });
    let resp = c.execute(&with_user(call, &p.user_email)).await?;
    Ok(Answer::new(resp, ProductsRequestParams::ROW.id))
}

fn offers_call(p: &SearchOffersRequestParams) -> Result<Call> {
    validate::non_empty("product_id", &p.product_id)?;
    let context = p.context().normalized()?;
    page_args(p.page_number, p.page_size)?;
    let call = crate::wire!(context.call::<SearchOffersRequestParams>() => SearchOffersRequestParams {
        product_id = &p.product_id,
        page_size = p.page_size,
        filter_ids = csv("filter_ids", &p.filter_ids)?,
        quantity = quantity_arg(p.quantity)?,
        inclusions_for_offers = csv("inclusions_for_offers", &p.inclusions_for_offers)?,
    });
    Ok(with_user(call, &p.user_email))
}

/// searchOffersRequest: one page of a product's offers.
pub(crate) async fn search_offers_request(
    c: &Client,
    p: &SearchOffersRequestParams,
) -> Result<Answer<OffersResult>> {
    numbered_page::<SearchOffersRequestParams, _>(c, offers_call(p)?, p.page_number).await
}

/// Every page of a product's offers.
pub(crate) fn iter_search_offers(
    c: &Client,
    p: &SearchOffersRequestParams,
) -> Result<Pager<OffersResult>> {
    Ok(numbered_pager::<SearchOffersRequestParams, _>(
        c,
        offers_call(p)?,
        p.page_number,
    ))
}

/// Where and for whom, as a request body carries it (productRegion, locale, shipping).
#[derive(Serialize)]
struct BodyContext<'a> {
    #[serde(rename = "productRegion")]
    product_region: &'a Option<String>,
    locale: &'a Option<String>,
    #[serde(rename = "shippingRegion", skip_serializing_if = "Option::is_none")]
    shipping_region: &'a Option<String>,
    #[serde(rename = "shippingPostalCode", skip_serializing_if = "Option::is_none")]
    shipping_postal_code: &'a Option<String>,
}

impl ProductContext {
    /// The body's part of a context already `normalized`.
    fn body(&self) -> BodyContext<'_> {
        BodyContext {
            product_region: &self.product_region,
            locale: &self.locale,
            shipping_region: &self.shipping_region,
            shipping_postal_code: &self.shipping_postal_code,
        }
    }
}

/// 1 to `MAX_IDS` identifiers, none empty.
fn check_ids(param: &str, ids: &[String]) -> Result<()> {
    validate::count(param, ids.len(), 1, MAX_IDS)?;
    for (i, id) in ids.iter().enumerate() {
        validate::non_empty(&format!("{param}[{i}]"), id)?;
    }
    Ok(())
}

/// getProductsByAsins: up to 30 products by ASIN.
pub(crate) async fn get_products_by_asins(
    c: &Client,
    p: &GetProductsByAsinsParams,
) -> Result<Answer<ProductsByAsinsResponse>> {
    let context = p.context().normalized()?;
    check_ids("product_ids", &p.product_ids)?;
    #[derive(Serialize)]
    struct Body<'a> {
        #[serde(rename = "productIds")]
        product_ids: &'a [String],
        #[serde(flatten)]
        context: BodyContext<'a>,
        #[serde(skip_serializing_if = "Option::is_none")]
        quantity: Option<i64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        facets: &'a Option<Vec<String>>,
    }
    quantity_arg(p.quantity)?;
    let body = Body {
        product_ids: &p.product_ids,
        context: context.body(),
        quantity: p.quantity,
        facets: &p.facets,
    };
    let call = crate::wire!(GetProductsByAsinsParams {
        inclusions_for_products = csv("inclusions_for_products", &p.inclusions_for_products)?,
        inclusions_for_offers = csv("inclusions_for_offers", &p.inclusions_for_offers)?,
        group_tag = &context.group_tag,
    })
    .json(&body)?;
    let resp = c.execute(&with_user(call, &p.user_email)).await?;
    Ok(Answer::new(resp, GetProductsByAsinsParams::ROW.id))
}

/// getOffersByOfferIds: up to 30 offers by id (to load a cart or check quantities).
pub(crate) async fn get_offers_by_offer_ids(
    c: &Client,
    p: &GetOffersByOfferIdsParams,
) -> Result<Answer<OffersByOfferIdsResponse>> {
    let context = p.context().normalized()?;
    let inclusions = validate::csv(
        "inclusions_for_offers",
        Some(&p.inclusions_for_offers),
        0,
        usize::MAX,
    )?
    .ok_or_else(|| {
        Error::validation(
            "inclusions_for_offers",
            "is required by getOffersByOfferIds",
        )
    })?;
    check_ids("offer_ids", &p.offer_ids)?;
    #[derive(Serialize)]
    struct OfferRef<'a> {
        #[serde(rename = "offerId")]
        offer_id: &'a str,
    }
    #[derive(Serialize)]
    struct Body<'a> {
        #[serde(rename = "offersByOfferIdsRequest")]
        offers: Vec<OfferRef<'a>>,
        #[serde(flatten)]
        context: BodyContext<'a>,
    }
    let body = Body {
        offers: p
            .offer_ids
            .iter()
            .map(|id| OfferRef { offer_id: id })
            .collect(),
        context: context.body(),
    };
    let call = crate::wire!(GetOffersByOfferIdsParams {
        inclusions_for_offers = inclusions,
        group_tag = &context.group_tag,
    })
    .json(&body)?;
    let resp = c.execute(&with_user(call, &p.user_email)).await?;
    Ok(Answer::new(resp, GetOffersByOfferIdsParams::ROW.id))
}
