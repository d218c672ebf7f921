//! Server-side page tokens: bound to the operation and the exact other parameters, expiring
//! after the configured lifetime on the scaled clock.

use crate::clock::chrono_dur;
use crate::http::{envelope, Resp};
use crate::state::{PageToken, State};

pub fn issue(st: &State, op: &'static str, binding: &str, offset: usize) -> String {
    let mut rt = st.rt();
    rt.next_id += 1;
    let token = format!(
        "pt{}{}",
        rt.next_id,
        crate::rng::Rng::new(rt.next_id ^ 0x5EED).alnum(24)
    );
    rt.page_tokens.insert(
        token.clone(),
        PageToken {
            op,
            binding: binding.to_string(),
            offset,
            created: st.now(),
        },
    );
    token
}

/// Canonical form of the request's query parameters except the token itself.
pub fn binding(query: &[(String, String)], skip: &[&str]) -> String {
    let mut q: Vec<(String, String)> = query
        .iter()
        .filter(|(k, _)| !skip.contains(&k.as_str()))
        .cloned()
        .collect();
    q.sort();
    q.iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join("&")
}

/// The offset a token stands for. `code` is the error code of the operation group.
pub fn resolve(
    st: &State,
    op: &'static str,
    token: &str,
    binding: Option<&str>,
    code: &str,
) -> Result<(usize, String), Resp> {
    let rt = st.rt();
    let Some(t) = rt.page_tokens.get(token).filter(|t| t.op == op) else {
        return Err(envelope(400, code, "nextPageToken is invalid."));
    };
    if st.now() - t.created > chrono_dur(st.config.page_token_lifetime) {
        drop(rt);
        st.counters.page_token_expired();
        return Err(envelope(
            400,
            code,
            "nextPageToken has expired; restart the search.",
        ));
    }
    if let Some(b) = binding {
        if b != t.binding {
            drop(rt);
            st.counters.page_token_mismatch();
            return Err(envelope(
                400,
                code,
                "nextPageToken does not match the request parameters.",
            ));
        }
    }
    Ok((t.offset, t.binding.clone()))
}
