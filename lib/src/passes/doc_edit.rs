//! Small, careful edits of an Ignition JSON document: find a unit, find or add a file, read or
//! replace a file's text. Anything not touched keeps its keys and order.

use crate::error::{Error, Result};
use crate::ignition::read::unit_names;
use crate::ignition::{dataurl, IgnitionDoc};
use serde_json::{json, Map, Value};

/// The unit object called `name`, or an error listing the units there are.
pub(super) fn unit_mut<'a>(
    doc: &'a mut IgnitionDoc,
    name: &str,
) -> Result<&'a mut Map<String, Value>> {
    let known = unit_names(doc);
    let units = doc
        .value
        .pointer_mut("/systemd/units")
        .and_then(Value::as_array_mut);
    units
        .and_then(|units| {
            units
                .iter_mut()
                .find(|u| u.get("name").and_then(Value::as_str) == Some(name))
        })
        .and_then(Value::as_object_mut)
        .ok_or_else(|| Error::UnknownUnit {
            unit: name.to_string(),
            meant: unit_meant(name, &known),
            known: if known.is_empty() {
                "(none)".to_string()
            } else {
                known.join(", ")
            },
        })
}

/// The unit of `known` that `name` most likely means: itself with `.service` added (systemd
/// adds it, Ignition does not), else the nearest spelling.
fn unit_meant(name: &str, known: &[String]) -> Option<String> {
    let with_suffix = format!("{name}.service");
    if known.contains(&with_suffix) {
        return Some(with_suffix);
    }
    crate::config::nearest(name, known.iter().map(String::as_str)).map(str::to_string)
}

fn files_mut(doc: &mut IgnitionDoc) -> Result<&mut Vec<Value>> {
    let root = doc.value.as_object_mut().ok_or_else(|| Error::Ignition {
        file: crate::error::UNNAMED_CONFIG.into(),
        message: "the config is not a JSON object".into(),
    })?;
    let storage = root.entry("storage").or_insert_with(|| json!({}));
    let files = storage
        .as_object_mut()
        .ok_or_else(|| Error::Ignition {
            file: crate::error::UNNAMED_CONFIG.into(),
            message: "storage is not an object".into(),
        })?
        .entry("files")
        .or_insert_with(|| json!([]));
    files.as_array_mut().ok_or_else(|| Error::Ignition {
        file: crate::error::UNNAMED_CONFIG.into(),
        message: "storage.files is not a list".into(),
    })
}

/// Replaces (or creates, with `mode`) the file at `path` with `text`, overwrite true, user root.
/// An existing entry keeps its mode, owner and position.
pub fn set_file_text(doc: &mut IgnitionDoc, path: &str, text: &str, mode: u32) -> Result<()> {
    let files = files_mut(doc)?;
    let source = dataurl::encode(text.as_bytes());
    match files
        .iter_mut()
        .find(|f| f.get("path").and_then(Value::as_str) == Some(path))
        .and_then(Value::as_object_mut)
    {
        Some(entry) => {
            entry.insert("contents".into(), json!({ "source": source }));
        }
        None => files.push(json!({
            "overwrite": true,
            "path": path,
            "user": {"name": "root"},
            "contents": {"source": source},
            "mode": mode,
        })),
    }
    Ok(())
}

/// Adds an append fragment to the file at `path` (creating an append-only entry if needed).
pub fn append_to_file(doc: &mut IgnitionDoc, path: &str, text: &str, mode: u32) -> Result<()> {
    let files = files_mut(doc)?;
    let fragment = json!({ "source": dataurl::encode(text.as_bytes()) });
    match files
        .iter_mut()
        .find(|f| f.get("path").and_then(Value::as_str) == Some(path))
        .and_then(Value::as_object_mut)
    {
        Some(entry) => {
            let append = entry.entry("append").or_insert_with(|| json!([]));
            if let Some(list) = append.as_array_mut() {
                list.push(fragment);
            }
        }
        None => files.push(json!({
            "overwrite": false,
            "path": path,
            "user": {"name": "root"},
            "append": [fragment],
            "mode": mode,
        })),
    }
    Ok(())
}
