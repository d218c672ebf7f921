//! Runs tests that measure the whole process in a child process of this test binary, where
//! no other test runs beside them.
//!
//! Such a test is `#[ignore]`d (so the parent's run skips it) and a plain test of its module
//! calls `run` with a filter naming it: the child runs the ignored tests matching the filter,
//! one at a time. The child's output is replayed into the parent test's output.

use std::process::Command;

/// Runs the ignored tests whose names contain `filter` (`--exact`: equal to it) in a child
/// process; fails when one of them fails or none ran.
pub fn run(filter: &str, exact: bool) {
    let mut cmd = Command::new(std::env::current_exe().expect("the test binary"));
    cmd.args([filter, "--ignored", "--test-threads=1", "--nocapture"]);
    if exact {
        cmd.arg("--exact");
    }
    let out = cmd.output().expect("the test binary runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    print!("{stdout}");
    eprint!("{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        out.status.success(),
        "`{filter}` failed in its child process ({})",
        out.status
    );
    assert!(
        !stdout.contains("running 0 tests"),
        "no test matched `{filter}` in the child process"
    );
}
