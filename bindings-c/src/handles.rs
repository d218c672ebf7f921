//! The handle registry: every handle given to C (client, pager, error) is an opaque id,
//! never an address, and every library-owned string is recorded while it is live. So a
//! double free, a use after free, or a handle of the wrong type is a lookup that fails
//! (`ABWS_STATUS_INVALID_HANDLE`), not undefined behaviour.
//!
//! Ids are never reused within a process, so a stale handle can never alias a newer
//! object. Objects are reference counted: a call that looked a handle up keeps its object
//! alive even if another thread frees the handle meanwhile.

use std::collections::HashMap;
use std::ffi::c_char;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use crate::status::abws_status;

/// Ids start high and step by 16 so they look like (and align like) pointers, and a
/// small integer or a NULL-adjacent value is never mistaken for a handle.
static NEXT_ID: AtomicUsize = AtomicUsize::new(1);
const ID_BASE: usize = 0x0abc_0000;
const ID_STEP: usize = 16;

fn next_id() -> usize {
    ID_BASE + NEXT_ID.fetch_add(1, Ordering::Relaxed) * ID_STEP
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The live objects of one handle type, by id.
pub(crate) struct Registry<T> {
    live: Mutex<Option<HashMap<usize, Arc<T>>>>,
}

impl<T> Registry<T> {
    pub(crate) const fn new() -> Registry<T> {
        Registry {
            live: Mutex::new(None),
        }
    }

    /// Registers an object and returns its handle.
    pub(crate) fn insert<H>(&self, object: T) -> *mut H {
        let id = next_id();
        lock(&self.live)
            .get_or_insert_with(HashMap::new)
            .insert(id, Arc::new(object));
        std::ptr::without_provenance_mut(id)
    }

    /// The object behind a live handle.
    pub(crate) fn get<H>(&self, handle: *const H) -> Option<Arc<T>> {
        lock(&self.live)
            .as_ref()
            .and_then(|m| m.get(&handle.addr()).cloned())
    }

    /// Unregisters a handle; the object is dropped when the last call using it returns.
    pub(crate) fn remove<H>(&self, handle: *const H) -> Option<Arc<T>> {
        lock(&self.live)
            .as_mut()
            .and_then(|m| m.remove(&handle.addr()))
    }

    /// The body of an `abws_*_free`: NULL frees nothing (`OK`), nor does a handle that is
    /// not live (`INVALID_HANDLE`); a panic is `PANIC`.
    pub(crate) fn free<H>(&self, handle: *mut H) -> abws_status {
        crate::ffi::boundary_value(abws_status::Panic, || {
            if handle.is_null() {
                return abws_status::Ok;
            }
            match self.remove(handle) {
                Some(_) => abws_status::Ok,
                None => abws_status::InvalidHandle,
            }
        })
    }

    /// How many handles of this type are live.
    pub(crate) fn len(&self) -> usize {
        lock(&self.live).as_ref().map_or(0, HashMap::len)
    }
}

/// Strings handed to C: address → allocation length (NUL included), so that
/// `abws_string_free` frees exactly what was allocated even if the caller wrote into
/// the bytes, and refuses anything it did not hand out.
static STRINGS: Mutex<Option<HashMap<usize, usize>>> = Mutex::new(None);

/// Gives a string to C. Interior NULs cannot occur in JSON text (they are escaped);
/// should one occur anyway, the string is cut there rather than failing.
pub(crate) fn string_into_c(s: String) -> *mut c_char {
    let mut bytes = s.into_bytes();
    if let Some(pos) = bytes.iter().position(|b| *b == 0) {
        bytes.truncate(pos);
    }
    bytes.push(0);
    let boxed: Box<[u8]> = bytes.into_boxed_slice();
    let len = boxed.len();
    let ptr = Box::into_raw(boxed) as *mut u8;
    lock(&STRINGS)
        .get_or_insert_with(HashMap::new)
        .insert(ptr.addr(), len);
    ptr.cast()
}

/// How many library strings are live (handed out, not yet freed).
pub(crate) fn strings_live() -> usize {
    lock(&STRINGS).as_ref().map_or(0, HashMap::len)
}

/// Takes a string back from C and frees it. False when it is not a live library string.
pub(crate) fn string_free(ptr: *mut c_char) -> bool {
    let len = match lock(&STRINGS).as_mut().and_then(|m| m.remove(&ptr.addr())) {
        Some(len) => len,
        None => return false,
    };
    // SAFETY: `ptr` was produced by `string_into_c` from a `Box<[u8]>` of `len` bytes and
    // was still registered, so it has not been freed; it is now unregistered, so it is
    // freed exactly once.
    unsafe {
        drop(Box::from_raw(std::ptr::slice_from_raw_parts_mut(
            ptr.cast::<u8>(),
            len,
        )));
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_stale_handles_fail() {
        let reg: Registry<u32> = Registry::new();
        let a: *mut u8 = reg.insert(1);
        let b: *mut u8 = reg.insert(2);
        assert_ne!(a, b);
        assert_eq!(*reg.get(a).unwrap(), 1);
        assert!(reg.remove(a).is_some());
        assert!(reg.get(a).is_none());
        assert!(reg.remove(a).is_none());
        assert_eq!(reg.len(), 1);
        assert!(reg.get(std::ptr::null::<u8>()).is_none());
    }

    #[test]
    fn a_handle_is_freed_once_and_null_is_nothing_to_free() {
        let reg: Registry<u32> = Registry::new();
        let a: *mut u8 = reg.insert(1);
        assert_eq!(reg.free(std::ptr::null_mut::<u8>()), abws_status::Ok);
        assert_eq!(reg.len(), 1);
        assert_eq!(reg.free(a), abws_status::Ok);
        assert_eq!(reg.len(), 0);
        assert_eq!(reg.free(a), abws_status::InvalidHandle);
    }

    #[test]
    fn strings_free_once() {
        let s = string_into_c("hello".to_string());
        assert!(string_free(s));
        assert!(!string_free(s));
        let t = string_into_c("a\0b".to_string());
        let c = unsafe { std::ffi::CStr::from_ptr(t) };
        assert_eq!(c.to_bytes(), b"a");
        assert!(string_free(t));
    }
}
