//! The golden view of one Ignition config: its `ignition` section, users, files, directories,
//! links and units, sorted by path or name, every text normalized.

use super::text::{self, normalize, Redactions};
use crate::error::Result;
use crate::ignition::kind::{classify, FileKind};
use crate::ignition::{dataurl, IgnitionDoc, SplitDoc};
use serde_json::Value;
use std::borrow::Cow;
use std::fmt::Write as _;

/// Appends the view of `doc` to `out`.
pub(super) fn render(out: &mut String, doc: &IgnitionDoc, redactions: &Redactions) -> Result<()> {
    let files = entries(doc, "/storage/files")
        .into_iter()
        .map(|f| Ok(Cow::Borrowed(f)));
    render_with(out, doc, files, redactions)
}

/// [`render`] for a config split with nothing kept: the file entries are read one at a time,
/// in the same (path) order, so the config is never a JSON tree whole.
pub(super) fn render_split(
    out: &mut String,
    split: &SplitDoc<'_>,
    redactions: &Redactions,
) -> Result<()> {
    let paths = split.paths()?;
    let mut order: Vec<usize> = (0..paths.len()).collect();
    // Stable, as `entries` sorts.
    order.sort_by(|a, b| paths[*a].cmp(&paths[*b]));
    drop(paths);
    let files = order
        .into_iter()
        .map(|i| split.input_file(i).map(Cow::Owned));
    render_with(out, &split.doc, files, redactions)
}

fn render_with<'v>(
    out: &mut String,
    doc: &IgnitionDoc,
    files: impl Iterator<Item = Result<Cow<'v, Value>>>,
    redactions: &Redactions,
) -> Result<()> {
    let _ = writeln!(out, "ignition {}", doc.version());
    if let Some(section) = doc.value.get("ignition") {
        let mut lines = Vec::new();
        flatten(section, "", &mut lines);
        for (path, value) in lines.into_iter().filter(|(p, _)| p != "version") {
            push_value(out, &path, &value, redactions);
        }
    }
    users(out, doc, redactions);
    write_files(out, doc, files, redactions)?;
    units(out, doc, redactions);
    Ok(())
}

/// `a.b[0].c` paths and scalar values, in document order.
fn flatten(value: &Value, path: &str, out: &mut Vec<(String, Value)>) {
    match value {
        Value::Object(map) => {
            for (key, item) in map {
                let child = if path.is_empty() {
                    key.clone()
                } else {
                    format!("{path}.{key}")
                };
                flatten(item, &child, out);
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                flatten(item, &format!("{path}[{i}]"), out);
            }
        }
        scalar => out.push((path.to_string(), scalar.clone())),
    }
}

/// One `path: value` line; a data URL is decoded and shown as an indented body.
fn push_value(out: &mut String, path: &str, value: &Value, redactions: &Redactions) {
    let shown = match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    match shown
        .starts_with("data:")
        .then(|| dataurl::decode(&shown, None).ok())
        .flatten()
    {
        Some(bytes) => {
            let _ = writeln!(out, "  {path}: data URL of:");
            push_body(out, &bytes, "    ", redactions);
        }
        None => {
            let _ = writeln!(out, "  {path}: {}", normalize(&shown, redactions));
        }
    }
}

/// The decoded bytes of a file, indented.
fn push_body(out: &mut String, bytes: &[u8], indent: &str, redactions: &Redactions) {
    let Ok(body) = std::str::from_utf8(bytes) else {
        let _ = writeln!(out, "{indent}<{} bytes, not text>", bytes.len());
        return;
    };
    if body.is_empty() {
        let _ = writeln!(out, "{indent}(empty)");
        return;
    }
    let shown = if text::is_pull_secret(body) {
        text::PULL_SECRET.to_string()
    } else {
        normalize(body, redactions)
    };
    for line in shown.lines() {
        let _ = writeln!(out, "{indent}{line}");
    }
    if !body.ends_with('\n') {
        let _ = writeln!(out, "{indent}(no trailing newline)");
    }
}

fn entries<'a>(doc: &'a IgnitionDoc, pointer: &str) -> Vec<&'a Value> {
    let mut list: Vec<&Value> = doc
        .value
        .pointer(pointer)
        .and_then(Value::as_array)
        .map(|a| a.iter().collect())
        .unwrap_or_default();
    let key = if pointer.ends_with("units") || pointer.ends_with("users") {
        "name"
    } else {
        "path"
    };
    list.sort_by(|a, b| str_of(a, key).cmp(str_of(b, key)));
    list
}

fn str_of<'a>(value: &'a Value, key: &str) -> &'a str {
    value.get(key).and_then(Value::as_str).unwrap_or_default()
}

fn owner(entry: &Value) -> String {
    let who = |key: &str| {
        entry.get(key).map_or("-".to_string(), |o| {
            o.get("name")
                .and_then(Value::as_str)
                .map(str::to_string)
                .or_else(|| o.get("id").map(Value::to_string))
                .unwrap_or_else(|| "-".into())
        })
    };
    format!("{}:{}", who("user"), who("group"))
}

fn mode(entry: &Value) -> String {
    entry
        .get("mode")
        .and_then(Value::as_u64)
        .map_or("-".into(), |m| format!("{m:04o}"))
}

fn users(out: &mut String, doc: &IgnitionDoc, redactions: &Redactions) {
    for user in entries(doc, "/passwd/users") {
        let _ = writeln!(out, "\n== user {}", str_of(user, "name"));
        for (key, value) in user.as_object().into_iter().flatten() {
            match key.as_str() {
                "name" => {}
                "passwordHash" => {
                    let _ = writeln!(out, "  passwordHash: <password hash>");
                }
                "sshAuthorizedKeys" => {
                    for key in value.as_array().into_iter().flatten() {
                        let line = normalize(key.as_str().unwrap_or_default(), redactions);
                        let _ = writeln!(out, "  ssh key: {line}");
                    }
                }
                _ => {
                    let _ = writeln!(out, "  {key}: {value}");
                }
            }
        }
    }
}

/// `path` is the node path of the file the resource belongs to, for errors.
fn decode(resource: &Value, path: &str) -> Result<Option<Vec<u8>>> {
    let Some(source) = crate::ignition::decode::source_of(resource) else {
        return Ok(Some(Vec::new()));
    };
    if !source.starts_with("data:") {
        return Ok(None);
    }
    let compression = resource.get("compression").and_then(Value::as_str);
    dataurl::decode(source, compression)
        .map(Some)
        .map_err(|e| crate::error::Error::Ignition {
            file: crate::error::UNNAMED_CONFIG.into(),
            message: format!("{path}: {e}"),
        })
}

/// The largest golden view: each file's contents are in it, and a config of a few MiB can
/// expand to gigabytes, each file within what one may decompress to.
const MAX_VIEW_BYTES: usize = 64 << 20;

fn write_files<'v>(
    out: &mut String,
    doc: &IgnitionDoc,
    files: impl Iterator<Item = Result<Cow<'v, Value>>>,
    redactions: &Redactions,
) -> Result<()> {
    for dir in entries(doc, "/storage/directories") {
        let (path, mode, owner) = (str_of(dir, "path"), mode(dir), owner(dir));
        let _ = writeln!(out, "\n== directory {path} mode {mode} owner {owner}");
    }
    for link in entries(doc, "/storage/links") {
        let _ = writeln!(
            out,
            "\n== link {} -> {} owner {}{}",
            str_of(link, "path"),
            str_of(link, "target"),
            owner(link),
            if link.get("hard").and_then(Value::as_bool) == Some(true) {
                " (hard)"
            } else {
                ""
            }
        );
    }
    for file in files {
        let file = file?;
        let file: &Value = &file;
        let path = str_of(file, "path");
        let _ = writeln!(
            out,
            "\n== file {path} mode {} owner {}",
            mode(file),
            owner(file)
        );
        if let Some(contents) = file.get("contents") {
            match decode(contents, path)? {
                // Refused before its text is normalized: the copies that takes are the peak.
                Some(bytes) if out.len() + bytes.len() > MAX_VIEW_BYTES => {
                    return Err(too_large(path));
                }
                Some(bytes) => {
                    // A pull secret may be hidden under another file name: its kind says.
                    if classify(path, Some(&bytes)) == FileKind::PullSecret {
                        let _ = writeln!(out, "{}", text::PULL_SECRET);
                    } else {
                        push_body(out, &bytes, "", redactions);
                    }
                }
                None => {
                    let _ = writeln!(out, "source: {}", str_of(contents, "source"));
                }
            }
        }
        for fragment in file
            .get("append")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let _ = writeln!(out, "-- appended:");
            match decode(fragment, path)? {
                Some(bytes) => push_body(out, &bytes, "", redactions),
                None => {
                    let _ = writeln!(out, "source: {}", str_of(fragment, "source"));
                }
            }
        }
        if out.len() > MAX_VIEW_BYTES {
            return Err(too_large(path));
        }
    }
    Ok(())
}

fn too_large(path: &str) -> crate::error::Error {
    crate::error::Error::Ignition {
        file: crate::error::UNNAMED_CONFIG.into(),
        message: format!(
            "{path}: the golden view passes {} MiB with this file: refused (no cluster's files come to that much; a config can expand to it)",
            MAX_VIEW_BYTES >> 20
        ),
    }
}

fn units(out: &mut String, doc: &IgnitionDoc, redactions: &Redactions) {
    for unit in entries(doc, "/systemd/units") {
        let flags: Vec<String> = ["enabled", "mask"]
            .into_iter()
            .filter_map(|key| unit.get(key).map(|v| format!(" {key}={v}")))
            .collect();
        let _ = writeln!(out, "\n== unit {}{}", str_of(unit, "name"), flags.concat());
        if let Some(contents) = unit.get("contents").and_then(Value::as_str) {
            push_body(out, contents.as_bytes(), "", redactions);
        }
        let mut dropins: Vec<&Value> = unit
            .get("dropins")
            .and_then(Value::as_array)
            .map(|d| d.iter().collect())
            .unwrap_or_default();
        dropins.sort_by(|a, b| str_of(a, "name").cmp(str_of(b, "name")));
        for dropin in dropins {
            let _ = writeln!(out, "-- drop-in {}:", str_of(dropin, "name"));
            let contents = str_of(dropin, "contents");
            push_body(out, contents.as_bytes(), "", redactions);
        }
    }
}
