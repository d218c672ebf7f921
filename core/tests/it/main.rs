//! The core's integration tests: one test binary (`cargo test -p abws --test it`), one
//! module per area, most of them against the sandbox over real loopback HTTP.
//!
//! Tests that measure the whole process — every allocation (`streaming_memory`), every
//! freed block and file written (`reliability`) — must not share it with the tests running
//! in parallel threads: they are `#[ignore]`d here and run in a child process of this
//! binary by a plain test of their module (`alone::run`). The binary has one global
//! allocator (`allocator`), which only counts or scans while a test switches that on.
//!
//! `common` is the set-up the tests share: a sandbox and its client (`sandbox_and_client`),
//! the calls most tests send (`calls`), the fault answers they script (`faults`), a real
//! Redis (`redis`), the consent flow (`consent`) and a rotation callback that keeps what it
//! is handed (`rotation`).

mod allocator;
mod alone;
mod common;

mod attempt_loop;
mod call_options;
mod close;
mod connections;
mod documents_api;
mod endpoints;
mod hostile_archives;
mod invoices_api;
mod machinery;
mod money;
mod purchasing_api;
mod ratelimit;
mod reconciliation_api;
mod regions_api;
mod reliability;
mod request_schemas;
mod retry_policy;
mod shared_bucket;
mod shared_state;
mod streaming_documents;
mod streaming_memory;
mod validate;
mod wire_form;

// What the core's unpacker tests build their cases with (zip_of, gzip_of, ...): one file
// for both.
#[path = "../../src/documents/testdata.rs"]
#[allow(dead_code)]
mod testdata;

// The reliability scenarios were a test binary of their own and name each other from the
// crate root (`crate::server::valid_order`, `crate::full()`).
use reliability::{full, server, wallclock};
