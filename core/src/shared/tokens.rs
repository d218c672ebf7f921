//! The token store: the fleet's access token (`…:token`) and the refresh token a rotation
//! issued (`…:refresh-token`, with its generation), sealed (`seal.rs`) under a key derived
//! from the client secret.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use ring::aead::LessSafeKey;
use tokio::time::Instant;

use super::Shared;
use crate::seal;
use crate::Secret;

/// How long a process tries to hand a refresh token rotated while Redis could not be
/// reached to the fleet (`Shared::rotated`).
pub const HAND_OVER: Duration = Duration::from_secs(120);

/// Stores a refresh token's generation ARGV[1] and sealed value ARGV[2] in the hash
/// KEYS[1] only when the generation is newer than both the stored one and the newest ever
/// stored (KEYS[2], which only grows); both kept ARGV[3] seconds. Answers 1 when stored.
const PUT_REFRESH: &str = r#"
local g = tonumber(ARGV[1])
local newest = tonumber(redis.call('GET', KEYS[2]) or '0')
local cur = tonumber(redis.call('HGET', KEYS[1], 'gen') or '0')
if g <= newest or g <= cur then return 0 end
redis.call('HSET', KEYS[1], 'gen', ARGV[1], 'blob', ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[3])
redis.call('SET', KEYS[2], ARGV[1], 'EX', ARGV[3])
return 1
"#;

impl Shared {
    /// The fleet's access token, if one is stored and valid for longer than `margin`, with
    /// its remaining lifetime (Redis's own expiry: no wall clock involved).
    pub async fn token(&self, margin: Duration) -> Option<(Secret, Duration)> {
        let key = self.key.as_ref()?;
        let name = format!("{}:token", self.tag);
        let key_name = name.clone();
        let (blob, ttl): (Option<Vec<u8>>, i64) = self
            .run("token", |mut c| async move {
                redis::pipe()
                    .get(&key_name)
                    .pttl(&key_name)
                    .query_async(&mut c)
                    .await
            })
            .await?;
        let remaining = Duration::from_millis(u64::try_from(ttl).ok()?);
        if remaining <= margin {
            return None;
        }
        let plain = seal::open_blob(key, name.as_bytes(), &blob?)?;
        Some((Secret::new(String::from_utf8(plain).ok()?), remaining))
    }

    /// Stores the fleet's access token for its lifetime.
    pub async fn put_token(&self, token: &Secret, lifetime: Duration) {
        let Some(key) = self.key.as_ref() else { return };
        let name = format!("{}:token", self.tag);
        let blob = seal::seal_blob(key, name.as_bytes(), token.expose().as_bytes());
        let ms = lifetime.as_millis().max(1) as u64;
        self.run("token", |mut c| async move {
            redis::cmd("SET")
                .arg(&name)
                .arg(blob)
                .arg("PX")
                .arg(ms)
                .query_async::<()>(&mut c)
                .await
        })
        .await;
    }

    /// The server refused `used` as expired: drop it for the fleet, unless another process
    /// already replaced it.
    pub async fn drop_token(&self, used: &Secret) {
        let Some(key) = self.key.as_ref() else { return };
        let name = format!("{}:token", self.tag);
        let Some(stored) = self
            .run("token", |mut c| {
                let name = name.clone();
                async move {
                    redis::cmd("GET")
                        .arg(&name)
                        .query_async::<Option<Vec<u8>>>(&mut c)
                        .await
                }
            })
            .await
            .flatten()
        else {
            return;
        };
        if seal::open_blob(key, name.as_bytes(), &stored)
            .is_some_and(|t| t == used.expose().as_bytes())
        {
            self.delete_if("token", name, stored).await;
        }
    }

    /// The newest refresh token a process of the fleet rotated to, if any, with its
    /// generation. A value older than the newest generation ever stored (`…:refresh-gen`,
    /// which only grows) is not adopted: an old sealed token written back (a restored
    /// backup, a hand edit) is a consumed one. The generation is bound into the seal, so a
    /// value's generation cannot be raised without the client secret.
    pub async fn refresh_token(&self) -> Option<Secret> {
        let key = self.key.as_ref()?;
        let (name, high) = (self.refresh_key(), format!("{}:refresh-gen", self.tag));
        let key_name = name.clone();
        let (generation, blob, newest): (Option<u64>, Option<Vec<u8>>, Option<u64>) = self
            .run("refresh token", |mut c| async move {
                redis::pipe()
                    .hget(&key_name, "gen")
                    .hget(&key_name, "blob")
                    .get(&high)
                    .query_async(&mut c)
                    .await
            })
            .await?;
        let newest = newest.unwrap_or(0).max(generation.unwrap_or(0));
        self.refresh_gen.fetch_max(newest, Ordering::Relaxed);
        let generation = generation?;
        if generation < newest {
            log::warn!(
                target: "abws",
                "the shared refresh token is of generation {generation}, older than the newest \
                 stored ({newest}): written back from an old copy, not used"
            );
            return None;
        }
        let plain = seal::open_blob(key, &refresh_aad(&name, generation), &blob?)?;
        Some(Secret::new(String::from_utf8(plain).ok()?))
    }

    fn refresh_key(&self) -> String {
        format!("{}:refresh-token", self.tag)
    }

    /// The rotation waiting to be handed to the fleet, locked (a poisoned lock's value is
    /// kept: it is a plain token).
    fn pending(&self) -> std::sync::MutexGuard<'_, Option<Secret>> {
        self.pending_rotation
            .lock()
            .unwrap_or_else(|p| p.into_inner())
    }

    /// A refresh token the server issued to this process: handed to every process at the
    /// next Redis operation that succeeds (at once when Redis answers; when it cannot be
    /// reached, as soon as it is back, so the processes whose refresh the rotation made
    /// fail find it: `TokenCache::await_fleet`).
    /// While Redis cannot be reached, a task of the process runtime tries again every
    /// half second for `HAND_OVER` (a process whose calls do not touch Redis meanwhile
    /// still hands it over).
    pub fn rotated(self: &Arc<Self>, token: Secret) {
        *self.pending() = Some(token);
        if !self.is_down() || self.handing_over.swap(true, Ordering::AcqRel) {
            return;
        }
        let Some(rt) = self.context_runtime() else {
            self.handing_over.store(false, Ordering::Release);
            return;
        };
        let shared = Arc::downgrade(self);
        rt.spawn(async move {
            let until = Instant::now() + HAND_OVER;
            while Instant::now() < until {
                tokio::time::sleep(Duration::from_millis(500)).await;
                let Some(shared) = shared.upgrade() else {
                    return;
                };
                shared.publish_rotation().await;
                let done = shared.pending().is_none();
                if done {
                    break;
                }
            }
            if let Some(shared) = shared.upgrade() {
                shared.handing_over.store(false, Ordering::Release);
            }
        });
    }

    /// Hands the rotation `rotated` keeps to the fleet, if any (kept if Redis fails).
    pub async fn publish_rotation(&self) {
        let pending = self.pending().take();
        if let Some(token) = pending {
            if self.put_refresh_token(&token).await.is_none() {
                self.pending().get_or_insert(token);
            }
        }
    }

    /// Hands a refresh token the server issued to every process, as the generation after
    /// the newest this process has seen; a newer one already stored stays (compare and
    /// set). Kept 400 days, the longest a refresh token of the family lives. `None` when
    /// Redis cannot say.
    async fn put_refresh_token(&self, token: &Secret) -> Option<()> {
        let Some(key) = self.key.as_ref() else {
            return Some(());
        };
        let name = self.refresh_key();
        let high = format!("{}:refresh-gen", self.tag);
        let generation = self.refresh_gen.load(Ordering::Relaxed) + 1;
        let blob = seal::seal_blob(
            key,
            &refresh_aad(&name, generation),
            token.expose().as_bytes(),
        );
        let stored = self
            .run_once("refresh token", |mut c| async move {
                redis::Script::new(PUT_REFRESH)
                    .key(name)
                    .key(high)
                    .arg(generation)
                    .arg(blob)
                    .arg(400 * 24 * 3600)
                    .invoke_async::<i64>(&mut c)
                    .await
            })
            .await?;
        if stored == 1 {
            self.refresh_gen.fetch_max(generation, Ordering::Relaxed);
        } else {
            log::debug!(target: "abws", "a newer shared refresh token is stored: ours is not");
        }
        Some(())
    }
}

/// The seal's associated data of a refresh token: its key name and its generation.
fn refresh_aad(name: &str, generation: u64) -> Vec<u8> {
    format!("{name}#{generation}").into_bytes()
}

/// The key the tokens are sealed under: HKDF-SHA256 of the client secret, salt "abws shared
/// state v1", info the client id. Every process of the application derives the same one.
/// A value is sealed with the full Redis key name it is stored under as associated data (a
/// refresh token's with its generation: `refresh_aad`), so a value copied to another key
/// (another account's, or the token's to the refresh token's) does not open: the key is the
/// application's, shared by its accounts.
pub(super) fn seal_key(client_secret: &str, client_id: &str) -> LessSafeKey {
    seal::derive(
        client_secret.as_bytes(),
        b"abws shared state v1",
        &[client_id.as_bytes()],
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seal::{open_blob, seal_blob_at, NONCE_LEN};

    /// A token and a refresh token sealed as stored in Redis, computed apart from this code
    /// (HKDF-SHA256 and AES-256-GCM of Python's `cryptography`) for the secret
    /// "client-secret", the client id "client-id" and the nonce 00 01 .. 0b.
    const TOKEN_BLOB: &str =
        "000102030405060708090a0b262107cd17330089ea4f425de74fbe0ba9968ed7bb7b05386cc22b3f98e03bd22d";
    const REFRESH_BLOB: &str = "000102030405060708090a0b262107de1720068cfd594218be54ba05a2fc65631dbbe38403e49ffc6f04ff33c25a";

    fn bytes(hex: &str) -> Vec<u8> {
        let mut out = vec![0u8; hex.len() / 2];
        crate::sealed::unhex(hex, &mut out).unwrap();
        out
    }

    #[test]
    fn values_sealed_by_another_fleet_member_open_and_seal_the_same() {
        // A value in Redis outlives the process (and the version) that wrote it: the format
        // is nonce | AES-256-GCM(value, aad = its key name) under HKDF-SHA256(salt "abws
        // shared state v1", the client secret, info = the client id).
        let key = seal_key("client-secret", "client-id");
        let nonce: [u8; NONCE_LEN] = std::array::from_fn(|i| i as u8);
        let token = bytes(TOKEN_BLOB);
        let name = b"abws:{acct}:token";
        assert_eq!(seal_blob_at(&key, nonce, name, b"Atza|access-token"), token);
        assert_eq!(open_blob(&key, name, &token).unwrap(), b"Atza|access-token");
        let refresh = bytes(REFRESH_BLOB);
        let aad = refresh_aad("abws:{acct}:refresh-token", 7);
        assert_eq!(
            seal_blob_at(&key, nonce, &aad, b"Atzr|refresh-token"),
            refresh
        );
        assert_eq!(
            open_blob(&key, &aad, &refresh).unwrap(),
            b"Atzr|refresh-token"
        );
        // Another key name, generation or secret does not open it.
        assert!(open_blob(&key, b"abws:{other}:token", &token).is_none());
        let older = refresh_aad("abws:{acct}:refresh-token", 6);
        assert!(open_blob(&key, &older, &refresh).is_none());
        let other = seal_key("other-secret", "client-id");
        assert!(open_blob(&other, name, &token).is_none());
    }
}
