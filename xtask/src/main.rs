//! Project tasks that need Rust code: `gen` (write every generated file: the bindings'
//! per-operation code from the operations table, then include/abws.h with the pinned
//! cbindgen), `gen --check` (fail when any committed generated file is stale), `gen --list`
//! (the files it writes, wholly or in marked sections, for tools that leave generated code
//! out), and
//! `header [--check]` (the header alone).

mod gen;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace")
        .to_path_buf()
}

fn generate() -> Result<String, String> {
    let crate_dir = root().join("bindings-c");
    let mut config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml"))
        .map_err(|e| format!("cbindgen.toml: {e}"))?;
    config.after_includes = Some(version_macros(env!("CARGO_PKG_VERSION"))?);
    let bindings = cbindgen::Builder::new()
        .with_crate(&crate_dir)
        .with_config(config)
        .generate()
        .map_err(|e| format!("cbindgen: {e}"))?;
    let mut out = Vec::new();
    bindings.write(&mut out);
    String::from_utf8(out).map_err(|e| e.to_string())
}

/// The version macros of the header, from the workspace version (bindings-c and xtask
/// both take `version.workspace`). The composed number is tested from C.
fn version_macros(version: &str) -> Result<String, String> {
    let core = version.split(['-', '+']).next().unwrap_or(version);
    let parts: Vec<u32> = core
        .split('.')
        .map(|p| {
            p.parse::<u32>()
                .map_err(|e| format!("version {version}: {e}"))
        })
        .collect::<Result<_, _>>()?;
    let [major, minor, patch] = parts[..] else {
        return Err(format!("version {version} is not MAJOR.MINOR.PATCH"));
    };
    Ok(format!(
        "\n// The version of this header: compare with abws_version() at run time.\n\
         #define ABWS_VERSION_MAJOR {major}\n\
         #define ABWS_VERSION_MINOR {minor}\n\
         #define ABWS_VERSION_PATCH {patch}\n\
         #define ABWS_VERSION_STRING \"{version}\"\n\
         // MAJOR * 10000 + MINOR * 100 + PATCH\n\
         #define ABWS_VERSION_NUMBER ((ABWS_VERSION_MAJOR * 10000) + (ABWS_VERSION_MINOR * 100) + ABWS_VERSION_PATCH)\n"
    ))
}

fn write_generated() -> Result<(), String> {
    for out in gen::outputs()? {
        let path = root().join(&out.path);
        if std::fs::read_to_string(&path).ok().as_deref() != Some(out.content.as_str()) {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
            }
            std::fs::write(&path, out.content).map_err(|e| format!("{}: {e}", path.display()))?;
            println!("wrote {}", out.path.display());
        }
    }
    // The header last: cbindgen reads the C binding's generated sources.
    let header = root().join("include").join("abws.h");
    let h = generate()?;
    if std::fs::read_to_string(&header).ok().as_deref() != Some(h.as_str()) {
        std::fs::write(&header, h).map_err(|e| e.to_string())?;
        println!("wrote include/abws.h");
    }
    Ok(())
}

fn check_generated() -> Result<(), String> {
    let mut stale = vec![];
    for out in gen::outputs()? {
        let committed = std::fs::read_to_string(root().join(&out.path)).unwrap_or_default();
        if committed != out.content {
            stale.push(out.path.display().to_string());
        }
    }
    let header = std::fs::read_to_string(root().join("include").join("abws.h")).unwrap_or_default();
    if generate()? != header {
        stale.push("include/abws.h".into());
    }
    if stale.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "generated files are stale: {}\nrun `cargo run -p xtask -- gen` and commit the result",
            stale.join(", ")
        ))
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let header = root().join("include").join("abws.h");
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["header"] => {
            match generate().and_then(|h| std::fs::write(&header, h).map_err(|e| e.to_string())) {
                Ok(()) => {
                    println!("wrote {}", header.display());
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        ["header", "--check"] => {
            let fresh = match generate() {
                Ok(h) => h,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::FAILURE;
                }
            };
            let committed = std::fs::read_to_string(&header).unwrap_or_default();
            if fresh == committed {
                println!("include/abws.h is up to date");
                ExitCode::SUCCESS
            } else {
                eprintln!(
                    "include/abws.h is stale: run `cargo run -p xtask -- header` and commit the result"
                );
                ExitCode::FAILURE
            }
        }
        ["gen"] => match write_generated() {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::FAILURE
            }
        },
        ["gen", "--list"] => match gen::outputs() {
            Ok(outputs) => {
                for o in outputs {
                    println!("{}", o.path.display());
                }
                println!("include/abws.h");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("xtask gen --list: {e}");
                ExitCode::FAILURE
            }
        },
        ["gen", "--check"] => match check_generated() {
            Ok(()) => {
                println!("generated files are up to date");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("{e}");
                ExitCode::FAILURE
            }
        },
        _ => {
            eprintln!("usage: cargo run -p xtask -- gen [--check] | header [--check]");
            ExitCode::FAILURE
        }
    }
}
