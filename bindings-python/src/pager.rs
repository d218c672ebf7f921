//! `_abws.Pager`: one listing walked page by page; the Python package turns it into a
//! `Listing` of the items.

use std::sync::Mutex;

use pyo3::prelude::*;

use abws::operation::DynPager;

use crate::convert::to_py;
use crate::runtime::wait_detached;

/// A listing in progress. Pages come in order; one thread at a time.
#[pyclass(name = "Pager", module = "abws._abws", frozen)]
pub struct PyPager {
    inner: Mutex<Box<dyn DynPager>>,
}

impl PyPager {
    pub fn new(inner: Box<dyn DynPager>) -> PyPager {
        PyPager {
            inner: Mutex::new(inner),
        }
    }
}

#[pymethods]
impl PyPager {
    /// The next page, or None after the last one.
    fn next_page(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        let page = py.detach(|| {
            let mut guard = self.inner.lock().unwrap_or_else(|p| p.into_inner());
            wait_detached(guard.next_page())
        })?;
        page.map(|p| to_py(py, &*p)).transpose()
    }

    /// Items delivered so far, over every page.
    #[getter]
    fn items_yielded(&self, py: Python<'_>) -> u64 {
        // Without the GIL: another thread may hold the lock while it waits for a page.
        py.detach(|| {
            self.inner
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .items_yielded()
        })
    }
}
