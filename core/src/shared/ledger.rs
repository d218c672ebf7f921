//! The write ledger (`…:ledger:<operationId>:<digest>`): the back-end that keeps the
//! processes of an account from sending one write (one externalId) twice.

use std::time::Duration;

use super::{digest_hex, Shared};

/// How long a write-ledger entry is kept.
pub const LEDGER_TTL: Duration = Duration::from_secs(24 * 3600);

/// The write ledger's entry for a write going on the wire (`Shared::ledger_begin`).
/// KEYS[1]: the entry. ARGV: how long the request may be in flight (ms), the entry's life
/// (s), 1 when a *done* or *outcome unknown* entry may be taken over. Answers {taken, the
/// state found: none, sending, done, unknown}. *sending* holds its deadline on Redis's clock
/// (`sending:<ms>`): past it, its writer vanished mid-send and the outcome is unknown.
const LEDGER_BEGIN: &str = r#"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local v = redis.call('GET', KEYS[1])
local state = 'none'
if v then
  if string.sub(v, 1, 8) == 'sending:' and (tonumber(string.sub(v, 9)) or 0) >= now then
    state = 'sending'
  elseif v == 'done' then
    state = 'done'
  else
    state = 'unknown'
  end
end
if state == 'none' or (ARGV[3] == '1' and state ~= 'sending') then
  redis.call('SET', KEYS[1], 'sending:' .. string.format('%d', now + tonumber(ARGV[1])), 'EX', ARGV[2])
  return {1, state}
end
return {0, state}
"#;

/// What the ledger holds for an externalId.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LedgerState {
    /// A call is sending it.
    Sending,
    /// A send ended without a known outcome (or the record is unreadable).
    Unknown,
    /// The service accepted it.
    Done,
}

impl LedgerState {
    /// How the entry reads in errors and in Redis.
    pub fn as_str(&self) -> &'static str {
        match self {
            LedgerState::Sending => "sending",
            LedgerState::Unknown => "outcome unknown",
            LedgerState::Done => "done",
        }
    }
}

impl Shared {
    /// `…:ledger:<operationId>:<digest>`: a SHA-256 prefix of `parts` (the write's path
    /// values, then its externalIds), each length-prefixed, so `["a,b"]` and `["a", "b"]`,
    /// or the same externalIds in two carts, are two entries.
    fn ledger_key(&self, op: &str, parts: &[&str]) -> String {
        let bytes: Vec<&[u8]> = parts.iter().map(|p| p.as_bytes()).collect();
        format!("{}:ledger:{op}:{}", self.tag, digest_hex(&bytes))
    }

    /// Records that a write goes on the wire now, for at most `in_flight` (a *sending*
    /// entry past that is a writer that vanished mid-send: *outcome unknown*).
    /// `Some(Ok(()))` recorded (ours), `Some(Err(state))` the ledger holds it and it must not
    /// be sent, `None` Redis cannot say. With `resend_safe` (the service answers a known
    /// externalId with the original result: placeOrder) a *done* or *outcome unknown* entry
    /// is taken over, as that resend is how an unknown outcome is resolved; a *sending* one
    /// never is.
    pub async fn ledger_begin(
        &self,
        op: &str,
        parts: &[&str],
        resend_safe: bool,
        in_flight: Duration,
    ) -> Option<std::result::Result<(), LedgerState>> {
        let name = self.ledger_key(op, parts);
        let ttl = LEDGER_TTL.as_secs();
        let ms = in_flight.as_millis().max(1) as u64;
        let (taken, state): (i64, String) = self
            .run("write ledger", |mut c| async move {
                redis::Script::new(LEDGER_BEGIN)
                    .key(name)
                    .arg(ms)
                    .arg(ttl)
                    .arg(u8::from(resend_safe))
                    .invoke_async(&mut c)
                    .await
            })
            .await?;
        if taken == 1 {
            return Some(Ok(()));
        }
        Some(Err(match state.as_str() {
            "done" => LedgerState::Done,
            "sending" => LedgerState::Sending,
            _ => LedgerState::Unknown,
        }))
    }

    /// Records how a send ended: done, outcome unknown, or (`None`) refused by the
    /// service, which frees the externalId for a corrected call.
    pub async fn ledger_end(&self, op: &str, parts: &[&str], state: Option<LedgerState>) {
        let name = self.ledger_key(op, parts);
        let ttl = LEDGER_TTL.as_secs();
        self.run("write ledger", |mut c| async move {
            match state {
                Some(s) => {
                    redis::cmd("SET")
                        .arg(&name)
                        .arg(s.as_str())
                        .arg("EX")
                        .arg(ttl)
                        .query_async::<()>(&mut c)
                        .await
                }
                None => redis::cmd("DEL").arg(&name).query_async::<()>(&mut c).await,
            }
        })
        .await;
    }
}
