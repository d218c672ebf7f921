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
    /// The wire name of the items' list, for a pager that reads only the page's head
    /// (`PageHead`) while a binding builds the items itself from the same answer; `None`:
    /// such a pager decodes the whole page.
    const ITEMS_WIRE: Option<&'static str> = None;
    /// `next_cursor` from the page's head.
    fn head_cursor(head: &PageHead, _current: Option<&str>) -> Option<String> {
        head.next_page_token.clone()
    }
}

/// What a pager needs of a page, read from its answer without decoding the items: how many
/// there are (a `null` element is not one, as in `count_items`), and the fields a next
/// cursor is made of.
#[derive(Debug, Default, PartialEq)]
pub struct PageHead {
    /// The items in the page's list.
    pub items: usize,
    /// `nextPageToken`.
    pub next_page_token: Option<String>,
    /// `numberOfPages` (page-numbered listings).
    pub number_of_pages: Option<i64>,
}

impl PageHead {
    /// Reads the head of a page whose items' list is `items_wire`; every other field is
    /// skipped unread (a binding reads them, and reports what the core would refuse).
    pub fn read(body: &str, items_wire: &'static str) -> serde_json::Result<PageHead> {
        use serde::de::DeserializeSeed;
        let mut de = serde_json::Deserializer::from_str(body);
        let head = HeadSeed(items_wire).deserialize(&mut de)?;
        de.end()?;
        Ok(head)
    }
}

struct HeadSeed(&'static str);

impl<'de> serde::de::DeserializeSeed<'de> for HeadSeed {
    type Value = PageHead;
    fn deserialize<D: serde::Deserializer<'de>>(
        self,
        d: D,
    ) -> std::result::Result<PageHead, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> serde::de::Visitor<'de> for HeadSeed {
    type Value = PageHead;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a page object")
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(
        self,
        mut map: A,
    ) -> std::result::Result<PageHead, A::Error> {
        use serde::de::IgnoredAny;
        let mut head = PageHead::default();
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            if key == self.0 {
                head.items = map.next_value::<Option<Counted>>()?.map_or(0, |c| c.0);
            } else if key == "nextPageToken" {
                head.next_page_token = map.next_value()?;
            } else if key == "numberOfPages" {
                head.number_of_pages = map.next_value()?;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(head)
    }
}

/// A list's non-`null` elements, counted without reading them.
struct Counted(usize);

impl<'de> serde::Deserialize<'de> for Counted {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Counted, D::Error> {
        struct Elements;
        impl<'de> serde::de::Visitor<'de> for Elements {
            type Value = Counted;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a list")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> std::result::Result<Counted, A::Error> {
                let mut n = 0;
                while let Some(x) = seq.next_element::<Option<serde::de::IgnoredAny>>()? {
                    n += usize::from(x.is_some());
                }
                Ok(Counted(n))
            }
        }
        d.deserialize_seq(Elements)
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
        let Some((resp, current)) = self.fetch().await? else {
            return Ok(None);
        };
        let page: P = resp.decode(self.call.op.id)?;
        self.advance(page.len(), page.next_cursor(current.as_deref()), &resp);
        Ok(Some(page))
    }

    /// The next page's answer, or `None` after the last one: for a binding that builds its
    /// own objects from the JSON (`DynPager::next_reply`). Only the page's head is read
    /// here (`Page::ITEMS_WIRE`), not its items a second time; an answer the head cannot
    /// be read from is decoded whole, for the core's error.
    pub(crate) async fn next_page_answer(&mut self) -> Result<Option<HttpResponse>> {
        let Some((resp, current)) = self.fetch().await? else {
            return Ok(None);
        };
        let head = P::ITEMS_WIRE.and_then(|items| {
            let text = std::str::from_utf8(&resp.body).ok()?;
            PageHead::read(text, items).ok()
        });
        let (items, cursor) = match head {
            Some(h) => (h.items, P::head_cursor(&h, current.as_deref())),
            None => {
                let page: P = resp.decode(self.call.op.id)?;
                (page.len(), page.next_cursor(current.as_deref()))
            }
        };
        self.advance(items, cursor, &resp);
        Ok(Some(resp))
    }

    /// Sends the next page's call: its answer and the cursor it was fetched with, or `None`
    /// after the last page.
    async fn fetch(&mut self) -> Result<Option<(HttpResponse, Option<String>)>> {
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
        let current = if sent_token { self.next.clone() } else { None };
        Ok(Some((resp, current)))
    }

    /// Counts the page and takes its cursor as the next (an error at the next page when
    /// the cursor was seen before).
    fn advance(&mut self, items: usize, cursor: Option<String>, resp: &HttpResponse) {
        self.pages += 1;
        self.yielded += items as u64;
        self.next = match cursor {
            Some(t) if !t.is_empty() => {
                if !self.seen.insert(t.clone()) {
                    // This page is new, but following the token would fetch it again.
                    self.looped = Some(resp.request_id());
                }
                Some(t)
            }
            _ => None,
        };
    }
}
