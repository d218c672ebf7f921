//! A `bytes` object the core downloads a document straight into. `bytes` cannot grow, so
//! it is made at the size the archive declares; the PDF is then written once, into the
//! object handed to Python, and never copied (B4: peak memory ≈ the document).
//! Without a declared size, or when the archive lied, the bytes go to a `Vec` first and
//! are copied once at the end.

use std::io::{self, Write};
use std::sync::atomic::{AtomicUsize, Ordering};

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use zeroize::Zeroize;

pub struct BytesBuffer {
    presized: Option<Presized>,
    /// Bytes written into `presized` (the rest of it is not yet filled).
    len: usize,
    spill: Vec<u8>,
}

/// A fresh `bytes` object nobody else has seen yet, and its storage.
struct Presized {
    object: Py<PyBytes>,
    data: *mut u8,
    size: usize,
}

// SAFETY: the object is referenced by this buffer alone until `into_bytes` hands it out;
// its storage is only written through `&mut BytesBuffer`, by one thread at a time.
unsafe impl Send for Presized {}

impl Presized {
    fn new(size: usize) -> Option<Presized> {
        let size_c = ffi::Py_ssize_t::try_from(size).ok()?;
        crate::gate::attach(|py| {
            // SAFETY: a NULL source asks CPython for an uninitialised object of `size`
            // bytes, to be filled before anyone else sees it (the documented way to build
            // a bytes object in place).
            let ptr = unsafe { ffi::PyBytes_FromStringAndSize(std::ptr::null(), size_c) };
            if ptr.is_null() {
                // No room for it: fall back to growing a Vec as the bytes come.
                let _ = PyErr::take(py);
                return None;
            }
            // SAFETY: `ptr` is a new reference to a bytes object.
            let object = unsafe { Bound::from_owned_ptr(py, ptr) }
                .cast_into::<PyBytes>()
                .ok()?
                .unbind();
            // SAFETY: a bytes object's storage lives as long as the object.
            let data = unsafe { ffi::PyBytes_AsString(ptr) }.cast::<u8>();
            Some(Presized { object, data, size })
        })
        .flatten()
    }

    /// The first `len` bytes, already written.
    fn filled(&mut self, len: usize) -> &mut [u8] {
        // SAFETY: `data` holds `size` bytes and `len <= size` (checked by every writer).
        unsafe { std::slice::from_raw_parts_mut(self.data, len) }
    }

    fn release(mut self, len: usize) {
        self.filled(len).zeroize();
        // Freed now with the GIL; once the interpreter exits, left to pyo3's deferred drop.
        let mut object = Some(self.object);
        crate::gate::attach(|_| drop(object.take()));
        drop(object);
    }
}

/// Buffers alive now: a cancelled asyncio download must free its own (tested).
static LIVE: AtomicUsize = AtomicUsize::new(0);

/// How many document buffers are alive (`_abws._live_download_buffers`, for the tests).
pub fn live() -> usize {
    LIVE.load(Ordering::Relaxed)
}

impl Default for BytesBuffer {
    fn default() -> BytesBuffer {
        LIVE.fetch_add(1, Ordering::Relaxed);
        BytesBuffer {
            presized: None,
            len: 0,
            spill: Vec::new(),
        }
    }
}

impl BytesBuffer {
    /// The document as `bytes`.
    pub fn into_bytes(mut self, py: Python<'_>) -> Py<PyBytes> {
        match self.presized.take() {
            Some(p) if self.len == p.size => p.object,
            Some(mut p) => {
                // Fewer bytes than declared: a bytes object cannot shrink in the limited API.
                let out = PyBytes::new(py, p.filled(self.len)).unbind();
                p.release(self.len);
                out
            }
            None => PyBytes::new(py, &self.spill).unbind(),
        }
    }
}

impl Write for BytesBuffer {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if let Some(p) = &mut self.presized {
            let end = self.len + buf.len();
            if end <= p.size {
                // SAFETY: `data` holds `size` bytes; `end <= size`.
                unsafe { std::slice::from_raw_parts_mut(p.data.add(self.len), buf.len()) }
                    .copy_from_slice(buf);
                self.len = end;
                return Ok(buf.len());
            }
            // More than declared: move what we have to the Vec and go on there.
            let mut p = self.presized.take().expect("checked above");
            self.spill = Vec::with_capacity(end);
            self.spill.extend_from_slice(p.filled(self.len));
            p.release(self.len);
            self.len = 0;
        }
        if self.spill.capacity() - self.spill.len() < buf.len() {
            // Grow by hand: a Vec's own growth would free the old block unwiped.
            let want = (self.spill.len() + buf.len()).max(self.spill.capacity() * 2);
            let mut bigger = Vec::with_capacity(want);
            bigger.extend_from_slice(&self.spill);
            self.spill.zeroize();
            self.spill = bigger;
        }
        self.spill.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl abws::api::documents::DocumentBuffer for BytesBuffer {
    fn reserve(&mut self, declared: u64) {
        // Called again when a retry starts over (after `rewind`): the size may differ.
        if self.len > 0 || !self.spill.is_empty() || declared == 0 {
            return;
        }
        if let Some(old) = self.presized.take() {
            if old.size as u64 == declared {
                self.presized = Some(old);
                return;
            }
            old.release(0);
        }
        self.presized = usize::try_from(declared).ok().and_then(Presized::new);
    }

    fn rewind(&mut self) -> bool {
        if let Some(p) = &mut self.presized {
            p.filled(self.len).zeroize();
        }
        self.len = 0;
        self.spill.zeroize();
        self.spill.clear();
        true
    }
}

impl Drop for BytesBuffer {
    fn drop(&mut self) {
        LIVE.fetch_sub(1, Ordering::Relaxed);
        if let Some(p) = self.presized.take() {
            p.release(self.len);
        }
        self.spill.zeroize();
    }
}
