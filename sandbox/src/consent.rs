//! The consent page: `GET /b2b/abws/oauth` shows an Allow form; Allow redirects to the
//! registered redirect_uri with state and a single-use code.

use crate::http::{percent_encode, Req, Resp};
use crate::state::State;

fn html(status: u16, body: &str) -> Resp {
    Resp::new(
        status,
        "text/html; charset=utf-8",
        format!("<!DOCTYPE html><html><head><title>Sandbox consent</title></head><body>{body}</body></html>")
            .into_bytes(),
    )
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

pub fn handle(st: &State, req: &Req) -> Resp {
    // Allow posts a form; the page also offers a plain link for scripted flows.
    let params: Vec<(String, String)> = if req.method == "POST" {
        serde_urlencoded::from_bytes(&req.body).unwrap_or_default()
    } else {
        req.query.clone()
    };
    let get = |k: &str| {
        params
            .iter()
            .find(|(n, _)| n == k)
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    };
    let (state, redirect_uri, app_id) = (get("state"), get("redirect_uri"), get("applicationId"));
    if redirect_uri != st.creds.redirect_uri || app_id != st.creds.application_id {
        return html(
            400,
            "<h1>We're sorry</h1><p id=\"error\">An error occurred: the redirect_uri or applicationId does not match the registered application.</p>",
        );
    }
    let allow = req.path == "/b2b/abws/oauth/allow";
    if !allow {
        if req.path != "/b2b/abws/oauth" {
            return html(404, "<h1>Not found</h1>");
        }
        let q = format!(
            "state={}&redirect_uri={}&applicationId={}",
            percent_encode(&state),
            percent_encode(&redirect_uri),
            percent_encode(&app_id)
        );
        return html(
            200,
            &format!(
                "<h1>Authorize Sandbox App</h1><p>The application requests access to your business account data.</p>\
                 <form method=\"post\" action=\"/b2b/abws/oauth/allow\">\
                 <input type=\"hidden\" name=\"state\" value=\"{}\">\
                 <input type=\"hidden\" name=\"redirect_uri\" value=\"{}\">\
                 <input type=\"hidden\" name=\"applicationId\" value=\"{}\">\
                 <button type=\"submit\" id=\"allow\">Allow</button></form>\
                 <p><a id=\"allow-link\" href=\"/b2b/abws/oauth/allow?{}\">Allow</a></p>",
                escape(&state),
                escape(&redirect_uri),
                escape(&app_id),
                escape(&q)
            ),
        );
    }
    let code = st.auth.new_code(&redirect_uri, st.now());
    let sep = if redirect_uri.contains('?') { '&' } else { '?' };
    let location = format!(
        "{redirect_uri}{sep}state={}&code={}",
        percent_encode(&state),
        percent_encode(&code)
    );
    Resp::empty(302).with_header("Location", &location)
}
