//! Every header name and brand-bearing literal of the wire, in one place.
//!
//! The specification writes the operator's brand as the neutral word `svc`; the real
//! service's spelling differs only here. The specification names no host, so no address is here:
//! every address is configuration (`endpoint`, `auth_endpoint`, `consent_endpoint`,
//! `sandbox_endpoint` of `Settings`; docs/decisions/005-regions-endpoints-time.md, "Endpoints are configuration").

/// Request header carrying the OAuth access token.
pub const HEADER_ACCESS_TOKEN: &str = "x-svc-access-token";
/// Request header naming the customer user the call acts for.
pub const HEADER_USER_EMAIL: &str = "x-svc-user-email";
/// Request header with the request date (also the e-invoicing order date).
pub const HEADER_DATE: &str = "x-svc-date";
/// Response header with the server's unique request reference.
pub const HEADER_REQUEST_ID: &str = "x-svc-RequestId";
/// Response header with the rate (requests per second) the server applied.
pub const HEADER_RATE_LIMIT: &str = "x-svc-RateLimit-Limit";

/// Path of the token endpoint on the authorization server.
pub const TOKEN_PATH: &str = "/auth/O2/token";
/// Path of the consent page on the regional marketplace address.
pub const CONSENT_PATH: &str = "/b2b/abws/oauth";

/// Prefix of the user agent; the version and platform follow.
pub const USER_AGENT_PRODUCT: &str = "abws";

/// Fulfillment type whose wire value carries the operator's name.
pub const PLATFORM_FULFILLMENT: &str = "PLATFORM_FULFILLMENT";

/// The platform's marketplace identifiers per region (kept with the regions they name).
pub use crate::region::MARKETPLACE_IDS;
