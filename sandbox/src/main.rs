//! `abws-sandbox`: runs the emulator until Ctrl-C, printing its addresses and credentials as
//! one JSON line on stdout, or with `--env REGION` as `export ABWS_...=...` lines for a
//! shell (`abws.Client.from_env()`, `abws_client_from_env`).

use abws_sandbox::command_line::{env_exports, parse, USAGE};
use abws_sandbox::Sandbox;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (config, env) = match parse(&args) {
        Ok(c) => c,
        Err(e) => {
            if !e.is_empty() {
                eprintln!("abws-sandbox: {e}");
            }
            eprintln!("usage: abws-sandbox {USAGE}");
            std::process::exit(if e.is_empty() { 0 } else { 2 });
        }
    };
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("abws-sandbox: {e}");
            std::process::exit(1);
        }
    };
    rt.block_on(async {
        let sb = match Sandbox::start(config).await {
            Ok(sb) => sb,
            Err(e) => {
                eprintln!("abws-sandbox: cannot listen: {e}");
                std::process::exit(1);
            }
        };
        match &env {
            Some(region) => print!("{}", env_exports(&sb, region)),
            None => println!("{}", sb.describe()),
        }
        let _ = std::io::Write::flush(&mut std::io::stdout());
        let _ = tokio::signal::ctrl_c().await;
        sb.stop();
    });
}
