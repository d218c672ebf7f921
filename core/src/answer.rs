//! What a handler gives back, and a binding receives: the typed result, or the checked
//! answer not yet decoded (`Answer`), so that a binding can build its own objects straight
//! from the JSON (`Reply::Json`) instead of decoding twice. Re-exported by `operation`.

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::describe::{Describe, Ty};
use crate::error::{Error, Result};
use crate::node::ToNode;
use crate::transport::HttpResponse;

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

/// A result the bindings can walk (`Node`) or write as its wire JSON, of a known shape.
pub trait Output: ToNode + Send + Sync + 'static {
    /// The result as JSON text, in its wire form.
    fn to_json(&self) -> Result<String>;
    /// The shape of that JSON (a binding that builds its objects from JSON reads the
    /// results the core makes itself as it reads an answer).
    fn ty(&self) -> Ty;
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

impl<T: ToNode + Serialize + Describe + Send + Sync + 'static> Output for T {
    fn to_json(&self) -> Result<String> {
        serde_json::to_string(self)
            .map_err(|e| Error::internal(format!("the result could not be written as JSON: {e}")))
    }
    fn ty(&self) -> Ty {
        T::ty()
    }
}
