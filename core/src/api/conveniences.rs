//! The conveniences: the calls of the API that are not one operation (several requests,
//! or a document's bytes), described once as the operations are in `operations::ALL`.
//! `xtask gen` writes from this table what each binding has of them that is not
//! hand-written: the C++ methods, and the Python methods of `Client` and `AsyncClient`
//! (docs/decisions/025-c-surface.md says which C functions stay hand-written, and why).

use crate::describe::{Describe, Ty};

use super::documents::{FetchPdfArgs, GetReportDocumentParams, Report, WaitForReportParams};
use super::reconciliation::{InvoiceDetailsByOrderLineItem, InvoiceDetailsForParams};

/// How a convenience answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// With a result, as an operation does (JSON in C).
    Json,
    /// With a document's bytes, streamed to the caller as they arrive.
    Stream,
    /// With a document written into a file (sealed unless told otherwise), its size.
    File,
}

/// One convenience.
#[derive(Clone, Copy, Debug)]
pub struct Convenience {
    /// The API group whose client has it.
    pub group: &'static str,
    /// Its snake_case name (the C function is `abws_{group}_{name}`).
    pub name: &'static str,
    /// How it answers.
    pub shape: Shape,
    /// Its arguments (the parameter struct the core's reader reads; a `File` one also
    /// takes the file's `path`, and `key` or `allow_plaintext`).
    pub params: fn() -> Ty,
    /// Its result (`Json` shape; the others answer with bytes or a size).
    pub result: Option<fn() -> Ty>,
    /// What it does, for the docs (no final period).
    pub doc: &'static str,
}

/// Every convenience, by group.
pub const CONVENIENCES: &[Convenience] = &[
    Convenience {
        group: "reconciliation",
        name: "invoice_details_for",
        shape: Shape::Json,
        params: InvoiceDetailsForParams::ty,
        result: Some(<Vec<InvoiceDetailsByOrderLineItem>>::ty),
        doc: "the invoice data of any number of order line items, in batches of 25",
    },
    Convenience {
        group: "documents",
        name: "wait_for_report",
        shape: Shape::Json,
        params: WaitForReportParams::ty,
        result: Some(Report::ty),
        doc: "getReport until the report ends; the final report",
    },
    Convenience {
        group: "documents",
        name: "download",
        shape: Shape::Stream,
        params: GetReportDocumentParams::ty,
        result: None,
        doc: "streams a report document (the PDF) to `sink(const uint8_t *, size_t)`",
    },
    Convenience {
        group: "documents",
        name: "fetch_pdf",
        shape: Shape::Stream,
        params: FetchPdfArgs::ty,
        result: None,
        doc: "createReport, wait, download in one call, streamed to `sink`",
    },
    Convenience {
        group: "documents",
        name: "download_to_file",
        shape: Shape::File,
        params: GetReportDocumentParams::ty,
        result: None,
        doc: "a report document into the file `path` of the params, sealed (encrypted) under \
              `key` or ABWS_DOCUMENT_KEY unless `allow_plaintext`",
    },
    Convenience {
        group: "documents",
        name: "fetch_pdf_to_file",
        shape: Shape::File,
        params: FetchPdfArgs::ty,
        result: None,
        doc: "createReport, wait, download in one call, into the file `path` of the params, \
              sealed (encrypted) under `key` or ABWS_DOCUMENT_KEY",
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    /// Each convenience is described once, reads a parameter struct, and has a result
    /// exactly when it answers as an operation does.
    #[test]
    fn every_convenience_is_described_once_by_its_shape() {
        for (i, c) in CONVENIENCES.iter().enumerate() {
            let again = CONVENIENCES[..i]
                .iter()
                .any(|o| (o.group, o.name) == (c.group, c.name));
            assert!(!again, "{}.{} twice", c.group, c.name);
            assert!(matches!((c.params)(), Ty::Params(_)), "{}", c.name);
            assert_eq!(c.result.is_some(), c.shape == Shape::Json, "{}", c.name);
        }
    }
}
