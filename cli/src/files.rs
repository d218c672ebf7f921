//! `documents fetch-pdf` (create → wait → download, into a sealed file with `--to`) and
//! `decrypt` (the same as `python -m abws decrypt`). The key comes from
//! `ABWS_DOCUMENT_KEY` or `--key-file`, never from the command line, where other users
//! could read it; `decrypt` opens a password-sealed file (the close's archive sealed with
//! `ABWS_ARCHIVE_PASSWORD`) with the password of `--password-file` or that variable.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::time::Duration;

use clap::{value_parser, Arg, ArgMatches, Command};

use abws::api::documents::{FetchPdfParams, DEFAULT_POLL_INTERVAL};
use abws::sealed::password::password_from_env;
use abws::sealed::DocumentKey;
use abws::Secret;

use crate::Fail;

const NO_KEY: &str = "a key is needed for a sealed file: give --key-file PATH (a file holding \
                      64 hex digits) or set ABWS_DOCUMENT_KEY";
const NO_SECRET: &str = "a key or a password is needed for a sealed file: give --key-file PATH \
                         (64 hex digits) or set ABWS_DOCUMENT_KEY; for a password-sealed file \
                         give --password-file PATH or set ABWS_ARCHIVE_PASSWORD";
const TERMINAL: &str = "refusing to write a PDF to a terminal: use --to FILE or redirect";

fn key_file_arg() -> Arg {
    Arg::new("key_file")
        .long("key-file")
        .value_name("PATH")
        .value_parser(value_parser!(PathBuf))
        .help("A file holding the key (64 hex digits); default: ABWS_DOCUMENT_KEY")
}

/// The key of `--key-file`, else of `ABWS_DOCUMENT_KEY`.
fn key(m: &ArgMatches) -> Result<DocumentKey, Fail> {
    key_if_given(m)?.ok_or_else(|| Fail::Usage(NO_KEY.into()))
}

/// The password of `--password-file` (its first line), else of `ABWS_ARCHIVE_PASSWORD`.
fn password(m: &ArgMatches) -> Result<Option<Secret>, Fail> {
    if let Some(path) = m.get_one::<PathBuf>("password_file") {
        let text = Secret::new(
            std::fs::read_to_string(path)
                .map_err(|e| Fail::Usage(format!("--password-file {}: {e}", path.display())))?,
        );
        let line = text.expose().lines().next().unwrap_or("");
        if line.is_empty() {
            return Err(Fail::Lib(abws::Error::validation(
                "password_file",
                "must hold the password on its first line",
            )));
        }
        return Ok(Some(Secret::new(line)));
    }
    Ok(password_from_env())
}

/// The key of `--key-file`, else of `ABWS_DOCUMENT_KEY`, if either is given.
fn key_if_given(m: &ArgMatches) -> Result<Option<DocumentKey>, Fail> {
    if let Some(path) = m.get_one::<PathBuf>("key_file") {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Fail::Usage(format!("--key-file {}: {e}", path.display())))?;
        return DocumentKey::from_hex(&text).map(Some).map_err(|_| {
            Fail::Lib(abws::Error::validation(
                "key_file",
                "must hold 64 hex digits (32 bytes)",
            ))
        });
    }
    Ok(DocumentKey::from_env()?)
}

pub(crate) fn fetch_pdf_command() -> Command {
    let create_report = abws::operations::ALL
        .iter()
        .find(|o| o.name == "create_report")
        .expect("the table has createReport");
    let c = Command::new("fetch-pdf")
        .about("Fetches a PDF (create the report, wait, download): into a sealed file with --to")
        .long_about(
            "Fetches a PDF: createReport, getReport until it is done, then its document. With \
             --to FILE the PDF is written ENCRYPTED (the sealed format; `abws decrypt` opens it) \
             under the key of --key-file or ABWS_DOCUMENT_KEY, through a temporary file, so a \
             failure leaves no file. Without --to the plain PDF goes to standard output, only \
             when that is not a terminal.",
        );
    crate::operation::add_params(c, crate::operation::params_of(create_report))
        .arg(
            Arg::new("to")
                .long("to")
                .value_name("FILE")
                .value_parser(value_parser!(PathBuf))
                .help("Write the PDF sealed into FILE (default: the plain PDF to standard output)"),
        )
        .arg(key_file_arg())
        .arg(
            Arg::new("poll_interval")
                .long("poll-interval")
                .value_name("SECONDS")
                .value_parser(value_parser!(f64))
                .help("Seconds between getReport polls (default: 15, or the server's Retry-After)"),
        )
        .arg(
            Arg::new("wait_timeout")
                .long("wait-timeout")
                .value_name("SECONDS")
                .value_parser(value_parser!(f64))
                .help("How long to wait for the report (default: 30 minutes)"),
        )
}

fn seconds(m: &ArgMatches, id: &str) -> Result<Option<Duration>, Fail> {
    match m.get_one::<f64>(id) {
        None => Ok(None),
        Some(&s) => Duration::try_from_secs_f64(s)
            .ok()
            .filter(|d| !d.is_zero())
            .map(Some)
            .ok_or_else(|| {
                Fail::Lib(abws::Error::validation(
                    id,
                    "must be a number of seconds above zero",
                ))
            }),
    }
}

pub(crate) fn fetch_pdf(root: &ArgMatches, m: &ArgMatches) -> Result<(), Fail> {
    let create_report = abws::operations::ALL
        .iter()
        .find(|o| o.name == "create_report")
        .expect("the table has createReport");
    let args = crate::operation::args_json(crate::operation::params_of(create_report), m)?;
    let params: FetchPdfParams = abws::params::read(&args)?;
    let poll = seconds(m, "poll_interval")?.unwrap_or(DEFAULT_POLL_INTERVAL);
    let wait = seconds(m, "wait_timeout")?;
    match m.get_one::<PathBuf>("to") {
        Some(to) => {
            let key = key(m)?;
            let client = crate::client(root, m)?;
            let n = client
                .documents()
                .fetch_pdf_to_path(&params, poll, wait, to, &key, None)?;
            eprintln!("{}: {n} bytes (sealed)", to.display());
        }
        None => {
            if std::io::stdout().is_terminal() {
                return Err(Fail::Usage(TERMINAL.into()));
            }
            let client = crate::client(root, m)?;
            let mut out = std::io::stdout();
            client
                .documents()
                .fetch_pdf_to(&params, poll, wait, &mut out)?;
            out.flush()?;
        }
    }
    Ok(())
}

pub(crate) fn decrypt_command() -> Command {
    Command::new("decrypt")
        .about("Opens a sealed file (written by fetch-pdf --to, download_to, or the close's archive)")
        .long_about(
            "Opens a sealed file. The key: --key-file PATH or ABWS_DOCUMENT_KEY (64 hex \
             digits); a password-sealed file (the close's archive sealed with \
             ABWS_ARCHIVE_PASSWORD) opens with --password-file PATH or ABWS_ARCHIVE_PASSWORD. \
             Without -o the document goes to standard output, only when that is not a terminal.",
        )
        .arg(
            Arg::new("file")
                .required(true)
                .value_name("FILE")
                .value_parser(value_parser!(PathBuf))
                .help("The sealed file"),
        )
        .arg(
            Arg::new("out")
                .short('o')
                .long("out")
                .value_name("OUT")
                .value_parser(value_parser!(PathBuf))
                .help("Where to write the PDF (default: standard output)"),
        )
        .arg(key_file_arg())
        .arg(
            Arg::new("password_file")
                .long("password-file")
                .value_name("PATH")
                .value_parser(value_parser!(PathBuf))
                .help("A file holding the password of a password-sealed file (its first line); default: ABWS_ARCHIVE_PASSWORD"),
        )
}

pub(crate) fn decrypt(m: &ArgMatches) -> Result<(), Fail> {
    let src = m.get_one::<PathBuf>("file").expect("required");
    let (key, password) = (key_if_given(m)?, password(m)?);
    if key.is_none() && password.is_none() {
        return Err(Fail::Usage(NO_SECRET.into()));
    }
    let (key, password) = (key.as_ref(), password.as_ref());
    match m.get_one::<PathBuf>("out") {
        Some(dest) => {
            let n = abws::sealed::open_file_with(key, password, src, dest)?;
            eprintln!("{}: {n} bytes", dest.display());
        }
        None => {
            if std::io::stdout().is_terminal() {
                return Err(Fail::Usage(
                    "refusing to write a PDF to a terminal: use -o FILE or redirect".into(),
                ));
            }
            let mut file = std::fs::File::open(src)
                .map_err(|e| Fail::Usage(format!("{}: {e}", src.display())))?;
            let mut out = std::io::stdout().lock();
            abws::sealed::open_with(key, password, &mut file, &mut out)?;
            out.flush()?;
        }
    }
    Ok(())
}
