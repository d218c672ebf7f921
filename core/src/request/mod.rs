//! The request path in named stages (runtime layer): what one call of an operation goes
//! through on its way to the service and back.
//!
//! - `retrying`: the attempt loop of every operation (deadline, retry budget, backoff,
//!   `retry::decide`).

pub(crate) mod retrying;
