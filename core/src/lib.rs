//! abws: a client for a business-purchasing platform's APIs — invoices, reconciliation,
//! PDF documents, carts, product search, ordering, reporting and package tracking.
//!
//! The library is async inside (`Client`) with a blocking facade outside
//! (`blocking::Client`); both share one process-wide rate limiter and retry budget (a client
//! built with `Client::with_context` has its context's instead).

#![deny(missing_docs)]

mod answer;
pub mod api;
pub mod auth;
pub mod blocking;
pub mod call_options;
pub mod client;
pub mod close;
pub mod config;
pub mod documents;
pub mod error;
pub mod fork;
mod fs;
pub mod inflight;
mod json_peek;
pub mod local;
pub mod model;
pub mod money;
pub mod normalize;
pub mod operation_row;
pub mod operations;
pub mod paging;
pub mod params;
pub mod pools;
pub mod process;
pub mod ratelimit;
pub mod region;
mod request;
pub mod retry;
pub mod rotations;
mod seal;
pub mod sealed;
pub mod secret;
pub mod shared;
pub mod transport;
pub mod validate;
mod wipe;
pub mod wire;

// For the bindings, the `abws` command and xtask rather than applications: the shapes of
// the types (`describe`), the views a binding walks (`node`), the dispatch by an
// operation's name (`operation`), settings and arguments read from JSON (`settings_json`,
// `json_args`), and the request and result schemas (`schema`, `result_schema`).
pub mod describe;
pub mod json_args;
pub mod node;
pub mod operation;
pub mod result_schema;
pub mod schema;
pub mod settings_json;

pub use call_options::CallOptions;
pub use client::{Call, Client};
pub use config::{Credentials, Endpoints, Region, RegionGroup, Settings, Timeouts};
pub use error::{ApiFailure, Error, ErrorKind, Result};
pub use model::{Extra, Model, RawJson, Timestamp};
pub use money::{Amount, AmountForm, Money};
pub use secret::Secret;

/// The library's version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

pub use rust_decimal::Decimal;
