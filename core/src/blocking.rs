//! The blocking facade: the same client for callers without an async runtime (scripts,
//! the Python and C bindings). Each call runs on the calling thread's own runtime
//! (`local.rs`); in a forked child the runtime and the client's pools are rebuilt, never
//! reused.

use std::future::Future;
use std::mem::ManuallyDrop;
use std::sync::Mutex;

use crate::auth::RotationCallback;
use crate::call_options::CallOptions;
use crate::client::Client as AsyncClient;
use crate::config::{Credentials, Settings};
use crate::error::Result;
use crate::paging::{Page, Pager as AsyncPager};

/// Runs a future to completion on the calling thread (`local.rs`). Inside another tokio
/// runtime this is an error, not a panic (blocking there would stall that runtime's worker).
pub fn block_on<T>(fut: impl Future<Output = Result<T>>) -> Result<T> {
    crate::local::block_on(fut)?
}

/// A blocking client. Share it freely between threads (`&Client` is enough).
// repr(C): the client of the building process comes first, next to the Python object's
// header in the binding, so a call through one of a thousand clients reads one cold cache
// line there (B11).
#[repr(C)]
pub struct Client {
    /// The process that built this client, and its async client: every call outside a
    /// forked child (no lock). Never dropped in a child (`Drop`).
    home: (u32, ManuallyDrop<AsyncClient>),
    /// In a forked child: the client rebuilt there (the process it belongs to, the client).
    forked: Mutex<Option<(u32, AsyncClient)>>,
    settings: Mutex<Settings>,
    on_rotate: Mutex<Option<RotationCallback>>,
    /// The per-call options of this view (`with_options`).
    options: CallOptions,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = self.settings();
        f.debug_struct("blocking::Client")
            .field("region", &s.region)
            .field(
                "endpoint",
                &s.endpoints().map(|e| e.api).unwrap_or_default(),
            )
            .finish_non_exhaustive()
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        // In a forked child the clients built by its ancestors (their connections, token
        // locks, runtime wakers) are theirs: left alone, never dropped here.
        let pid = crate::fork::pid();
        let forked = self.forked.get_mut().unwrap_or_else(|p| p.into_inner());
        if let Some((owner, client)) = forked.take() {
            if owner != pid {
                std::mem::forget(client);
            }
        }
        if self.home.0 == pid {
            // SAFETY: dropped once, here; `home` is not used after.
            unsafe { ManuallyDrop::drop(&mut self.home.1) };
        }
    }
}

impl Client {
    /// Builds a client; checks the settings first.
    pub fn new(settings: Settings) -> Result<Client> {
        Client::with_rotation(settings, None)
    }

    /// See `abws::Client::with_rotation`.
    pub fn with_rotation(
        settings: Settings,
        on_rotate: Option<RotationCallback>,
    ) -> Result<Client> {
        let inner = AsyncClient::with_rotation(settings.clone(), on_rotate.clone())?;
        Client::around(inner, settings, on_rotate)
    }

    /// See `abws::Client::with_context`. In a forked child the client is rebuilt on that
    /// process's context, as any client there.
    pub fn with_context(
        settings: Settings,
        context: std::sync::Arc<crate::process::Context>,
    ) -> Result<Client> {
        let inner = AsyncClient::with_context(settings.clone(), context)?;
        Client::around(inner, settings, None)
    }

    /// The blocking client of `inner`, built from `settings`.
    fn around(
        inner: AsyncClient,
        settings: Settings,
        on_rotate: Option<RotationCallback>,
    ) -> Result<Client> {
        if settings.shared_state_required {
            block_on(inner.check_shared_state())?;
        }
        Ok(Client {
            home: (crate::fork::pid(), ManuallyDrop::new(inner)),
            forked: Mutex::new(None),
            settings: Mutex::new(settings),
            on_rotate: Mutex::new(on_rotate),
            options: CallOptions::new(),
        })
    }

    /// A view of this client whose calls (and listings) take `options` in place of the
    /// client's `operation_timeout` and `max_attempts` (see `abws::Client::with_options`).
    /// It shares the connections, token and rate limits (in a forked child it builds its
    /// own, as any client there).
    pub fn with_options(&self, options: CallOptions) -> Result<Client> {
        options.check()?;
        let home = self.home.1.with_options(options)?;
        Ok(Client {
            home: (self.home.0, ManuallyDrop::new(home)),
            forked: Mutex::new(None),
            settings: Mutex::new(self.settings()),
            on_rotate: Mutex::new(
                self.on_rotate
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .clone(),
            ),
            options: options.over(self.options),
        })
    }

    /// See `abws::Client::check_shared_state`.
    pub fn check_shared_state(&self) -> Result<()> {
        let c = self.inner()?;
        block_on(async move { c.check_shared_state().await })
    }

    /// A copy of the settings the client was built with (credentials as last set with
    /// `set_credentials`; `credentials()` gives those in force).
    pub fn settings(&self) -> Settings {
        self.settings
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// The async client behind this one, rebuilt from the settings in a forked child.
    pub fn inner(&self) -> Result<AsyncClient> {
        let pid = crate::fork::pid();
        if self.home.0 == pid {
            return Ok(AsyncClient::clone(&self.home.1));
        }
        let mut cur = self.forked.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((owner, client)) = cur.as_ref() {
            if *owner == pid {
                return Ok(client.clone());
            }
        }
        // A fork: the parent's connections and token lock belong to the parent. Carry the
        // credentials in force (a rotated refresh token included) into the new client.
        let mut settings = self.settings();
        settings.credentials = match cur.as_ref() {
            Some((_, old)) => old.credentials(),
            None => self.home.1.credentials(),
        };
        if let Some(old) = cur.take() {
            std::mem::forget(old);
        }
        let on_rotate = self
            .on_rotate
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        let fresh = AsyncClient::with_rotation(settings, on_rotate)?.with_options(self.options)?;
        *cur = Some((pid, fresh.clone()));
        Ok(fresh)
    }

    /// Runs `f` with the async client on the process runtime.
    pub fn run<T, F, Fut>(&self, f: F) -> Result<T>
    where
        F: FnOnce(AsyncClient) -> Fut,
        Fut: Future<Output = Result<T>>,
    {
        let client = self.inner()?;
        block_on(f(client))
    }

    /// Replaces the credentials on the live client (a rotated client secret).
    pub fn set_credentials(&self, credentials: Credentials) -> Result<()> {
        self.inner()?.set_credentials(credentials.clone())?;
        self.settings
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .credentials = credentials;
        Ok(())
    }

    /// Sets (or removes) the callback that receives every rotated refresh token before it
    /// is used (persist it there).
    pub fn set_rotation_callback(&self, on_rotate: Option<RotationCallback>) -> Result<()> {
        *self.on_rotate.lock().unwrap_or_else(|p| p.into_inner()) = on_rotate.clone();
        self.inner()?.set_rotation_callback(on_rotate);
        Ok(())
    }

    /// The credentials in force (after any refresh-token rotation).
    pub fn credentials(&self) -> Result<Credentials> {
        Ok(self.inner()?.credentials())
    }
}

/// A blocking pager: an iterator of pages (`Result<P>`), or of items with `items()`.
pub struct Pager<P: Page> {
    inner: AsyncPager<P>,
    done: bool,
}

impl<P: Page> Pager<P> {
    /// Wraps an async pager.
    pub fn new(inner: AsyncPager<P>) -> Pager<P> {
        Pager { inner, done: false }
    }

    /// The next page, or `None` after the last one.
    pub fn next_page(&mut self) -> Result<Option<P>> {
        if self.done {
            return Ok(None);
        }
        let r = block_on(self.inner.next_page());
        if !matches!(r, Ok(Some(_))) {
            self.done = true;
        }
        r
    }

    /// Every item of every page, lazily.
    pub fn items(self) -> Items<P> {
        Items {
            pager: self,
            buffer: Vec::new().into_iter(),
        }
    }

    /// Items delivered so far (what `PageTokenExpired` reports).
    pub fn items_yielded(&self) -> u64 {
        self.inner.items_yielded()
    }

    /// The cursor of the next page (see `abws::paging::Pager::next_token`).
    pub fn next_token(&self) -> Option<&str> {
        self.inner.next_token()
    }

    /// Starts the listing at a cursor saved before (see `abws::paging::Pager::start_at`).
    pub fn start_at(&mut self, token: &str) -> Result<()> {
        self.inner.start_at(token)
    }
}

impl<P: Page> Iterator for Pager<P> {
    type Item = Result<P>;
    fn next(&mut self) -> Option<Result<P>> {
        self.next_page().transpose()
    }
}

/// Items of a blocking pager, page after page.
pub struct Items<P: Page> {
    pager: Pager<P>,
    buffer: std::vec::IntoIter<P::Item>,
}

impl<P: Page> Iterator for Items<P> {
    type Item = Result<P::Item>;
    fn next(&mut self) -> Option<Result<P::Item>> {
        loop {
            if let Some(item) = self.buffer.next() {
                return Some(Ok(item));
            }
            match self.pager.next_page() {
                Ok(Some(page)) => self.buffer = page.into_items().into_iter(),
                Ok(None) => return None,
                Err(e) => return Some(Err(e)),
            }
        }
    }
}

/// Declares a blocking group: each async operation of the group becomes a method that
/// runs it to completion; each pager constructor returns a blocking pager.
macro_rules! blocking_group {
    (
        $(#[$meta:meta])*
        $group:ident, $accessor:ident {
            $( async fn $name:ident(&self $(, $arg:ident : $ty:ty)*) -> $ret:ty; )*
            $( pager fn $pname:ident(&self $(, $parg:ident : $pty:ty)*) -> $page:ty; )*
        }
    ) => {
        $(#[$meta])*
        pub struct $group<'a> {
            pub(crate) client: &'a Client,
        }

        impl Client {
            $(#[$meta])*
            pub fn $accessor(&self) -> $group<'_> {
                $group { client: self }
            }
        }

        impl $group<'_> {
            $(
                #[doc = concat!("Blocking `", stringify!($name), "`; see the async method of the same name.")]
                pub fn $name(&self $(, $arg: $ty)*) -> Result<$ret> {
                    self.client.run(|c| async move { c.$accessor().$name($($arg),*).await })
                }
            )*
            $(
                #[doc = concat!("Blocking `", stringify!($pname), "`: an iterator of pages (or of items with `.items()`).")]
                pub fn $pname(&self $(, $parg: $pty)*) -> Result<Pager<$page>> {
                    Ok(Pager::new(self.client.inner()?.$accessor().$pname($($parg),*)?))
                }
            )*
        }
    };
}

use crate::api::{documents as doc, reconciliation as rec};

// The operations of each group come from the operations table (`operations.rs`); the
// lists below hold only the conveniences that are not one operation.

blocking_group! {
    /// Invoices 2026-02-01.
    Invoices, invoices {}
}

blocking_group! {
    /// Reconciliation 2021-01-08.
    Reconciliation, reconciliation {
        async fn invoice_details_for(&self, p: &rec::InvoiceDetailsForParams) -> Vec<rec::InvoiceDetailsByOrderLineItem>;
    }
}

blocking_group! {
    /// Reports and documents 2021-09-30.
    Documents, documents {
        async fn wait_for_report(&self, report_id: &str, poll_interval: std::time::Duration, timeout: Option<std::time::Duration>) -> doc::Report;
        async fn download(&self, report_document_id: &str) -> Vec<u8>;
        async fn download_all(&self, report_document_id: &str) -> Vec<crate::documents::NamedDocument>;
        async fn download_to(&self, report_document_id: &str, writer: &mut (dyn std::io::Write + Send)) -> u64;
        async fn download_into(&self, report_document_id: &str, buffer: &mut dyn doc::DocumentBuffer) -> u64;
        async fn download_to_path(&self, report_document_id: &str, path: &std::path::Path, key: &crate::sealed::DocumentKey, progress: Option<&(dyn Fn(u64) + Send + Sync)>) -> u64;
        async fn download_to_path_plaintext(&self, report_document_id: &str, path: &std::path::Path, progress: Option<&(dyn Fn(u64) + Send + Sync)>) -> u64;
        async fn fetch_pdf(&self, p: &doc::FetchPdfParams, poll_interval: std::time::Duration, timeout: Option<std::time::Duration>) -> Vec<u8>;
        async fn fetch_pdf_into(&self, p: &doc::FetchPdfParams, poll_interval: std::time::Duration, timeout: Option<std::time::Duration>, buffer: &mut dyn doc::DocumentBuffer) -> u64;
        async fn fetch_pdf_to(&self, p: &doc::FetchPdfParams, poll_interval: std::time::Duration, timeout: Option<std::time::Duration>, writer: &mut (dyn std::io::Write + Send)) -> u64;
        async fn fetch_pdf_to_path(&self, p: &doc::FetchPdfParams, poll_interval: std::time::Duration, timeout: Option<std::time::Duration>, path: &std::path::Path, key: &crate::sealed::DocumentKey, progress: Option<&(dyn Fn(u64) + Send + Sync)>) -> u64;
    }
}

blocking_group! {
    /// Cart 2025-04-30.
    Cart, cart {}
}

blocking_group! {
    /// Product search 2020-08-26.
    Products, products {}
}

blocking_group! {
    /// Ordering 2022-10-30.
    Ordering, ordering {}
}

blocking_group! {
    /// Order and shipment line item reporting.
    Reporting, reporting {}
}

blocking_group! {
    /// Package tracking 2025-07-02.
    Tracking, tracking {}
}
