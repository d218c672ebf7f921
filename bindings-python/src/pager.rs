//! `_abws.Pager`: one listing walked page by page; the Python package turns it into a
//! `Listing` (blocking) or an `AsyncListing` of the items.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use pyo3::prelude::*;

use abws::operation::DynPager;

use crate::from_json::reply_to_py;
use crate::runtime::Job;

/// A listing in progress. Pages come in order: a second `next_page` waits for the first.
#[pyclass(name = "Pager", module = "abws._abws", frozen)]
pub struct PyPager {
    inner: Arc<tokio::sync::Mutex<Box<dyn DynPager>>>,
    /// Items delivered so far, kept outside the lock: reading it never waits for a page.
    yielded: Arc<AtomicU64>,
    /// The cursor of the next page, kept outside the lock likewise.
    next_token: Arc<std::sync::Mutex<Option<String>>>,
}

impl PyPager {
    pub fn new(inner: Box<dyn DynPager>) -> PyPager {
        PyPager {
            next_token: Arc::new(std::sync::Mutex::new(inner.next_token())),
            inner: Arc::new(tokio::sync::Mutex::new(inner)),
            yielded: Arc::default(),
        }
    }
}

#[pymethods]
impl PyPager {
    /// The next page, or None after the last one. With `deliver`, started for asyncio
    /// (returns its `Call`); a cancelled fetch leaves the listing where it was.
    #[pyo3(signature = (deliver=None))]
    fn next_page(&self, py: Python<'_>, deliver: Option<Py<PyAny>>) -> PyResult<Py<PyAny>> {
        let inner = self.inner.clone();
        let yielded = self.yielded.clone();
        let next_token = self.next_token.clone();
        let fut = async move {
            let mut pager = inner.lock_owned().await;
            let page = pager.next_reply().await;
            yielded.store(pager.items_yielded(), Ordering::Relaxed);
            *next_token.lock().unwrap_or_else(|p| p.into_inner()) = pager.next_token();
            page
        };
        Job::new(fut, |py, page| match page {
            Some(p) => reply_to_py(py, p),
            None => Ok(py.None()),
        })
        .run(py, deliver)
    }

    /// Items delivered so far, over every page.
    #[getter]
    fn items_yielded(&self) -> u64 {
        self.yielded.load(Ordering::Relaxed)
    }

    /// The cursor of the next page (None after the last one).
    #[getter]
    fn next_token(&self) -> Option<String> {
        self.next_token
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }
}
