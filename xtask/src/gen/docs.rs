//! The operation lists of the documentation (between generated-section markers in
//! docs/c-api.md and docs/python-api.md), and the text helpers the C generator shares:
//! how a parameter or a result type is described, the parameters of an operation with
//! the required ones first, the notes on the parameter objects the table describes only
//! by name (`Ty::Object`), and the replacement of a marked section in a hand-written file.

use std::fmt::Write as _;

use abws::describe::{ParamInfo, Ty};
use abws::operations::Operation;

use super::{groups, Output};

/// One line of a doc comment made of several (`concat!` of `///` lines).
pub fn one_line(doc: &str) -> String {
    doc.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The text with its first letter in lower case ("One page" → "one page").
pub fn lower_first(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_lowercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}

/// Words wrapped at `width` columns, the first line after `first`, the others after
/// `rest`.
pub fn wrap(text: &str, width: usize, first: &str, rest: &str) -> Vec<String> {
    let mut lines = vec![];
    let mut line = first.to_string();
    let mut empty = true;
    for word in text.split_whitespace() {
        if !empty && line.len() + 1 + word.len() > width {
            lines.push(line);
            line = rest.to_string();
            empty = true;
        }
        if !empty {
            line.push(' ');
        }
        line.push_str(word);
        empty = false;
    }
    lines.push(line);
    lines
}

/// A parameter's JSON type, as the C documentation names it.
pub fn json_type(ty: Ty) -> String {
    match ty {
        Ty::Str => "string".into(),
        Ty::Int => "integer".into(),
        Ty::Float => "number".into(),
        Ty::Bool => "boolean".into(),
        Ty::Decimal => "decimal number".into(),
        Ty::Money => "money object".into(),
        Ty::DateTime => "date-time text".into(),
        Ty::DateTimeArg => "ISO 8601 date or date-time text".into(),
        Ty::Raw => "any JSON".into(),
        Ty::Unit => "null".into(),
        Ty::List(t) => format!("array of {}", plural(t())),
        Ty::Map(t) => format!("object of {}", plural(t())),
        Ty::Model(m) => format!("`{}` object", m.name),
        Ty::Enum(e) => format!("string ({})", e.known.join(", ")),
        Ty::OneOf(o) => o
            .variants
            .iter()
            .map(|t| json_type(t()))
            .collect::<Vec<_>>()
            .join(" or "),
        Ty::Params(_) => "object".into(),
        Ty::Object(_) => "object".into(),
    }
}

fn plural(ty: Ty) -> String {
    match ty {
        Ty::Str => "strings".into(),
        Ty::Int => "integers".into(),
        Ty::Float => "numbers".into(),
        Ty::Bool => "booleans".into(),
        Ty::Params(_) | Ty::Object(_) => "objects".into(),
        other => json_type(other),
    }
}

/// A result type's name: the model's, `null` for no content, `[X]` for a list.
pub fn result_name(ty: Ty) -> String {
    match ty {
        Ty::Model(m) => m.name.to_string(),
        Ty::Unit => "null".into(),
        Ty::List(t) => format!("[{}]", result_name(t())),
        other => json_type(other),
    }
}

/// A result type in Python.
pub fn python_type(ty: Ty) -> String {
    match ty {
        Ty::Model(m) => m.name.to_string(),
        Ty::Unit => "None".into(),
        Ty::List(t) => format!("list[{}]", python_type(t())),
        Ty::Str => "str".into(),
        other => json_type(other),
    }
}

/// One parameter of an operation or of a nested object, for the documentation.
#[derive(Clone, Debug)]
pub struct Param {
    pub name: &'static str,
    pub required: bool,
    /// The JSON type's description.
    pub ty: String,
    pub doc: String,
    /// The fields of a nested object (or of the objects of an array).
    pub fields: Vec<Param>,
}

/// The parameters of a parameter type (a `params!` struct, or an object the table knows
/// by name only), required ones first, each group in declaration order.
pub fn params_of(ty: Ty) -> Result<Vec<Param>, String> {
    let mut out = match ty {
        Ty::Params(p) => p.fields.iter().map(param).collect::<Result<Vec<_>, _>>()?,
        Ty::Object(name) => object_note(name)?
            .fields
            .iter()
            .map(|(name, required, doc)| Param {
                name,
                required: *required,
                ty: String::new(),
                doc: doc.to_string(),
                fields: vec![],
            })
            .collect(),
        Ty::Unit => vec![],
        other => return Err(format!("a parameter type must be an object, not {other:?}")),
    };
    out.sort_by_key(|p| !p.required);
    Ok(out)
}

fn param(p: &ParamInfo) -> Result<Param, String> {
    let ty = (p.ty)();
    let inner = match ty {
        Ty::List(t) => t(),
        other => other,
    };
    let fields = match inner {
        Ty::Params(_) | Ty::Object(_) => params_of(inner)?,
        _ => vec![],
    };
    let doc = one_line(p.doc);
    Ok(Param {
        name: p.name,
        required: p.required,
        ty: json_type(ty),
        doc,
        fields,
    })
}

/// What the documentation says about a parameter object the table describes only by
/// name (its serde rules are its own): a sentence and its fields (name, required, doc).
/// `xtask gen` fails on an object without a note, and checks each note's field names
/// against the keys the core's reader accepts (`check_object_notes`).
pub struct ObjectNote {
    pub doc: &'static str,
    pub fields: &'static [(&'static str, bool, &'static str)],
}

pub fn object_note(name: &str) -> Result<&'static ObjectNote, String> {
    static ADD_ITEM: ObjectNote = ObjectNote {
        doc: "Each item: identifiers from product search, a quantity and an optional externalId.",
        fields: &[
            ("product_identifier", true, "The product (ASIN)."),
            (
                "buying_option_identifier",
                true,
                "The offer (buying option) id.",
            ),
            ("quantity", true, "How many."),
            ("external_id", false, "The caller's id of the item."),
        ],
    };
    static MODIFY_ITEM: ObjectNote = ObjectNote {
        doc: "Each item: its id in the cart and its new absolute quantity.",
        fields: &[
            ("item_id", true, "The item's id in the cart."),
            ("quantity", true, "The new quantity (0 removes the item)."),
        ],
    };
    static PHYSICAL_ADDRESS: ObjectNote = ObjectNote {
        doc: "The address fields (the estimation needs full_name, address_line1, city, \
              state_or_region, postal_code and country_code).",
        fields: &[
            ("full_name", true, ""),
            ("address_line1", true, ""),
            ("city", true, ""),
            ("state_or_region", true, ""),
            ("postal_code", true, ""),
            ("country_code", true, ""),
            ("address_line2", false, ""),
            ("phone_number", false, ""),
            ("company_name", false, ""),
            (
                "address_type",
                false,
                "PhysicalAddress (the default, always sent: the published cart model requires it).",
            ),
        ],
    };
    static PLACE_ORDER_REQUEST: ObjectNote = ObjectNote {
        doc: "The order, snake_case keys (the wire's camelCase `externalId` and `lineItems` \
              are accepted too); attributes and expectations in the specification's wire \
              form (`{\"attributeType\": ...}`, `{\"expectationType\": ...}`).",
        fields: &[
            (
                "external_id",
                true,
                "1-255 characters, unique per order; kept identical across retries.",
            ),
            (
                "line_items",
                true,
                "The lines: `external_id` (1-127 characters, unique in the order; digits only \
                 for e-invoicing), `quantity`, `attributes`, `expectations`.",
            ),
            ("attributes", false, "Order attributes (array)."),
            ("expectations", false, "Order expectations (array)."),
            (
                "e_invoicing",
                false,
                "true when the buying group is enabled for e-invoicing: line external_ids \
                 must then be numeric (checked before sending, never sent).",
            ),
        ],
    };
    match name {
        "AddItem" => Ok(&ADD_ITEM),
        "ModifyItem" => Ok(&MODIFY_ITEM),
        "PhysicalAddress" => Ok(&PHYSICAL_ADDRESS),
        "PlaceOrderRequest" => Ok(&PLACE_ORDER_REQUEST),
        other => Err(format!(
            "no documentation note for the parameter object {other}: add one to xtask/src/gen/docs.rs"
        )),
    }
}

/// The snake_case keys the core's reader accepts for an object known by name only (from
/// its "unknown field" error, which lists them).
fn accepted_keys(name: &str) -> Result<Vec<String>, String> {
    use abws::api::{cart, ordering};
    let probe = r#"{"__probe__": 1}"#;
    let err = match name {
        "AddItem" => abws::params::read::<cart::AddItem>(probe).err(),
        "ModifyItem" => abws::params::read::<cart::ModifyItem>(probe).err(),
        "PhysicalAddress" => abws::params::read::<cart::PhysicalAddress>(probe).err(),
        "PlaceOrderRequest" => abws::params::read::<ordering::PlaceOrderRequest>(probe).err(),
        other => return Err(format!("no key probe for {other} in xtask/src/gen/docs.rs")),
    }
    .ok_or_else(|| format!("{name} accepted an unknown key"))?;
    let msg = err.to_string();
    Ok(msg
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|k| *k != "__probe__" && !k.chars().any(|c| c.is_ascii_uppercase()))
        .map(str::to_string)
        .collect())
}

/// Every object note names exactly the keys the core reads.
pub fn check_object_notes() -> Result<(), String> {
    for name in [
        "AddItem",
        "ModifyItem",
        "PhysicalAddress",
        "PlaceOrderRequest",
    ] {
        let mut noted: Vec<String> = object_note(name)?
            .fields
            .iter()
            .map(|f| f.0.to_string())
            .collect();
        let mut keys = accepted_keys(name)?;
        noted.sort();
        keys.sort();
        if noted != keys {
            return Err(format!(
                "the documentation note of {name} names {noted:?}, the core reads {keys:?}: \
                 update xtask/src/gen/docs.rs"
            ));
        }
    }
    Ok(())
}

/// The C function of an operation or pager.
pub fn c_function(group: &str, name: &str) -> String {
    format!("abws_{group}_{name}")
}

/// Replaces the text between `begin` and `end` (marker lines kept) in `text`.
pub fn replace_section(
    path: &str,
    text: &str,
    begin: &str,
    end: &str,
    body: &str,
) -> Result<String, String> {
    let b = text
        .find(begin)
        .ok_or_else(|| format!("{path}: no marker {begin:?}"))?;
    let after_begin = b + begin.len();
    let e = text[after_begin..]
        .find(end)
        .map(|i| i + after_begin)
        .ok_or_else(|| format!("{path}: no marker {end:?} after {begin:?}"))?;
    Ok(format!("{}\n{}{}", &text[..after_begin], body, &text[e..]))
}

/// A file of the workspace as committed.
pub fn read(path: &str) -> Result<String, String> {
    std::fs::read_to_string(crate::root().join(path)).map_err(|e| format!("{path}: {e}"))
}

const BEGIN: &str = "<!-- BEGIN GENERATED: operations (cargo run -p xtask -- gen; do not edit) -->";
const END: &str = "<!-- END GENERATED: operations -->";

/// The parameters of a list, required first: "`a`, `b`; optional: `c`".
fn params_cell(op: &Operation) -> Result<String, String> {
    let params = params_of((op.params)())?;
    let names = |req: bool| {
        params
            .iter()
            .filter(|p| p.required == req)
            .map(|p| format!("`{}`", p.name))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let (req, opt) = (names(true), names(false));
    Ok(match (req.is_empty(), opt.is_empty()) {
        (true, true) => "none".into(),
        (false, true) => req,
        (true, false) => format!("optional: {opt}"),
        (false, false) => format!("{req}; optional: {opt}"),
    })
}

/// The list of every operation: one table for both bindings.
/// The roles an operation needs, as the docs say it (a 403 names them too).
pub fn roles_text(op: &Operation) -> String {
    if op.roles.is_empty() {
        "none named".to_string()
    } else {
        op.roles.join(" + ")
    }
}

fn operations_table() -> Result<String, String> {
    let mut s = String::new();
    s.push_str(
        "Every operation of the operations table (`core/src/operations.rs`), in the order of the\n\
         specification documents. The Python method and the C function take the same\n\
         arguments: Python keyword arguments are the keys of the C `params_json` object.\n\
         Parameters: required first. Results: the model class (Python) or its wire-form JSON\n\
         (C). A pager walks every page of a listing: `client.<group>.iter_...` in Python\n\
         (its items), `abws_<group>_iter_...` in C (its pages). Role: what the business\n\
         account's application needs for it; a 403 that is not an expired token names it.\n\n",
    );
    s.push_str(
        "| operationId | group | Python method | C function | parameters | result | pager | role |\n",
    );
    s.push_str("|---|---|---|---|---|---|---|---|\n");
    for (group, ops) in groups() {
        for op in ops {
            let pager = match op.pager {
                Some(p) => format!(
                    "`{}` (items: `{}`); `{}`",
                    p.name,
                    p.items,
                    c_function(group, p.name)
                ),
                None => String::new(),
            };
            writeln!(
                s,
                "| `{}` | `{}` | `{}` | `{}` | {} | `{}` | {} | {} |",
                op.id,
                group,
                op.name,
                c_function(group, op.name),
                params_cell(op)?,
                python_type((op.output)()),
                pager,
                roles_text(op)
            )
            .unwrap();
        }
    }
    Ok(s)
}

pub fn outputs() -> Result<Vec<Output>, String> {
    check_object_notes()?;
    let table = operations_table()?;
    let mut out = vec![];
    for path in ["docs/c-api.md", "docs/python-api.md"] {
        let text = read(path)?;
        out.push(Output::new(
            path,
            replace_section(path, &text, BEGIN, END, &table)?,
        ));
    }
    Ok(out)
}
