//! The request path in named stages (runtime layer): what one call of an operation goes
//! through on its way to the service and back.
//!
//! - `pacing`: the rate-limit slot of an attempt, and what its answer says of the rate.
//! - `classify` (pure): what an answer that is not a success means for the attempt loop.
//! - `retrying`: the attempt loop of every operation (deadline, retry budget, backoff,
//!   `retry::decide`).

pub(crate) mod classify;
pub(crate) mod pacing;
pub(crate) mod retrying;
