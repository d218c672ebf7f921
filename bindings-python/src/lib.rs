//! The Python extension module `abws._abws`: converts arguments and results, nothing more.

use pyo3::prelude::*;

#[pymodule]
fn _abws(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", abws::VERSION)?;
    Ok(())
}
