//! Sandbox configuration: the public knobs of the emulator.

use std::collections::HashMap;
use std::time::Duration;

use crate::faults::FaultRule;

/// Which rate limits the sandbox enforces.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum RateLimits {
    /// The published usage plans (see docs/sandbox.md).
    #[default]
    Spec,
    /// Never answer 429 (the rate header still shows the spec value).
    Off,
    /// The spec values, with these operations (operationId -> (rate per second, burst)) replaced.
    Overrides(HashMap<String, (f64, u32)>),
}

/// Configuration of one sandbox instance. `Default` gives the documented defaults.
#[derive(Debug, Clone)]
pub struct SandboxConfig {
    /// Seed of the data set: the same seed (and `today`) gives the same data set.
    pub seed: u64,
    /// Anchor date of the data set; `None` means the current UTC date.
    pub today: Option<chrono::NaiveDate>,
    pub rate_limits: RateLimits,
    pub token_lifetime: Duration,
    pub page_token_lifetime: Duration,
    pub presigned_lifetime: Duration,
    /// Server-side time runs this many times faster than real time.
    pub time_scale: f64,
    /// Sandbox time from createReport to the report's end state (IN_PROGRESS at half of
    /// it); each state also needs one poll. Default 1 s: a report ends within about a
    /// second at every time scale.
    pub report_duration: Duration,
    /// Answer only the documented sample inputs.
    pub static_mode: bool,
    pub rotate_refresh_tokens: bool,
    pub faults: Vec<FaultRule>,
    /// Port of the API listener; 0 = ephemeral. The other listeners are always ephemeral.
    pub port: u16,
    /// Close a keep-alive connection that waits this long for its next request, as the
    /// service's load balancers do; `None`: never.
    pub idle_timeout: Option<Duration>,
}

impl Default for SandboxConfig {
    fn default() -> Self {
        SandboxConfig {
            seed: 42,
            today: None,
            rate_limits: RateLimits::Spec,
            token_lifetime: Duration::from_secs(3600),
            page_token_lifetime: Duration::from_secs(15 * 60),
            presigned_lifetime: Duration::from_secs(5 * 60),
            time_scale: 1.0,
            report_duration: Duration::from_secs(1),
            static_mode: false,
            rotate_refresh_tokens: false,
            faults: Vec::new(),
            port: 0,
            idle_timeout: None,
        }
    }
}
