//! The sandbox's integration tests: one test binary (`cargo test -p abws-sandbox --test
//! it`), one module per area, every test against a sandbox of its own on loopback.

mod common;

mod auth;
mod cart_products;
mod documents;
mod faults;
mod invoices;
mod ordering;
mod reconciliation;
mod regions;
mod robustness;
mod static_and_binary;
