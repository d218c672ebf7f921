//! A string that never shows itself: redacted in `Debug`/`Display`, zeroed on drop.

use std::fmt;

use zeroize::Zeroize;

/// A secret value (client secret, refresh or access token, authorization code).
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps a value.
    pub fn new(value: impl Into<String>) -> Secret {
        Secret(value.into())
    }

    /// The value itself; call only where it goes onto the wire.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl From<String> for Secret {
    fn from(value: String) -> Self {
        Secret(value)
    }
}

impl From<&str> for Secret {
    fn from(value: &str) -> Self {
        Secret(value.to_string())
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(\"***\")")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

/// Read from a JSON string (`CloseParams::archive_password`); never written back.
impl<'de> serde::Deserialize<'de> for Secret {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Secret, D::Error> {
        String::deserialize(d).map(Secret)
    }
}

impl Drop for Secret {
    fn drop(&mut self) {
        self.0.zeroize();
    }
}

/// An address as logs, `Debug` output and reprs may show it: scheme, host, port and path
/// kept; the user and password (a proxy's), the query (a presigned address's signature)
/// and the fragment replaced by `***`. Text that is not an absolute URL is hidden whole.
pub fn redact_url(text: &str) -> String {
    let Ok(url) = url::Url::parse(text) else {
        return "***".to_string();
    };
    let mut out = format!("{}://", url.scheme());
    if !url.username().is_empty() || url.password().is_some() {
        out.push_str("***@");
    }
    if let Some(host) = url.host_str() {
        out.push_str(host);
    }
    if let Some(port) = url.port() {
        out.push_str(&format!(":{port}"));
    }
    out.push_str(url.path());
    if url.query().is_some() {
        out.push_str("?***");
    }
    if url.fragment().is_some() {
        out.push_str("#***");
    }
    out
}

/// The shown form of a field marked sensitive (`model!`'s `sensitive`, `FieldInfo::
/// sensitive`): an address redacted by `redact_url`, anything else hidden whole. The one
/// rule of the Rust `Debug` of models and of the Python reprs (`abws._abws._redact`).
pub fn redact_sensitive(text: &str) -> String {
    redact_url(text)
}

/// A value shown redacted in `Debug` (`Some("https://host/path?***")`).
pub struct Redacted<'a>(pub &'a Option<String>);

impl fmt::Debug for Redacted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(v) => write!(f, "Some({:?})", redact_sensitive(v)),
            None => f.write_str("None"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_lose_credentials_and_queries() {
        assert_eq!(
            redact_url("https://docs.example.com/a/b.gz?X-Amz-Signature=abc&X-Amz-Credential=k#f"),
            "https://docs.example.com/a/b.gz?***#***"
        );
        assert_eq!(
            redact_url("http://user:p%40ss@proxy.corp:3128"),
            "http://***@proxy.corp:3128/"
        );
        assert_eq!(
            redact_url("http://127.0.0.1:8080/x"),
            "http://127.0.0.1:8080/x"
        );
        assert_eq!(redact_url("not a url ?token=1"), "***");
        assert_eq!(
            format!("{:?}", Redacted(&Some("https://h/p?sig=1".into()))),
            "Some(\"https://h/p?***\")"
        );
    }
}
