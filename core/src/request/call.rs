//! A call of an operation: its row, its path values, query and body, and what the request
//! path needs besides (user e-mail, externalIds, region group). The pipeline's input.

use bytes::Bytes;

use crate::config::RegionGroup;
use crate::error::{Error, Result};
use crate::operation_row::Operation;

/// One call of an operation, before the client adds credentials. Its `Debug` shows the
/// body's size, not the body, and hides the user e-mail.
#[derive(Clone)]
pub struct Call {
    /// The operation's row of the table.
    pub op: &'static Operation,
    /// Values of the path's `{name}` placeholders.
    pub path: Vec<(&'static str, String)>,
    /// Query parameters, in order (lists already comma-joined).
    pub query: Vec<(&'static str, String)>,
    /// A JSON body.
    pub body: Option<Bytes>,
    /// `x-svc-user-email` for this call (else the client's default).
    pub user_email: Option<String>,
    /// The externalId of an order or cart line, reported if the outcome is unknown.
    pub external_id: Option<String>,
    /// Each externalId of a write that carries several (addItems: one per item). The shared
    /// write ledger keys an unsafe write by its path's values and these (else
    /// `external_id`), each length-prefixed: `["a,b"]` and `["a", "b"]` differ.
    pub external_ids: Vec<String>,
    /// Regional group whose bucket paces this call (else the client's region's group).
    pub group: Option<RegionGroup>,
}

impl std::fmt::Debug for Call {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Call")
            .field("op", &self.op.id)
            .field("path", &self.path)
            .field("query", &self.query)
            .field(
                "body",
                &self.body.as_ref().map(|b| format!("<{} bytes>", b.len())),
            )
            .field("user_email", &self.user_email.as_ref().map(|_| "***"))
            .field("external_id", &self.external_id)
            .field("external_ids", &self.external_ids)
            .field("group", &self.group)
            .finish()
    }
}

impl Call {
    /// A call of `op`, with no path value, query parameter or body yet.
    pub fn new(op: &'static Operation) -> Call {
        Call {
            op,
            path: vec![],
            query: vec![],
            body: None,
            user_email: None,
            external_id: None,
            external_ids: Vec::new(),
            group: None,
        }
    }
    /// Fills the path placeholder `{name}` (the value is percent-encoded when sent).
    pub fn path(mut self, name: &'static str, value: impl Into<String>) -> Call {
        self.path.push((name, value.into()));
        self
    }
    /// Adds a query parameter.
    pub fn query(mut self, name: &'static str, value: impl Into<String>) -> Call {
        self.query.push((name, value.into()));
        self
    }
    /// Adds the parameter only when a value is given.
    pub fn query_opt(self, name: &'static str, value: Option<impl Into<String>>) -> Call {
        match value {
            Some(v) => self.query(name, v),
            None => self,
        }
    }
    /// Sets the JSON body.
    pub fn json<T: serde::Serialize>(mut self, body: &T) -> Result<Call> {
        let bytes = serde_json::to_vec(body)
            .map_err(|e| Error::internal(format!("cannot encode the request body: {e}")))?;
        self.body = Some(Bytes::from(bytes));
        Ok(self)
    }
}
