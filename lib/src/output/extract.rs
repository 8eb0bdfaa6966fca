//! `bootgen extract`: every file of a config, decoded, with its mode, and every unit and drop-in
//! under `etc/systemd/system/`, written below one directory as they would land on the node.
//!
//! It never writes outside that directory: a path that is not absolute or not clean (`..`,
//! `.`, `//`), a unit name with a `/`, or a symlink anywhere on the way (one already in the
//! directory) is refused with an error naming it, before anything is written for it.

use crate::error::{Error, Result};
use crate::ignition::IgnitionDoc;
use crate::ignition::{decode, DecodedConfig};
use serde_json::Value;
use std::fs;
use std::io::Write as _;
use std::os::unix::fs::{OpenOptionsExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};

/// Where the config's units go below the directory.
pub const UNIT_DIR: &str = "/etc/systemd/system";

/// What an extraction wrote and left out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExtractReport {
    /// Node paths written (files, units, drop-ins), in config order.
    pub written: Vec<String>,
    /// Directories created from `storage.directories`.
    pub directories: Vec<String>,
    /// Entries not written, with the reason.
    pub skipped: Vec<String>,
}

/// One thing to write.
enum Item {
    File {
        node_path: String,
        bytes: Vec<u8>,
        mode: u32,
    },
    Directory {
        node_path: String,
        mode: u32,
    },
}

fn unsafe_path(path: &str, reason: impl Into<String>) -> Error {
    Error::UnsafePath {
        path: path.to_string(),
        reason: reason.into(),
    }
}

/// The clean relative parts of an absolute node path, or why it is refused.
fn parts(node_path: &str) -> Result<Vec<&str>> {
    let rest = node_path
        .strip_prefix('/')
        .ok_or_else(|| unsafe_path(node_path, "not an absolute path"))?;
    let parts: Vec<&str> = rest.split('/').collect();
    if parts.contains(&"..") {
        return Err(unsafe_path(node_path, "contains `..`"));
    }
    if parts.iter().any(|p| p.is_empty() || *p == ".") {
        return Err(unsafe_path(
            node_path,
            "not a clean path (`.`, `//` or a trailing `/`)",
        ));
    }
    Ok(parts)
}

fn unit_component(kind: &str, name: &str) -> Result<()> {
    if name.is_empty() || name.contains('/') || name == "." || name == ".." {
        return Err(unsafe_path(
            name,
            format!("not a valid {kind} name (it must be one path component)"),
        ));
    }
    Ok(())
}

fn plan(
    doc: &IgnitionDoc,
    decoded: &DecodedConfig,
    report: &mut ExtractReport,
) -> Result<Vec<Item>> {
    let mut items = Vec::new();
    let dirs = doc
        .value
        .pointer("/storage/directories")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for dir in &dirs {
        let node_path = dir.get("path").and_then(Value::as_str).unwrap_or_default();
        parts(node_path)?;
        let mode = dir
            .get("mode")
            .and_then(Value::as_u64)
            .map_or(0o755, |m| m as u32);
        items.push(Item::Directory {
            node_path: node_path.to_string(),
            mode,
        });
    }
    for file in &decoded.files {
        parts(&file.path)?;
        if file.contents.is_none() && !file.remote_sources.is_empty() {
            report.skipped.push(format!(
                "{}: remote contents ({}) are not fetched",
                file.path,
                file.remote_sources.join(", ")
            ));
            continue;
        }
        let mut bytes = file.contents.clone().unwrap_or_default();
        for fragment in &file.append {
            bytes.extend_from_slice(fragment);
        }
        items.push(Item::File {
            node_path: file.path.clone(),
            bytes,
            mode: file.mode.unwrap_or(0o644),
        });
    }
    for unit in &decoded.units {
        unit_component("unit", &unit.name)?;
        if let Some(text) = &unit.contents {
            items.push(Item::File {
                node_path: format!("{UNIT_DIR}/{}", unit.name),
                bytes: text.clone().into_bytes(),
                mode: 0o644,
            });
        }
        for dropin in &unit.dropins {
            unit_component("drop-in", &dropin.name)?;
            items.push(Item::File {
                node_path: format!("{UNIT_DIR}/{}.d/{}", unit.name, dropin.name),
                bytes: dropin.contents.clone().unwrap_or_default().into_bytes(),
                mode: 0o644,
            });
        }
        if unit.mask == Some(true) {
            report.skipped.push(format!(
                "{}: masked (on the node a link to /dev/null; not created)",
                unit.name
            ));
        }
    }
    for link in doc
        .value
        .pointer("/storage/links")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let path = link.get("path").and_then(Value::as_str).unwrap_or_default();
        let target = link
            .get("target")
            .and_then(Value::as_str)
            .unwrap_or_default();
        report
            .skipped
            .push(format!("{path}: link to {target} (links are not created)"));
    }
    Ok(items)
}

/// Creates the directories leading to `parts` below `root`, refusing symlinks and non-directories.
fn ensure_dirs(root: &Path, node_path: &str, parts: &[&str]) -> Result<PathBuf> {
    let mut current = root.to_path_buf();
    for part in parts {
        current.push(part);
        match fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => {
                return Err(unsafe_path(
                    node_path,
                    format!("{} is a symlink", current.display()),
                ));
            }
            Ok(meta) if meta.is_dir() => {}
            Ok(_) => {
                return Err(unsafe_path(
                    node_path,
                    format!("{} exists and is not a directory", current.display()),
                ));
            }
            Err(_) => {
                fs::create_dir(&current).map_err(|e| Error::io("cannot create", &current, e))?
            }
        }
    }
    Ok(current)
}

fn write_item(root: &Path, node_path: &str, bytes: &[u8], mode: u32) -> Result<()> {
    let all = parts(node_path)?;
    let (name, parents) = all
        .split_last()
        .ok_or_else(|| unsafe_path(node_path, "no file name"))?;
    let dir = ensure_dirs(root, node_path, parents)?;
    let target = dir.join(name);
    match fs::symlink_metadata(&target) {
        Ok(meta) if meta.file_type().is_symlink() => {
            return Err(unsafe_path(
                node_path,
                format!("{} is a symlink", target.display()),
            ));
        }
        Ok(meta) if meta.is_dir() => {
            return Err(unsafe_path(
                node_path,
                format!("{} is a directory", target.display()),
            ));
        }
        Ok(_) => fs::remove_file(&target).map_err(|e| Error::io("cannot replace", &target, e))?,
        Err(_) => {}
    }
    // create_new never follows a link that appears in between.
    let mut handle = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&target)
        .map_err(|e| Error::io("cannot write", &target, e))?;
    handle
        .write_all(bytes)
        .map_err(|e| Error::io("cannot write", &target, e))?;
    fs::set_permissions(&target, fs::Permissions::from_mode(mode))
        .map_err(|e| Error::io("cannot set permissions on", &target, e))
}

/// Writes every file, unit and drop-in of `doc` below `dir` (created if needed). setuid, setgid
/// and sticky bits are dropped: extracted files are for reading, not running as someone else.
pub fn extract(doc: &IgnitionDoc, dir: &Path) -> Result<ExtractReport> {
    let decoded = decode(doc)?;
    let mut report = ExtractReport::default();
    let items = plan(doc, &decoded, &mut report)?;
    fs::create_dir_all(dir).map_err(|e| Error::io("cannot create", dir, e))?;
    for item in &items {
        match item {
            Item::Directory { node_path, mode } => {
                let all = parts(node_path)?;
                let path = ensure_dirs(dir, node_path, &all)?;
                fs::set_permissions(&path, fs::Permissions::from_mode(mode & 0o777 | 0o700))
                    .map_err(|e| Error::io("cannot set permissions on", &path, e))?;
                report.directories.push(node_path.clone());
            }
            Item::File {
                node_path,
                bytes,
                mode,
            } => {
                write_item(dir, node_path, bytes, mode & 0o777)?;
                report.written.push(node_path.clone());
            }
        }
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn doc(files: Value, units: Value) -> IgnitionDoc {
        IgnitionDoc {
            value: json!({"ignition": {"version": "3.2.0"}, "storage": {"files": files}, "systemd": {"units": units}}),
        }
    }

    #[test]
    fn writes_files_units_and_dropins_with_modes() {
        let dir = tempfile::tempdir().unwrap();
        let d = doc(
            json!([{"path": "/etc/a/key", "mode": 384, "contents": {"source": "data:,secret"}},
                   {"path": "/etc/motd", "contents": {"source": "data:,a"}, "append": [{"source": "data:,b"}]}]),
            json!([{"name": "x.service", "contents": "[Unit]\n", "dropins": [{"name": "10-a.conf", "contents": "[Unit]\n"}]}]),
        );
        let report = extract(&d, dir.path()).unwrap();
        assert_eq!(report.written.len(), 4);
        let key = dir.path().join("etc/a/key");
        assert_eq!(fs::read(&key).unwrap(), b"secret");
        assert_eq!(
            fs::metadata(&key).unwrap().permissions().mode() & 0o7777,
            0o600
        );
        assert_eq!(fs::read(dir.path().join("etc/motd")).unwrap(), b"ab");
        assert!(dir
            .path()
            .join("etc/systemd/system/x.service.d/10-a.conf")
            .is_file());
    }

    #[test]
    fn refuses_traversal_relative_paths_and_symlinks() {
        let dir = tempfile::tempdir().unwrap();
        let one = |path: &str| {
            doc(
                json!([{"path": path, "contents": {"source": "data:,x"}}]),
                json!([]),
            )
        };
        for bad in ["/../escape", "/a/../../escape", "relative", "/a//b"] {
            let err = extract(&one(bad), dir.path()).unwrap_err().to_string();
            assert!(err.contains(bad), "{err}");
        }
        let outside = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("etc")).unwrap();
        let err = extract(&one("/etc/passwd"), dir.path())
            .unwrap_err()
            .to_string();
        assert!(err.contains("symlink"), "{err}");
        assert!(!outside.path().join("passwd").exists());
        let bad_unit = doc(json!([]), json!([{"name": "../x.service", "contents": ""}]));
        assert!(extract(&bad_unit, dir.path()).is_err());
    }
}
