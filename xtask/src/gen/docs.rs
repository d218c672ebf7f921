//! The operation lists of the documentation (between generated-section markers).

use super::Output;

pub fn outputs() -> Result<Vec<Output>, String> {
    Ok(vec![])
}
