//! The consent flow: consent page address, authorization-code exchange.

use pyo3::prelude::*;
use pyo3::types::PyDict;

use abws::{Credentials, Region, Secret, Settings};

use crate::errors::to_py_err;
use crate::runtime::wait;

/// The consent page address (see `abws.consent_url`).
#[pyfunction]
pub fn consent_url(
    consent_host: &str,
    state: &str,
    redirect_uri: &str,
    application_id: &str,
) -> PyResult<String> {
    abws::auth::consent_url(consent_host, state, redirect_uri, application_id).map_err(to_py_err)
}

/// Exchanges an authorization code; never resent once written.
#[pyfunction]
#[pyo3(signature = (auth_endpoint, client_id, client_secret, code, redirect_uri))]
pub fn exchange_code<'py>(
    py: Python<'py>,
    auth_endpoint: &str,
    client_id: &str,
    client_secret: &str,
    code: &str,
    redirect_uri: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let mut settings = Settings::new(Region::US, Credentials::AccessToken(Secret::new("unused")));
    abws::config::check_address("auth_endpoint", auth_endpoint).map_err(to_py_err)?;
    settings.auth_endpoint = Some(auth_endpoint.to_string());
    let transport = abws::transport::Transport::new(&settings).map_err(to_py_err)?;
    let auth = auth_endpoint.trim_end_matches('/').to_string();
    let (client_id, client_secret, code, redirect_uri) = (
        client_id.to_string(),
        Secret::new(client_secret),
        Secret::new(code),
        redirect_uri.to_string(),
    );
    let set = wait(py, move || async move {
        abws::auth::exchange_code(
            &transport,
            &auth,
            &client_id,
            &client_secret,
            &code,
            &redirect_uri,
        )
        .await
    })?;
    let d = PyDict::new(py);
    d.set_item("access_token", set.access_token.expose())?;
    d.set_item(
        "refresh_token",
        set.refresh_token.as_ref().map(|s| s.expose()),
    )?;
    d.set_item("token_type", set.token_type)?;
    d.set_item("expires_in", set.expires_in.as_secs_f64())?;
    Ok(d)
}
