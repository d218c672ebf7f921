//! The Python surface: model classes (`abws/models_gen.py`... see the module doc of each
//! output) and the operation methods of the API groups.

use super::Output;

pub fn outputs() -> Result<Vec<Output>, String> {
    Ok(vec![])
}
