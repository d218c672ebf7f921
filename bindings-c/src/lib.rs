//! The C ABI of abws (placeholder until the C binding lands).

/// The library version as a NUL-terminated string; static, never freed.
#[no_mangle]
pub extern "C" fn abws_version() -> *const std::ffi::c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}
