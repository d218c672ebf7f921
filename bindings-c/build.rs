//! The shared library's name inside itself (ELF SONAME, Mach-O install name) for the
//! releases only: scripts/dist.sh sets `ABWS_CDYLIB_LINK_ARGS` (space-separated linker
//! arguments) so that one `cargo build` builds the C library, the `abws` command and the
//! sandbox binary with the same features (one build of the core per platform). The tests'
//! debug builds link the library by its plain name and get nothing.

fn main() {
    println!("cargo:rerun-if-env-changed=ABWS_CDYLIB_LINK_ARGS");
    if let Ok(args) = std::env::var("ABWS_CDYLIB_LINK_ARGS") {
        for arg in args.split_whitespace() {
            println!("cargo:rustc-cdylib-link-arg={arg}");
        }
    }
}
