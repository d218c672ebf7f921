//! Regions, regional groups, the endpoint table, timeouts and the client's settings.

use std::fmt;
use std::time::Duration;

use crate::error::Error;
pub use crate::region::{Region, RegionGroup};
use crate::secret::Secret;
use crate::wire;

/// The addresses a client uses. The specification names no host (only that each regional group has
/// its own API address, a sandbox address, an authorization server and a consent page), so
/// none is built in: each comes from the settings (`Settings::endpoints`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Endpoints {
    /// The API's base address: every operation is sent there (`Settings::endpoint`, or
    /// `Settings::sandbox_endpoint` when `Settings::use_sandbox`).
    pub api: String,
    /// The authorization server, whose token endpoint issues access tokens
    /// (`Settings::auth_endpoint`; required with refresh-token credentials).
    pub auth: Option<String>,
    /// The marketplace address that serves the consent page (`Settings::consent_endpoint`;
    /// used only by `auth::consent_url`).
    pub consent: Option<String>,
}

/// Where the rule "no address is built in" is explained, appended to each missing-address
/// message.
const NO_DEFAULT: &str = "the specification names no address, so abws has none built in";

/// How the client authenticates.
#[derive(Clone, Debug)]
pub enum Credentials {
    /// An app client and a refresh token from the consent flow: access tokens are
    /// obtained and refreshed automatically.
    RefreshToken {
        /// The app's client id.
        client_id: String,
        /// The app's client secret.
        client_secret: Secret,
        /// The refresh token the customer's consent produced; replaced when the server
        /// rotates it (see `Client::with_rotation`).
        refresh_token: Secret,
    },
    /// A fixed access token (it is not refreshed; it fails after it expires).
    AccessToken(Secret),
}

impl Credentials {
    /// A stable identity of the party (app × consented customer) these credentials act
    /// for; it keys the shared rate-limit buckets. Secrets are hashed, never stored.
    pub fn party(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        match self {
            Credentials::RefreshToken {
                client_id,
                refresh_token,
                ..
            } => {
                client_id.hash(&mut h);
                refresh_token.expose().hash(&mut h);
            }
            Credentials::AccessToken(token) => token.expose().hash(&mut h),
        }
        h.finish()
    }
}

/// Timeouts applied to every request.
#[derive(Clone, Debug, PartialEq)]
pub struct Timeouts {
    /// TCP + TLS connect.
    pub connect: Duration,
    /// One attempt: from sending to the last body byte.
    pub attempt: Duration,
    /// One operation, all attempts and waits included; never slept past.
    pub operation: Duration,
    /// Longest silence inside a response body before it counts as stalled.
    pub stall: Duration,
}

/// The longest duration any setting may hold (a year: longer is "no bound" in practice).
/// Longer values are clamped to it when read, so that no deadline computed from a
/// setting can overflow the clock.
pub const MAX_DURATION: Duration = Duration::from_secs(365 * 24 * 3600);

/// The most attempts a call may be given (`Settings::max_attempts`, `CallOptions`).
pub const MAX_ATTEMPTS: u32 = 10;

impl Timeouts {
    /// The timeouts with every value cut to `MAX_DURATION` (a client applies this to the
    /// settings it is given, so `Duration::MAX` means "a year", never a panic).
    pub fn clamped(&self) -> Timeouts {
        Timeouts {
            connect: self.connect.min(MAX_DURATION),
            attempt: self.attempt.min(MAX_DURATION),
            operation: self.operation.min(MAX_DURATION),
            stall: self.stall.min(MAX_DURATION),
        }
    }
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            connect: Duration::from_millis(3100),
            attempt: Duration::from_secs(30),
            operation: Duration::from_secs(120),
            stall: Duration::from_secs(20),
        }
    }
}

/// Everything a client is built from. Immutable once the client exists, except the
/// credentials, which `Client::set_credentials` may replace (secret rotation).
/// `Debug` shows no secret and no user e-mail.
#[derive(Clone)]
pub struct Settings {
    /// Default region of calls that take one (the addresses are the `*_endpoint` settings).
    pub region: Region,
    /// How the client authenticates (replaceable later with `Client::set_credentials`).
    pub credentials: Credentials,
    /// Default `x-svc-user-email`.
    pub user_email: Option<String>,
    /// The API's regional base address (`{base_url}` of the specification; the embedded sandbox's
    /// group address in tests). Required unless `use_sandbox` is set.
    pub endpoint: Option<String>,
    /// The authorization server's address (`{auth_url}`); required with refresh-token
    /// credentials (the client refreshes its access token there).
    pub auth_endpoint: Option<String>,
    /// The marketplace address that serves the consent page (`{consent_url}`); only the
    /// consent flow needs it.
    pub consent_endpoint: Option<String>,
    /// The platform's regional sandbox address (`{sandbox_url}`); used in place of
    /// `endpoint` when `use_sandbox` is set.
    pub sandbox_endpoint: Option<String>,
    /// Send every operation to `sandbox_endpoint` instead of `endpoint` (the same requests).
    pub use_sandbox: bool,
    /// Connect, attempt, operation and stall timeouts.
    pub timeouts: Timeouts,
    /// Attempts per operation, first one included (1..=3 unless raised on purpose). The one
    /// replay after a refreshed access token or a renewed download address is not one of
    /// them: a client of one attempt still outlives its token.
    pub max_attempts: u32,
    /// Pace calls with the client-side token buckets.
    pub rate_limiting: bool,
    /// Largest JSON response accepted, in bytes.
    pub max_response_bytes: usize,
    /// Largest unpacked document accepted, in bytes (stops zip and gzip bombs).
    pub max_document_bytes: u64,
    /// Appended to the user agent, e.g. `"MyErp/2.1"`.
    pub app_name: Option<String>,
    /// The proxy for remote https addresses (`http://[user:password@]host:port`), in place
    /// of `https_proxy`/`all_proxy`/`no_proxy` from the environment. Plain-http (loopback)
    /// addresses never go through a proxy. A secret: it may hold a password.
    pub proxy: Option<Secret>,
    /// Redis shared by every process and machine of this account
    /// (`redis://[:password@]host:port/db`, `rediss://` for TLS): one rate limit, one
    /// access token and one write ledger for all of them (`shared_state`, docs/scale-out.md).
    /// A secret: it may hold a password.
    pub shared_state: Option<Secret>,
    /// Refuse to work without the shared state: the blocking client checks it when it is
    /// built (`Client::check_shared_state`), the async client before its first call, and
    /// an unusable one (unreachable, a wrong password, missing rights) fails there instead
    /// of letting calls go on unshared. Off by default (an outage then passes unshared).
    pub shared_state_required: bool,
}

impl fmt::Debug for Settings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Settings")
            .field("region", &self.region)
            .field("credentials", &self.credentials)
            .field("user_email", &self.user_email.as_ref().map(|_| "***"))
            .field("endpoint", &self.endpoint)
            .field("auth_endpoint", &self.auth_endpoint)
            .field("consent_endpoint", &self.consent_endpoint)
            .field("sandbox_endpoint", &self.sandbox_endpoint)
            .field("use_sandbox", &self.use_sandbox)
            .field("timeouts", &self.timeouts)
            .field("max_attempts", &self.max_attempts)
            .field("rate_limiting", &self.rate_limiting)
            .field("max_response_bytes", &self.max_response_bytes)
            .field("max_document_bytes", &self.max_document_bytes)
            .field("app_name", &self.app_name)
            .field("proxy", &self.proxy_shown())
            .field("shared_state", &self.shared_state_shown())
            .field("shared_state_required", &self.shared_state_required)
            .finish()
    }
}

/// The smallest `max_response_bytes` accepted: an error, a token or a single object fits
/// well within it; a smaller limit would refuse ordinary responses (0: every one).
pub const MIN_RESPONSE_BYTES: usize = 64 * 1024;

static BINDING_LANGUAGE: std::sync::OnceLock<&'static str> = std::sync::OnceLock::new();

/// Names the language of the binding this library serves (`"Python"`, `"C"`) in the user
/// agent's `Language=`; `Rust` when never called. Set once, when the binding loads (one
/// copy of the core serves one binding); later calls are ignored.
#[doc(hidden)]
pub fn set_binding_language(language: &'static str) {
    let _ = BINDING_LANGUAGE.set(language);
}

impl Settings {
    /// Settings with defaults for everything but the region and credentials.
    pub fn new(region: Region, credentials: Credentials) -> Settings {
        Settings {
            region,
            credentials,
            user_email: None,
            endpoint: None,
            auth_endpoint: None,
            consent_endpoint: None,
            sandbox_endpoint: None,
            use_sandbox: false,
            timeouts: Timeouts::default(),
            max_attempts: 3,
            rate_limiting: true,
            max_response_bytes: 32 * 1024 * 1024,
            max_document_bytes: crate::documents::DEFAULT_MAX_DOCUMENT_BYTES,
            app_name: None,
            proxy: None,
            shared_state: None,
            shared_state_required: false,
        }
    }

    /// The addresses in force. The API address is `endpoint`, or `sandbox_endpoint` when
    /// `use_sandbox` is set; without it this is a validation error naming the setting and
    /// its environment variable. Trailing slashes are dropped.
    pub fn endpoints(&self) -> Result<Endpoints, Error> {
        let trim = |a: &Option<String>| a.as_deref().map(|a| a.trim_end_matches('/').to_string());
        let group = self.region.group().as_str();
        let region = self.region;
        let api = if self.use_sandbox {
            trim(&self.sandbox_endpoint).ok_or_else(|| {
                Error::validation(
                    "sandbox_endpoint",
                    format!(
                        "is required with use_sandbox: the platform's regional sandbox address \
                         of region {region} (group {group}); {NO_DEFAULT}. Give \
                         sandbox_endpoint= (environment: ABWS_SANDBOX_ENDPOINT)"
                    ),
                )
            })?
        } else {
            trim(&self.endpoint).ok_or_else(|| {
                Error::validation(
                    "endpoint",
                    format!(
                        "is required: the API's regional base address of region {region} \
                         (group {group}); {NO_DEFAULT}. Give endpoint= (environment: \
                         ABWS_ENDPOINT), or sandbox_endpoint= with use_sandbox"
                    ),
                )
            })?
        };
        Ok(Endpoints {
            api,
            auth: trim(&self.auth_endpoint),
            consent: trim(&self.consent_endpoint),
        })
    }

    /// Every address the settings hold, with its setting's name (the API address in force
    /// first), for the checks that look at each one.
    pub fn addresses(&self) -> Vec<(&'static str, &str)> {
        let mut out = vec![];
        let api = if self.use_sandbox {
            ("sandbox_endpoint", &self.sandbox_endpoint)
        } else {
            ("endpoint", &self.endpoint)
        };
        for (name, value) in [
            api,
            ("auth_endpoint", &self.auth_endpoint),
            ("consent_endpoint", &self.consent_endpoint),
            ("endpoint", &self.endpoint),
            ("sandbox_endpoint", &self.sandbox_endpoint),
        ] {
            if let Some(v) = value {
                if !out.iter().any(|(n, _)| *n == name) {
                    out.push((name, v.as_str()));
                }
            }
        }
        out
    }

    /// Checks the settings before a client is built: the API address is given (and the
    /// authorization server's, with refresh-token credentials), addresses parse, plain
    /// HTTP only on loopback (a token must never cross a network in clear), attempts in
    /// range.
    pub fn check(&self) -> Result<(), Error> {
        for (name, value) in self.addresses() {
            check_address(name, value.trim_end_matches('/'))?;
        }
        if let Some(p) = &self.proxy {
            check_proxy("proxy", p.expose())?;
        }
        if let Some(r) = &self.shared_state {
            check_redis_url(r.expose())?;
        } else if self.shared_state_required {
            return Err(Error::missing(
                "shared_state",
                "shared_state_required is set, so a Redis address is needed \
                 (redis://[:password@]host:port/db)",
            ));
        }
        if self.max_attempts == 0 || self.max_attempts > MAX_ATTEMPTS {
            return Err(Error::validation(
                "max_attempts",
                format!("must be between 1 and {MAX_ATTEMPTS}"),
            ));
        }
        if let Some(email) = &self.user_email {
            crate::validate::email("user_email", email)?;
        }
        if self.max_response_bytes < MIN_RESPONSE_BYTES {
            return Err(Error::validation(
                "max_response_bytes",
                format!(
                    "must be at least {MIN_RESPONSE_BYTES} bytes (64 KiB): a smaller limit \
                     refuses ordinary responses"
                ),
            ));
        }
        if let Some(app) = &self.app_name {
            crate::validate::header_text("app_name", app)?;
        }
        match &self.credentials {
            Credentials::RefreshToken {
                client_id,
                client_secret,
                refresh_token,
            } => {
                crate::validate::non_empty("client_id", client_id)?;
                crate::validate::non_empty("client_secret", client_secret.expose())?;
                crate::validate::non_empty("refresh_token", refresh_token.expose())?;
            }
            Credentials::AccessToken(t) => {
                crate::validate::non_empty("access_token", t.expose())?;
                // Sent as a header: refused here, at construction or `set_credentials`,
                // rather than at the first call; the rule never quotes the token.
                crate::validate::token_text("access_token", t.expose())?;
            }
        }
        // Last: the rules on the values given come first (each names its setting).
        self.endpoints()?;
        if matches!(self.credentials, Credentials::RefreshToken { .. })
            && self.auth_endpoint.is_none()
        {
            return Err(Error::validation(
                "auth_endpoint",
                format!(
                    "is required with a refresh token: the authorization server's address, \
                     where access tokens are issued; {NO_DEFAULT}. Give auth_endpoint= \
                     (environment: ABWS_AUTH_ENDPOINT)"
                ),
            ));
        }
        Ok(())
    }

    /// The proxy setting as it may be shown (its user and password redacted).
    pub fn proxy_shown(&self) -> Option<String> {
        self.proxy
            .as_ref()
            .map(|p| crate::secret::redact_url(&proxy_url_text(p.expose())))
    }

    /// The shared-state address as it may be shown (its password redacted).
    pub fn shared_state_shown(&self) -> Option<String> {
        self.shared_state
            .as_ref()
            .map(|r| crate::secret::redact_url(r.expose()))
    }

    /// The user agent sent with every request (`Language=` names the binding in use:
    /// `set_binding_language`).
    pub fn user_agent(&self) -> String {
        let base = format!(
            "{}/{} (Language={};Platform={}-{})",
            wire::USER_AGENT_PRODUCT,
            crate::VERSION,
            BINDING_LANGUAGE.get().copied().unwrap_or("Rust"),
            std::env::consts::OS,
            std::env::consts::ARCH
        );
        match &self.app_name {
            Some(app) => format!("{app} {base}"),
            None => base,
        }
    }
}

/// A `shared_state` setting: the Redis address, and the parameters of ours its query may
/// carry (taken out before the address reaches the Redis client).
pub(crate) struct RedisAddress {
    /// The address as the Redis client reads it.
    pub(crate) url: String,
    /// `account=`: names the customer account for the fleet's keys, in place of the
    /// refresh token (which a rotation replaces).
    pub(crate) account: Option<String>,
    /// `ca_file=`: a PEM file of the certificate authorities a `rediss://` server's
    /// certificate must chain to, in place of the web PKI's (a private CA).
    pub(crate) ca_file: Option<std::path::PathBuf>,
}

/// Checks a `shared_state` address: `redis://` or `rediss://`, with a host; `account=` not
/// empty; `ca_file=` only with `rediss://`.
pub fn check_redis_url(url: &str) -> Result<(), Error> {
    parse_redis_address(url).map(|_| ())
}

pub(crate) fn parse_redis_address(url: &str) -> Result<RedisAddress, Error> {
    let mut parsed = url::Url::parse(url).map_err(|_| {
        Error::validation(
            "shared_state",
            "must be a Redis address like redis://host:6379/0 (rediss:// for TLS)",
        )
    })?;
    if !matches!(parsed.scheme(), "redis" | "rediss") || parsed.host_str().is_none() {
        return Err(Error::validation(
            "shared_state",
            "must be a redis:// or rediss:// address with a host",
        ));
    }
    let (mut account, mut ca_file, mut rest) = (None, None, vec![]);
    for (k, v) in parsed.query_pairs() {
        match &*k {
            "account" if v.trim().is_empty() => {
                return Err(Error::validation(
                    "shared_state",
                    "account= must name the customer account (not empty)",
                ))
            }
            "account" => account = Some(v.into_owned()),
            "ca_file" if parsed.scheme() != "rediss" => {
                return Err(Error::validation(
                    "shared_state",
                    "ca_file= needs a rediss:// (TLS) address",
                ))
            }
            "ca_file" if v.is_empty() => {
                return Err(Error::validation(
                    "shared_state",
                    "ca_file= must be the path of a PEM file of CA certificates",
                ))
            }
            "ca_file" => ca_file = Some(std::path::PathBuf::from(&*v)),
            _ => rest.push((k.into_owned(), v.into_owned())),
        }
    }
    parsed.set_query(None);
    if !rest.is_empty() {
        parsed.query_pairs_mut().extend_pairs(rest);
    }
    Ok(RedisAddress {
        url: parsed.into(),
        account,
        ca_file,
    })
}

/// Checks one address setting (`name` is the setting): an absolute https URL (plain http
/// on loopback only), without credentials, query or fragment.
pub fn check_address(name: &str, value: &str) -> Result<(), Error> {
    let url = url::Url::parse(value)
        .map_err(|e| Error::validation(name, format!("must be an absolute URL ({e})")))?;
    // Nothing secret in an address: it is shown (Debug, `settings`, logs) as it is.
    if !url.username().is_empty() || url.password().is_some() {
        return Err(Error::validation(
            name,
            "must not hold a user name or password (the access token authorises calls; a \
             proxy's credentials go in `proxy`)",
        ));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(Error::validation(
            name,
            "must not hold a query or a fragment (each operation adds its own path and query)",
        ));
    }
    match url.scheme() {
        "https" => Ok(()),
        "http" if is_loopback(&url) => Ok(()),
        "http" => Err(Error::validation(
            name,
            "plain http is allowed only for loopback addresses (127.0.0.0/8, ::1, and localhost \
             when it resolves to loopback addresses only)",
        )),
        other => Err(Error::validation(
            name,
            format!("scheme must be https (got {other})"),
        )),
    }
}

/// True for 127.0.0.0/8, ::1 (also written as ::ffff:127.x.y.z), and for `localhost` only
/// when it resolves to loopback addresses only: a name is trusted for what it resolves
/// to, not for what it says (the pools then connect to those addresses: `localhost_addrs`).
pub(crate) fn is_loopback(url: &url::Url) -> bool {
    match url.host() {
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => loopback_only(&[std::net::IpAddr::V6(ip)]),
        Some(url::Host::Domain(d)) => {
            d.eq_ignore_ascii_case("localhost") && localhost_addrs().is_some()
        }
        None => false,
    }
}

/// What `localhost` resolves to, when that is loopback addresses only (`None` when it
/// does not resolve, or resolves to any other address). Looked up once per process: every
/// client would otherwise pay a resolver call when it is built (B11: a thousand of them).
pub fn localhost_addrs() -> Option<Vec<std::net::IpAddr>> {
    use std::net::ToSocketAddrs;
    static ONCE: std::sync::OnceLock<Option<Vec<std::net::IpAddr>>> = std::sync::OnceLock::new();
    ONCE.get_or_init(|| {
        let addrs: Vec<std::net::IpAddr> = ("localhost", 0)
            .to_socket_addrs()
            .ok()?
            .map(|a| a.ip())
            .collect();
        loopback_only(&addrs).then_some(addrs)
    })
    .clone()
}

/// True when there is at least one address and every one is loopback (an IPv4-mapped
/// IPv6 address counts as its IPv4 address).
pub fn loopback_only(addrs: &[std::net::IpAddr]) -> bool {
    !addrs.is_empty()
        && addrs.iter().all(|ip| match ip {
            std::net::IpAddr::V4(v4) => v4.is_loopback(),
            std::net::IpAddr::V6(v6) => {
                v6.is_loopback() || v6.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback())
            }
        })
}

/// A proxy address as given, with `http://` assumed when it names no scheme (as curl
/// reads `https_proxy=proxy.corp:3128`).
pub(crate) fn proxy_url_text(value: &str) -> String {
    let value = value.trim();
    if value.contains("://") {
        value.to_string()
    } else {
        format!("http://{value}")
    }
}

/// Checks a proxy address (the `proxy` setting, or `name`d environment variable): an http
/// or https URL with a host and nothing after the port. Errors never echo the value (it
/// may hold a password).
pub(crate) fn check_proxy(name: &str, value: &str) -> Result<url::Url, Error> {
    let url = url::Url::parse(&proxy_url_text(value)).map_err(|e| {
        Error::validation(
            name,
            format!("must be a proxy address like http://proxy.example:3128 ({e})"),
        )
    })?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(Error::validation(
            name,
            format!(
                "must be an http:// or https:// proxy address (got scheme {})",
                crate::error::server_text(url.scheme())
            ),
        ));
    }
    if url.host_str().is_none_or(str::is_empty)
        || url.path() != "/"
        || url.query().is_some()
        || url.fragment().is_some()
    {
        return Err(Error::validation(
            name,
            "must be a proxy address: scheme, optional user:password@, host and port only",
        ));
    }
    Ok(url)
}
