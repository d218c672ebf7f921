//! The `abws` binary, run as a user runs it, against the emulator it starts itself
//! (`abws sandbox`) over loopback: its settings reach the commands through the `ABWS_*`
//! variables, as in a shell.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

const ABWS: &str = env!("CARGO_BIN_EXE_abws");

/// A running `abws sandbox`, stopped (its standard input closed, then killed) on drop.
struct Sandbox {
    child: Child,
    settings: BTreeMap<String, String>,
}

impl Sandbox {
    fn start(extra: &[&str]) -> Sandbox {
        let mut child = Command::new(ABWS)
            .args([
                "sandbox",
                "--region",
                "JP",
                "--rate-limits",
                "off",
                "--today",
                "2026-11-15",
            ])
            .args(["--time-scale", "120"])
            .args(extra)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("abws sandbox starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let v: Value = serde_json::from_str(&line).expect("one JSON line");
        let settings = v
            .as_object()
            .expect("an object")
            .iter()
            .map(|(k, v)| (k.clone(), v.as_str().expect("text").to_string()))
            .collect();
        Sandbox { child, settings }
    }

    /// `abws ARGS` with the sandbox's settings as `ABWS_*` variables.
    fn abws(&self, args: &[&str]) -> Output {
        self.abws_with(args, &[])
    }

    /// `abws close --month 2026-10 --out OUT MORE...` against this sandbox.
    fn close(&self, out: &std::path::Path, more: &[&str]) -> Output {
        let out = out.to_str().unwrap();
        self.abws(&with(&["close", "--month", "2026-10", "--out", out], more))
    }

    fn abws_with(&self, args: &[&str], env: &[(&str, &str)]) -> Output {
        let mut c = Command::new(ABWS);
        c.args(args).stdin(Stdio::null());
        for (k, v) in &self.settings {
            c.env(format!("ABWS_{}", k.to_ascii_uppercase()), v);
        }
        for (k, v) in env {
            c.env(k, v);
        }
        c.output().expect("abws runs")
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The command was refused as a usage error (exit code 2), naming `what` on stderr.
fn refused(o: &Output, what: &str) {
    assert_eq!(o.status.code(), Some(2), "{}", stderr(o));
    assert!(stderr(o).contains(what), "{}", stderr(o));
}

fn ok(o: Output) -> String {
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    stdout(&o)
}

const OCTOBER: [&str; 5] = [
    "invoices",
    "get-invoices",
    "--invoice-issue-start-date",
    "2026-10-01",
    "--invoice-issue-end-date=2026-10-31",
];

/// October's transaction feed.
const OCTOBER_FEED: [&str; 6] = [
    "reconciliation",
    "get-transactions",
    "--feed-start-date",
    "2026-10-01",
    "--feed-end-date",
    "2026-10-31",
];

fn with<'a>(base: &[&'a str], more: &[&'a str]) -> Vec<&'a str> {
    let mut v = base.to_vec();
    v.extend_from_slice(more);
    v
}

#[test]
fn sandbox_prints_its_settings_as_one_json_line_and_stops_when_stdin_closes() {
    let mut sb = Sandbox::start(&[]);
    assert_eq!(sb.settings["region"], "JP");
    for key in ["endpoint", "auth_endpoint"] {
        assert!(sb.settings[key].starts_with("http://127.0.0.1:"), "{key}");
    }
    for key in ["client_id", "client_secret", "refresh_token"] {
        assert!(!sb.settings[key].is_empty(), "{key}");
    }
    drop(sb.child.stdin.take());
    let start = Instant::now();
    loop {
        if let Some(status) = sb.child.try_wait().unwrap() {
            assert!(status.success(), "{status}");
            break;
        }
        assert!(start.elapsed() < Duration::from_secs(10), "still serving");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn an_operation_writes_its_result_as_json() {
    let sb = Sandbox::start(&[]);
    let v: Value = serde_json::from_str(&ok(sb.abws(&OCTOBER))).unwrap();
    let invoices = v["invoices"].as_array().expect("a page of invoices");
    assert!(!invoices.is_empty());
    for i in invoices {
        let issued = i["invoiceMetadata"]["issueDate"].as_str().unwrap();
        assert!(issued.starts_with("2026-10"), "{issued}");
    }
}

#[test]
fn csv_has_a_header_and_a_row_per_invoice() {
    let sb = Sandbox::start(&[]);
    let page: Value = serde_json::from_str(&ok(sb.abws(&OCTOBER))).unwrap();
    let numbers: Vec<&str> = page["invoices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["invoiceMetadata"]["invoiceNumber"].as_str().unwrap())
        .collect();
    let csv = ok(sb.abws(&with(&["--output", "csv"], &OCTOBER)));
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(header[0], "invoice_metadata.invoice_number", "{header:?}");
    assert!(
        header.contains(&"invoice_metadata.issue_date"),
        "{header:?}"
    );
    let rows: Vec<&str> = lines.collect();
    assert_eq!(rows.len(), numbers.len(), "{csv}");
    for (row, number) in rows.iter().zip(&numbers) {
        assert_eq!(row.split(',').next(), Some(*number));
        assert_eq!(row.split(',').count(), header.len(), "{row}");
    }
}

#[test]
fn all_follows_every_page() {
    let sb = Sandbox::start(&[]);
    let year = [
        "invoices",
        "get-invoices",
        "--invoice-issue-start-date",
        "2026-01-01",
        "--invoice-issue-end-date",
        "2026-10-31",
    ];
    let first: Value = serde_json::from_str(&ok(sb.abws(&year))).unwrap();
    assert!(
        first["nextPageToken"].is_string(),
        "the range has several pages"
    );
    let on_first = first["invoices"].as_array().unwrap().len();
    let lines = ok(sb.abws(&with(&["--output", "jsonl"], &with(&year, &["--all"]))));
    let items: Vec<Value> = lines
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(
        items.len() > on_first,
        "{} items, {on_first} on the first page",
        items.len()
    );
    let numbers: std::collections::BTreeSet<&str> = items
        .iter()
        .map(|i| i["invoiceMetadata"]["invoiceNumber"].as_str().unwrap())
        .collect();
    assert_eq!(numbers.len(), items.len(), "each invoice once");
    let all: Value = serde_json::from_str(&ok(sb.abws(&with(&year, &["--all"])))).unwrap();
    assert_eq!(all.as_array().unwrap().len(), items.len());
}

#[test]
fn invalid_input_exits_2_with_the_library_message_before_any_request() {
    let sb = Sandbox::start(&[]);
    let o = sb.abws(&[
        "invoices",
        "get-invoices",
        "--invoice-issue-start-date",
        "2026-10-31",
        "--invoice-issue-end-date",
        "2026-10-01",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("invoice_issue_start_date"),
        "{}",
        stderr(&o)
    );
    assert!(o.stdout.is_empty());
    // A JSON flag that is not JSON names its parameter too.
    let o = sb.abws(&[
        "ordering",
        "place-order",
        "--external-id",
        "x",
        "--line-items",
        "[1,",
    ]);
    refused(&o, "line_items");
    // An unknown flag is a usage error of the parser, with the same code.
    let o = sb.abws(&with(&OCTOBER, &["--colour", "red"]));
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

#[test]
fn an_auth_failure_exits_3() {
    let sb = Sandbox::start(&[]);
    let o = sb.abws_with(&OCTOBER, &[("ABWS_CLIENT_SECRET", "not-the-secret")]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains("client_secret"), "{}", stderr(&o));
}

/// A rate-limited call exits 4, another failure 1: October's invoices, one attempt,
/// against a sandbox whose getInvoices answers 429, then 503.
#[test]
fn a_rate_limited_call_exits_4_another_failure_1() {
    for (status, code) in [(429, 4), (503, 1)] {
        let sb = Sandbox::start(&["--fault", &format!("getInvoices,status={status}")]);
        let o = sb.abws(&with(&["--max-attempts", "1"], &OCTOBER));
        assert_eq!(o.status.code(), Some(code), "{}", stderr(&o));
    }
}

#[test]
fn an_order_whose_outcome_is_unknown_exits_5() {
    let sb = Sandbox::start(&["--fault", "placeOrder,times=1,status=500"]);
    let line = r#"[{"external_id":"1","quantity":1,"attributes":[
        {"attributeType":"SelectedProductReference","productReference":{"id":"B0CLI00001","productReferenceType":"ProductIdentifier"}},
        {"attributeType":"SelectedBuyingOptionReference","buyingOptionReference":{"id":"offer-1","buyingOptionReferenceType":"BuyingOptionIdentifier"}}]}]"#;
    let o = sb.abws(&[
        "ordering",
        "place-order",
        "--external-id",
        "cli-order-1",
        "--line-items",
        line,
    ]);
    assert_eq!(o.status.code(), Some(5), "{}", stderr(&o));
}

#[test]
fn fetch_pdf_to_writes_a_sealed_file_that_decrypt_opens() {
    let sb = Sandbox::start(&[]);
    let feed: Value = serde_json::from_str(&ok(sb.abws(&OCTOBER_FEED))).unwrap();
    let charge = feed["transactions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["transactionType"] == "CHARGE")
        .expect("a charge in October");
    let line = &charge["transactionLineItems"][0];
    let order = line["orderId"].as_str().expect("an order id");
    let item = line["orderLineItemId"].as_str().expect("a line item id");
    let dir = std::env::temp_dir().join(format!("abws-cli-pdf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let key_file = dir.join("key");
    std::fs::write(&key_file, "0123456789abcdef".repeat(4)).unwrap();
    let sealed = dir.join("invoice.pdf.abws");
    let (sealed_s, key_s) = (sealed.to_str().unwrap(), key_file.to_str().unwrap());
    ok(sb.abws(&[
        "documents",
        "fetch-pdf",
        "--order-id",
        order,
        "--order-line-item-id",
        item,
        "--document-type",
        "Invoice",
        "--to",
        sealed_s,
        "--key-file",
        key_s,
        "--poll-interval",
        "0.2",
    ]));
    let bytes = std::fs::read(&sealed).unwrap();
    assert!(bytes.starts_with(abws::sealed::MAGIC));
    assert!(
        !bytes.windows(5).any(|w| w == b"%PDF-"),
        "no plain PDF at rest"
    );
    let pdf = dir.join("invoice.pdf");
    ok(sb.abws(&[
        "decrypt",
        sealed_s,
        "-o",
        pdf.to_str().unwrap(),
        "--key-file",
        key_s,
    ]));
    let opened = std::fs::read(&pdf).unwrap();
    assert!(opened.starts_with(b"%PDF-"));
    // To standard output (a pipe here), the key from ABWS_DOCUMENT_KEY.
    let o = sb.abws_with(
        &["decrypt", sealed_s],
        &[("ABWS_DOCUMENT_KEY", &"0123456789abcdef".repeat(4))],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(o.stdout, opened);
    // Without a key: the message says how to give one.
    let o = sb.abws(&["decrypt", sealed_s]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--key-file"), "{}", stderr(&o));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn help_shows_the_tables_doc_lines() {
    let row = abws::operations::ALL
        .iter()
        .find(|o| o.name == "get_invoices")
        .unwrap();
    let abws::describe::Ty::Params(p) = (row.params)() else {
        panic!("a params struct")
    };
    let start = p
        .fields
        .iter()
        .find(|f| f.name == "invoice_issue_start_date")
        .unwrap();
    let o = Command::new(ABWS)
        .args(["invoices", "get-invoices", "--help"])
        .output()
        .unwrap();
    let help = ok(o);
    assert!(help.contains(row.doc.trim()), "{help}");
    assert!(
        help.contains(start.doc.lines().next().unwrap().trim()),
        "{help}"
    );
    assert!(help.contains("--invoice-issue-start-date"), "{help}");
    assert!(help.contains("--all"), "{help}");
    let top = ok(Command::new(ABWS).arg("--help").output().unwrap());
    assert!(top.contains("Exit codes:"), "{top}");
}

#[test]
fn completions_come_from_the_parser() {
    let script = ok(Command::new(ABWS)
        .args(["completions", "bash"])
        .output()
        .unwrap());
    assert!(
        script.contains("get-invoices") && script.contains("complete"),
        "{script}"
    );
}

#[test]
fn csv_amounts_are_the_text_the_service_sent() {
    use serde_json::value::RawValue;
    type Object = BTreeMap<String, Box<RawValue>>;
    let sb = Sandbox::start(&[]);
    let page: Object = serde_json::from_str(&ok(sb.abws(&OCTOBER_FEED))).unwrap();
    let sent: Vec<String> = serde_json::from_str::<Vec<Object>>(page["transactions"].get())
        .unwrap()
        .iter()
        .map(|t| {
            let amount: Object = serde_json::from_str(t["amount"].get()).unwrap();
            amount["amount"].get().trim_matches('"').to_string()
        })
        .collect();
    assert!(!sent.is_empty());
    let csv = ok(sb.abws(&with(&["--output", "csv"], &OCTOBER_FEED)));
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let at = header.iter().position(|c| *c == "amount.amount").unwrap();
    let written: Vec<String> = lines
        .map(|l| l.split(',').nth(at).unwrap().to_string())
        .collect();
    assert_eq!(written, sent);
}

/// A directory of its own under the temporary directory, for one test.
fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("abws-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A sandbox, and a scratch directory named `name` with the close's output `out` in it.
fn close_job(name: &str) -> (Sandbox, std::path::PathBuf, std::path::PathBuf) {
    let dir = scratch(name);
    let out = dir.join("out");
    (Sandbox::start(&[]), dir, out)
}

#[test]
fn close_sandbox_files_the_previous_month_in_a_fresh_directory() {
    // As a newcomer runs it: no ABWS_* variable, an output directory whose parent is new.
    let dir = scratch("close-sandbox");
    let out = dir.join("month-end").join("JP");
    let run = Command::new(ABWS)
        .args([
            "close",
            "--sandbox",
            "--out",
            out.to_str().unwrap(),
            "--output",
            "json",
        ])
        .env_remove("ABWS_ARCHIVE_KEY")
        .stdin(Stdio::null())
        .output()
        .expect("abws runs");
    let result: Value = serde_json::from_str(&ok(run)).expect("the result as JSON");
    assert_eq!(result["complete"], true);
    assert_eq!(result["region"], "JP");
    let invoices = result["invoices"].as_u64().unwrap() + result["credit_memos"].as_u64().unwrap();
    assert!(invoices > 0, "{result}");
    assert_eq!(result["ledger"].as_array().unwrap().len() as u64, invoices);
    assert_eq!(result["pdfs_filed"].as_u64(), Some(invoices));
    for key in ["ledger_path", "exceptions_path", "archive_path"] {
        let path = result[key].as_str().expect(key);
        assert!(std::path::Path::new(path).is_file(), "{key}: {path}");
    }
    let archive = std::fs::read(result["archive_path"].as_str().unwrap()).unwrap();
    assert!(
        !archive.windows(4).any(|w| w == b"%PDF"),
        "the archive is sealed"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn close_runs_against_the_service_of_the_abws_variables() {
    let (sb, dir, out) = close_job("close-env");
    let o = sb.close(&out, &["--no-pdfs"]);
    let text = ok(o);
    assert!(text.starts_with("JP 2026-10: "), "{text}");
    assert!(
        text.contains("ledger: ") && !text.contains("archive: "),
        "{text}"
    );
    // A month that has not ended is refused, naming the parameter, exit 2.
    let o = sb.abws(&[
        "close",
        "--month",
        "2026-11",
        "--out",
        out.to_str().unwrap(),
    ]);
    refused(&o, "month");
    // The month in Tokyo: its own outputs beside the UTC close's, its zone in the summary.
    let text = ok(sb.close(&out, &["--no-pdfs", "--timezone", "Asia/Tokyo"]));
    assert!(
        text.starts_with("JP 2026-10 (Asia/Tokyo, from 2026-10-01T00:00:00+09:00): "),
        "{text}"
    );
    assert!(out.join("ledger-JP-2026-10-Asia_Tokyo.csv").is_file());
    assert!(out.join("ledger-JP-2026-10.csv").is_file());
    let o = sb.close(&out, &["--no-pdfs", "--timezone", "Tokyo"]);
    refused(&o, "timezone");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// What the example script's tests checked about the job, now of `abws close`:
/// the plan alone sends no report and files nothing; a legal entity's ledger stands beside
/// the whole month's; a planted link at an output is refused and its target untouched.
#[test]
fn close_plan_only_then_a_legal_entity_beside_the_whole_month() {
    let (sb, dir, out) = close_job("close-scopes");
    let plan = sb.close(&out, &["--plan-only"]);
    let err = stderr(&plan);
    let text = ok(plan);
    assert!(err.contains("plan: {"), "{err}");
    assert!(text.contains("(the plan only: nothing filed)"), "{text}");
    let files = |d: &std::path::Path| -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(d)
            .map(|r| {
                r.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                    .filter(|n| !n.starts_with('.'))
                    .collect()
            })
            .unwrap_or_default();
        v.sort();
        v
    };
    assert_eq!(files(&out), Vec::<String>::new(), "the plan files nothing");

    let whole: Value =
        serde_json::from_str(&ok(sb.close(&out, &["--no-pdfs", "--output", "json"]))).unwrap();
    let entity = whole["ledger"][0]["customer"]
        .as_str()
        .expect("a customer")
        .to_string();
    let scoped: Value = serde_json::from_str(&ok(sb.close(
        &out,
        &["--no-pdfs", "--legal-entity", &entity, "--output", "json"],
    )))
    .unwrap();
    let rows = |v: &Value| v["ledger"].as_array().unwrap().len();
    assert!(
        0 < rows(&scoped) && rows(&scoped) < rows(&whole),
        "{scoped}"
    );
    assert_ne!(scoped["ledger_path"], whole["ledger_path"]);
    let names = files(&out);
    assert_eq!(names.len(), 4, "two ledgers and two exceptions: {names:?}");
    let whole_csv = std::fs::read_to_string(whole["ledger_path"].as_str().unwrap()).unwrap();
    assert_eq!(
        whole_csv.lines().count(),
        rows(&whole) + 1,
        "the whole ledger is still there"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn close_refuses_a_planted_link_and_a_real_run_without_a_key() {
    let (sb, dir, out) = close_job("close-link");
    std::fs::create_dir_all(&out).unwrap();
    let target = dir.join("elsewhere");
    std::fs::write(&target, "untouched").unwrap();
    std::os::unix::fs::symlink(&target, out.join("ledger-JP-2026-10.csv")).unwrap();
    let o = sb.close(&out, &["--no-pdfs"]);
    assert_ne!(o.status.code(), Some(0));
    assert!(stderr(&o).contains("symbolic link"), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "untouched");

    // PDFs of a real run need ABWS_ARCHIVE_KEY: refused before any request or file.
    let fresh = dir.join("fresh");
    let o = Command::new(ABWS)
        .args([
            "close",
            "--month",
            "2026-10",
            "--out",
            fresh.to_str().unwrap(),
        ])
        .env_remove("ABWS_ARCHIVE_KEY")
        .env_remove("ABWS_ARCHIVE_PASSWORD")
        .envs([
            ("ABWS_REGION", "JP"),
            ("ABWS_CLIENT_ID", "x"),
            ("ABWS_CLIENT_SECRET", "x"),
            ("ABWS_REFRESH_TOKEN", "x"),
            ("ABWS_ENDPOINT", "http://127.0.0.1:9"),
            ("ABWS_AUTH_ENDPOINT", "http://127.0.0.1:9"),
        ])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("ABWS_ARCHIVE_KEY") && stderr(&o).contains("ABWS_ARCHIVE_PASSWORD"),
        "{}",
        stderr(&o)
    );
    assert!(!fresh.exists(), "stopped before anything was written");

    // --poll-interval reaches the close's own check.
    let o = sb.close(&fresh, &["--poll-interval", "0"]);
    refused(&o, "poll_interval");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `abws close` with ABWS_ARCHIVE_PASSWORD seals the archive with the password;
/// `abws decrypt` opens it with the password (the variable or --password-file), names the
/// password when given a key only, and refuses a wrong one; a re-run with another password
/// is refused; the key and the password both set are refused, naming both.
#[test]
fn close_with_a_password_and_decrypt_opens_its_archive_with_it() {
    let (sb, dir, out) = close_job("close-password");
    let out_s = out.to_str().unwrap();
    let close = |env: &[(&str, &str)]| {
        sb.abws_with(
            &[
                "close",
                "--month",
                "2026-10",
                "--out",
                out_s,
                "--poll-interval",
                "0.05",
                "--output",
                "json",
            ],
            env,
        )
    };
    let o = close(&[
        ("ABWS_ARCHIVE_PASSWORD", "s3cret pass"),
        ("ABWS_ARCHIVE_KEY", &"ab".repeat(32)),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(
        e.contains("ABWS_ARCHIVE_KEY") && e.contains("ABWS_ARCHIVE_PASSWORD"),
        "{e}"
    );
    let result: Value =
        serde_json::from_str(&ok(close(&[("ABWS_ARCHIVE_PASSWORD", "s3cret pass")]))).unwrap();
    assert!(result["pdfs_filed"].as_u64().unwrap() > 0, "{result}");
    let archive = result["archive_path"].as_str().unwrap().to_string();
    assert!(std::fs::read(&archive).unwrap().starts_with(b"ABWSPWD1"));
    let o = close(&[("ABWS_ARCHIVE_PASSWORD", "another pass")]);
    refused(&o, "archive_password");

    let plain = dir.join("plain.zip");
    let plain_s = plain.to_str().unwrap();
    let decrypt = |more: &[&str], env: &[(&str, &str)]| {
        sb.abws_with(&with(&["decrypt", &archive, "-o", plain_s], more), env)
    };
    ok(decrypt(&[], &[("ABWS_ARCHIVE_PASSWORD", "s3cret pass")]));
    let zip = std::fs::read(&plain).unwrap();
    assert!(zip.starts_with(b"PK\x03\x04"));
    assert_eq!(
        zip.windows(4).filter(|w| w == b"%PDF").count() as u64,
        result["pdfs_filed"].as_u64().unwrap()
    );
    std::fs::remove_file(&plain).unwrap();
    let pw_file = dir.join("password");
    std::fs::write(&pw_file, "s3cret pass\n").unwrap();
    ok(decrypt(
        &["--password-file", pw_file.to_str().unwrap()],
        &[],
    ));
    assert_eq!(std::fs::read(&plain).unwrap(), zip);
    // A key for a password-sealed file: the password is named; a wrong one: exit 1.
    let o = decrypt(&[], &[("ABWS_DOCUMENT_KEY", &"ab".repeat(32))]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("ABWS_ARCHIVE_PASSWORD"),
        "{}",
        stderr(&o)
    );
    let o = decrypt(&[], &[("ABWS_ARCHIVE_PASSWORD", "s3cret pas")]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("password is wrong"), "{}", stderr(&o));
    std::fs::remove_dir_all(&dir).unwrap();
}
