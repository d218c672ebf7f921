//! Refresh-token rotation seen from the caller: a rotation callback that keeps what it is
//! handed.

use abws::{blocking, Region};
use abws_sandbox::Sandbox;

/// The refresh tokens a rotation callback was handed, in order.
pub type Handed = std::sync::Arc<std::sync::Mutex<Vec<String>>>;

/// A rotation callback that keeps every refresh token it is handed, and what it keeps.
pub fn keeping_rotations() -> (abws::auth::RotationCallback, Handed) {
    let handed = Handed::default();
    let h = handed.clone();
    let callback: abws::auth::RotationCallback =
        std::sync::Arc::new(move |t: &str| h.lock().unwrap().push(t.to_string()));
    (callback, handed)
}

/// A JP client of the sandbox with a rotation callback that keeps what it is handed.
pub fn client_keeping_rotations(sb: &Sandbox) -> (blocking::Client, Handed) {
    let (callback, handed) = keeping_rotations();
    let client = blocking::Client::with_rotation(super::settings(sb, Region::JP), Some(callback));
    (client.expect("client"), handed)
}
