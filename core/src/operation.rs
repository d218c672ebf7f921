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

use crate::client::Client;
use crate::describe::{Describe, Ty};
use crate::error::{Error, Result};
use crate::node::ToNode;
use crate::operations::Operation as Row;
use crate::paging::{Page, Pager};
use crate::transport::HttpResponse;

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

/// A checked answer whose body is the operation's result as JSON, or holds it in one
/// field (`{"invoiceDetail": {...}}`), not yet decoded: what a handler returns when its
/// result is exactly that. The Rust API decodes it (`Finish::finish`); a binding may build
/// its own objects from the JSON instead (`Reply::Json`).
pub struct Answer<T> {
    resp: HttpResponse,
    op: &'static str,
    part: Option<&'static str>,
    body: fn() -> Ty,
    decode: fn(&HttpResponse, &'static str) -> Result<T>,
}

impl<T: DeserializeOwned + Describe> Answer<T> {
    /// The answer of `op` (a 2xx response) whose whole body is the result.
    pub(crate) fn new(resp: HttpResponse, op: &'static str) -> Answer<T> {
        Answer {
            resp,
            op,
            part: None,
            body: T::ty,
            decode: |resp, op| resp.decode(op),
        }
    }
}

impl<T> Answer<T> {
    /// A header of the answer (visible ASCII only).
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.resp.header(name)
    }

    /// The answer of `op` whose body `W` holds the result in its one field.
    pub(crate) fn part<W: Wrapper<Part = T>>(resp: HttpResponse, op: &'static str) -> Answer<T> {
        Answer {
            resp,
            op,
            part: Some(W::FIELD),
            body: W::ty,
            decode: decode_part::<W>,
        }
    }
}

/// A body that holds an operation's result in its one declared field; an answer without
/// it is a transport error.
pub trait Wrapper: DeserializeOwned + Describe {
    /// The result's type.
    type Part;
    /// The field's wire name.
    const FIELD: &'static str;
    /// The result, if the field was there.
    fn into_part(self) -> Option<Self::Part>;
}

fn decode_part<W: Wrapper>(resp: &HttpResponse, op: &'static str) -> Result<W::Part> {
    resp.decode::<W>(op)?.into_part().ok_or_else(|| {
        Error::transport(format!("{op} answered without {}", W::FIELD))
            .with_request_id(resp.request_id())
            .with_operation(op)
    })
}

/// What a handler gives back: its result, or an `Answer` that decodes to it. The table
/// turns either into the typed result (`finish`) or into a binding's `Reply` (`reply`).
pub trait Finish<O>: Send {
    /// The typed result.
    fn finish(self) -> Result<O>;
    /// The reply for a binding.
    fn reply(self) -> Reply;
}

impl<O: Output> Finish<O> for O {
    fn finish(self) -> Result<O> {
        Ok(self)
    }
    fn reply(self) -> Reply {
        Reply::Decoded(Box::new(self))
    }
}

impl<O: Output> Finish<O> for Answer<O> {
    fn finish(self) -> Result<O> {
        (self.decode)(&self.resp, self.op)
    }
    fn reply(self) -> Reply {
        Reply::Json(JsonAnswer {
            ty: (self.body)(),
            part: self.part,
            answer: Box::new(self),
        })
    }
}

/// What an operation called by name gives a binding.
pub enum Reply {
    /// The result, decoded.
    Decoded(Box<dyn Output>),
    /// The result is the answer's body (or one field of it): checked, not yet decoded.
    Json(JsonAnswer),
}

impl Reply {
    /// The typed result (decoding the answer if it is not yet).
    pub fn into_output(self) -> Result<Box<dyn Output>> {
        match self {
            Reply::Decoded(out) => Ok(out),
            Reply::Json(answer) => answer.decode(),
        }
    }
}

/// An `Answer` of any result type.
trait Undecoded: Send {
    fn resp(&self) -> &HttpResponse;
    fn op(&self) -> &'static str;
    fn decode(&self) -> Result<Box<dyn Output>>;
}

impl<O: Output> Undecoded for Answer<O> {
    fn resp(&self) -> &HttpResponse {
        &self.resp
    }
    fn op(&self) -> &'static str {
        self.op
    }
    fn decode(&self) -> Result<Box<dyn Output>> {
        Ok(Box::new((self.decode)(&self.resp, self.op)?))
    }
}

/// An answer whose body, of the shape `ty()`, is the result or holds it in the field
/// `part()`. A binding that builds its objects from `text()` must give what `decode()`
/// would: on any doubt (a shape it does not build, a value it does not take, the field
/// missing), it calls `decode()`, which gives the result or the error the Rust API
/// reports.
pub struct JsonAnswer {
    ty: Ty,
    part: Option<&'static str>,
    answer: Box<dyn Undecoded>,
}

impl JsonAnswer {
    /// The body as text (`None` when it is not UTF-8: `decode()` reports it).
    pub fn text(&self) -> Option<&str> {
        std::str::from_utf8(&self.answer.resp().body).ok()
    }
    /// The shape of the body.
    pub fn ty(&self) -> Ty {
        self.ty
    }
    /// The wire name of the body's field that holds the result (`None`: the whole body).
    pub fn part(&self) -> Option<&'static str> {
        self.part
    }
    /// The operation's id.
    pub fn operation(&self) -> &'static str {
        self.answer.op()
    }
    /// The result decoded into the core's types, or the decoding error.
    pub fn decode(&self) -> Result<Box<dyn Output>> {
        self.answer.decode()
    }
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

/// Its wire JSON, so that `Result<Box<dyn Output>>` can be unwrapped and printed.
impl std::fmt::Debug for dyn Output {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.to_json() {
            Ok(json) => f.write_str(&json),
            Err(e) => write!(f, "<{e}>"),
        }
    }
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
    fn call(&self, client: &Client, args: &str) -> Result<BoxFuture<Reply>>;
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
    /// The cursor of the next page (`Pager::next_token`).
    fn next_token(&self) -> Option<String>;
    /// Starts the listing at a cursor (`Pager::start_at`).
    fn start_at(&mut self, token: &str) -> Result<()>;
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

    /// Runs an operation by its name with JSON arguments (what the bindings call).
    pub fn call_json(&self, name: &str, args: &str) -> Result<Box<dyn Output>> {
        let op = crate::operations::dynamic(name).ok_or_else(|| {
            Error::validation(
                "name",
                format!("must name an operation, as getInvoices or get_invoices (got {name:?})"),
            )
        })?;
        let fut = op.call(&self.inner()?, args)?;
        crate::blocking::block_on(fut)?.into_output()
    }
}
