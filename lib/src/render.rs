//! The template environment: bootgen's own templates, embedded at build time, rendered with
//! strict undefined variables, trailing newlines kept and no escaping.

use crate::error::{Error, Result};
use include_dir::{include_dir, Dir, DirEntry};
use minijinja::{Environment, UndefinedBehavior};
use serde::Serialize;

/// The `templates/` directory of the repository, compiled in.
pub static TEMPLATES: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/templates");

/// Suffix that marks a file as a template.
pub const TEMPLATE_SUFFIX: &str = ".j2";

/// One embedded template file.
#[derive(Debug, Clone, Copy)]
pub struct TemplateFile {
    /// Path under `templates/`, e.g. `node/usr/local/bin/bootkube.sh.j2`.
    pub name: &'static str,
    /// The raw bytes.
    pub bytes: &'static [u8],
}

impl TemplateFile {
    /// True when the file is rendered rather than copied.
    pub fn is_template(&self) -> bool {
        self.name.ends_with(TEMPLATE_SUFFIX)
    }

    /// The name with `.j2` removed.
    pub fn output_name(&self) -> &'static str {
        self.name.strip_suffix(TEMPLATE_SUFFIX).unwrap_or(self.name)
    }
}

/// The embedded file `name` (a path under `templates/`, e.g. `node/etc/motd.j2`).
///
/// Found by walking down the tree comparing each entry's path as bytes. `Dir::get_file`
/// compares paths component by component, some 80,000 instructions a look-up, and the release
/// table asks about each of its file rows when it loads (half of a re-run's time as a
/// process); an index of every path would touch every embedded file's page (a megabyte more
/// memory in every process).
pub fn template(name: &str) -> Option<TemplateFile> {
    let wanted = name.as_bytes();
    let mut dir: &'static Dir<'static> = &TEMPLATES;
    'down: loop {
        for entry in dir.entries() {
            let path = entry.path().as_os_str().as_encoded_bytes();
            match entry {
                DirEntry::File(file) if path == wanted => {
                    return Some(TemplateFile {
                        name: file.path().to_str()?,
                        bytes: file.contents(),
                    });
                }
                DirEntry::Dir(sub)
                    if wanted.starts_with(path) && wanted.get(path.len()) == Some(&b'/') =>
                {
                    dir = sub;
                    continue 'down;
                }
                _ => {}
            }
        }
        return None;
    }
}

/// Every embedded file under `prefix` (e.g. `node` or `units`), sorted by name.
pub fn files_under(prefix: &str) -> Vec<TemplateFile> {
    let mut out = Vec::new();
    if let Some(dir) = TEMPLATES.get_dir(prefix) {
        collect(dir, &mut out);
    }
    out.sort_by(|a, b| a.name.cmp(b.name));
    out
}

fn collect(dir: &'static Dir<'static>, out: &mut Vec<TemplateFile>) {
    for file in dir.files() {
        let Some(name) = file.path().to_str() else {
            continue;
        };
        if name.ends_with("README.md") {
            continue;
        }
        out.push(TemplateFile {
            name,
            bytes: file.contents(),
        });
    }
    for sub in dir.dirs() {
        collect(sub, out);
    }
}

/// A renderer over a fixed context.
pub struct Renderer {
    env: Environment<'static>,
    context: minijinja::Value,
}

impl Renderer {
    /// A renderer whose every template sees `context`.
    pub fn new(context: &impl Serialize) -> Renderer {
        let mut env = Environment::new();
        env.set_undefined_behavior(UndefinedBehavior::Strict);
        env.set_keep_trailing_newline(true);
        env.set_auto_escape_callback(|_| minijinja::AutoEscape::None);
        env.add_filter("b64encode", b64encode);
        // Every value that reaches a script, unit or TOML file goes through the quoting filter
        // of that language (YAML and JSON use `tojson`), so no input can change the syntax.
        env.add_filter("sh", quote_sh);
        env.add_filter("systemd", quote_systemd);
        env.add_filter("toml", quote_toml);
        Renderer {
            env,
            context: minijinja::Value::from_serialize(context),
        }
    }

    /// Renders a template file (or returns a plain file's bytes unchanged).
    pub fn render(&self, file: &TemplateFile) -> Result<Vec<u8>> {
        if !file.is_template() {
            return Ok(file.bytes.to_vec());
        }
        let source = std::str::from_utf8(file.bytes).map_err(|_| Error::Template {
            name: file.name.to_string(),
            message: "is not UTF-8".into(),
        })?;
        self.render_str(file.name, source).map(String::into_bytes)
    }

    /// Renders template text; `name` is used in errors.
    pub fn render_str(&self, name: &str, source: &str) -> Result<String> {
        self.render_in(name, source, &self.context)
    }

    /// Renders a template file with `extra` (a map) on top of the renderer's context: its keys
    /// win. The context is shared, not copied, so a template rendered once per entry (a
    /// mirror manifest) or after the others (the ClusterVersion) costs only its own render.
    pub(crate) fn render_with(
        &self,
        file: &TemplateFile,
        extra: &impl Serialize,
    ) -> Result<Vec<u8>> {
        let source = std::str::from_utf8(file.bytes).map_err(|_| Error::Template {
            name: file.name.to_string(),
            message: "is not UTF-8".into(),
        })?;
        let context = minijinja::context! {
            ..minijinja::Value::from_serialize(extra),
            ..self.context.clone()
        };
        self.render_in(file.name, source, &context)
            .map(String::into_bytes)
    }

    fn render_in(&self, name: &str, source: &str, context: &minijinja::Value) -> Result<String> {
        let describe = |e: minijinja::Error| Error::Template {
            name: name.to_string(),
            message: format!("{e:#}"),
        };
        let template = self.env.template_from_str(source).map_err(describe)?;
        template.render(context).map_err(describe)
    }
}

/// minijinja filter: standard base64 with padding.
fn b64encode(value: String) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(value.as_bytes())
}

/// minijinja filter: one shell word, single-quoted (`'` written as `'\''`).
pub fn quote_sh(value: String) -> String {
    format!("'{}'", value.replace('\'', r"'\''"))
}

/// minijinja filter: a double-quoted systemd value (unit settings and `DefaultEnvironment=`):
/// backslash and quote escaped, `%` doubled so systemd does not read it as a specifier.
pub fn quote_systemd(value: String) -> Result<String, minijinja::Error> {
    let mut out = String::with_capacity(value.len() + 2);
    out.push('"');
    for c in value.chars() {
        match c {
            '\\' => out.push_str(r"\\"),
            '"' => out.push_str(r#"\""#),
            '%' => out.push_str("%%"),
            c if c.is_control() => {
                return Err(minijinja::Error::new(
                    minijinja::ErrorKind::InvalidOperation,
                    "a control character cannot go into a systemd value",
                ))
            }
            c => out.push(c),
        }
    }
    out.push('"');
    Ok(out)
}

/// minijinja filter: a TOML basic string, with every character TOML requires escaped.
pub fn quote_toml(value: String) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    out.push('"');
    for c in value.chars() {
        match c {
            '\\' => out.push_str(r"\\"),
            '"' => out.push_str(r#"\""#),
            '\n' => out.push_str(r"\n"),
            '\t' => out.push_str(r"\t"),
            '\r' => out.push_str(r"\r"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The walk finds what `Dir::get_file` finds: every embedded file, READMEs too, and
    /// nothing for a directory, a missing file or a name that only starts like one.
    #[test]
    fn the_walk_finds_every_embedded_file() {
        fn every(dir: &'static Dir<'static>, out: &mut Vec<&'static str>) {
            out.extend(dir.files().filter_map(|f| f.path().to_str()));
            dir.dirs().for_each(|d| every(d, out));
        }
        let mut names = Vec::new();
        every(&TEMPLATES, &mut names);
        assert!(names.len() > 50, "{}", names.len());
        for name in names {
            let found = template(name).unwrap();
            assert_eq!(found.name, name);
            assert_eq!(found.bytes, TEMPLATES.get_file(name).unwrap().contents());
        }
        for missing in [
            "node",
            "node/",
            "node/etc/motd.j",
            "nod/etc/motd.j2",
            "",
            "/node",
        ] {
            assert!(template(missing).is_none(), "{missing}");
        }
    }

    #[test]
    fn extra_variables_win_over_the_context() {
        let renderer = Renderer::new(&serde_json::json!({"a": "base", "b": "kept"}));
        let file = TemplateFile {
            name: "t.j2",
            bytes: b"{{ a }} {{ b }} {{ c }}",
        };
        let text = renderer
            .render_with(&file, &serde_json::json!({"a": "extra", "c": "new"}))
            .unwrap();
        assert_eq!(text, b"extra kept new");
    }

    #[test]
    fn quoting_filters_keep_every_character() {
        let renderer = Renderer::new(&serde_json::json!({"v": "a'b\"c$d`e f#g;h%i\\j é"}));
        assert_eq!(
            renderer.render_str("t", "{{ v|sh }}").unwrap(),
            r#"'a'\''b"c$d`e f#g;h%i\j é'"#
        );
        assert_eq!(
            renderer.render_str("t", "{{ v|systemd }}").unwrap(),
            r#""a'b\"c$d`e f#g;h%%i\\j é""#
        );
        assert_eq!(
            renderer.render_str("t", "{{ v|toml }}").unwrap(),
            r#""a'b\"c$d`e f#g;h%i\\j é""#
        );
        assert_eq!(quote_toml("\u{7f}\u{1}".into()), r#""\u007F\u0001""#);
        assert!(quote_systemd("a\nb".into()).is_err());
    }

    #[test]
    fn templates_are_embedded_and_sorted() {
        let node = files_under("node");
        assert!(node
            .iter()
            .any(|f| f.name == "node/usr/local/bin/bootkube.sh.j2"));
        let names: Vec<_> = node.iter().map(|f| f.name).collect();
        let mut sorted = names.clone();
        sorted.sort();
        assert_eq!(names, sorted);
    }

    #[test]
    fn undefined_variables_are_errors() {
        let renderer = Renderer::new(&serde_json::json!({"a": 1}));
        assert!(renderer.render_str("t", "{{ b }}").is_err());
        assert_eq!(renderer.render_str("t", "{{ a }}\n").unwrap(), "1\n");
        assert_eq!(
            renderer.render_str("t", "{{ 'x' | b64encode }}").unwrap(),
            "eA=="
        );
    }
}
