//! The rate-limit buckets in Redis: the pacing's back-end shared by every process of an
//! account (`…:rl:<group>:<operationId>`), one GCRA schedule on Redis's clock, kept by Lua
//! scripts.

use std::sync::Mutex;
use std::time::Duration;

use tokio::time::Instant;

use super::Shared;
use crate::ratelimit::{SAFETY_FACTOR, TIME_MARGIN};

/// What the bucket scripts share: Redis's clock, and the bucket's stored fields read back
/// checked. A number read from Redis is used only when it is finite and in bounds: a rate
/// within what the server may report (one request an hour .. 10 000 per second, the bounds
/// of `parse_rate_header`: all a process of ours ever stores), a schedule (`tat`) at most a
/// full bucket and a second ahead of now. Anything else (another program's value, a
/// corrupted key, text) is repaired: a bad rate deleted (the caller's rate applies), a bad
/// schedule, or one kept at a rate now unknown, reset to an empty bucket (the next slot an
/// interval away: the safe side); the script names the field in its answer for the caller
/// to log: never a panic, never an unpaced fleet (S1). Redis's Lua reads "nan",
/// "inf" and "0x10" as numbers: `finite` keeps the first two out.
///
/// The schedule is written with the rate it is counted at (`save_tat`): a schedule alone
/// means nothing, and one made at the plan's rate before any process stored the server's
/// was read at each caller's own rate: a process that had already heard 5/s judged a
/// schedule of a few 0.5/s slots too far ahead and reset it to a full bucket at 5/s, which
/// the first SET_RATE then shrank tenfold as if made at 0.5/s: the fleet's first burst
/// went out about half again (4-7 x 429 for 4 processes x 4 threads).
macro_rules! bucket_script {
    ($body:literal) => {
        concat!(
            r#"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local bad = {}
local unknown_pace = false
local function finite(x)
  return type(x) == 'number' and x == x and x > -math.huge and x < math.huge
end
local function stored_rate(default)
  local raw = redis.call('HGET', KEYS[1], 'rate')
  if not raw then return default end
  local r = tonumber(raw)
  if finite(r) and r >= 1 / 3600 and r <= 10000 then return r end
  redis.call('HDEL', KEYS[1], 'rate')
  bad[#bad + 1] = 'rate'
  unknown_pace = true
  return default
end
local function save_tat(tat, rate)
  redis.call('HSET', KEYS[1], 'tat', tostring(tat), 'rate', tostring(rate))
end
local function stored_tat(rate, interval, burst)
  local raw = redis.call('HGET', KEYS[1], 'tat')
  if not raw then return nil end
  local x = tonumber(raw)
  if finite(x) and x <= now + interval * (burst + 1) + 1000 then
    if not unknown_pace then return x end
  else
    bad[#bad + 1] = 'tat'
  end
  x = now + interval * burst
  save_tat(x, rate)
  return x
end
local function tolerance(interval, burst, margin)
  return math.max(interval * (burst - 1) - margin, 0)
end
"#,
            $body
        )
    };
}

/// GCRA reservation (the local bucket's arithmetic, `ratelimit.rs`, its time margin
/// included): reserves the next slot of a bucket unless it is more than ARGV[3] ms away,
/// and answers {reserved, wait ms, the fields found invalid}. The clock is Redis's own, so
/// machines whose clocks differ still share one schedule.
/// ARGV: the plan's rate (until one is stored: the reservation stores it with the
/// schedule), the burst, the longest wait, the safety factor, the time margin in ms.
const RESERVE: &str = bucket_script!(
    r#"
local rate = stored_rate(tonumber(ARGV[1]))
local burst = tonumber(ARGV[2])
local interval = 1000 / (rate * tonumber(ARGV[4]))
local tat = stored_tat(rate, interval, burst) or now
if tat < now then tat = now end
local wait = tat - tolerance(interval, burst, tonumber(ARGV[5])) - now
if wait < 0 then wait = 0 end
if wait > tonumber(ARGV[3]) then return {0, tostring(wait), table.concat(bad, ',')} end
save_tat(tat + interval, rate)
redis.call('PEXPIRE', KEYS[1], math.ceil(interval * burst + 3600000))
return {1, tostring(wait), table.concat(bad, ',')}
"#
);

/// The server reported another rate: stored for every process, and the slots already
/// reserved re-counted at it (as the local bucket does), so a faster rate applies at once.
/// ARGV: the new rate, the rate before, the safety factor, the burst.
const SET_RATE: &str = bucket_script!(
    r#"
local old = stored_rate(tonumber(ARGV[2]))
local new = tonumber(ARGV[1])
if old == new then return table.concat(bad, ',') end
local tat = stored_tat(old, 1000 / (old * tonumber(ARGV[3])), tonumber(ARGV[4])) or now
if tat > now then
  redis.call('HSET', KEYS[1], 'tat', tostring(now + (tat - now) * old / new))
end
redis.call('HSET', KEYS[1], 'rate', tostring(new))
return table.concat(bad, ',')
"#
);

/// After a 429 the server's bucket is empty: the next slot is one interval and the time
/// margin away (as the local bucket's `throttled`).
/// ARGV: the rate, the burst, the safety factor.
const THROTTLED: &str = bucket_script!(
    r#"
local rate = stored_rate(tonumber(ARGV[1]))
local burst = tonumber(ARGV[2])
local interval = 1000 / (rate * tonumber(ARGV[3]))
local empty = now + interval * burst
local tat = stored_tat(rate, interval, burst) or 0
if tat < empty then save_tat(empty, rate) end
return table.concat(bad, ',')
"#
);

/// The longest wait for a slot a reservation may answer (the slowest rate's interval is
/// about an hour); a longer one, or one that is not a number, is not trusted.
const LONGEST_SLOT_WAIT: Duration = Duration::from_secs(4 * 3600);

/// When each (operation, invalid fields) was last logged: once a minute at most, so a value
/// a process keeps ignoring, or one something keeps writing, does not log on every call.
static BAD_VALUES_WARNED: Mutex<Vec<(String, Instant)>> = Mutex::new(Vec::new());

/// Logs that a bucket's stored `fields` were invalid (repaired or ignored).
fn bad_bucket_values(op: &str, fields: &str) {
    if fields.is_empty() {
        return;
    }
    let what = format!("{op} {fields}");
    {
        let mut warned = BAD_VALUES_WARNED.lock().unwrap_or_else(|p| p.into_inner());
        warned.retain(|(_, t)| t.elapsed() < Duration::from_secs(60));
        if warned.iter().any(|(w, _)| *w == what) {
            log::debug!(target: "abws", "shared state: {op}'s rate-limit bucket held an invalid {fields} again");
            return;
        }
        warned.push((what, Instant::now()));
    }
    log::warn!(
        target: "abws",
        "shared state: {op}'s rate-limit bucket in Redis held an invalid {fields} (not a number, not finite, or out of bounds); repaired or ignored: calls are paced at the rate this process knows"
    );
}

impl Shared {
    fn bucket_key(&self, group: &str, op: &str) -> String {
        format!("{}:rl:{group}:{op}", self.tag)
    }

    /// Reserves the next slot of the account's bucket: `Some(Ok(wait))` to sleep before
    /// sending, `Some(Err(wait))` when the slot is further than `max_wait` (nothing
    /// reserved), `None` when Redis cannot say (pace locally).
    pub async fn reserve(
        &self,
        group: &str,
        op: &str,
        rate: f64,
        burst: u32,
        max_wait: Duration,
    ) -> Option<std::result::Result<Duration, Duration>> {
        let key = self.bucket_key(group, op);
        let max_ms = max_wait.as_secs_f64() * 1000.0;
        let (reserved, wait, bad): (i64, String, String) = self
            .run("rate limit", |mut c| async move {
                redis::Script::new(RESERVE)
                    .key(key)
                    .arg(rate)
                    .arg(burst)
                    .arg(max_ms)
                    .arg(SAFETY_FACTOR)
                    .arg(TIME_MARGIN.as_millis() as u64)
                    .invoke_async(&mut c)
                    .await
            })
            .await?;
        bad_bucket_values(op, &bad);
        // The script's wait, checked again here: a wait that is not a number, or past any
        // real slot, paces this call locally (the fallback) rather than panicking or
        // sending it at once.
        let Some(wait) = wait
            .parse::<f64>()
            .ok()
            .and_then(|ms| Duration::try_from_secs_f64(ms.max(0.0) / 1000.0).ok())
            .filter(|w| *w <= LONGEST_SLOT_WAIT)
        else {
            bad_bucket_values(op, "wait");
            return None;
        };
        Some(if reserved == 1 { Ok(wait) } else { Err(wait) })
    }

    /// Shares the rate the server reported for an operation (`plan_rate`: the rate the
    /// bucket's reservations were made at when none was stored yet).
    pub async fn set_rate(&self, group: &str, op: &str, rate: f64, plan_rate: f64, burst: u32) {
        let args = [rate, plan_rate, SAFETY_FACTOR, f64::from(burst)];
        self.bucket_update(SET_RATE, group, op, args.to_vec()).await;
    }

    /// The server answered 429: the account's bucket is empty for every process.
    pub async fn throttled(&self, group: &str, op: &str, rate: f64, burst: u32) {
        let args = [rate, f64::from(burst), SAFETY_FACTOR];
        self.bucket_update(THROTTLED, group, op, args.to_vec())
            .await;
    }

    /// Runs a bucket script that answers the fields it found invalid, and logs them.
    async fn bucket_update(&self, script: &'static str, group: &str, op: &str, args: Vec<f64>) {
        let key = self.bucket_key(group, op);
        let bad = self
            .run("rate limit", |mut c| async move {
                let script = redis::Script::new(script);
                let mut call = script.key(key);
                for a in args {
                    call.arg(a);
                }
                call.invoke_async::<String>(&mut c).await
            })
            .await;
        bad_bucket_values(op, bad.as_deref().unwrap_or(""));
    }
}
