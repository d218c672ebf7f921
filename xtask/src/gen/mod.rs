//! `xtask gen`: the per-operation code of the bindings, written from the operations table
//! (`abws::operations::ALL`) and the models it reaches. `gen --check` fails on any drift.
//!
//! Each target language has its own module returning the files it owns (path relative to
//! the workspace root, full content). Generated files start with a line saying so.

mod c;
mod conveniences;
mod docs;
mod python;
mod readme;
mod schemas;
mod settings;
mod spec;

use std::path::{Path, PathBuf};

use abws::describe::{Reachable, Ty};
use abws::operations::{Operation, ALL};

/// A generated file: its path from the workspace root and its content.
pub struct Output {
    pub path: PathBuf,
    pub content: String,
}

impl Output {
    #[allow(dead_code)] // for the language generators to come
    pub fn new(path: &str, content: String) -> Output {
        Output {
            path: PathBuf::from(path),
            content,
        }
    }
}

/// A marked section of a hand-written file: the lines between `begin` and `end` are
/// `body` (its last line the indentation of `end`).
pub struct Section {
    pub path: &'static str,
    pub begin: String,
    pub end: String,
    pub body: String,
}

/// The API groups in table order, each with its operations.
#[allow(dead_code)] // for the language generators to come
pub fn groups() -> Vec<(&'static str, Vec<&'static Operation>)> {
    let mut out: Vec<(&'static str, Vec<&'static Operation>)> = vec![];
    for op in ALL.iter().copied() {
        match out.iter_mut().find(|(g, _)| *g == op.group) {
            Some((_, ops)) => ops.push(op),
            None => out.push((op.group, vec![op])),
        }
    }
    out
}

/// Every model, parameter struct and enum the operations reach (results and arguments),
/// plus the extra types the conveniences use.
#[allow(dead_code)] // for the language generators to come
pub fn reachable(extra: &[Ty]) -> Reachable {
    let mut r = Reachable::default();
    for op in ALL.iter() {
        r.walk((op.output)());
        r.walk((op.params)());
    }
    for t in extra {
        r.walk(*t);
    }
    r
}

/// Every generated file (the marked sections of the settings and of the conveniences'
/// Python methods applied last, over what another generator writes of the same file).
pub fn outputs() -> Result<Vec<Output>, String> {
    let mut out = vec![];
    out.extend(python::outputs()?);
    out.extend(c::outputs()?);
    out.extend(docs::outputs()?);
    out.extend(schemas::outputs()?);
    out.extend(readme::outputs()?);
    out.extend(spec::outputs()?);
    for s in settings::sections()
        .into_iter()
        .chain(conveniences::sections()?)
    {
        let i = match out
            .iter()
            .position(|o| o.path.as_path() == Path::new(s.path))
        {
            Some(i) => i,
            None => {
                out.push(Output::new(s.path, docs::read(s.path)?));
                out.len() - 1
            }
        };
        let text = &out[i].content;
        out[i].content = docs::replace_section(s.path, text, &s.begin, &s.end, &s.body)?;
    }
    Ok(out)
}
