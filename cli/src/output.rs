//! Writing results: `json` (the result as the service sends it: with `--all`, one array
//! of every page's items), `jsonl` (an item a line), `csv` (a header and a row per item,
//! nested objects flattened into dotted columns as `to_pandas` does in Python, amounts
//! exactly as received) and `table` (the same rows, aligned).

use std::collections::HashMap;
use std::io::Write;

use clap::builder::PossibleValue;
use clap::ValueEnum;
use serde_json::value::RawValue;

use abws::node::{Node, ObjectView};
use abws::operation::Output;

use crate::Fail;

/// The output's format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// The result's JSON.
    Json,
    /// One JSON value a line: a listing's items, else the result.
    Jsonl,
    /// A header and a row per item.
    Csv,
    /// The rows of `Csv`, aligned for a terminal.
    Table,
}

impl ValueEnum for Format {
    fn value_variants<'a>() -> &'a [Self] {
        &[Format::Json, Format::Jsonl, Format::Csv, Format::Table]
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(match self {
            Format::Json => "json",
            Format::Jsonl => "jsonl",
            Format::Csv => "csv",
            Format::Table => "table",
        }))
    }
}

/// One row: (column, cell), columns in the order met.
type Row = Vec<(String, String)>;

/// Where the pages of a result go.
pub(crate) struct Sink {
    format: Format,
    /// A listing's page field (snake_case) that holds the items.
    items: Option<&'static str>,
    /// `--all`: `json` writes one array of every page's items.
    all: bool,
    pages: usize,
    /// `json` over several pages: the items written so far.
    json_items: Vec<Box<RawValue>>,
    first_json: Option<String>,
    rows: Vec<Row>,
}

impl Sink {
    pub(crate) fn new(format: Format, items: Option<&'static str>, all: bool) -> Sink {
        Sink {
            format,
            items,
            all,
            pages: 0,
            json_items: Vec::new(),
            first_json: None,
            rows: Vec::new(),
        }
    }

    /// Takes one page (or the result of an operation that is not a listing).
    pub(crate) fn page(&mut self, out: &dyn Output) -> Result<(), Fail> {
        self.pages += 1;
        match self.format {
            Format::Json => {
                let text = out.to_json()?;
                if self.pages == 1 {
                    self.first_json = Some(text.clone());
                }
                if self.all {
                    self.json_items.extend(raw_items(out, &text, self.items)?);
                }
            }
            Format::Jsonl => {
                let text = out.to_json()?;
                let mut w = std::io::stdout().lock();
                match self.items {
                    Some(_) => {
                        for item in raw_items(out, &text, self.items)? {
                            writeln!(w, "{}", item.get())?;
                        }
                    }
                    None => writeln!(w, "{text}")?,
                }
                w.flush()?;
            }
            Format::Csv | Format::Table => {
                let node = out.to_node();
                match self.items.and_then(|name| field(node, name)) {
                    Some(Node::List(list)) => list.each(&mut |item| self.rows.push(row(item))),
                    Some(_) => {}
                    None => match node {
                        Node::List(list) => list.each(&mut |item| self.rows.push(row(item))),
                        other => self.rows.push(row(other)),
                    },
                }
            }
        }
        Ok(())
    }

    /// Writes what is still held.
    pub(crate) fn finish(self) -> Result<(), Fail> {
        let mut w = std::io::stdout().lock();
        match self.format {
            Format::Json if self.all => {
                let items: Vec<&str> = self.json_items.iter().map(|i| i.get()).collect();
                writeln!(w, "[{}]", items.join(","))?;
            }
            Format::Json => writeln!(w, "{}", self.first_json.unwrap_or_default())?,
            Format::Jsonl => {}
            Format::Csv => {
                let (columns, cells) = table(&self.rows);
                write_rows(&mut w, &columns, &cells, |cells| {
                    let quoted: Vec<String> = cells.iter().map(|c| csv_cell(c)).collect();
                    quoted.join(",")
                })?;
            }
            Format::Table => {
                let (columns, cells) = table(&self.rows);
                let mut widths: Vec<usize> = columns.iter().map(|c| c.chars().count()).collect();
                for r in &cells {
                    for (i, c) in r.iter().enumerate() {
                        widths[i] = widths[i].max(c.chars().count());
                    }
                }
                let line = |cells: &[&str]| {
                    let padded: Vec<String> = cells
                        .iter()
                        .zip(&widths)
                        .map(|(c, w)| format!("{c:<w$}"))
                        .collect();
                    padded.join("  ").trim_end().to_string()
                };
                write_rows(&mut w, &columns, &cells, line)?;
            }
        }
        w.flush()?;
        Ok(())
    }
}

/// The header line, then a line per row.
fn write_rows(
    w: &mut impl Write,
    columns: &[String],
    cells: &[Vec<&str>],
    line: impl Fn(&[&str]) -> String,
) -> std::io::Result<()> {
    let header: Vec<&str> = columns.iter().map(String::as_str).collect();
    writeln!(w, "{}", line(&header))?;
    for r in cells {
        writeln!(w, "{}", line(r))?;
    }
    Ok(())
}

/// The columns of every row (in the order met) and each row's cells under them.
fn table(rows: &[Row]) -> (Vec<String>, Vec<Vec<&str>>) {
    let mut columns: Vec<String> = Vec::new();
    let mut index: HashMap<&str, usize> = HashMap::new();
    for r in rows {
        for (c, _) in r {
            if !index.contains_key(c.as_str()) {
                index.insert(c, columns.len());
                columns.push(c.clone());
            }
        }
    }
    let cells = rows
        .iter()
        .map(|r| {
            let mut cells = vec![""; columns.len()];
            for (c, v) in r {
                cells[index[c.as_str()]] = v;
            }
            cells
        })
        .collect();
    (columns, cells)
}

fn csv_cell(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

/// The value of a model's declared field (by its snake_case name).
fn field<'a>(node: Node<'a>, name: &str) -> Option<Node<'a>> {
    let Node::Object(o) = node else {
        return None;
    };
    let at = o.fields().iter().position(|f| f.name == name)?;
    let mut found = None;
    let mut i = 0;
    o.each_field(&mut |n| {
        if i == at {
            found = Some(n);
        }
        i += 1;
    });
    found
}

/// A page's items, each as the service sent it (from the page's JSON text).
fn raw_items(
    out: &dyn Output,
    text: &str,
    items: Option<&str>,
) -> Result<Vec<Box<RawValue>>, Fail> {
    let wire = match (out.to_node(), items) {
        (Node::Object(o), Some(name)) => o.fields().iter().find(|f| f.name == name).map(|f| f.wire),
        _ => None,
    };
    let Some(wire) = wire else {
        return Ok(vec![
            RawValue::from_string(text.to_string()).map_err(json_error)?
        ]);
    };
    let mut page: HashMap<String, Box<RawValue>> =
        serde_json::from_str(text).map_err(json_error)?;
    match page.remove(wire) {
        Some(list) if list.get() != "null" => {
            Ok(serde_json::from_str(list.get()).map_err(json_error)?)
        }
        _ => Ok(Vec::new()),
    }
}

fn json_error(e: serde_json::Error) -> Fail {
    Fail::Lib(abws::Error::internal(format!(
        "the result's JSON could not be read back: {e}"
    )))
}

/// An item as one row: a column per field of its model (snake_case), nested models and
/// amounts as dotted columns (`total_amount.amount`, `total_amount.currency_code`), lists
/// and maps as JSON text.
fn row(node: Node<'_>) -> Row {
    let mut out = Vec::new();
    flatten(node, "", &mut out);
    out
}

fn flatten(node: Node<'_>, prefix: &str, out: &mut Row) {
    let name = |field: &str| format!("{prefix}{field}");
    match node {
        Node::Object(o) => {
            let fields = o.fields();
            let mut i = 0;
            o.each_field(&mut |n| {
                flatten(n, &format!("{prefix}{}.", fields[i].name), out);
                i += 1;
            });
            for (wire, raw) in o.extra().iter() {
                let cell = serde_json::from_str::<String>(raw).unwrap_or_else(|_| raw.to_string());
                out.push((name(&abws::client::snake_case(wire)), cell));
            }
        }
        Node::Money(m) => {
            let amount = m.amount.map(|a| a.to_wire_string()).unwrap_or_default();
            out.push((name("amount"), amount));
            out.push((
                name("currency_code"),
                m.currency_code.clone().unwrap_or_default(),
            ));
        }
        leaf => {
            let column = prefix.strip_suffix('.').unwrap_or(prefix);
            let column = if column.is_empty() { "value" } else { column };
            out.push((column.to_string(), cell(leaf)));
        }
    }
}

fn cell(node: Node<'_>) -> String {
    match node {
        Node::Null => String::new(),
        Node::Bool(b) => b.to_string(),
        Node::Int(i) => i.to_string(),
        Node::Str(s) => s.to_string(),
        Node::Decimal(a) => a.to_wire_string(),
        Node::DateTime(t) => t.as_str().to_string(),
        other => {
            let mut s = String::new();
            json(other, &mut s);
            s
        }
    }
}

/// A value as JSON text, amounts exactly as received.
fn json(node: Node<'_>, s: &mut String) {
    let quoted = |t: &str| serde_json::Value::from(t).to_string();
    match node {
        Node::Null => s.push_str("null"),
        Node::Bool(b) => s.push_str(&b.to_string()),
        Node::Int(i) => s.push_str(&i.to_string()),
        Node::Str(t) => s.push_str(&quoted(t)),
        Node::Decimal(a) => s.push_str(&serde_json::to_string(&a).unwrap_or_default()),
        Node::Money(m) => s.push_str(&serde_json::to_string(m).unwrap_or_default()),
        Node::DateTime(t) => s.push_str(&quoted(t.as_str())),
        Node::Raw(r) => s.push_str(r),
        Node::List(l) => {
            s.push('[');
            let mut first = true;
            l.each(&mut |n| {
                if !std::mem::take(&mut first) {
                    s.push(',');
                }
                json(n, s);
            });
            s.push(']');
        }
        Node::Map(m) => {
            s.push('{');
            let mut first = true;
            m.each(&mut |k, n| {
                if !std::mem::take(&mut first) {
                    s.push(',');
                }
                s.push_str(&quoted(k));
                s.push(':');
                json(n, s);
            });
            s.push('}');
        }
        Node::Object(o) => object_json(o, s),
    }
}

fn object_json(o: &dyn ObjectView, s: &mut String) {
    let fields = o.fields();
    s.push('{');
    let mut first = true;
    let mut i = 0;
    o.each_field(&mut |n| {
        if !matches!(n, Node::Null) {
            if !std::mem::take(&mut first) {
                s.push(',');
            }
            s.push_str(&serde_json::Value::from(fields[i].wire).to_string());
            s.push(':');
            json(n, s);
        }
        i += 1;
    });
    for (wire, raw) in o.extra().iter() {
        if !std::mem::take(&mut first) {
            s.push(',');
        }
        s.push_str(&serde_json::Value::from(wire).to_string());
        s.push(':');
        s.push_str(raw);
    }
    s.push('}');
}
