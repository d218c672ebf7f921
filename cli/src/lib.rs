//! `abws`: the library from a shell. One subcommand for every operation of the operations
//! table (`abws invoices get-invoices --invoice-issue-start-date ...`), built at run time
//! from the table and the description of each parameter struct (`abws::describe`), so a
//! new row of the table is a new subcommand with nothing else to write. Besides them:
//! `documents fetch-pdf` (a sealed file), `decrypt`, `sandbox` (the embedded emulator)
//! and `completions`.
//!
//! The same `run` serves the C release's `abws` binary and the wheel's `abws` console
//! script (the Python extension's `run_cli`).

mod close;
mod files;
mod operation;
mod output;
mod sandbox;

use std::ffi::OsString;

use clap::{value_parser, Arg, ArgAction, ArgMatches, Command};

pub use output::Format;

/// The exit codes, each kind of failure its own (`abws --help` lists them).
pub mod exit {
    /// Done.
    pub const OK: i32 = 0;
    /// Any other failure: the service's error answer, the network, a timeout, a file.
    pub const OTHER: i32 = 1;
    /// Invalid input, caught before any request was sent: a parameter, a setting, a flag.
    pub const INVALID: i32 = 2;
    /// Authorization failed (bad credentials, revoked consent, a missing role: 401, 403).
    pub const AUTH: i32 = 3;
    /// The service's rate limit held, still after the retries (429).
    pub const RATE_LIMITED: i32 = 4;
    /// A request that must not be resent may or may not have been applied (placeOrder,
    /// addItems): check before doing it again.
    pub const OUTCOME_UNKNOWN: i32 = 5;
}

/// The exit code of a library error.
pub fn exit_code(e: &abws::Error) -> i32 {
    use abws::ErrorKind as K;
    match e.kind() {
        K::Validation => exit::INVALID,
        K::Auth => exit::AUTH,
        K::OutcomeUnknown => exit::OUTCOME_UNKNOWN,
        K::Api => match e.status() {
            Some(401 | 403) => exit::AUTH,
            Some(429) => exit::RATE_LIMITED,
            _ => exit::OTHER,
        },
        _ => exit::OTHER,
    }
}

const EPILOGUE: &str = "\
Settings come from the ABWS_* environment variables (ABWS_REGION, ABWS_ENDPOINT, \
ABWS_CLIENT_ID, ABWS_CLIENT_SECRET, ABWS_REFRESH_TOKEN, ...; `abws sandbox --env JP` \
prints them for the local emulator); --region, --endpoint and --auth-endpoint, given \
before the subcommand, override them. An operation's parameters are flags of their own \
names after it: abws invoices get-invoices --invoice-issue-start-date 2026-10-01 ...

Exit codes:
  0  done
  1  any other failure (an error answer, the network, a timeout, a file)
  2  invalid input, before any request was sent (a parameter, a setting, a flag)
  3  authorization failed (credentials, consent, a missing role)
  4  rate limited (429), still after the retries
  5  outcome unknown: a placeOrder or addItems may or may not have been applied";

/// Why a command failed.
#[derive(Debug)]
pub(crate) enum Fail {
    /// The library's error (its kind decides the exit code).
    Lib(abws::Error),
    /// Writing the output or a file failed.
    Io(std::io::Error),
    /// A request the command line refuses (exit code 2).
    Usage(String),
}

impl From<abws::Error> for Fail {
    fn from(e: abws::Error) -> Fail {
        Fail::Lib(e)
    }
}

impl From<std::io::Error> for Fail {
    fn from(e: std::io::Error) -> Fail {
        Fail::Io(e)
    }
}

/// The whole command: every subcommand, flag and help text.
pub fn command() -> Command {
    let mut root = Command::new("abws")
        .version(env!("CARGO_PKG_VERSION"))
        .about("The business-purchasing platform's APIs from a shell: every operation, PDFs sealed at rest, a local sandbox")
        .after_help(EPILOGUE)
        .subcommand_required(true)
        .arg_required_else_help(true)
        .arg(setting("region", "REGION", "The client's region code (JP, US, DE, ...), in place of ABWS_REGION"))
        .arg(setting("endpoint", "URL", "The API address, in place of ABWS_ENDPOINT"))
        .arg(setting("auth_endpoint", "URL", "The token endpoint, in place of ABWS_AUTH_ENDPOINT").long("auth-endpoint"))
        .arg(
            global("timeout", "SECONDS", "This call's deadline: every attempt, backoff and rate-limit wait (for --all, each page)")
                .value_parser(value_parser!(f64)),
        )
        .arg(
            global("max_attempts", "N", "Attempts allowed for this call, the first included (1 to 10; 1 never resends)")
                .long("max-attempts")
                .value_parser(value_parser!(i64)),
        )
        .arg(
            global("output", "FORMAT", "json (the result as the service sends it), jsonl (an item a line), csv (a header and a row per item, nested fields as dotted columns), table")
                .value_parser(value_parser!(Format))
                .default_value("json"),
        );
    let mut groups: Vec<&'static str> = Vec::new();
    for op in abws::operations::ALL {
        if !groups.contains(&op.group) {
            groups.push(op.group);
        }
    }
    for group in groups {
        let mut g = Command::new(kebab(group))
            .about(format!("The operations of the {group} API"))
            .subcommand_required(true)
            .arg_required_else_help(true);
        for op in abws::operations::ALL.iter().filter(|o| o.group == group) {
            g = g.subcommand(operation::command(op));
        }
        if group == "documents" {
            g = g.subcommand(files::fetch_pdf_command());
        }
        root = root.subcommand(g);
    }
    root.subcommand(files::decrypt_command())
        .subcommand(sandbox::command())
        .subcommand(close::command())
        .subcommand(
            Command::new("completions")
                .about("Prints the shell completion script (bash, zsh, fish, powershell, elvish)")
                .arg(
                    Arg::new("shell")
                        .required(true)
                        .value_parser(value_parser!(clap_complete::Shell)),
                ),
        )
}

/// A flag of every subcommand (no operation has a parameter of its name: a test checks).
fn global(id: &'static str, value: &'static str, help: &'static str) -> Arg {
    setting(id, value, help).global(true)
}

/// A client setting: a flag before the subcommand (`abws --region JP invoices ...`), as
/// an operation may have a parameter of the same name (getInvoices' `region`).
fn setting(id: &'static str, value: &'static str, help: &'static str) -> Arg {
    Arg::new(id)
        .long(id)
        .value_name(value)
        .help(help)
        .action(ArgAction::Set)
}

/// The flags every subcommand takes.
#[cfg(test)]
const GLOBALS: [&str; 3] = ["timeout", "max_attempts", "output"];

/// `get_invoices` → `get-invoices`.
pub(crate) fn kebab(name: &str) -> String {
    name.replace('_', "-")
}

/// Runs the command line `argv` (the program's name first); returns the exit code.
/// Output goes to standard output, messages to standard error.
pub fn run(argv: Vec<OsString>) -> i32 {
    let matches = match command().try_get_matches_from(argv) {
        Ok(m) => m,
        Err(e) => {
            let _ = e.print();
            return e.exit_code();
        }
    };
    match dispatch(&matches) {
        Ok(()) => exit::OK,
        Err(Fail::Lib(e)) => {
            eprintln!("abws: {e}");
            exit_code(&e)
        }
        Err(Fail::Io(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => exit::OK,
        Err(Fail::Io(e)) => {
            eprintln!("abws: {e}");
            exit::OTHER
        }
        Err(Fail::Usage(message)) => {
            eprintln!("abws: {message}");
            exit::INVALID
        }
    }
}

fn dispatch(m: &ArgMatches) -> Result<(), Fail> {
    let (name, sub) = m.subcommand().expect("a subcommand is required");
    match name {
        "decrypt" => files::decrypt(sub),
        "sandbox" => sandbox::run(m, sub),
        "completions" => {
            let shell = *sub
                .get_one::<clap_complete::Shell>("shell")
                .expect("required");
            let mut out = std::io::stdout().lock();
            clap_complete::generate(shell, &mut command(), "abws", &mut out);
            Ok(())
        }
        "close" => close::run(m, sub),
        group => {
            let (op_name, op_matches) = sub.subcommand().expect("an operation is required");
            if group == "documents" && op_name == "fetch-pdf" {
                return files::fetch_pdf(m, op_matches);
            }
            let op = abws::operations::ALL
                .iter()
                .find(|o| kebab(o.group) == group && kebab(o.name) == op_name)
                .expect("every subcommand is a row of the table");
            operation::run(op, m, op_matches)
        }
    }
}

/// A blocking client from the `ABWS_*` variables, the setting flags of `root` on top,
/// with the per-call options of `--timeout` and `--max-attempts` of `m`.
pub(crate) fn client(root: &ArgMatches, m: &ArgMatches) -> Result<abws::blocking::Client, Fail> {
    let mut overrides = serde_json::Map::new();
    for key in ["region", "endpoint", "auth_endpoint"] {
        if let Some(v) = root.get_one::<String>(key) {
            overrides.insert(key.into(), v.clone().into());
        }
    }
    let settings = abws::settings_json::from_env(Some(&overrides.into()))?;
    let client = abws::blocking::Client::new(settings)?;
    let options = abws::CallOptions::from_seconds(
        m.get_one::<f64>("timeout").copied(),
        m.get_one::<i64>("max_attempts").copied(),
    )?;
    Ok(client.with_options(options)?)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_command_is_well_formed() {
        super::command().debug_assert();
    }

    #[test]
    fn no_parameter_is_named_as_a_flag_of_every_subcommand() {
        for op in abws::operations::ALL {
            for f in crate::operation::params_of(op).fields {
                assert!(!super::GLOBALS.contains(&f.name), "{}: {}", op.id, f.name);
                assert_ne!(f.name, "all", "{}", op.id);
            }
        }
    }
}
