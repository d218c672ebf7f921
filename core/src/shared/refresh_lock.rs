//! The fleet's refresh lock (`…:token-lock`): one process refreshes the access token while
//! the others wait for the token it stores.

use std::time::Duration;

use super::Shared;

/// How long one process may hold the refresh lock.
pub const REFRESH_LOCK: Duration = Duration::from_secs(15);

/// Takes the refresh lock KEYS[1] for ARGV[1] with an expiry of ARGV[2] ms: 1 taken, 0 held
/// by another process, 2 taken over from a lock without expiry (which no process of ours
/// sets: an older version's or a hand-made one, which would hold every process off for
/// good).
const LOCK: &str = r#"
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
if redis.call('PTTL', KEYS[1]) == -1 then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 2
end
return 0
"#;

impl Shared {
    /// Takes the fleet's refresh lock: `Some(Some(id))` taken (release with the id),
    /// `Some(None)` another process holds it, `None` Redis cannot say.
    pub async fn lock_refresh(&self) -> Option<Option<String>> {
        let name = format!("{}:token-lock", self.tag);
        let id = format!("{:032x}", rand::random::<u128>());
        let ms = REFRESH_LOCK.as_millis() as u64;
        let value = id.clone();
        let taken: i64 = self
            .run("token lock", |mut c| async move {
                redis::Script::new(LOCK)
                    .key(&name)
                    .arg(&value)
                    .arg(ms)
                    .invoke_async(&mut c)
                    .await
            })
            .await?;
        if taken == 2 {
            log::warn!(
                target: "abws",
                "the shared refresh lock had no expiry (left by an older version or by hand): taken over"
            );
        }
        Some((taken > 0).then_some(id))
    }

    /// Releases the refresh lock taken with `lock_refresh` (only if it still holds `id`).
    pub async fn unlock_refresh(&self, id: String) {
        let name = format!("{}:token-lock", self.tag);
        self.delete_if("token lock", name, id).await;
    }
}
