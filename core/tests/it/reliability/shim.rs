//! The C shims some scenarios preload into a re-executed child (LD_PRELOAD): built with the
//! machine's `cc` from `<name>_shim.c` beside this file.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Builds `<name>_shim.c` into a shared object in `dir`; `what` names it in the errors.
pub fn build(name: &str, what: &str, dir: &Path) -> Result<PathBuf, String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/it/reliability")
        .join(format!("{name}_shim.c"));
    let so = dir.join(format!("{name}_shim.so"));
    let out = Command::new("cc")
        .args(["-shared", "-fPIC", "-O2", "-o"])
        .arg(&so)
        .arg(&src)
        .arg("-ldl")
        .output()
        .map_err(|e| format!("no C compiler (`cc`: {e}) to build the {what} shim"))?;
    if !out.status.success() {
        return Err(format!(
            "cc could not build the {what} shim: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(so)
}
