//! Keyfiles users wrote themselves: read as NetworkManager reads them (GLib's key-file syntax:
//! `[group]` headers, `key=value` lines, `#` and `;` comments), so one that NetworkManager
//! would not load is refused before it reaches a node.

use super::convert::{Keyfile, KEYFILE_SUFFIX};
use crate::error::{Error, Result};
use std::path::Path;

/// One `[group]` of a keyfile with its `key=value` pairs, in order.
pub(crate) type Group = (String, Vec<(String, String)>);

/// The groups of a keyfile, or the line (1-based) and what is wrong there.
pub(crate) fn parse_groups(text: &str) -> std::result::Result<Vec<Group>, (usize, String)> {
    let mut groups: Vec<Group> = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let line = raw.trim_start();
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        let number = index + 1;
        if let Some(header) = line.strip_prefix('[') {
            let Some(name) = header.trim_end().strip_suffix(']') else {
                return Err((number, "a group header must end with `]`".into()));
            };
            if name.is_empty() || name.contains(['[', ']']) {
                return Err((number, format!("`[{name}]` is not a group name")));
            }
            if groups.iter().any(|(g, _)| g == name) {
                return Err((number, format!("group [{name}] is written twice")));
            }
            groups.push((name.to_string(), Vec::new()));
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            return Err((number, "neither `[group]` nor `key=value`".into()));
        };
        let key = key.trim_end();
        if key.is_empty() || key.contains(['[', ']']) && !key.ends_with(']') {
            return Err((number, format!("`{key}` is not a key")));
        }
        let Some((_, pairs)) = groups.last_mut() else {
            return Err((number, "a key before the first `[group]`".into()));
        };
        pairs.push((key.to_string(), value.trim_start().to_string()));
    }
    Ok(groups)
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
    fn groups_and_pairs_are_read_and_mistakes_named_by_line() {
        let groups =
            parse_groups("# c\n[connection]\nid=a\ntype=ethernet\n\n[ipv4]\nmethod=auto\n")
                .unwrap();
        assert_eq!(groups.len(), 2);
        assert_eq!(groups[0].1[1], ("type".to_string(), "ethernet".to_string()));
        assert_eq!(parse_groups("id=a\n").unwrap_err().0, 1);
        assert_eq!(parse_groups("[connection]\nid\n").unwrap_err().0, 2);
        assert_eq!(parse_groups("[connection\n").unwrap_err().0, 1);
    }

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
