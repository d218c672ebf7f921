//! The job state: what a close has done, so that running it again does only what is
//! missing. One JSON file in the output directory, replaced whole at every change
//! (`files::write_file`), holding no document bytes and no secret.
//!
//! It is bound to the account: its name carries a digest of the API address, the
//! region, the app's client id, the user's email and the caller's account name, and the
//! file holds the whole digest, so a close of another account (or app, or address) into
//! the same directory never reads it: it starts a state, and a parts directory, of its
//! own. Every name it holds is checked before use (`files::check_name`). With a password,
//! it records scrypt's cost and salt (not secret) and a check value of the key, so that
//! re-runs derive the same key and another password is refused.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};

use serde::{Deserialize, Serialize};

use super::files;
use super::Figure;
use crate::error::{Error, Result};
use crate::sealed::password::Scrypt;
use crate::{Client, Credentials};

/// The service keeps reports 30 days; a day of margin.
const LOOK_BACK_DAYS: i64 = 29;
const VERSION: u32 = 2;

/// What the ledger shows of an invoice (and the job state keeps of it).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct InvoiceFigures {
    /// STANDARD or CREDIT_MEMO.
    #[serde(rename = "type")]
    pub kind: String,
    /// The issue date, as the service sent it.
    pub issue_date: String,
    /// The invoice's status.
    pub status: String,
    /// The legal entity billed.
    pub customer: String,
    /// The currency.
    pub currency: String,
    /// The invoice's total.
    pub total: Figure,
    /// Its tax by rate.
    pub tax: BTreeMap<String, Figure>,
}

/// What the ledger and the PDF need of one invoice.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub(crate) struct InvoiceRecord {
    #[serde(flatten)]
    pub figures: InvoiceFigures,
    pub lines: u64,
    /// The first line item (order id, order line item id): what createReport names.
    pub pdf_ref: Option<(String, String)>,
}

/// A PDF's report: `creating` (createReport sent), `created`, `archived` or `failed`.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub(crate) struct ReportRecord {
    pub status: String,
    pub report_id: Option<String>,
    pub created: Option<String>,
    pub why: Option<String>,
}

/// A transaction's figures.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub(crate) struct TxRecord {
    pub id: String,
    pub invoice_number: String,
    pub amount: Figure,
    pub lines: u64,
    pub entity: String,
    pub date: String,
    pub feed: String,
}

/// How the parts (and the archive) are sealed: `kdf` "key" (the caller's key) or
/// "scrypt" (a password's key, derived under `log_n`, `r`, `p` and `salt`, hex); `check`
/// tells the key of a re-run from another (`archive::Sealing`). Never the key or the
/// password.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub(crate) struct SealingRecord {
    pub kdf: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub log_n: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub r: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub p: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub salt: Option<String>,
    pub check: String,
}

impl SealingRecord {
    pub fn new(scrypt: Option<&Scrypt>, check: String) -> SealingRecord {
        match scrypt {
            None => SealingRecord {
                kdf: "key".into(),
                check,
                ..Default::default()
            },
            Some(s) => SealingRecord {
                kdf: "scrypt".into(),
                log_n: Some(s.log_n),
                r: Some(s.r),
                p: Some(s.p),
                salt: Some(crate::sealed::hex(&s.salt)),
                check,
            },
        }
    }

    /// The recorded scrypt cost and salt (checked as a file's would be).
    pub fn scrypt(&self) -> Result<Scrypt> {
        let bad = || {
            Error::validation(
                "out",
                "holds a job state whose password sealing is not readable: remove it or close with `fresh`",
            )
        };
        let mut salt = [0u8; 16];
        crate::sealed::unhex(self.salt.as_deref().ok_or_else(bad)?, &mut salt).ok_or_else(bad)?;
        let s = Scrypt {
            log_n: self.log_n.ok_or_else(bad)?,
            r: self.r.ok_or_else(bad)?,
            p: self.p.ok_or_else(bad)?,
            salt,
        };
        s.check().map_err(|_| bad())?;
        Ok(s)
    }
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub(crate) struct Data {
    pub version: u32,
    pub binding: String,
    pub invoices: BTreeMap<String, InvoiceRecord>,
    pub reports: BTreeMap<String, ReportRecord>,
    pub transactions: Option<Vec<TxRecord>>,
    pub confirmed: Option<Vec<String>>,
    /// Invoice number → the file name (without extension) of its part and archive entry.
    pub entries: BTreeMap<String, String>,
    pub feed_end: Option<String>,
    /// The feed was read to its full window (not cut short by now).
    pub feed_complete: bool,
    pub complete: bool,
    /// How the parts are sealed (recorded by the first run that files PDFs).
    pub sealing: Option<SealingRecord>,
}

pub(crate) struct JobState {
    path: PathBuf,
    pub parts: PathBuf,
    pub data: Data,
}

/// The digest that binds a job state to its account: the API address, the region, the
/// app's client id, the user's email and the caller's account name.
pub(crate) fn binding(client: &Client, region: &str, account: Option<&str>) -> String {
    let settings = client.settings();
    let app = match &settings.credentials {
        Credentials::RefreshToken { client_id, .. } => client_id.clone(),
        Credentials::AccessToken(_) => String::new(),
    };
    files::digest_hex(&[
        "abws close state v2",
        client.endpoints().api.trim_end_matches('/'),
        region,
        &app,
        settings.user_email.as_deref().unwrap_or(""),
        account.unwrap_or(""),
    ])
}

impl JobState {
    /// The state of `region`'s `month` for the account `binding` in `out` (a new one
    /// when there is none, or when `fresh`).
    pub fn open(
        out: &Path,
        region: &str,
        month: &str,
        binding: &str,
        fresh: bool,
    ) -> Result<JobState> {
        let stem = format!(".close-{region}-{month}-{}", &binding[..16]);
        files::check_name("name", &stem[1..])?;
        let path = out.join(format!("{stem}.json"));
        let parts = out.join(format!("{stem}.parts"));
        let fresh_data = Data {
            version: VERSION,
            binding: binding.to_string(),
            ..Default::default()
        };
        if fresh {
            files::remove_tree(&parts)?;
            return Ok(JobState {
                path,
                parts,
                data: fresh_data,
            });
        }
        let data = match files::read_file(&path)? {
            None => fresh_data,
            Some(bytes) => {
                let data: Data = serde_json::from_slice(&bytes).map_err(|e| {
                    Error::validation(
                        "out",
                        format!("holds a job state {} that is not readable ({e}): remove it or close with `fresh`", path.display()),
                    )
                })?;
                if data.version != VERSION || data.binding != binding {
                    return Err(Error::validation(
                        "out",
                        format!("holds a job state {} of another version or account: remove it or close with `fresh`", path.display()),
                    ));
                }
                for name in data.entries.values() {
                    files::check_name("entry", name)?;
                }
                data
            }
        };
        Ok(JobState { path, parts, data })
    }

    /// Writes the state whole.
    pub fn save(&self) -> Result<()> {
        let text = serde_json::to_vec(&self.data)
            .map_err(|e| Error::internal(format!("the job state: {e}")))?;
        files::write_file(&self.path, &text)
    }

    /// Gives each number of `numbers` its stable file name, once.
    pub fn name_entries<'a>(&mut self, numbers: impl Iterator<Item = &'a String>) {
        let mut taken: HashSet<String> = self
            .data
            .entries
            .values()
            .map(|e| e.to_ascii_lowercase())
            .collect();
        for n in numbers {
            if !self.data.entries.contains_key(n) {
                let name = files::entry_name(n, &mut taken);
                self.data.entries.insert(n.clone(), name);
            }
        }
    }

    /// The sealed part of an invoice's PDF (its name checked).
    pub fn part_path(&self, number: &str) -> Result<PathBuf> {
        let entry = self
            .data
            .entries
            .get(number)
            .ok_or_else(|| Error::internal(format!("no entry name for {number}")))?;
        files::check_name("entry", entry)?;
        Ok(self.parts.join(format!("{entry}.part")))
    }

    /// Whether the PDF of `number` is in its part.
    pub fn archived(&self, number: &str) -> bool {
        self.data
            .reports
            .get(number)
            .is_some_and(|r| r.status == "archived")
            && self.part_path(number).is_ok_and(|p| files::is_file(&p))
    }

    /// Why the report of `number` failed in an earlier run, if it did.
    pub fn failed(&self, number: &str) -> Option<String> {
        let r = self.data.reports.get(number)?;
        (r.status == "failed").then(|| r.why.clone().unwrap_or_else(|| "the report failed".into()))
    }

    /// A report id of an earlier run still within the service's look-back.
    pub fn reusable_report(&self, number: &str, now: DateTime<Utc>) -> Option<String> {
        let r = self.data.reports.get(number)?;
        let young = r
            .created
            .as_deref()
            .and_then(|c| DateTime::parse_from_rfc3339(c).ok())
            .is_some_and(|c| now - c.with_timezone(&Utc) < chrono::Duration::days(LOOK_BACK_DAYS));
        (matches!(r.status.as_str(), "created" | "archived") && young)
            .then(|| r.report_id.clone())
            .flatten()
    }
}
