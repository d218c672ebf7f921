//! The fault answers the tests script most into the sandbox.

use abws_sandbox::{FaultAction, FaultRule};
use serde_json::Value;

/// An answer of `status` without a body.
pub fn status(status: u16) -> FaultAction {
    FaultAction::Status {
        status,
        body: None,
        headers: Default::default(),
    }
}

/// An answer of `status` with `body`.
pub fn answer(status: u16, body: Value) -> FaultAction {
    FaultAction::Status {
        status,
        body: Some(body),
        headers: Default::default(),
    }
}

/// The 403 an S3-style document host gives for a presigned address past its expiry
/// (`code`: AccessDenied or SignatureDoesNotMatch).
pub fn expired_address(code: &str) -> FaultAction {
    answer(
        403,
        Value::String(format!(
            "<Error><Code>{code}</Code><Message>Request has expired</Message></Error>"
        )),
    )
}

/// A rule for every request to the document host (the presigned addresses' listener), where
/// the API's rules do not reach.
pub fn on_documents(action: FaultAction) -> FaultRule {
    let mut rule = FaultRule::new("/", action);
    rule.listener = Some("documents".into());
    rule
}

/// The API's error body for a 403 of `message` (code Unauthorized): "The access token has
/// expired." is the one a refresh answers.
pub fn unauthorized(message: &str) -> Value {
    serde_json::json!({"errors": [{"code": "Unauthorized", "message": message, "details": ""}]})
}
