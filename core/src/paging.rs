//! One generic pager for the token-paged operations. It replays the original parameters
//! with each page token (or sends the token alone where the operation wants that), stops
//! with an error on a repeated token instead of looping, and turns an expired token into
//! `PageTokenExpired` carrying how many items were already delivered.

use std::collections::HashSet;

use serde::de::DeserializeOwned;

use crate::client::{Call, Client};
use crate::error::{Error, ErrorKind, Result};
use crate::transport::HttpResponse;

/// A page of a paged operation.
pub trait Page: DeserializeOwned + Send + 'static {
    /// The type of the page's items.
    type Item: Send + 'static;
    /// The token of the next page; `None` or empty on the last page.
    fn next_page_token(&self) -> Option<&str>;
    /// How many items this page holds.
    fn len(&self) -> usize;
    /// True when the page holds no item.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The page's items, in order.
    fn into_items(self) -> Vec<Self::Item>;
    /// The cursor of the next page given the cursor this page was fetched with: the
    /// next page token by default; page-numbered listings compute the next number.
    fn next_cursor(&self, _current: Option<&str>) -> Option<String> {
        self.next_page_token().map(str::to_string)
    }
}

/// How many items a page's list holds: a `null` element is not an item (it stays in the
/// page, and in its wire form).
pub fn count_items<T>(list: &Option<Vec<Option<T>>>) -> usize {
    list.as_ref()
        .map_or(0, |v| v.iter().filter(|x| x.is_some()).count())
}

/// A page's items, in order, without its `null` elements (see `count_items`).
pub fn take_items<T>(list: Option<Vec<Option<T>>>) -> Vec<T> {
    list.map_or_else(Vec::new, |v| v.into_iter().flatten().collect())
}

/// How the page token travels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenStyle {
    /// With every original parameter, unchanged (invoices, shipment line items, carts).
    WithParams(&'static str),
    /// Alone (reconciliation transactions).
    Alone(&'static str),
}

/// Walks the pages of one listing.
pub struct Pager<P: Page> {
    client: Client,
    call: Call,
    /// Further listings (date windows) walked after this one, in order.
    queue: std::collections::VecDeque<Call>,
    style: TokenStyle,
    next: Option<String>,
    seen: HashSet<String>,
    started: bool,
    finished: bool,
    yielded: u64,
    pages: u64,
    looped: Option<Option<String>>,
    _page: std::marker::PhantomData<fn() -> P>,
}

impl<P: Page> Pager<P> {
    /// `call` holds the original parameters; `first_token` resumes a listing.
    pub fn new(
        client: Client,
        call: Call,
        style: TokenStyle,
        first_token: Option<String>,
    ) -> Pager<P> {
        Pager {
            client,
            call,
            queue: Default::default(),
            style,
            next: first_token.filter(|t| !t.is_empty()),
            seen: HashSet::new(),
            started: false,
            finished: false,
            yielded: 0,
            pages: 0,
            looped: None,
            _page: std::marker::PhantomData,
        }
    }

    /// A pager over several listings in turn (e.g. consecutive date windows), each
    /// paged to its end before the next starts.
    pub fn chain(client: Client, calls: Vec<Call>, style: TokenStyle) -> Option<Pager<P>> {
        let mut queue: std::collections::VecDeque<Call> = calls.into();
        let first = queue.pop_front()?;
        let mut pager = Pager::new(client, first, style, None);
        pager.queue = queue;
        Some(pager)
    }

    /// Items delivered so far.
    pub fn items_yielded(&self) -> u64 {
        self.yielded
    }

    /// Pages fetched so far.
    pub fn pages_fetched(&self) -> u64 {
        self.pages
    }

    /// The cursor of the next page (the token it will be requested with; a page number
    /// for page-numbered listings; before the first page, the one it starts at, if any),
    /// `None` after the last page. Give
    /// it to `start_at` (or to the listing's own page token parameter) to resume with the
    /// items after the last page fetched.
    pub fn next_token(&self) -> Option<&str> {
        self.next.as_deref()
    }

    /// Starts the listing at `token`: the `next_token` of a listing walked before (kept,
    /// say, across processes), with the same parameters. Before the first page only, on a
    /// listing of one call (not one split into date windows) that was not already given
    /// its own page token parameter; a page-numbered listing takes a page number. Errors
    /// name `start_token`.
    pub fn start_at(&mut self, token: &str) -> Result<()> {
        let rule = if token.is_empty() {
            "must not be empty"
        } else if self.started {
            "must be given before the listing's first page"
        } else if !self.queue.is_empty() {
            "can resume only a listing of one call (a date range that needs no windows)"
        } else if self.next.is_some() {
            "cannot be given with the listing's own page token parameter: give one of them"
        } else if self.style == TokenStyle::WithParams("pageNumber")
            && token.parse::<u32>().is_err()
        {
            "must be a page number (the next_token of this page-numbered listing)"
        } else {
            self.next = Some(token.to_string());
            return Ok(());
        };
        Err(Error::validation("start_token", rule).with_operation(self.call.op.id))
    }

    /// The call this pager replays.
    pub fn call(&self) -> &Call {
        &self.call
    }

    /// The next page, or `None` after the last one.
    pub async fn next_page(&mut self) -> Result<Option<P>> {
        Ok(self.next_page_answer().await?.map(|(page, _)| page))
    }

    /// The next page and the answer it was decoded from (a binding builds its own objects
    /// from that JSON: `DynPager::next_reply`), or `None` after the last one.
    pub(crate) async fn next_page_answer(&mut self) -> Result<Option<(P, HttpResponse)>> {
        if !self.finished && self.started && self.next.is_none() {
            match self.queue.pop_front() {
                Some(call) => {
                    self.call = call;
                    self.started = false;
                    self.seen.clear();
                }
                None => self.finished = true,
            }
        }
        if self.finished {
            return Ok(None);
        }
        if let Some(request_id) = self.looped.take() {
            self.finished = true;
            return Err(Error::transport(format!(
                "{} returned a page token it had already returned; stopped instead of looping \
                 ({} items in {} pages were delivered)",
                self.call.op.id, self.yielded, self.pages
            ))
            .with_request_id(request_id)
            .with_operation(self.call.op.id));
        }
        self.started = true;
        let call = match (&self.next, self.style) {
            (None, _) => self.call.clone(),
            (Some(t), TokenStyle::WithParams(name)) => self.call.clone().query(name, t.clone()),
            (Some(t), TokenStyle::Alone(name)) => {
                let mut c = self.call.clone();
                c.query = vec![(name, t.clone())];
                c
            }
        };
        let sent_token = self.next.is_some();
        let resp = match self.client.execute(&call).await {
            Ok(r) => r,
            Err(e) if sent_token && e.kind() == ErrorKind::PageTokenExpired => {
                self.finished = true;
                return Err(Error::page_token_expired(
                    format!(
                        "the page token of {} expired after {} items in {} pages (tokens last 15 minutes); \
                         restart the listing with the same parameters, or narrow it so it finishes sooner",
                        self.call.op.id, self.yielded, self.pages
                    ),
                    self.yielded,
                )
                .with_request_id(e.request_id().map(str::to_string))
                .with_attempts(e.attempts())
                .with_operation(self.call.op.id)
                .with_source(e));
            }
            Err(e) => {
                self.finished = true;
                return Err(e);
            }
        };
        let page: P = resp.decode(self.call.op.id)?;
        self.pages += 1;
        self.yielded += page.len() as u64;
        let current = if sent_token { self.next.clone() } else { None };
        self.next = match page.next_cursor(current.as_deref()).as_deref() {
            Some(t) if !t.is_empty() => {
                if !self.seen.insert(t.to_string()) {
                    // This page is new, but following the token would fetch it again.
                    self.looped = Some(resp.request_id());
                }
                Some(t.to_string())
            }
            _ => None,
        };
        Ok(Some((page, resp)))
    }
}
