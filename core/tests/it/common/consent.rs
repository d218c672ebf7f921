//! The consent flow of the sandbox's own application: the authorization code its consent
//! page gives, and that code exchanged for tokens.

use abws::auth::TokenSet;
use abws::Region;
use abws_sandbox::Sandbox;

/// Runs the consent page's Allow and returns the authorization code.
pub fn consent_code(sb: &Sandbox) -> String {
    let c = sb.credentials();
    let url = abws::auth::consent_url(
        &sb.consent_url(),
        "st-1",
        &c.redirect_uri,
        &c.application_id,
    )
    .unwrap();
    let allow = url.replacen("/b2b/abws/oauth?", "/b2b/abws/oauth/allow?", 1);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap();
        let resp = http.get(&allow).send().await.unwrap();
        let loc = resp.headers()["location"].to_str().unwrap().to_string();
        let u = url::Url::parse(&loc).unwrap();
        let code = u
            .query_pairs()
            .find(|(k, _)| k == "code")
            .unwrap()
            .1
            .to_string();
        code
    })
}

/// The sandbox's application exchanges `code` with `client_secret` (`exchange_code`).
pub fn exchange(sb: &Sandbox, client_secret: &str, code: &str) -> abws::Result<TokenSet> {
    let c = sb.credentials();
    let transport = abws::transport::Transport::new(&super::settings(sb, Region::JP)).unwrap();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(abws::auth::exchange_code(
        &transport,
        &sb.auth_url(),
        &c.client_id,
        &client_secret.into(),
        &code.into(),
        &c.redirect_uri,
    ))
}
