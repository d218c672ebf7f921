//! A subcommand per operation: its flags from the parameter struct's description (the
//! parameters' own snake_case names in kebab case, help from their doc lines), the
//! arguments object built from the flags given, and the call (or, with `--all`, every page
//! of a listing) through the dispatch by name the bindings use.

use clap::{Arg, ArgAction, ArgMatches, Command};

use abws::describe::{ParamInfo, ParamsInfo, Ty};
use abws::operations::Operation;

use crate::output::Sink;
use crate::{kebab, Fail};

/// How a parameter is given on the command line.
#[derive(Clone, Copy)]
enum Shape {
    /// One value (a string, a number, an amount, a date-time, an enum's value).
    Scalar(Ty),
    /// `true` or `false`.
    Bool,
    /// A repeatable flag, one value each time.
    List(Ty),
    /// A JSON value (a nested object, a list of objects).
    Json,
}

fn shape(ty: Ty) -> Shape {
    let scalar = |t: Ty| {
        matches!(
            t,
            Ty::Str | Ty::Int | Ty::Float | Ty::Decimal | Ty::DateTimeArg | Ty::Enum(_)
        )
    };
    match ty {
        Ty::Bool => Shape::Bool,
        Ty::List(t) if scalar(t()) => Shape::List(t()),
        t if scalar(t) => Shape::Scalar(t),
        _ => Shape::Json,
    }
}

/// The parameter struct of a row.
pub(crate) fn params_of(op: &Operation) -> &'static ParamsInfo {
    match (op.params)() {
        Ty::Params(p) => p,
        _ => unreachable!("every operation's parameters are a params! struct"),
    }
}

/// The subcommand of an operation.
pub(crate) fn command(op: &'static Operation) -> Command {
    let p = params_of(op);
    let mut c = Command::new(kebab(op.name))
        .about(op.doc)
        .long_about(format!(
            "{}\n\n{} {} (operationId {})",
            op.doc.trim(),
            op.method,
            op.path,
            op.id
        ));
    c = add_params(c, p);
    if let Some(pager) = op.pager {
        c = c.arg(
            Arg::new("all")
                .long("all")
                .action(ArgAction::SetTrue)
                .help(format!(
                "Follow every page (the items of `{}` of each page); without it, the first page",
                pager.items
            )),
        );
    }
    c
}

/// Adds a flag for every parameter of `p`. A nested parameter struct (createReport's
/// `report_options`) is a JSON flag and, besides, a flag for each of its own parameters
/// (`--invoice-id`), as the Python keywords of `fetch_pdf` are.
pub(crate) fn add_params(mut c: Command, p: &'static ParamsInfo) -> Command {
    for f in p.fields {
        c = c.arg(param_arg(f, f.name, ""));
        if let Some(q) = nested(f) {
            for g in q.fields {
                let id = nested_id(f, g);
                c = c.arg(param_arg(g, leak(id), f.name));
            }
        }
    }
    c
}

/// The parameter struct nested in `f` whose parameters are flags of their own: each a
/// single value, none named as a parameter beside it.
fn nested(f: &ParamInfo) -> Option<&'static ParamsInfo> {
    match (f.ty)() {
        Ty::Params(q)
            if q.fields
                .iter()
                .all(|g| !matches!(shape((g.ty)()), Shape::Json)) =>
        {
            Some(q)
        }
        _ => None,
    }
}

fn nested_id(f: &ParamInfo, g: &ParamInfo) -> String {
    format!("{}.{}", f.name, g.name)
}

/// An argument id for the life of the program (clap's ids are `&'static str`; the
/// command is built once a run).
fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

fn param_arg(f: &ParamInfo, id: &'static str, parent: &str) -> Arg {
    let doc = f.doc.trim();
    let first = doc.lines().next().unwrap_or("").trim();
    let mut notes = Vec::new();
    if f.required {
        notes.push("required".to_string());
    }
    if !parent.is_empty() {
        notes.push(format!("in {parent}"));
    }
    if nested(f).is_some() {
        notes.push("or give its parameters' flags".into());
    }
    let ty = (f.ty)();
    let (value, action) = match shape(ty) {
        Shape::Scalar(t) => (value_name(t), ArgAction::Set),
        Shape::Bool => ("true|false", ArgAction::Set),
        Shape::List(t) => {
            notes.push("repeat the flag for several".into());
            (value_name(t), ArgAction::Append)
        }
        Shape::Json => {
            notes.push("a JSON value".into());
            ("JSON", ArgAction::Set)
        }
    };
    let known = match ty {
        Ty::Enum(e) => Some(e),
        Ty::List(t) => match t() {
            Ty::Enum(e) => Some(e),
            _ => None,
        },
        _ => None,
    };
    if let Some(e) = known {
        notes.push(format!("one of {}", e.known.join(", ")));
    }
    let note = if notes.is_empty() {
        String::new()
    } else {
        format!(" [{}]", notes.join("; "))
    };
    let mut arg = Arg::new(id)
        .long(kebab(f.name))
        .value_name(value)
        .action(action)
        .help(format!("{first}{note}"));
    if doc.contains('\n') {
        arg = arg.long_help(format!("{doc}{note}"));
    }
    if matches!(shape(ty), Shape::Bool) {
        arg = arg.value_parser(["true", "false"]);
    }
    arg
}

fn value_name(t: Ty) -> &'static str {
    match t {
        Ty::Int => "INT",
        Ty::Float => "NUMBER",
        Ty::Decimal => "DECIMAL",
        Ty::DateTimeArg => "DATETIME",
        Ty::Enum(_) => "VALUE",
        _ => "TEXT",
    }
}

/// The arguments object of the flags given, as JSON text. Numbers and amounts go as
/// the text given (exact; never through a float); what is not one goes as a string, for
/// the core to refuse with its own message naming the parameter.
pub(crate) fn args_json(p: &ParamsInfo, m: &ArgMatches) -> Result<String, Fail> {
    object_json(p, m, &|f| f.name.to_string())
}

fn object_json(
    p: &ParamsInfo,
    m: &ArgMatches,
    id: &dyn Fn(&ParamInfo) -> String,
) -> Result<String, Fail> {
    let mut out = String::from("{");
    for f in p.fields {
        let sub = match nested(f) {
            Some(q) => object_json(q, m, &|g| nested_id(f, g))?,
            None => "{}".into(),
        };
        let values: Vec<&String> = m
            .try_get_many::<String>(&id(f))
            .ok()
            .flatten()
            .map(|v| v.collect())
            .unwrap_or_default();
        let raw = match (values.is_empty(), sub == "{}") {
            (true, true) => continue,
            (true, false) => sub,
            (false, false) => {
                return Err(Fail::Usage(format!(
                    "give --{} or the flags of its parameters, not both",
                    kebab(f.name)
                )))
            }
            (false, true) => value_json(f, &values)?,
        };
        if out.len() > 1 {
            out.push(',');
        }
        out.push_str(&serde_json::Value::from(f.name).to_string());
        out.push(':');
        out.push_str(&raw);
    }
    out.push('}');
    Ok(out)
}

fn value_json(f: &ParamInfo, values: &[&String]) -> Result<String, Fail> {
    Ok(match shape((f.ty)()) {
        Shape::Scalar(t) => scalar(t, values[0]),
        Shape::Bool => values[0].clone(),
        Shape::List(t) => {
            let items: Vec<String> = values.iter().map(|v| scalar(t, v)).collect();
            format!("[{}]", items.join(","))
        }
        Shape::Json => {
            serde_json::from_str::<&serde_json::value::RawValue>(values[0]).map_err(|e| {
                abws::Error::validation(
                    f.name,
                    format!("--{} takes a JSON value: {e}", kebab(f.name)),
                )
            })?;
            values[0].clone()
        }
    })
}

fn scalar(t: Ty, text: &str) -> String {
    let number = match t {
        Ty::Int => text.parse::<i64>().is_ok(),
        Ty::Float => text.parse::<f64>().is_ok_and(f64::is_finite),
        Ty::Decimal => {
            !text.contains(['e', 'E', '+', ' '])
                && text.parse::<rust_decimal::Decimal>().is_ok()
                && !text.starts_with('.')
                && !text.ends_with('.')
        }
        _ => false,
    };
    if number {
        text.to_string()
    } else {
        serde_json::Value::from(text).to_string()
    }
}

/// Runs the operation `op` with the flags of `m`, writing its result.
pub(crate) fn run(op: &'static Operation, root: &ArgMatches, m: &ArgMatches) -> Result<(), Fail> {
    let args = args_json(params_of(op), m)?;
    let client = crate::client(root, m)?;
    let format = *m.get_one::<crate::Format>("output").expect("has a default");
    let all = m.get_flag_opt("all");
    let mut sink = Sink::new(format, op.pager.map(|p| p.items), all);
    if all {
        let pager = op.pager.expect("--all is a flag of listings only");
        let dynamic = abws::operations::dynamic_pager(pager.name)
            .expect("every pager of the table has its dispatch");
        let mut pages = dynamic.pager(&client.inner()?, &args)?;
        while let Some(page) = abws::blocking::block_on(pages.next_page())? {
            sink.page(&*page)?;
        }
        sink.finish()
    } else {
        let result = client.call_json(op.name, &args)?;
        sink.page(&*result)?;
        sink.finish()
    }
}

trait FlagOpt {
    fn get_flag_opt(&self, id: &str) -> bool;
}

impl FlagOpt for ArgMatches {
    /// A flag's value; false where the subcommand has no such flag.
    fn get_flag_opt(&self, id: &str) -> bool {
        matches!(self.try_get_one::<bool>(id), Ok(Some(true)))
    }
}
