//! The C ABI of abws (`libabws`, shared and static), described by the generated header
//! `include/abws.h`. This crate only converts: C strings and JSON in, the core's
//! blocking facade, JSON and statuses out. Conventions (after rustls-ffi):
//!
//! - every fallible function returns an `abws_status` and fills an optional
//!   `abws_error **` on failure; outputs are written only on success;
//! - every exported body runs inside the boundary (`ffi::boundary`), which catches panics
//!   and checks pointers, so no panic crosses into the host process;
//! - handles are registry ids (`handles`), so a double free or a use after free is
//!   `ABWS_STATUS_INVALID_HANDLE`, not undefined behaviour;
//! - `*_free(NULL)` does nothing.
#![allow(non_camel_case_types)]

pub mod cancel;
pub mod client;
pub mod close;
pub mod download;
pub mod error;
mod ffi;
mod handles;
pub mod ops;
pub mod options;
pub mod pager;
mod params;
pub mod status;

use std::ffi::c_char;

pub use cancel::abws_cancel;
pub use client::abws_client;
pub use error::abws_error;
pub use options::abws_call_options;
pub use pager::abws_pager;
pub use status::abws_status;

/// The library version, e.g. "0.1.0": the same text as `ABWS_VERSION_STRING` of the
/// header the program was compiled with, unless it was linked to another build.
///
/// Ownership: the string is static; never free it. Never NULL. Thread safety: any thread.
#[no_mangle]
pub extern "C" fn abws_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}

/// Frees a string returned by the library (results, pages, error JSON). `s` may be NULL
/// (nothing happens, `ABWS_STATUS_OK`).
///
/// Returns `ABWS_STATUS_OK`, or `ABWS_STATUS_INVALID_HANDLE` (and frees nothing) when `s`
/// is not a live string of this library: freed already, or allocated elsewhere (the
/// check is exact unless a newer library string happens to reuse the address of a freed
/// one). The caller may modify the bytes before freeing, but must not free them with
/// `free()`: only this function frees library strings.
/// Thread safety: any thread.
#[no_mangle]
pub extern "C" fn abws_string_free(s: *mut c_char) -> abws_status {
    ffi::boundary_value(abws_status::Panic, || {
        if s.is_null() {
            return abws_status::Ok;
        }
        if handles::string_free(s) {
            abws_status::Ok
        } else {
            abws_status::InvalidHandle
        }
    })
}

/// Counts the objects the caller has not freed yet, process-wide: clients, pagers,
/// errors and library strings (cancellation handles: `abws_live_cancels`). For leak
/// checks in tests and at plugin shutdown (a forgotten object stays reachable from the
/// handle registry, so memory checkers do not report it as lost). Each output pointer may
/// be NULL (that count is skipped).
///
/// Returns `ABWS_STATUS_OK`. Thread safety: any thread; with other threads running
/// calls, the counts are a snapshot.
///
/// # Safety
/// Each pointer is NULL or valid for one write.
#[no_mangle]
pub unsafe extern "C" fn abws_live_objects(
    clients: *mut usize,
    pagers: *mut usize,
    errors: *mut usize,
    strings: *mut usize,
) -> abws_status {
    ffi::boundary(std::ptr::null_mut(), || {
        for (out, n) in [
            (clients, client::live()),
            (pagers, pager::live()),
            (errors, error::live()),
            (strings, handles::strings_live()),
        ] {
            if !out.is_null() {
                // SAFETY: non-NULL and writable per this function's contract.
                unsafe { out.write(n) };
            }
        }
        Ok(())
    })
}

/// Counts the cancellation handles (`abws_cancel`) the caller has not freed yet,
/// process-wide: the leak check of `abws_live_objects` for the handles it does not count
/// (a separate function, so that `abws_live_objects` keeps its signature).
///
/// Returns `ABWS_STATUS_OK`; NULL `cancels`: `ABWS_STATUS_NULL_ARGUMENT`. Thread safety:
/// any thread; with other threads running calls, the count is a snapshot.
///
/// # Safety
/// `cancels` is NULL or valid for one write.
#[no_mangle]
pub unsafe extern "C" fn abws_live_cancels(cancels: *mut usize) -> abws_status {
    ffi::boundary(std::ptr::null_mut(), || {
        if cancels.is_null() {
            return Err(ffi::Failure::null("cancels"));
        }
        // SAFETY: non-NULL and writable per this function's contract.
        unsafe { cancels.write(cancel::live()) };
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn header_version_macros_match_the_crate() {
        let header =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../include/abws.h"))
                .unwrap();
        let v = env!("CARGO_PKG_VERSION");
        let mut parts = v.split(['.', '-']);
        let major = parts.next().unwrap();
        let minor = parts.next().unwrap();
        let patch = parts.next().unwrap();
        assert!(header.contains(&format!("#define ABWS_VERSION_MAJOR {major}\n")));
        assert!(header.contains(&format!("#define ABWS_VERSION_MINOR {minor}\n")));
        assert!(header.contains(&format!("#define ABWS_VERSION_PATCH {patch}\n")));
        assert!(header.contains(&format!("#define ABWS_VERSION_STRING \"{v}\"\n")));
    }
}

/// Every entry point catches a panic injected inside its boundary (test-only hook):
/// the status is `PANIC`, no output is written, and later calls work.
#[cfg(test)]
mod injected_panics {
    use super::*;
    use crate::client::{abws_client_free, abws_client_new};
    use crate::download::{
        abws_documents_download, abws_documents_download_to_file, abws_documents_fetch_pdf,
        abws_documents_fetch_pdf_to_file,
    };
    use crate::error::*;
    use crate::pager::{abws_pager_free, abws_pager_next};
    use std::ffi::{c_int, c_void, CString};
    use std::ptr::null_mut;

    /// Every operation function: the operations' and the `Json` conveniences'.
    fn ops() -> Vec<(&'static str, crate::ops::OpFn)> {
        let mut ops = crate::ops::generated::operations();
        ops.push((
            "abws_reconciliation_invoice_details_for",
            crate::ops::generated::abws_reconciliation_invoice_details_for,
        ));
        ops.push((
            "abws_documents_wait_for_report",
            crate::ops::generated::abws_documents_wait_for_report,
        ));
        ops
    }

    fn pagers() -> Vec<(&'static str, crate::ops::PagerFn)> {
        crate::ops::generated::pagers()
    }

    unsafe extern "C" fn sink(_: *mut c_void, _: *const u8, _: usize) -> c_int {
        0
    }

    fn inject(on: bool) {
        crate::ffi::INJECT_PANIC.with(|c| c.set(on));
    }

    /// Checks a PANIC status and its error object, then frees the error.
    fn expect_panic(name: &str, status: abws_status, err: *mut abws_error) {
        inject(false);
        assert_eq!(status, abws_status::Panic, "{name}");
        assert_eq!(abws_error_status(err), abws_status::Panic, "{name}");
        assert_eq!(abws_error_free(err), abws_status::Ok, "{name}");
        inject(true);
    }

    /// Calls each function of `fns` (an operation's or a pager's shape) with `params`:
    /// each panics, writing no output.
    ///
    /// # Safety
    /// `client` is a live client.
    unsafe fn each_panics<O>(
        fns: Vec<(&'static str, crate::ops::EntryFn<O>)>,
        client: *mut abws_client,
        params: &CString,
    ) {
        for (name, f) in fns {
            let mut out = null_mut();
            let mut err = null_mut();
            // SAFETY: per this function's contract; the pointers are valid.
            let status = unsafe { f(client, params.as_ptr(), &mut out, &mut err) };
            assert!(out.is_null(), "{name}");
            expect_panic(name, status, err);
        }
    }

    #[test]
    fn every_entry_point_survives_an_injected_panic() {
        let hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let settings =
            CString::new(r#"{"region":"JP","access_token":"t","endpoint":"http://127.0.0.1:9"}"#)
                .unwrap();
        let empty = CString::new("{}").unwrap();
        let line_items = CString::new(r#"{"invoice_number":"X"}"#).unwrap();
        let mut client = null_mut();
        let mut pager = null_mut();
        let mut cancel = null_mut();
        unsafe {
            assert_eq!(
                abws_client_new(settings.as_ptr(), &mut client, null_mut()),
                abws_status::Ok
            );
            assert_eq!(
                crate::cancel::abws_cancel_new(&mut cancel, null_mut()),
                abws_status::Ok
            );
            let make = crate::ops::generated::abws_invoices_iter_invoice_line_items;
            assert_eq!(
                make(client, line_items.as_ptr(), &mut pager, null_mut()),
                abws_status::Ok
            );
            inject(true);
            assert!(ops().len() >= 26 && pagers().len() >= 7);
            each_panics(ops(), client, &empty);
            each_panics(pagers(), client, &empty);
            for (name, op) in [
                (
                    "abws_documents_download",
                    abws_documents_download as unsafe extern "C" fn(_, _, _, _, _, _) -> _,
                ),
                ("abws_documents_fetch_pdf", abws_documents_fetch_pdf),
            ] {
                let mut n = 7u64;
                let mut err = null_mut();
                let status = op(
                    client,
                    empty.as_ptr(),
                    Some(sink),
                    null_mut(),
                    &mut n,
                    &mut err,
                );
                assert_eq!(n, 7, "{name}");
                expect_panic(name, status, err);
            }
            type ToFile = unsafe extern "C" fn(
                *const abws_client,
                *const std::ffi::c_char,
                *mut u64,
                *mut *mut abws_error,
            ) -> crate::status::abws_status;
            for (name, f) in [
                (
                    "abws_documents_download_to_file",
                    abws_documents_download_to_file as ToFile,
                ),
                (
                    "abws_documents_fetch_pdf_to_file",
                    abws_documents_fetch_pdf_to_file,
                ),
            ] {
                let mut n = 7u64;
                let mut err = null_mut();
                let status = f(client, empty.as_ptr(), &mut n, &mut err);
                assert_eq!(n, 7, "{name}");
                expect_panic(name, status, err);
            }
            {
                use crate::cancel::abws_cancel_new;
                use crate::download::abws_documents_fetch_pdf_cancellable;
                use crate::ops::generated::abws_documents_wait_for_report_cancellable;
                let mut n = 7u64;
                let mut err = null_mut();
                let status = abws_documents_fetch_pdf_cancellable(
                    client,
                    empty.as_ptr(),
                    std::ptr::null(),
                    Some(sink),
                    null_mut(),
                    &mut n,
                    &mut err,
                );
                assert_eq!(n, 7);
                expect_panic("abws_documents_fetch_pdf_cancellable", status, err);
                let mut out = null_mut();
                let mut err = null_mut();
                let status = abws_documents_wait_for_report_cancellable(
                    client,
                    empty.as_ptr(),
                    std::ptr::null(),
                    &mut out,
                    &mut err,
                );
                assert!(out.is_null());
                expect_panic("abws_documents_wait_for_report_cancellable", status, err);
                for (name, cancellable) in [
                    ("abws_close_month", false),
                    ("abws_close_month_cancellable", true),
                ] {
                    let mut out = null_mut();
                    let mut err = null_mut();
                    let status = if cancellable {
                        crate::close::abws_close_month_cancellable(
                            client,
                            empty.as_ptr(),
                            std::ptr::null(),
                            None,
                            null_mut(),
                            &mut out,
                            &mut err,
                        )
                    } else {
                        crate::close::abws_close_month(
                            client,
                            empty.as_ptr(),
                            None,
                            null_mut(),
                            &mut out,
                            &mut err,
                        )
                    };
                    assert!(out.is_null(), "{name}");
                    expect_panic(name, status, err);
                }
                let mut cancel = null_mut();
                let mut err = null_mut();
                let status = abws_cancel_new(&mut cancel, &mut err);
                assert!(cancel.is_null());
                expect_panic("abws_cancel_new", status, err);
            }
            let mut page = null_mut();
            let mut err = null_mut();
            let status = abws_pager_next(pager, &mut page, &mut err);
            assert!(page.is_null());
            expect_panic("abws_pager_next", status, err);
            let mut other = null_mut();
            let mut err = null_mut();
            let status = abws_client_new(settings.as_ptr(), &mut other, &mut err);
            assert!(other.is_null());
            expect_panic("abws_client_new", status, err);
            let mut err = null_mut();
            let status =
                crate::client::abws_client_from_env(std::ptr::null(), &mut other, &mut err);
            assert!(other.is_null());
            expect_panic("abws_client_from_env", status, err);
            let mut err = null_mut();
            let status = crate::client::abws_client_set_refresh_token_callback(
                client,
                None,
                null_mut(),
                &mut err,
            );
            expect_panic("abws_client_set_refresh_token_callback", status, err);

            // Functions without an error object fall back to a safe value.
            let mut live = null_mut();
            inject(false);
            let bad = CString::new("{").unwrap();
            abws_client_new(bad.as_ptr(), &mut other, &mut live);
            let text = crate::handles::string_into_c("text".to_string());
            inject(true);
            let mut json = null_mut();
            assert_eq!(abws_error_to_json(live, &mut json), abws_status::Panic);
            assert!(json.is_null());
            assert_eq!(abws_error_status(live), abws_status::Panic);
            assert!(abws_error_message(live).is_null());
            assert!(abws_error_kind(live).is_null());
            assert!(abws_error_code(live).is_null());
            assert!(abws_error_details(live).is_null());
            assert!(abws_error_request_id(live).is_null());
            assert!(abws_error_parameter(live).is_null());
            assert!(abws_error_external_id(live).is_null());
            assert_eq!(abws_error_http_status(live), 0);
            assert_eq!(abws_error_free(live), abws_status::Panic);
            assert_eq!(abws_string_free(text), abws_status::Panic);
            assert_eq!(abws_pager_free(pager), abws_status::Panic);
            assert_eq!(abws_client_free(client), abws_status::Panic);
            assert_eq!(
                crate::cancel::abws_cancel_signal(cancel),
                abws_status::Panic
            );
            assert_eq!(crate::cancel::abws_cancel_free(cancel), abws_status::Panic);
            let mut count = 99usize;
            assert_eq!(
                abws_live_objects(&mut count, null_mut(), null_mut(), null_mut()),
                abws_status::Panic
            );
            assert_eq!(count, 99);
            assert_eq!(abws_live_cancels(&mut count), abws_status::Panic);
            assert_eq!(count, 99);

            // Nothing was freed by a panicking free, and every later call works.
            inject(false);
            let nope = CString::new(r#"{"nope":1}"#).unwrap();
            let mut out = null_mut();
            assert_eq!(
                crate::ops::generated::abws_invoices_get_invoices(
                    client,
                    nope.as_ptr(),
                    &mut out,
                    null_mut()
                ),
                abws_status::Validation
            );
            assert_eq!(abws_error_status(live), abws_status::InvalidJson);
            assert_eq!(abws_error_free(live), abws_status::Ok);
            assert_eq!(abws_string_free(text), abws_status::Ok);
            assert_eq!(abws_pager_free(pager), abws_status::Ok);
            assert_eq!(abws_client_free(client), abws_status::Ok);
            assert_eq!(crate::cancel::abws_cancel_signal(cancel), abws_status::Ok);
            assert_eq!(crate::cancel::abws_cancel_free(cancel), abws_status::Ok);
        }
        std::panic::set_hook(hook);
    }
}
