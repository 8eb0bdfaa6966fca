//! Keyfiles users wrote themselves: read as NetworkManager reads them (`keyfile_syntax`) and
//! held to its rules (`keyfile_rules`), so one that NetworkManager would not load as written
//! is refused before it reaches a node.

use super::convert::{Keyfile, KEYFILE_SUFFIX};
use super::keyfile_syntax::parse_groups;
use crate::error::{Error, Result};
use std::path::Path;

/// The line (1-based) of `key` in `[group]`, or of the group's header when `key` is empty.
pub(super) fn line_of_key(text: &str, group: &str, key: &str) -> Option<usize> {
    let header = format!("[{group}]");
    let mut inside = false;
    for (index, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.starts_with('[') {
            inside = line == header;
            if inside && key.is_empty() {
                return Some(index + 1);
            }
        } else if inside
            && line
                .split_once('=')
                .is_some_and(|(k, _)| k.trim_end() == key)
        {
            return Some(index + 1);
        }
    }
    None
}

/// A keyfile the user wrote, read from `path` and checked: it parses, and its `[connection]`
/// names a `type` (NetworkManager refuses a profile without one). It is placed under its own
/// file name, with `.nmconnection` added when missing (NetworkManager skips other names).
pub fn read_user_keyfile(path: &Path) -> Result<Keyfile> {
    let bytes = crate::config::read_at_most(path, crate::config::KEYFILE_LIMIT)?;
    let file = path.display().to_string();
    let contents = String::from_utf8(bytes).map_err(|e| Error::Parse {
        file: file.clone(),
        line: None,
        message: format!(
            "not a NetworkManager keyfile: not UTF-8 text (at byte {})",
            e.utf8_error().valid_up_to()
        ),
    })?;
    let fail = |line: Option<usize>, message: String| Error::Parse {
        file: file.clone(),
        line,
        message,
    };
    let groups = parse_groups(&contents).map_err(|(line, message)| {
        fail(
            Some(line),
            format!("not a NetworkManager keyfile: {message}"),
        )
    })?;
    if let Some((group, key, why)) = super::keyfile_rules::first_broken(&groups) {
        let at = if key.is_empty() {
            format!("[{group}]")
        } else {
            format!("[{group}] {key}")
        };
        return Err(fail(
            line_of_key(&contents, &group, &key),
            format!("NetworkManager would not take {at}: {why}"),
        ));
    }
    let connection = groups.iter().find(|(name, _)| name == "connection");
    let has_type = connection
        .is_some_and(|(_, pairs)| pairs.iter().any(|(k, v)| k == "type" && !v.is_empty()));
    if !has_type {
        return Err(fail(
            None,
            "not a NetworkManager keyfile: its [connection] group must give the profile's `type` (ethernet, bond, vlan, ...)".into(),
        ));
    }
    let stem = path
        .file_name()
        .and_then(|n| n.to_str())
        .filter(|n| !n.is_empty() && !n.starts_with('.'))
        .ok_or_else(|| {
            fail(
                None,
                "its file name cannot name a keyfile on the node".into(),
            )
        })?;
    let name = if stem.ends_with(KEYFILE_SUFFIX) {
        stem.to_string()
    } else {
        format!("{stem}{KEYFILE_SUFFIX}")
    };
    Ok(Keyfile { name, contents })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_user_keyfile_needs_a_type_and_gets_the_suffix() {
        let dir = tempfile::tempdir().unwrap();
        let good = dir.path().join("eno1");
        std::fs::write(&good, "[connection]\nid=eno1\ntype=ethernet\n").unwrap();
        assert_eq!(read_user_keyfile(&good).unwrap().name, "eno1.nmconnection");
        let bad = dir.path().join("bad.nmconnection");
        std::fs::write(&bad, "[connection]\nid=eno1\n").unwrap();
        let error = read_user_keyfile(&bad).unwrap_err().to_string();
        assert!(
            error.contains("bad.nmconnection") && error.contains("`type`"),
            "{error}"
        );
    }
}
