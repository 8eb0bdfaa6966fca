//! User-supplied manifests (`--manifests-dir`, `--openshift-dir`): walked recursively, each
//! checked to parse as YAML or JSON before it is shipped.

use crate::error::{Error, OptionField, Result};
use std::path::Path;

/// A manifest file the user supplied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserManifest {
    /// Path relative to the directory given, with `/` separators.
    pub relative: String,
    /// The bytes, verbatim.
    pub contents: Vec<u8>,
}

/// Reads every file under `dir`, sorted by relative path. Each must parse as YAML (JSON is
/// YAML); hidden files (`.git`, editor swap files) are skipped. A link to a file is read; a
/// link to a directory or to nothing, a pipe or a device, or a name that is not UTF-8, is
/// refused naming it.
pub fn read_manifest_dir(dir: &Path, option: OptionField) -> Result<Vec<UserManifest>> {
    let meta = std::fs::metadata(dir).map_err(|e| Error::io("cannot read", dir, e))?;
    if !meta.is_dir() {
        return Err(Error::InvalidOption {
            option,
            message: format!("{} is not a directory", dir.display()),
        });
    }
    let mut out = Vec::new();
    let walker = walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || !e.file_name().to_string_lossy().starts_with('.'));
    for entry in walker {
        let entry = entry.map_err(|e| {
            let path = e
                .path()
                .map(Path::to_path_buf)
                .unwrap_or_else(|| dir.to_path_buf());
            let source = e
                .into_io_error()
                .unwrap_or_else(|| std::io::Error::other("directory loop"));
            Error::io("cannot read", path, source)
        })?;
        let path = entry.path();
        if entry.file_type().is_dir() {
            continue;
        }
        // A link to a file is read, as a manifest kept elsewhere (a shared repository); a
        // directory is not walked through a link, and anything else is no manifest.
        let target = std::fs::metadata(path);
        if !target.as_ref().is_ok_and(std::fs::Metadata::is_file) {
            let what = match &target {
                Ok(meta) if meta.is_dir() => "a link to a directory, which bootgen does not walk through; copy its files in or name that directory",
                Ok(_) => "not a regular file (a pipe, socket or device)",
                Err(_) => "a link to nothing",
            };
            return Err(Error::InvalidOption {
                option,
                message: format!("{} is {what}", path.display()),
            });
        }
        let contents = crate::config::read_at_most(path, crate::config::MANIFEST_LIMIT)?;
        check_parses(path, &contents)?;
        let relative = path
            .strip_prefix(dir)
            .unwrap_or(path)
            .components()
            .map(|c| {
                c.as_os_str()
                    .to_str()
                    .map(str::to_string)
                    .ok_or_else(|| Error::InvalidOption {
                        option,
                        message: format!(
                            "{}: its name is not UTF-8, and a file of the node's is named in UTF-8",
                            path.display()
                        ),
                    })
            })
            .collect::<Result<Vec<_>>>()?
            .join("/");
        out.push(UserManifest { relative, contents });
    }
    Ok(out)
}

fn check_parses(path: &Path, contents: &[u8]) -> Result<()> {
    let text = std::str::from_utf8(contents).map_err(|_| Error::Parse {
        file: path.display().to_string(),
        line: None,
        message: "is not UTF-8 text; manifests must be YAML or JSON".into(),
    })?;
    if let Some(line) = crate::config::depth::too_deep(text) {
        return Err(Error::Parse {
            file: path.display().to_string(),
            line: Some(line),
            message: crate::config::depth::too_deep_message(),
        });
    }
    for document in serde_yaml_ng::Deserializer::from_str(text) {
        use serde::Deserialize;
        serde_yaml_ng::Value::deserialize(document).map_err(|e| Error::Parse {
            file: path.display().to_string(),
            line: e.location().map(|l| l.line()),
            message: format!("does not parse as YAML or JSON: {e}"),
        })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walks_recursively_and_rejects_broken_yaml() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::fs::write(dir.path().join("sub/b.yaml"), "kind: ConfigMap\n").unwrap();
        std::fs::write(dir.path().join("a.json"), "{\"kind\": \"Secret\"}").unwrap();
        std::fs::write(dir.path().join(".hidden.swp"), "\0\0").unwrap();
        let found = read_manifest_dir(dir.path(), OptionField::ManifestsDir).unwrap();
        let names: Vec<_> = found.iter().map(|m| m.relative.as_str()).collect();
        assert_eq!(names, ["a.json", "sub/b.yaml"]);

        std::fs::write(dir.path().join("c.yaml"), "a: [\n").unwrap();
        let err = read_manifest_dir(dir.path(), OptionField::ManifestsDir)
            .unwrap_err()
            .to_string();
        assert!(err.contains("c.yaml"), "{err}");
    }
}
