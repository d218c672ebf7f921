//! The presigned-document host: no auth header needed; the address itself carries a signature
//! and an expiry, and expired addresses answer 403 with an S3-style XML body.

use crate::http::{Req, Resp};
use crate::state::State;

fn xml_error(status: u16, code: &str, message: &str, rid: &str) -> Resp {
    Resp::new(
        status,
        "application/xml",
        format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>{code}</Code><Message>{message}</Message><RequestId>{rid}</RequestId></Error>"
        )
        .into_bytes(),
    )
}

/// A fresh presigned address for a document.
pub fn presign(st: &State, document_id: &str) -> String {
    let expires = st.now() + crate::clock::chrono_dur(st.config.presigned_lifetime);
    let mut rt = st.rt();
    rt.next_id += 1;
    let sig = crate::rng::Rng::new(rt.next_id ^ st.now().timestamp_micros() as u64).alnum(64);
    rt.presigned.insert(
        sig.clone(),
        crate::state::Presigned {
            document_id: document_id.to_string(),
            expires,
        },
    );
    format!(
        "{}/documents/{}?X-Sbx-Expires={}&X-Sbx-Credential=sandbox%2Fdocuments&X-Sbx-Signature={}",
        st.urls.documents,
        document_id,
        expires.timestamp(),
        sig
    )
}

pub fn serve(st: &State, req: &Req) -> Resp {
    let rid = st.request_id();
    if req.method != "GET" && req.method != "HEAD" {
        return xml_error(
            405,
            "MethodNotAllowed",
            "The specified method is not allowed against this resource.",
            &rid,
        );
    }
    let doc_id = match req.segments.as_slice() {
        [d, id] if d == "documents" => id.clone(),
        _ => return xml_error(404, "NoSuchKey", "The specified key does not exist.", &rid),
    };
    let sig = req.q("X-Sbx-Signature").unwrap_or("");
    let now = st.now();
    let archive = {
        let rt = st.rt();
        let Some(p) = rt.presigned.get(sig).filter(|p| p.document_id == doc_id) else {
            return xml_error(
                403,
                "SignatureDoesNotMatch",
                "The request signature we calculated does not match the signature you provided.",
                &rid,
            );
        };
        if p.expires <= now {
            return xml_error(403, "AccessDenied", "Request has expired", &rid);
        }
        rt.documents.get(&doc_id).cloned()
    };
    match archive {
        Some(bytes) => {
            st.counters.document_download();
            Resp::new(200, "application/octet-stream", bytes)
        }
        None => xml_error(404, "NoSuchKey", "The specified key does not exist.", &rid),
    }
}
