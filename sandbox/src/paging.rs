//! Server-side page tokens: bound to the operation and the exact other parameters, expiring
//! after the configured lifetime on the scaled clock.

use serde_json::{json, Value};

use std::sync::MutexGuard;

use crate::clock::chrono_dur;
use crate::counters::Counters;
use crate::data::World;
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

/// Where a page request starts: 0 without a token, else the offset `token` stands for (checked
/// against `binding`, as [`resolve`] does).
pub fn offset(
    st: &State,
    op: &'static str,
    token: Option<&str>,
    binding: &str,
    code: &str,
) -> Result<usize, Resp> {
    match token {
        Some(t) => Ok(resolve(st, op, t, Some(binding), code)?.0),
        None => Ok(0),
    }
}

/// The `size` rows from `offset`, each through `show`, and the offset of the next page when
/// more rows follow.
pub fn page<T>(
    rows: &[T],
    offset: usize,
    size: usize,
    show: impl FnMut(&T) -> Value,
) -> (Vec<Value>, Option<usize>) {
    let page = rows.iter().skip(offset).take(size).map(show).collect();
    (page, (offset + size < rows.len()).then_some(offset + size))
}

/// The 200 answer `body`, with a `nextPageToken` for the page at `next` (bound to `op` and
/// `binding`) when there is one. Takes the world's lock the page was read under and releases
/// it first: a token is issued under the runtime's lock, never with both held.
pub fn answer(
    st: &State,
    world: MutexGuard<'_, World>,
    (op, binding): (&'static str, &str),
    mut body: Value,
    next: Option<usize>,
) -> Resp {
    drop(world);
    if let Some(offset) = next {
        body["nextPageToken"] = json!(issue(st, op, binding, offset));
    }
    Resp::json(200, &body)
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
    // A token past its lifetime, or sent with other parameters: counted, then refused.
    let (count, message): (fn(&Counters), &str) =
        if st.now() - t.created > chrono_dur(st.config.page_token_lifetime) {
            let expired = "nextPageToken has expired; restart the search.";
            (Counters::page_token_expired, expired)
        } else if binding.is_some_and(|b| b != t.binding) {
            let mismatch = "nextPageToken does not match the request parameters.";
            (Counters::page_token_mismatch, mismatch)
        } else {
            return Ok((t.offset, t.binding.clone()));
        };
    drop(rt);
    count(&st.counters);
    Err(envelope(400, code, message))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn a_page_is_size_rows_from_offset_and_names_where_the_next_starts() {
        let rows = [1, 2, 3, 4, 5];
        let cases: [(usize, &[i32], Option<usize>); 4] = [
            (0, &[1, 2], Some(2)),
            (3, &[4, 5], None),
            (4, &[5], None),
            (6, &[], None),
        ];
        for (offset, want, next) in cases {
            let want = want.iter().map(|n| json!(n)).collect();
            let got = super::page(&rows, offset, 2, |n| json!(n));
            assert_eq!(got, (want, next), "from {offset}");
        }
    }
}
