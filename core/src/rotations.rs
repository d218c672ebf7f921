//! The refresh tokens rotations consumed, and their successors: kept per context
//! (`process::Context::rotations`), read and written by the token caches.

use tokio::time::Instant;

use crate::secret::Secret;

/// The refresh tokens the server replaced in this process: (client id, consumed token, its
/// successor, when). A client holding a consumed token (a second client built from the same
/// credentials, `set_credentials` with a stale token) sends its successor instead, so no
/// client of the process replays a token a rotation consumed.
#[derive(Debug, Default)]
pub struct RotationLedger {
    entries: std::sync::Mutex<Vec<Rotation>>,
}

#[derive(Debug)]
struct Rotation {
    client_id: String,
    old: Secret,
    new: Secret,
    at: Instant,
}

impl RotationLedger {
    /// Enough for every client of a process; the oldest entries go first.
    const KEEP: usize = 64;

    pub(crate) fn record(&self, client_id: &str, old: &Secret, new: &Secret) {
        let mut e = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        if e.len() >= Self::KEEP {
            e.remove(0);
        }
        e.push(Rotation {
            client_id: client_id.to_string(),
            old: old.clone(),
            new: new.clone(),
            at: Instant::now(),
        });
    }

    /// The newest successor of `token`, if a rotation consumed it.
    pub(crate) fn successor(&self, client_id: &str, token: &Secret) -> Option<Secret> {
        let e = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        let mut current: Option<&Secret> = None;
        for _ in 0..e.len() {
            let look = current.unwrap_or(token);
            match e
                .iter()
                .find(|r| r.client_id == client_id && &r.old == look)
            {
                Some(r) => current = Some(&r.new),
                None => break,
            }
        }
        current.cloned()
    }

    /// When `token` was issued by a rotation, and how many rotations this process has seen
    /// for the client.
    pub(crate) fn origin(&self, client_id: &str, token: &Secret) -> Option<(Instant, usize)> {
        let e = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        let count = e.iter().filter(|r| r.client_id == client_id).count();
        e.iter()
            .find(|r| r.client_id == client_id && &r.new == token)
            .map(|r| (r.at, count))
    }
}
