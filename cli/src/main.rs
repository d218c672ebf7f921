//! `abws`: the command line of the library (see `abws --help`).

fn main() {
    std::process::exit(abws_cli::run(std::env::args_os().collect()));
}
