//! What every operation is to the client: a parameter struct that knows its row of the
//! operations table, its result type and its handler (`Operation`), and, for the
//! bindings, the same behind a name (`DynOperation`): arguments as JSON text in, a result
//! they can walk (`Output`) out.

use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::client::Client;
use crate::error::{Error, Result};
use crate::node::ToNode;
use crate::operations::Operation as Row;
use crate::paging::{Page, Pager};

/// The parameter struct of an operation. Implemented by the operations table.
pub trait Operation: DeserializeOwned + Send + Sync + 'static {
    /// The operation's result.
    type Output: Output + Serialize;
    /// The operation's row of the table.
    fn row() -> &'static Row;
    /// Validates the parameters and runs the operation.
    fn run(&self, client: &Client) -> impl Future<Output = Result<Self::Output>> + Send;
}

/// An operation that is also a listing.
pub trait Paged: Operation<Output: Page> {
    /// Validates the parameters and starts the listing.
    fn pager(&self, client: &Client) -> Result<Pager<Self::Output>>;
}

/// A result the bindings can walk (`Node`) or write as its wire JSON.
pub trait Output: ToNode + Send + Sync + 'static {
    /// The result as JSON text, in its wire form.
    fn to_json(&self) -> Result<String>;
}

impl<T: ToNode + Serialize + Send + Sync + 'static> Output for T {
    fn to_json(&self) -> Result<String> {
        serde_json::to_string(self)
            .map_err(|e| Error::internal(format!("the result could not be written as JSON: {e}")))
    }
}

/// A boxed, sendable future of a library result.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = Result<T>> + Send + 'static>>;

/// An operation behind its name: what the Python and C bindings call.
pub trait DynOperation: Sync {
    /// The operation's row of the table.
    fn row(&self) -> &'static Row;
    /// Reads the arguments (a validation error naming the parameter, before any
    /// request), then gives the call to await.
    fn call(&self, client: &Client, args: &str) -> Result<BoxFuture<Box<dyn Output>>>;
    /// Reads the arguments and starts the listing (for a paged operation).
    fn pager(&self, client: &Client, args: &str) -> Result<Box<dyn DynPager>>;
}

/// The next page of a `DynPager` (`None` after the last).
pub type NextPage<'a> = Pin<Box<dyn Future<Output = Result<Option<Box<dyn Output>>>> + Send + 'a>>;

/// A listing of any page type.
pub trait DynPager: Send {
    /// Fetches the next page (`None` after the last).
    fn next_page(&mut self) -> NextPage<'_>;
    /// Items delivered so far.
    fn items_yielded(&self) -> u64;
}

impl<P: Page + Output> DynPager for Pager<P> {
    fn next_page(&mut self) -> NextPage<'_> {
        Box::pin(async move {
            Ok(Pager::next_page(self)
                .await?
                .map(|p| Box::new(p) as Box<dyn Output>))
        })
    }
    fn items_yielded(&self) -> u64 {
        Pager::items_yielded(self)
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
    fn call(&self, client: &Client, args: &str) -> Result<BoxFuture<Box<dyn Output>>> {
        let params: P = crate::params::read(args).map_err(|e| e.with_operation(P::row().id))?;
        let client = client.clone();
        Ok(Box::pin(async move {
            let out = client.call(&params).await?;
            Ok(Box::new(out) as Box<dyn Output>)
        }))
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

    /// Runs an operation by its name with JSON arguments (what the bindings call).
    pub fn call_json(&self, name: &str, args: &str) -> Result<Box<dyn Output>> {
        let op = crate::operations::dynamic(name)
            .ok_or_else(|| Error::internal(format!("no operation named {name}")))?;
        let fut = op.call(&self.inner()?, args)?;
        crate::blocking::block_on(fut)
    }
}
