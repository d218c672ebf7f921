//! The settings of the Python binding, from their one definition
//! (`abws::settings_json::SETTINGS`): `Client.__init__`'s keywords, the object they make,
//! what pickling keeps (the settings shown plainly), and the docs' constructor: marked
//! sections of hand-written files.

use abws::settings_json::{Kind, Shown, SETTINGS};

use super::docs::wrap;
use super::Section;

const CLIENT_PY: &str = "bindings-python/python/abws/client.py";
const PYTHON_API: &str = "docs/python-api.md";
const WIDTH: usize = 92;

/// Python's markers of a section (`indent`: the markers' and the body's).
fn python(name: &str, indent: usize, lines: impl IntoIterator<Item = String>) -> Section {
    let pad = " ".repeat(indent);
    let mut body: String = lines.into_iter().map(|l| format!("{pad}{l}\n")).collect();
    body.push_str(&pad);
    Section {
        path: CLIENT_PY,
        begin: format!("# BEGIN GENERATED: {name} (cargo run -p xtask -- gen; do not edit)"),
        end: format!("# END GENERATED: {name}"),
        body,
    }
}

/// A setting's Python type.
fn py_type(kind: Kind) -> &'static str {
    match kind {
        Kind::Text => "str",
        Kind::Bool => "bool",
        Kind::Count => "int",
        Kind::Seconds => "float",
    }
}

/// `region` is Python's one positional setting, `"US"` unless given; every other one is
/// keyword-only and absent (the core's default) unless given.
fn keywords() -> Vec<String> {
    let mut lines = vec![];
    for s in SETTINGS {
        if s.key == "region" {
            lines.push("region: str = \"US\",".to_string());
            lines.push("*,".to_string());
        } else {
            lines.push(format!("{}: Optional[{}] = None,", s.key, py_type(s.kind)));
        }
    }
    lines
}

/// The constructor of docs/python-api.md, with the settings' list.
fn constructor_doc() -> String {
    let mut s = String::from("```python\nabws.Client(\n");
    for line in keywords() {
        let plain = line.split_once(':').map_or(line.clone(), |(name, rest)| {
            let default = rest.split_once('=').map_or("", |(_, d)| d.trim());
            format!("{name}={default}")
        });
        s.push_str(&format!("    {plain}\n"));
    }
    s.push_str(
        "    pickle_secrets=False,          # see \"Pickling\"\n    \
         on_refresh_token=None,         # callable(token): every rotated refresh token, before use\n\
         )\n```\n\n",
    );
    let intro = "The settings (each also read by `Client.from_env()` from its `ABWS_*` variable); \
                 in Python `region` may be left out, for `\"US\"`:";
    for l in wrap(intro, WIDTH, "", "") {
        s.push_str(&l);
        s.push('\n');
    }
    s.push('\n');
    for setting in SETTINGS {
        let text = format!("`{}` (`{}`): {}.", setting.key, setting.env, setting.doc);
        for l in wrap(&text, WIDTH, "- ", "  ") {
            s.push_str(&l);
            s.push('\n');
        }
    }
    s
}

/// Every section the settings drive.
pub fn sections() -> Vec<Section> {
    let plain = SETTINGS.iter().filter(|s| s.shown == Shown::Plain);
    vec![
        python("settings keywords", 8, keywords()),
        python(
            "settings object",
            12,
            SETTINGS.iter().map(|s| format!("\"{0}\": {0},", s.key)),
        ),
        python(
            "settings kept by pickling",
            12,
            plain.map(|s| format!("\"{}\",", s.key)),
        ),
        Section {
            path: PYTHON_API,
            begin: "<!-- BEGIN GENERATED: settings (cargo run -p xtask -- gen; do not edit) -->"
                .into(),
            end: "<!-- END GENERATED: settings -->".into(),
            body: constructor_doc(),
        },
    ]
}
