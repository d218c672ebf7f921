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
    let out = child(filter, exact, &[])
        .output()
        .expect("the test binary runs");
    replay(filter, out);
}

/// Runs `filter` (`--exact`) in one child process per set of environment variables, all at
/// once (for tests that mostly wait on sockets and timers), then replays each child's output
/// in turn; fails when one of them failed.
pub fn run_side_by_side(filter: &str, envs: &[Vec<(&str, String)>]) {
    let children: Vec<_> = envs
        .iter()
        .map(|env| {
            child(filter, true, env)
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("the test binary runs")
        })
        .collect();
    let outputs: Vec<_> = children
        .into_iter()
        .map(|c| c.wait_with_output().expect("the child ends"))
        .collect();
    let failed: Vec<_> = outputs.iter().map(|o| !o.status.success()).collect();
    for out in outputs {
        let stdout = String::from_utf8_lossy(&out.stdout);
        print!("{stdout}");
        eprint!("{}", String::from_utf8_lossy(&out.stderr));
    }
    let n = failed.iter().filter(|f| **f).count();
    assert_eq!(
        n,
        0,
        "`{filter}` failed in {n} of {} child processes",
        envs.len()
    );
}

pub fn child(filter: &str, exact: bool, env: &[(&str, String)]) -> Command {
    let mut cmd = Command::new(std::env::current_exe().expect("the test binary"));
    cmd.args([filter, "--ignored", "--test-threads=1", "--nocapture"]);
    if exact {
        cmd.arg("--exact");
    }
    cmd.envs(env.iter().map(|(k, v)| (*k, v.as_str())));
    cmd
}

fn replay(filter: &str, out: std::process::Output) {
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
