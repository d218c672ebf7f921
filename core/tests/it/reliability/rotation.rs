//! E10–E12: refresh-token rotation (sandbox `rotate_refresh_tokens`): no client of the
//! process sends a token a rotation consumed, a retry after an ambiguous failure that lost
//! the rotation is reported precisely, and a refresh failure after a rotation says so.

use std::time::Duration;

use abws::{blocking, ErrorKind, Region};
use abws_sandbox::{FaultAction, FaultRule, Sandbox};

use super::{figure, Figure};
use crate::common;
use crate::common::calls::{first_invoice, invoice_detail};
use crate::common::refreshes;

/// Token-endpoint answers 400 (`invalid_grant`: a consumed or unknown refresh token).
fn refused(sb: &Sandbox) -> u64 {
    sb.counters()["requests"]["token"]["400"]
        .as_u64()
        .unwrap_or(0)
}

fn call(sb: &Sandbox, client: &blocking::Client) -> abws::Result<()> {
    invoice_detail(client, &first_invoice(sb)).map(drop)
}

/// A sandbox that rotates refresh tokens, with one-second access tokens (a refresh every
/// ~0.8 s).
pub(super) fn rotating() -> Sandbox {
    common::sandbox_with(|c| {
        c.rotate_refresh_tokens = true;
        c.token_lifetime = Duration::from_secs(1);
    })
}

pub fn run() -> Vec<Figure> {
    let mut out = vec![];

    // E10: two clients of one process built from the same refresh token take turns; each
    // refresh rotates the token. The one whose token a rotation consumed sends the successor.
    let sb = rotating();
    let (a, got_a) = common::rotation::client_keeping_rotations(&sb);
    let (b, got_b) = common::rotation::client_keeping_rotations(&sb);
    let mut ok = 0;
    let rounds = 3;
    for _ in 0..rounds {
        for c in [&a, &b] {
            ok += usize::from(call(&sb, c).is_ok());
        }
        std::thread::sleep(Duration::from_millis(900));
    }
    let consumed_sent = refused(&sb);
    let (na, nb) = (got_a.lock().unwrap().len(), got_b.lock().unwrap().len());
    out.push(figure(
        "E10",
        ok == 2 * rounds && consumed_sent == 0 && na > 0 && nb > 0,
        format!(
            "two clients built from one refresh token, {} rotations: refreshes sending a token a \
             rotation had consumed = {consumed_sent}; calls ok {ok}/{}; tokens handed to each \
             client's callback {na} and {nb}",
            refreshes(&sb),
            2 * rounds
        ),
    ));

    // E11: the server rotates, but its answer is lost (reset after the request was
    // processed; and a refresh cancelled in flight). The retry with the consumed token is
    // refused: reported as a lost rotation, not as revoked consent.
    let sb = rotating();
    let client = common::client(&sb, Region::JP);
    sb.inject(FaultRule::new("/auth/O2/token", FaultAction::ResetBeforeHeaders).times(1));
    let e = call(&sb, &client).unwrap_err();
    let reset_calls = refreshes(&sb);
    let precise = |e: &abws::Error| {
        let t = e.to_string();
        e.kind() == ErrorKind::Auth
            && t.contains("earlier refresh with it failed once it had been sent")
            && t.contains("run the consent flow again")
            && !t.contains("consent was revoked")
    };
    let reset_precise = precise(&e);
    let sb2 = rotating();
    let client2 = common::client(&sb2, Region::JP);
    sb2.inject(FaultRule::new("/auth/O2/token", FaultAction::Delay { delay_ms: 300 }).times(1));
    let sbr = &sb2;
    let cancelled = client2.run(|c| async move {
        // Dropped once the sandbox holds the refresh: sent, its rotation not yet answered.
        Ok(tokio::select! {
            _ = c.access_token() => false,
            _ = common::held(sbr, 0) => true,
        })
    });
    // The server rotates when its 300 ms hold ends.
    common::eventually(Duration::from_secs(5), || {
        common::requests(&sb2, "token") >= 1
    });
    let e2 = call(&sb2, &client2).unwrap_err();
    let cancel_precise = matches!(cancelled, Ok(true)) && precise(&e2);
    out.push(figure(
        "E11",
        reset_precise && cancel_precise && reset_calls == 2,
        format!(
            "a rotation lost with its answer (reset after the server rotated: {reset_calls} token \
             calls; a refresh cancelled in flight): the refused retry reported as a lost rotation \
             (names the earlier failure, says to run the consent flow, not \"revoked\"): {}/2",
            u8::from(reset_precise) + u8::from(cancel_precise)
        ),
    ));
    if !reset_precise || !cancel_precise {
        eprintln!("E11: {e}\nE11 cancelled: {e2}");
    }

    // E12: consent is revoked after two rotations: the refresh failure says the token sent
    // came from a rotation.
    let sb = rotating();
    let client = common::client(&sb, Region::JP);
    for _ in 0..2 {
        call(&sb, &client).unwrap();
        std::thread::sleep(Duration::from_millis(900));
    }
    sb.revoke();
    let e = call(&sb, &client).unwrap_err();
    let says = e.kind() == ErrorKind::Auth && e.to_string().contains("issued by a rotation");
    out.push(figure(
        "E12",
        says,
        format!(
            "a refresh refused after {} rotations says the token sent came from a rotation: {says}",
            refreshes(&sb) - 1
        ),
    ));
    if !says {
        eprintln!("E12: {e}");
    }
    out
}
