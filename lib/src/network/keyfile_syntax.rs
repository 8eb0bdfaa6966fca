//! GLib's key-file syntax, as NetworkManager reads a keyfile: `[group]` headers, `key=value`
//! lines, `#` and `;` comments.

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
}
