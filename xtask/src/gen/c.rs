//! The C entry points (bindings-c/src/ops/generated.rs: one exported function per
//! operation and per pager, and one per convenience that answers with JSON, each with the
//! doc block the header shows) and the C++ group classes of include/abws.hpp (the section
//! between its generated-section markers).
//!
//! The conveniences come from the core's description of them
//! (`abws::api::conveniences::CONVENIENCES`): those of the `Json` shape get generated C
//! functions (their bodies are bindings-c/src/ops/conveniences.rs's functions of the same
//! name, their C text is `JSON_CONVENIENCES` below); those that stream or write a file keep
//! hand-written ones (bindings-c/src/download.rs: callbacks, cancellation, the file's key;
//! docs/decisions/025-c-surface.md), and the generator fails when one of them is no longer
//! there. Every convenience gets its C++ method.

use std::fmt::Write as _;
use std::io::Write as _;
use std::process::{Command, Stdio};

use abws::api::conveniences::{Shape, CONVENIENCES};
use abws::describe::Ty;
use abws::operations::Operation;

use super::docs::{
    c_function, lower_first, one_line, params_of, read, replace_section, result_name, wrap, Param,
};
use super::{groups, Output};

const GENERATED_RS: &str = "bindings-c/src/ops/generated.rs";
const DOWNLOAD_RS: &str = "bindings-c/src/download.rs";
const HPP: &str = "include/abws.hpp";
const HPP_BEGIN: &str =
    "// BEGIN GENERATED: group classes (cargo run -p xtask -- gen; do not edit)";
const HPP_END: &str = "// END GENERATED: group classes";

/// Width of the generated doc comments.
const WIDTH: usize = 92;

/// The C text of a convenience of the `Json` shape, whose function is generated.
struct JsonConvenience {
    /// Its name in `CONVENIENCES`.
    name: &'static str,
    /// Its doc before the rules, line by line: what it does, its params, its result.
    doc: &'static str,
    /// The sentence of its `_cancellable` form on the deadline, when it has that form.
    cancellable: Option<&'static str>,
}

const JSON_CONVENIENCES: &[JsonConvenience] = &[
    JsonConvenience {
        name: "invoice_details_for",
        doc: "\
The invoice data of any number of order line items with the fewest requests: batches
of 25, one representative per (order, shipment), since line items of one shipment
share their invoice.

Params: `line_items` (required array of `{\"order_id\", \"order_line_item_id\",
\"shipment_id\"}`).

Result: a JSON array with one `{\"orderLineItem\":{...},\"invoiceDetails\":[...]}` per
input, in input order.",
        cancellable: None,
    },
    JsonConvenience {
        name: "wait_for_report",
        doc: "\
Polls getReport until the report ends. DONE returns the report (with its
`reportDocumentId`); CANCELLED and FATAL give `ABWS_STATUS_REPORT_FAILED`; the end of
`timeout` gives `ABWS_STATUS_TIMEOUT`. To cancel the wait from another thread, use
`abws_documents_wait_for_report_cancellable`.

Params: `report_id` (required), `poll_interval` (seconds, default 15), `timeout`
(seconds, default 1800: 30 minutes), `no_timeout` (true: no bound; not with `timeout`).

Result: the final report in wire form.",
        cancellable: Some(
            "The deadline is the `timeout` key of the params, as there (default 30 minutes).",
        ),
    },
];

/// The rules of a `Json` convenience's function, after its doc.
const CONVENIENCE_RULES: &str = "\
Ownership: on success `*result_json` receives a new string the caller frees with
`abws_string_free`; on failure it is not written and `*err` (when `err` is not NULL)
receives an error the caller frees with `abws_error_free`.
NULL `client`, `params_json` or `result_json`: `ABWS_STATUS_NULL_ARGUMENT`; a freed
client: `ABWS_STATUS_INVALID_HANDLE`; bad params: `ABWS_STATUS_INVALID_JSON` or
`ABWS_STATUS_VALIDATION` naming the key, before any request.
Thread safety: any thread, concurrently on one client; blocks until the answer.

# Safety
`params_json` is NULL or a NUL-terminated string; `result_json` and `err` are NULL or
valid for one pointer write.";

/// Width of the `_cancellable` forms' doc comments.
const CONVENIENCE_WIDTH: usize = 86;

/// The C functions of the `Json` conveniences (and their `_cancellable` forms), each a call
/// of `call_convenience` with its body; fails when a `Json` convenience has no C text here,
/// or one that streams or writes a file has no function in download.rs.
fn convenience_functions(s: &mut String) -> Result<(), String> {
    for c in CONVENIENCES {
        let f = c_function(c.group, c.name);
        if c.shape != Shape::Json {
            let src = read(DOWNLOAD_RS)?;
            if !src.contains(&format!("pub unsafe extern \"C\" fn {f}(")) {
                return Err(format!(
                    "{f} is listed in abws::api::conveniences::CONVENIENCES but not defined in \
                     {DOWNLOAD_RS}"
                ));
            }
            continue;
        }
        let text = JSON_CONVENIENCES
            .iter()
            .find(|j| j.name == c.name)
            .ok_or_else(|| {
                format!("{f} has no C text in xtask/src/gen/c.rs's JSON_CONVENIENCES")
            })?;
        doc_block(s, rules(text.doc), CONVENIENCE_RULES);
        convenience_function(s, &f, "", c.name);
        if let Some(deadline) = text.cancellable {
            let mut lines = wrap(
                &format!(
                    "`{f}` that another thread can end at once with `abws_cancel_signal(cancel)`: \
                     the call then returns `ABWS_STATUS_CANCELLED`. `cancel` may be NULL (not \
                     cancellable). {deadline}"
                ),
                CONVENIENCE_WIDTH,
                "",
                "",
            );
            lines.push(String::new());
            lines.extend(wrap(
                &format!(
                    "Ownership, NULL behaviour and thread rules: as `{f}`; a freed or foreign \
                     `cancel`: `ABWS_STATUS_INVALID_HANDLE`. `cancel` stays the caller's."
                ),
                CONVENIENCE_WIDTH,
                "",
                "",
            ));
            lines.extend(["".into(), "# Safety".into(), format!("As `{f}`.")]);
            s.push('\n');
            doc_comment(&lines, s);
            convenience_function(s, &format!("{f}_cancellable"), "cancel", c.name);
        }
    }
    Ok(())
}

/// One exported convenience function `f` (`cancel`: the name of its cancellation handle
/// parameter, or empty for none) calling the body `name` of ops/conveniences.rs.
fn convenience_function(s: &mut String, f: &str, cancel: &str, name: &str) {
    let (cancel_param, cancel_arg) = if cancel.is_empty() {
        (String::new(), "std::ptr::null()")
    } else {
        (format!("\x20   {cancel}: *const abws_cancel,\n"), cancel)
    };
    write!(
        s,
        "#[no_mangle]\n\
         pub unsafe extern \"C\" fn {f}(\n\
         \x20   client: *const abws_client,\n\
         \x20   params_json: *const c_char,\n\
         {cancel_param}\
         \x20   result_json: *mut *mut c_char,\n\
         \x20   err: *mut *mut abws_error,\n\
         ) -> abws_status {{\n\
         \x20   // SAFETY: forwarded contract.\n\
         \x20   unsafe {{ call_convenience(client, params_json, {cancel_arg}, result_json, err, conveniences::{name}) }}\n\
         }}\n"
    )
    .unwrap();
}

/// The doc lines of a parameter list (`- `name` (required; string): doc`), nested
/// objects indented.
fn param_lines(params: &[Param], indent: usize, out: &mut Vec<String>) {
    let pad = " ".repeat(indent);
    for p in params {
        let mut text = format!(
            "`{}` ({}{}{})",
            p.name,
            if p.required { "required" } else { "optional" },
            if p.ty.is_empty() { "" } else { "; " },
            p.ty
        );
        if !p.doc.is_empty() {
            write!(text, ": {}", p.doc).unwrap();
        }
        out.extend(wrap(&text, WIDTH, &format!("{pad}- "), &format!("{pad}  ")));
        param_lines(&p.fields, indent + 2, out);
    }
}

/// The first lines of an operation's doc block: what it does, its parameters, its result.
fn op_summary(group: &str, op: &Operation) -> Result<Vec<String>, String> {
    let mut lines = wrap(
        &format!("{}: {}", op.id, lower_first(op.doc)),
        WIDTH,
        "",
        "",
    );
    lines.push(String::new());
    let params = params_of((op.params)())?;
    match (op.params)() {
        Ty::Object(name) => {
            let note = super::docs::object_note(name)?;
            lines.extend(wrap(
                &format!(
                    "Params (`params_json`, a JSON object; any other key is refused, naming \
                     it): {}",
                    note.doc
                ),
                WIDTH,
                "",
                "",
            ));
        }
        _ if params.is_empty() => lines.push("Params: none (`{}`); any key is refused.".into()),
        _ => lines.extend(wrap(
            "Params (`params_json`, a JSON object with these keys; any other key is refused, \
             naming it):",
            WIDTH,
            "",
            "",
        )),
    }
    param_lines(&params, 0, &mut lines);
    lines.push(String::new());
    let output = (op.output)();
    let result = match output {
        Ty::Unit => {
            "Result (`*result_json`): `null` (the service answers with no content).".to_string()
        }
        Ty::Model(m) => format!(
            "Result (`*result_json`): `{}` in wire form (the service's camelCase JSON, unknown \
             fields and `null`s kept): {}",
            m.name,
            lower_first(&one_line(m.doc))
        ),
        other => format!(
            "Result (`*result_json`): `{}` in wire form.",
            result_name(other)
        ),
    };
    let mut result = result;
    if let Some(p) = op.pager {
        write!(
            result,
            " One page: `{}` walks every page.",
            c_function(group, p.name)
        )
        .unwrap();
    }
    lines.extend(wrap(&result, WIDTH, "", ""));
    Ok(lines)
}

const OP_RULES: &str = "\
Ownership: on success `*result_json` receives a new string the caller frees with
`abws_string_free`; on failure it is not written and `*err` (when `err` is not NULL)
receives an error the caller frees with `abws_error_free`.
NULL `client`, `params_json` or `result_json`: `ABWS_STATUS_NULL_ARGUMENT`; a freed
client: `ABWS_STATUS_INVALID_HANDLE`; bad params: `ABWS_STATUS_INVALID_UTF8`,
`ABWS_STATUS_INVALID_JSON` or `ABWS_STATUS_VALIDATION` naming the parameter's path
(`line_items[0].quantity`), before any request.
Thread safety: any thread, concurrently on one client; blocks until the answer.

# Safety
`params_json` is NULL or a NUL-terminated string; `result_json` and `err` are NULL or
valid for one pointer write.";

const PAGER_RULES: &str = "\
Ownership: on success `*pager` receives a new pager the caller reads with
`abws_pager_next` and frees with `abws_pager_free`; on failure it is not written and
`*err` (when `err` is not NULL) receives an error the caller frees with
`abws_error_free`. No request is sent until the first `abws_pager_next`.
NULL `client`, `params_json` or `pager`: `ABWS_STATUS_NULL_ARGUMENT`; a freed client:
`ABWS_STATUS_INVALID_HANDLE`; bad params: `ABWS_STATUS_INVALID_UTF8`,
`ABWS_STATUS_INVALID_JSON` or `ABWS_STATUS_VALIDATION` naming the parameter's path.
Thread safety: any thread, concurrently on one client.

# Safety
`params_json` is NULL or a NUL-terminated string; `pager` and `err` are NULL or valid
for one pointer write.";

/// The exported function `f` with its doc block (`lines`, then the rules `rules_text`) and
/// its `_with_options` variant with its doc block: each calls `call_dynamic` with
/// `body(name)` (`Op`, `Pager`); `out` is the output parameter (`result_json: *mut *mut
/// c_char`).
fn entry_points(
    s: &mut String,
    lines: Vec<String>,
    rules_text: &str,
    f: &str,
    body: &str,
    name: &str,
    out: &str,
) {
    doc_block(s, lines, rules_text);
    let out_name = out.split(':').next().unwrap_or(out);
    for (suffix, options_param, options) in [
        ("", "", "std::ptr::null()"),
        (
            "_with_options",
            "\x20   options: *const abws_call_options,\n",
            "options",
        ),
    ] {
        if !suffix.is_empty() {
            s.push('\n');
            doc_comment(&with_options_doc(f, out_name), s);
        }
        write!(
            s,
            "#[no_mangle]\n\
             pub unsafe extern \"C\" fn {f}{suffix}(\n\
             \x20   client: *const abws_client,\n\
             \x20   params_json: *const c_char,\n\
             {options_param}\
             \x20   {out},\n\
             \x20   err: *mut *mut abws_error,\n\
             ) -> abws_status {{\n\
             \x20   // SAFETY: forwarded contract.\n\
             \x20   unsafe {{ call_dynamic({body}({name:?}), client, params_json, {options}, {out_name}, err) }}\n\
             }}\n"
        )
        .unwrap();
    }
}

/// The doc block of the `_with_options` variant of `f` (whose output is `out`).
fn with_options_doc(f: &str, out: &str) -> Vec<String> {
    let mut lines = wrap(
        &format!(
            "`{f}` with per-call options: `options` (NULL, or a field left 0: the client's \
             setting) gives the timeout of the whole call and the attempts allowed; a bad \
             value is `ABWS_STATUS_VALIDATION` naming it, before any request. Everything \
             else as `{f}`."
        ),
        WIDTH,
        "",
        "",
    );
    lines.push(String::new());
    lines.push("# Safety".into());
    lines.extend(wrap(
        &format!(
            "`params_json` is NULL or a NUL-terminated string; `options` is NULL or points to \
             a readable `abws_call_options`; `{out}` and `err` are NULL or valid for one \
             pointer write."
        ),
        WIDTH,
        "",
        "",
    ));
    lines
}

/// A new item's doc comment: `lines`, a blank line, the rules `rules_text`.
fn doc_block(s: &mut String, mut lines: Vec<String>, rules_text: &str) {
    lines.push(String::new());
    lines.extend(rules(rules_text));
    s.push('\n');
    doc_comment(&lines, s);
}

fn doc_comment(lines: &[String], out: &mut String) {
    for l in lines {
        if l.is_empty() {
            out.push_str("///\n");
        } else {
            writeln!(out, "/// {l}").unwrap();
        }
    }
}

fn rules(text: &str) -> Vec<String> {
    text.lines().map(str::to_string).collect()
}

/// The wire name of a page's items field (`line_items` → `lineItems`).
fn items_wire(op: &Operation, items: &str) -> String {
    if let Ty::Model(m) = (op.output)() {
        if let Some(f) = m.fields.iter().find(|f| f.name == items) {
            return f.wire.to_string();
        }
    }
    items.to_string()
}

fn generated_rs() -> Result<String, String> {
    let mut s = String::new();
    s.push_str(
        "//! Generated by `cargo run -p xtask -- gen` from the operations table\n\
         //! (core/src/operations.rs) and the conveniences' description\n\
         //! (core/src/api/conveniences.rs); do not edit. One exported function per convenience\n\
         //! that answers with JSON (its body in `conveniences.rs`), per operation and per pager,\n\
         //! each a shared body of `super` given the body or the operation's name.\n\n\
         use std::ffi::c_char;\n\n\
         use super::{call_convenience, call_dynamic, conveniences, Op, Pager};\n\
         use crate::abws_error;\n\
         use crate::cancel::abws_cancel;\n\
         use crate::client::abws_client;\n\
         use crate::options::abws_call_options;\n\
         use crate::pager::abws_pager;\n\
         use crate::status::abws_status;\n",
    );
    convenience_functions(&mut s)?;
    let mut ops_list = vec![];
    let mut pagers_list = vec![];
    for (group, ops) in groups() {
        for op in &ops {
            let f = c_function(group, op.name);
            let lines = op_summary(group, op)?;
            let out = "result_json: *mut *mut c_char";
            entry_points(&mut s, lines, OP_RULES, &f, "Op", op.name, out);
            ops_list.push(f);
        }
        for op in &ops {
            let Some(p) = op.pager else { continue };
            let f = c_function(group, p.name);
            let single = c_function(group, op.name);
            let page = result_name((op.output)());
            let mut lines = wrap(
                &format!(
                    "A pager over every page of {} (`{single}`): each `abws_pager_next` gives \
                     the next `{page}` in wire form, its items in `{}`.",
                    op.id,
                    items_wire(op, p.items)
                ),
                WIDTH,
                "",
                "",
            );
            lines.push(String::new());
            lines.extend(wrap(&format!("Params: as `{single}`."), WIDTH, "", ""));
            let out = "pager: *mut *mut abws_pager";
            entry_points(&mut s, lines, PAGER_RULES, &f, "Pager", p.name, out);
            pagers_list.push(f);
        }
    }
    s.push_str(
        "\n/// Every generated operation function, by name (for the binding's own tests).\n\
         #[cfg(test)]\n\
         pub(crate) fn operations() -> Vec<(&'static str, super::OpFn)> {\n    vec![\n",
    );
    for f in &ops_list {
        writeln!(s, "        ({f:?}, {f} as super::OpFn),").unwrap();
    }
    s.push_str(
        "    ]\n}\n\n/// Every generated pager constructor, by name (for the binding's own tests).\n\
         #[cfg(test)]\n\
         pub(crate) fn pagers() -> Vec<(&'static str, super::PagerFn)> {\n    vec![\n",
    );
    for f in &pagers_list {
        writeln!(s, "        ({f:?}, {f} as super::PagerFn),").unwrap();
    }
    s.push_str("    ]\n}\n");
    rustfmt(s)
}

/// Formats generated Rust as `cargo fmt` would, so that `cargo fmt --all` leaves it be.
fn rustfmt(src: String) -> Result<String, String> {
    let mut child = Command::new("rustfmt")
        .args(["--edition", "2021", "--emit", "stdout"])
        .current_dir(crate::root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("rustfmt: {e}"))?;
    child
        .stdin
        .take()
        .ok_or("rustfmt: no stdin")?
        .write_all(src.as_bytes())
        .map_err(|e| format!("rustfmt: {e}"))?;
    let out = child
        .wait_with_output()
        .map_err(|e| format!("rustfmt: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "rustfmt failed on the generated code: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    String::from_utf8(out.stdout).map_err(|e| e.to_string())
}

/// The C++ class name of a group (`reconciliation` → `Reconciliation`).
fn class(group: &str) -> String {
    let mut c = group.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}

fn hpp_section() -> Result<String, String> {
    let mut s = String::new();
    let all = groups();
    for (group, ops) in &all {
        let cls = class(group);
        writeln!(
            s,
            "/// The `{group}` operations; get one with `Client::{group}()`. Each method takes\n\
             /// the params JSON of its C function (documented in abws.h) and returns the result\n\
             /// JSON; a failure throws abws::Error.\n\
             class {cls} {{\n \
             public:\n    \
             explicit {cls}(const ClientBase &client) noexcept : client_(client) {{}}"
        )
        .unwrap();
        for op in ops {
            let f = c_function(group, op.name);
            for l in wrap(
                &format!("{} (`{f}`): {}", op.id, lower_first(op.doc)),
                WIDTH,
                "    /// ",
                "    /// ",
            ) {
                writeln!(s, "{l}").unwrap();
            }
            writeln!(
                s,
                "    std::string {}(const std::string &params = \"{{}}\") const {{\n        \
                 return client_.call({f}, params);\n    }}\n    \
                 /// With per-call options (`{f}_with_options`).\n    \
                 std::string {}(const std::string &params, const abws_call_options &options) const {{\n        \
                 return client_.call({f}_with_options, params, options);\n    }}",
                op.name, op.name
            )
            .unwrap();
        }
        for op in ops {
            let Some(p) = op.pager else { continue };
            let f = c_function(group, p.name);
            for l in wrap(
                &format!(
                    "`{f}`: every page of {} as JSON strings (range-for).",
                    op.id
                ),
                WIDTH,
                "    /// ",
                "    /// ",
            ) {
                writeln!(s, "{l}").unwrap();
            }
            writeln!(
                s,
                "    Pager {}(const std::string &params = \"{{}}\") const {{\n        \
                 return client_.pages({f}, params);\n    }}\n    \
                 /// With per-call options for each page (`{f}_with_options`).\n    \
                 Pager {}(const std::string &params, const abws_call_options &options) const {{\n        \
                 return client_.pages({f}_with_options, params, options);\n    }}",
                p.name, p.name
            )
            .unwrap();
        }
        for c in CONVENIENCES.iter().filter(|c| c.group == *group) {
            let (name, doc) = (c.name, c.doc);
            let f = c_function(c.group, name);
            match c.shape {
                Shape::Json => {
                    for l in wrap(&format!("`{f}`: {doc}."), WIDTH, "    /// ", "    /// ") {
                        writeln!(s, "{l}").unwrap();
                    }
                    writeln!(
                        s,
                        "    std::string {name}(const std::string &params = \"{{}}\") const {{\n        \
                         return client_.call({f}, params);\n    }}"
                    )
                    .unwrap();
                }
                Shape::File => {
                    let text = format!("`{f}`: {doc}; returns the PDF's size. Throws abws::Error.");
                    for l in wrap(&text, WIDTH, "    /// ", "    /// ") {
                        writeln!(s, "{l}").unwrap();
                    }
                    writeln!(
                        s,
                        "    std::uint64_t {name}(const std::string &params) const {{\n        \
                         return client_.to_file({f}, params);\n    }}"
                    )
                    .unwrap();
                }
                Shape::Stream => {
                    let text = format!(
                        "`{f}`: {doc}; returns the byte count. An exception thrown by `sink` \
                         stops the download and is rethrown here."
                    );
                    for l in wrap(&text, WIDTH, "    /// ", "    /// ") {
                        writeln!(s, "{l}").unwrap();
                    }
                    writeln!(
                        s,
                        "    template <class Sink>\n    \
                         std::uint64_t {name}(const std::string &params, Sink &&sink) const {{\n        \
                         return client_.stream({f}, params, std::forward<Sink>(sink));\n    }}\n    \
                         /// `{f}` into memory: the document's bytes.\n    \
                         std::string {name}(const std::string &params) const {{\n        \
                         std::string bytes;\n        \
                         {name}(params, [&bytes](const std::uint8_t *data, std::size_t len) {{\n            \
                         bytes.append(reinterpret_cast<const char *>(data), len);\n        \
                         }});\n        \
                         return bytes;\n    }}"
                    )
                    .unwrap();
                }
            }
        }
        s.push_str("\n private:\n    const ClientBase &client_;\n};\n\n");
    }
    s.push_str(
        "/// A client of the service: the RAII handle of `ClientBase` and one accessor per API\n\
         /// group. Move-only; frees the C client. Share one instance between threads (every\n\
         /// method is const and thread-safe); the group objects borrow it.\n\
         class Client : public ClientBase {\n \
         public:\n    \
         using ClientBase::ClientBase;\n",
    );
    for (group, _) in &all {
        writeln!(
            s,
            "    {} {group}() const {{ return {}(*this); }}",
            class(group),
            class(group)
        )
        .unwrap();
    }
    s.push_str("};\n");
    Ok(s)
}

const ERROR_RS: &str = "bindings-c/src/error.rs";
const ERROR_BEGIN: &str =
    "// BEGIN GENERATED: error fields (cargo run -p xtask -- gen; do not edit)";
const ERROR_END: &str = "// END GENERATED: error fields";

/// A field of an `abws_error`, read by its function `abws_error_{name}`.
struct ErrorField {
    name: &'static str,
    /// Text borrowed from the error (else the HTTP status, a number).
    text: bool,
    /// The function's doc, line by line (before the ownership rules of a text).
    doc: &'static str,
}

const ERROR_FIELDS: &[ErrorField] = &[
    ErrorField {
        name: "kind",
        text: true,
        doc: "\
The kind as a stable snake_case name: \"validation\", \"api\", \"page_token_expired\",
\"report_failed\", \"document\", \"outcome_unknown\", \"transport\", \"timeout\", \"auth\",
\"runtime\", \"internal\", \"cancelled\", or for failures of the C interface itself
\"null_argument\", \"invalid_utf8\", \"invalid_json\", \"invalid_handle\", \"callback_aborted\",
\"panic\". (The same text as `abws_status_name` of the error's status.)",
    },
    ErrorField {
        name: "message",
        text: true,
        doc: "\
The human-readable message: what failed and why, naming the parameter for
validation errors and including HTTP status, service code, message, details and
request id for API errors. Never contains secrets.",
    },
    ErrorField {
        name: "http_status",
        text: false,
        doc: "\
The HTTP status of an API error (400, 404, 429, 500, ...), or 0 when no error
response was received (and for a NULL or dead handle). Thread safety: any thread.",
    },
    ErrorField {
        name: "code",
        text: true,
        doc: "\
The service's error code (e.g. \"INVALID_REQUEST_PARAMETER\", \"InvalidInput\"), or \"\"
when the service sent none.",
    },
    ErrorField {
        name: "details",
        text: true,
        doc: "\
The service's error details, or \"\" when it sent none.",
    },
    ErrorField {
        name: "request_id",
        text: true,
        doc: "\
The service's request id (`x-svc-RequestId`) when a response was received, else \"\".",
    },
    ErrorField {
        name: "parameter",
        text: true,
        doc: "\
The parameter (JSON key, possibly a path such as `line_items[0].external_id`) a
validation, NULL, UTF-8 or JSON error is about, else \"\".",
    },
    ErrorField {
        name: "external_id",
        text: true,
        doc: "\
For `ABWS_STATUS_OUTCOME_UNKNOWN`: the externalId of the order (or cart lines) that
may or may not have been applied; else \"\".",
    },
];

/// The rules of a text field's function, after its doc.
const ERROR_TEXT_RULES: &str = "\
Ownership: borrowed from `err`, valid until `abws_error_free(err)`; do not free it.
NULL when `err` is NULL or not a live error. Thread safety: any thread.";

/// The functions of `ERROR_FIELDS`, each with its doc block.
fn error_fields() -> String {
    let mut s = String::new();
    for f in ERROR_FIELDS {
        let (ret, body) = if f.text {
            doc_block(&mut s, rules(f.doc), ERROR_TEXT_RULES);
            let body = format!("text_of(err, |d| d.{}.as_ptr())", f.name);
            ("*const c_char", body)
        } else {
            s.push('\n');
            doc_comment(&rules(f.doc), &mut s);
            let body = format!(
                "boundary_value(0, || lookup(err).map_or(0, |d| d.{}))",
                f.name
            );
            ("u16", body)
        };
        write!(
            s,
            "#[no_mangle]\n\
             pub extern \"C\" fn abws_error_{}(err: *const abws_error) -> {ret} {{\n    {body}\n}}\n",
            f.name
        )
        .unwrap();
    }
    // Between the markers: no blank line after the first, one before the last.
    let mut out = s.trim_start_matches('\n').to_string();
    out.push('\n');
    out
}

const CLIENT_RS: &str = "bindings-c/src/client.rs";
const SETTINGS_BEGIN: &str =
    "// BEGIN GENERATED: settings (cargo run -p xtask -- gen; do not edit)";
const SETTINGS_END: &str = "// END GENERATED: settings";
const ENV_BEGIN: &str = "// BEGIN GENERATED: environment (cargo run -p xtask -- gen; do not edit)";
const ENV_END: &str = "// END GENERATED: environment";

/// The settings list of `abws_client_new`'s doc comment (and so of the header), from the
/// settings' one definition (`abws::settings_json::SETTINGS`).
fn settings_doc() -> String {
    let mut lines = wrap(
        "Settings (snake_case keys; unknown keys are a validation error naming the key; \
         credentials are `client_id` + `client_secret` + `refresh_token`, or `access_token` \
         alone):",
        WIDTH,
        "/// ",
        "/// ",
    );
    for s in abws::settings_json::SETTINGS {
        lines.extend(wrap(
            &format!("`{}`: {}.", s.key, s.doc),
            WIDTH,
            "/// - ",
            "///   ",
        ));
    }
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// The variables `abws_client_from_env` reads, one per setting.
fn environment_doc() -> String {
    let vars: Vec<String> = abws::settings_json::SETTINGS
        .iter()
        .map(|s| format!("`{}` ({})", s.env, s.key))
        .collect();
    let mut text = vars.join(", ");
    text.push_str("; empty ones are ignored; booleans are true/false (or 1/0), timeouts seconds.");
    wrap(&text, WIDTH, "/// ", "/// ")
        .iter()
        .map(|l| format!("{l}\n"))
        .collect()
}

pub fn outputs() -> Result<Vec<Output>, String> {
    let hpp = read(HPP)?;
    let client_rs = read(CLIENT_RS)?;
    let client_rs = replace_section(
        CLIENT_RS,
        &client_rs,
        SETTINGS_BEGIN,
        SETTINGS_END,
        &settings_doc(),
    )?;
    let client_rs = replace_section(
        CLIENT_RS,
        &client_rs,
        ENV_BEGIN,
        ENV_END,
        &environment_doc(),
    )?;
    let error_rs = read(ERROR_RS)?;
    let error_rs = replace_section(ERROR_RS, &error_rs, ERROR_BEGIN, ERROR_END, &error_fields())?;
    Ok(vec![
        Output::new(ERROR_RS, error_rs),
        Output::new(CLIENT_RS, client_rs),
        Output::new(GENERATED_RS, generated_rs()?),
        Output::new(
            HPP,
            replace_section(HPP, &hpp, HPP_BEGIN, HPP_END, &hpp_section()?)?,
        ),
    ])
}
