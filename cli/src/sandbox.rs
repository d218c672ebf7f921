//! `abws sandbox`: the embedded emulator (the `abws-sandbox` crate as a library), for C
//! users and shells. It prints its client settings as one JSON line (or, with `--env
//! REGION`, `export ABWS_...` lines), then serves until killed, interrupted, or, when
//! standard input is a pipe, until that pipe closes (so a parent that dies takes it down).

use std::io::Write;

use abws_sandbox::command_line::{check_region, env_exports, parse, settings_json, USAGE};
use abws_sandbox::Sandbox;
use clap::{Arg, ArgAction, ArgMatches, Command};

use crate::Fail;

pub(crate) fn command() -> Command {
    Command::new("sandbox")
        .about("Starts the local emulator and prints its client settings as JSON (one line)")
        .long_about(format!(
            "Starts the local emulator of the whole service on 127.0.0.1 and prints the \
             settings of a client of it as one JSON line on standard output (the keys of \
             abws_client_new's settings; --env REGION prints `export ABWS_...` lines for a \
             shell instead), then serves until killed or interrupted, or until standard \
             input closes when it is a pipe. The region is --region (default: ABWS_REGION, \
             else JP).\n\nThe emulator's options: {USAGE}"
        ))
        .arg(
            Arg::new("region")
                .long("region")
                .value_name("REGION")
                .help("The region of the settings printed (default: ABWS_REGION, else JP)"),
        )
        .arg(
            Arg::new("options")
                .num_args(0..)
                .trailing_var_arg(true)
                .allow_hyphen_values(true)
                .action(ArgAction::Append)
                .value_name("SANDBOX OPTIONS")
                .help("--rate-limits off, --seed N, --today YYYY-MM-DD, --fault SPEC, --env REGION, ... (see --help)"),
        )
}

pub(crate) fn run(root: &ArgMatches, m: &ArgMatches) -> Result<(), Fail> {
    let options: Vec<String> = m
        .get_many::<String>("options")
        .map(|v| v.cloned().collect())
        .unwrap_or_default();
    let (config, env) = parse(&options).map_err(|e| {
        Fail::Usage(if e.is_empty() {
            format!("abws sandbox {USAGE}")
        } else {
            e
        })
    })?;
    let given = m
        .get_one::<String>("region")
        .or(root.get_one::<String>("region"));
    let region = match (&env, given) {
        (Some(r), _) | (None, Some(r)) => r.clone(),
        (None, None) => std::env::var("ABWS_REGION")
            .ok()
            .filter(|r| !r.trim().is_empty())
            .unwrap_or_else(|| "JP".into()),
    };
    check_region(&region).map_err(|e| Fail::Usage(format!("--region {e}")))?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    rt.block_on(async {
        let sb = Sandbox::start(config).await?;
        let text = match env {
            Some(_) => env_exports(&sb, &region),
            None => format!("{}\n", settings_json(&sb, &region)),
        };
        let mut out = std::io::stdout().lock();
        out.write_all(text.as_bytes())?;
        out.flush()?;
        drop(out);
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        if stdin_is_pipe() {
            std::thread::spawn(move || {
                let _ = std::io::copy(&mut std::io::stdin().lock(), &mut std::io::sink());
                let _ = tx.send(());
            });
        } else {
            std::mem::forget(tx);
        }
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = rx => {}
        }
        sb.stop();
        Ok::<(), Fail>(())
    })?;
    rt.shutdown_background();
    Ok(())
}

/// Standard input is a pipe or a socket (not a terminal, a file or /dev/null, whose end
/// says nothing about the parent).
#[cfg(unix)]
fn stdin_is_pipe() -> bool {
    use std::os::fd::AsFd;
    use std::os::unix::fs::FileTypeExt;
    std::io::stdin()
        .as_fd()
        .try_clone_to_owned()
        .ok()
        .map(std::fs::File::from)
        .and_then(|f| f.metadata().ok())
        .is_some_and(|m| m.file_type().is_fifo() || m.file_type().is_socket())
}

#[cfg(not(unix))]
fn stdin_is_pipe() -> bool {
    false
}
