//! What every operation is to the client: a parameter struct that knows its row of the
//! operations table, its result type and its handler (`Operation`), and, for the
//! bindings, the same behind a name (`DynOperation`): arguments as JSON text in, a
//! `Reply` out: a result they can walk (`Output`), or, where the result is the answer's
//! body, that body checked but not yet decoded (`JsonAnswer`), so that a binding can
//! build its own objects straight from the JSON instead of decoding twice.

use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;

use serde::de::DeserializeOwned;
use serde::Serialize;

pub use crate::answer::{Answer, Finish, JsonAnswer, Output, Reply, Wrapper};
use crate::client::Client;
use crate::error::Result;
use crate::operation_row::Operation as Row;
use crate::paging::{Page, Pager};

/// The parameter struct of an operation. Implemented by the operations table.
pub trait Operation: DeserializeOwned + Send + Sync + 'static {
    /// The operation's result.
    type Output: Output + Serialize;
    /// The operation's row of the table.
    fn row() -> &'static Row;
    /// Validates the parameters and runs the operation.
    fn run(&self, client: &Client) -> impl Future<Output = Result<Self::Output>> + Send;
    /// Runs the operation for a binding: its result, or its checked answer undecoded.
    fn reply(&self, client: &Client) -> impl Future<Output = Result<Reply>> + Send;
}

/// An operation that is also a listing.
pub trait Paged: Operation<Output: Page> {
    /// Validates the parameters and starts the listing.
    fn pager(&self, client: &Client) -> Result<Pager<Self::Output>>;
}

/// A boxed, sendable future of a library result.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = Result<T>> + Send + 'static>>;

/// An operation behind its name: what the Python and C bindings call.
pub trait DynOperation: Sync {
    /// The operation's row of the table.
    fn row(&self) -> &'static Row;
    /// Reads the arguments (a validation error naming the parameter, before any
    /// request), then gives the call to await.
    fn call(&self, client: &Client, args: &str) -> Result<BoxFuture<Reply>>;
    /// Reads the arguments and starts the listing (for a paged operation).
    fn pager(&self, client: &Client, args: &str) -> Result<Box<dyn DynPager>>;
}

/// The next page of a `DynPager` (`None` after the last).
pub type NextPage<'a> = Pin<Box<dyn Future<Output = Result<Option<Box<dyn Output>>>> + Send + 'a>>;

/// The next page of a `DynPager` as a binding's reply (`None` after the last).
pub type NextReply<'a> = Pin<Box<dyn Future<Output = Result<Option<Reply>>> + Send + 'a>>;

/// A listing of any page type.
pub trait DynPager: Send {
    /// Fetches the next page (`None` after the last).
    fn next_page(&mut self) -> NextPage<'_>;
    /// Fetches the next page as the answer's JSON (`Reply::Json`; the page is decoded too,
    /// for its cursor), so that a binding builds its objects from the JSON as for a call.
    fn next_reply(&mut self) -> NextReply<'_>;
    /// Items delivered so far.
    fn items_yielded(&self) -> u64;
    /// The cursor of the next page (`Pager::next_token`).
    fn next_token(&self) -> Option<String>;
    /// Starts the listing at a cursor (`Pager::start_at`).
    fn start_at(&mut self, token: &str) -> Result<()>;
}

impl<P: Page + Output + crate::describe::Describe> DynPager for Pager<P> {
    fn next_page(&mut self) -> NextPage<'_> {
        Box::pin(async move {
            Ok(Pager::next_page(self)
                .await?
                .map(|p| Box::new(p) as Box<dyn Output>))
        })
    }
    fn next_reply(&mut self) -> NextReply<'_> {
        Box::pin(async move {
            let op = self.call().op.id;
            Ok(Pager::next_page_answer(self)
                .await?
                .map(|resp| Finish::<P>::reply(Answer::<P>::new(resp, op))))
        })
    }
    fn items_yielded(&self) -> u64 {
        Pager::items_yielded(self)
    }
    fn next_token(&self) -> Option<String> {
        Pager::next_token(self).map(str::to_string)
    }
    fn start_at(&mut self, token: &str) -> Result<()> {
        Pager::start_at(self, token)
    }
}

/// The `DynOperation` of a parameter struct.
pub struct Typed<P> {
    paged: bool,
    _p: PhantomData<fn() -> P>,
}

impl<P> Typed<P> {
    /// The `DynOperation` of an operation that is not a listing.
    pub const NEW: Typed<P> = Typed {
        paged: false,
        _p: PhantomData,
    };
    /// The `DynOperation` of a listing (it also has `pager`).
    pub const PAGED: Typed<P> = Typed {
        paged: true,
        _p: PhantomData,
    };
}

/// Dispatches to `Paged::pager` when the parameter struct has one.
pub trait MaybePaged {
    /// Starts the listing (an internal error for an operation that is not one).
    fn dyn_pager(&self, client: &Client) -> Result<Box<dyn DynPager>>;
}

impl<P: Operation> DynOperation for Typed<P>
where
    P: MaybePaged,
{
    fn row(&self) -> &'static Row {
        P::row()
    }
    fn call(&self, client: &Client, args: &str) -> Result<BoxFuture<Reply>> {
        let params: P = crate::params::read(args).map_err(|e| e.with_operation(P::row().id))?;
        let client = client.clone();
        Ok(Box::pin(async move { params.reply(&client).await }))
    }
    fn pager(&self, client: &Client, args: &str) -> Result<Box<dyn DynPager>> {
        debug_assert!(self.paged);
        let params: P = crate::params::read(args).map_err(|e| e.with_operation(P::row().id))?;
        params.dyn_pager(client)
    }
}

impl Client {
    /// Runs any operation given its parameter struct.
    pub async fn call<P: Operation>(&self, params: &P) -> Result<P::Output> {
        params.run(self).await
    }

    /// Starts the listing of a paged operation.
    pub fn pager<P: Paged>(&self, params: &P) -> Result<Pager<P::Output>> {
        params.pager(self)
    }
}

impl crate::blocking::Client {
    /// Runs any operation given its parameter struct, blocking.
    pub fn call<P: Operation>(&self, params: &P) -> Result<P::Output> {
        self.run(|c| async move { c.call(params).await })
    }

    /// Starts the listing of a paged operation (a blocking iterator of pages).
    pub fn pager<P: Paged>(&self, params: &P) -> Result<crate::blocking::Pager<P::Output>> {
        Ok(crate::blocking::Pager::new(self.inner()?.pager(params)?))
    }
}
