//! systemd unit text as Ignition reads it. Ignition parses every unit and drop-in with
//! go-systemd's deserializer and rejects the config when that fails, so the syntax rules here
//! follow that parser's behaviour (not systemd's, which is more forgiving): a section header
//! must close on its line with nothing after it, an option needs `=`, and no line may reach
//! 2048 bytes. The entries feed the unit-graph lint.

/// One `Key=value` of a unit or drop-in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnitEntry {
    /// Section name without brackets, e.g. `Unit`.
    pub section: String,
    /// Option name.
    pub key: String,
    /// Value, continuation lines joined with a space.
    pub value: String,
}

/// Lines of this many bytes or more (newline excluded) are rejected.
const LINE_MAX: usize = 2048;

fn is_comment(line: &str) -> bool {
    line.starts_with('#') || line.starts_with(';')
}

/// A trailing backslash (after trailing spaces) continues the line.
fn continued(line: &str) -> Option<&str> {
    line.trim_end_matches(' ').strip_suffix('\\')
}

/// Parses unit text. The error text is the one Ignition prints after "invalid unit content: ".
pub fn parse_unit(text: &str) -> Result<Vec<UnitEntry>, String> {
    let lines: Vec<&str> = text
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    if lines.iter().any(|l| l.len() >= LINE_MAX) {
        return Err(format!("line too long (max {LINE_MAX} bytes)"));
    }
    let ends_with_newline = text.ends_with('\n');
    let mut entries = Vec::new();
    let mut section: Option<String> = None;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i].trim_start();
        i += 1;
        if is_comment(line) {
            // A comment continues onto the next line too.
            let mut current = line;
            while continued(current).is_some() && i < lines.len() {
                current = lines[i];
                i += 1;
            }
            continue;
        }
        if let Some(rest) = line.strip_prefix('[') {
            let Some((name, garbage)) = rest.split_once(']') else {
                return Err("unable to find end of section".into());
            };
            if !garbage.trim().is_empty() {
                return Err(format!(
                    "found garbage after section name {name}: {:?}",
                    garbage.trim()
                ));
            }
            section = Some(name.to_string());
            continue;
        }
        let Some(current) = &section else {
            // Before the first section the parser skips anything that is not a section.
            continue;
        };
        if line.trim().is_empty() {
            continue;
        }
        let Some((key, first)) = line.split_once('=') else {
            // go-systemd reads the name up to `=`: it meets a newline, or the end of the text.
            return Err(if i == lines.len() && !ends_with_newline {
                "EOF".into()
            } else {
                "unexpected newline encountered while parsing option name".into()
            });
        };
        let mut value = String::new();
        let mut part = first;
        while let Some(head) = continued(part) {
            value.push_str(head);
            value.push(' ');
            match lines.get(i) {
                Some(next) => {
                    part = next;
                    i += 1;
                }
                None => {
                    part = "";
                    break;
                }
            }
        }
        value.push_str(part);
        entries.push(UnitEntry {
            section: current.clone(),
            key: key.trim().to_string(),
            value: value.trim().to_string(),
        });
    }
    Ok(entries)
}

/// The values of `key` in `section`, split on whitespace (dependency lists). An empty
/// assignment resets the list, as in systemd.
pub fn list_values<'a>(entries: &'a [UnitEntry], section: &str, key: &str) -> Vec<&'a str> {
    let mut out = Vec::new();
    for entry in entries
        .iter()
        .filter(|e| e.section == section && e.key == key)
    {
        if entry.value.is_empty() {
            out.clear();
        }
        out.extend(entry.value.split_whitespace());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_sections_options_comments_and_continuations() {
        let text = "# top\n[Unit]\nDescription=a \\\n  b\n; note\nWants=x.service y.service\n\n[Install]\nWantedBy=multi-user.target\n";
        let entries = parse_unit(text).unwrap();
        assert_eq!(entries.len(), 3);
        assert_eq!(entries[0].value, "a    b");
        assert_eq!(
            list_values(&entries, "Unit", "Wants"),
            vec!["x.service", "y.service"]
        );
        assert_eq!(
            list_values(&entries, "Install", "WantedBy"),
            vec!["multi-user.target"]
        );
        assert!(parse_unit("").unwrap().is_empty());
        assert!(parse_unit("Description=before any section\n[Unit]\n").is_ok());
    }

    #[test]
    fn rejects_what_ignition_rejects() {
        assert_eq!(
            parse_unit("[Unit\nA=b\n").unwrap_err(),
            "unable to find end of section"
        );
        assert!(parse_unit("[Unit]x\n")
            .unwrap_err()
            .starts_with("found garbage"));
        assert_eq!(
            parse_unit("[Unit]\nfoo\nA=b\n").unwrap_err(),
            "unexpected newline encountered while parsing option name"
        );
        assert_eq!(parse_unit("[Unit]\nfoo").unwrap_err(), "EOF");
        let long = format!("[Unit]\nDescription={}\n", "x".repeat(2036));
        assert!(parse_unit(&long).unwrap_err().contains("too long"));
        let fits = format!("[Unit]\nDescription={}\n", "x".repeat(2035));
        assert!(parse_unit(&fits).is_ok());
    }

    #[test]
    fn empty_assignment_resets_a_list() {
        let entries = parse_unit("[Service]\nExecStart=/a\nExecStart=\nExecStart=/b\n").unwrap();
        assert_eq!(list_values(&entries, "Service", "ExecStart"), vec!["/b"]);
    }
}
