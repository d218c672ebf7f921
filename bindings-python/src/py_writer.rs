//! A Python file-like object as the core's `Write`: `documents.download_to` streams the
//! PDF into it chunk by chunk, so memory does not grow with the document.

use std::io::{self, Write};

use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// Calls `writer.write(chunk)` for each piece, with the GIL taken only for that call.
pub struct PyWriter {
    writer: Py<PyAny>,
    /// The Python exception a `write` raised, re-raised as it is once the call returns.
    pub failure: Option<PyErr>,
}

impl PyWriter {
    pub fn new(writer: Py<PyAny>) -> PyWriter {
        PyWriter {
            writer,
            failure: None,
        }
    }
}

impl Write for PyWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        crate::gate::attach(|py| {
            let chunk = PyBytes::new(py, buf);
            match self.writer.bind(py).call_method1("write", (chunk,)) {
                Ok(_) => Ok(buf.len()),
                Err(e) => {
                    let text = e.to_string();
                    self.failure = Some(e);
                    Err(io::Error::other(format!(
                        "the writer's write() raised {text}"
                    )))
                }
            }
        })
        .unwrap_or_else(|| Err(exiting()))
    }

    fn flush(&mut self) -> io::Result<()> {
        crate::gate::attach(|py| {
            let w = self.writer.bind(py);
            if !w.hasattr("flush")? {
                return Ok(());
            }
            w.call_method0("flush").map(drop)
        })
        .ok_or_else(exiting)?
        .map_err(|e: PyErr| {
            let text = e.to_string();
            self.failure = Some(e);
            io::Error::other(format!("the writer's flush() raised {text}"))
        })
    }
}

/// A writer is not called once the interpreter is exiting (gate.rs).
fn exiting() -> io::Error {
    io::Error::other("the Python interpreter is exiting")
}
