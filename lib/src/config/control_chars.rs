//! Control characters in install-config values. A newline in a proxy URL or an ESC in a name
//! would otherwise reach the templates (a systemd value, a shell word, a manifest) and fail
//! there, or worse, end a line the value should stay inside. Every string of the document is
//! checked once, when it is loaded, and refused naming its field and line.

use serde_yaml_ng::Value;

/// Fields whose values are several lines by nature (PEM certificates, several SSH keys, JSON):
/// newlines, carriage returns and tabs are legitimate there, other control characters are not.
const MULTI_LINE: &[&str] = &["additionalTrustBundle", "pullSecret", "sshKey"];

/// The dotted path (`proxy.httpsProxy`, `imageContentSources.0.source`) of the first string
/// value of `document` that holds a control character it may not, with that character.
pub(crate) fn first_control_character(document: &Value) -> Option<(String, char)> {
    let mut path = Vec::new();
    find(document, &mut path)
}

fn find(value: &Value, path: &mut Vec<String>) -> Option<(String, char)> {
    match value {
        Value::String(text) => {
            let multi_line = path.len() == 1 && MULTI_LINE.contains(&path[0].as_str());
            text.chars()
                .find(|&c| c.is_control() && !(multi_line && matches!(c, '\n' | '\r' | '\t')))
                .map(|c| (path.join("."), c))
        }
        Value::Sequence(items) => items.iter().enumerate().find_map(|(i, item)| {
            path.push(i.to_string());
            let found = find(item, path);
            path.pop();
            found
        }),
        Value::Mapping(map) => map.iter().find_map(|(key, item)| {
            path.push(match key {
                Value::String(key) => key.clone(),
                other => serde_yaml_ng::to_string(other)
                    .unwrap_or_default()
                    .trim()
                    .to_string(),
            });
            let found = find(item, path);
            path.pop();
            found
        }),
        Value::Tagged(tagged) => find(&tagged.value, path),
        Value::Null | Value::Bool(_) | Value::Number(_) => None,
    }
}

/// What a person calls `c`, with its code point.
pub(crate) fn describe(c: char) -> String {
    let name = match c {
        '\n' => "a newline",
        '\r' => "a carriage return",
        '\t' => "a tab",
        '\0' => "a NUL",
        '\u{1b}' => "an escape (ESC)",
        _ => "a control character",
    };
    format!("{name} (U+{:04X})", u32::from(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn first(text: &str) -> Option<(String, char)> {
        first_control_character(&serde_yaml_ng::from_str(text).unwrap())
    }

    #[test]
    fn the_first_control_character_is_found_with_its_field() {
        assert_eq!(
            first("proxy:\n  httpsProxy: \"http://p:3128\\nX\"\n"),
            Some(("proxy.httpsProxy".into(), '\n'))
        );
        assert_eq!(
            first("imageContentSources:\n- source: \"a\\eb\"\n  mirrors: [m]\n"),
            Some(("imageContentSources.0.source".into(), '\u{1b}'))
        );
        assert_eq!(
            first("metadata:\n  name: \"x\\u009b\"\n"),
            Some(("metadata.name".into(), '\u{9b}'))
        );
        // Several lines where a value has them by nature; NUL or ESC still not.
        assert_eq!(
            first("additionalTrustBundle: \"-----BEGIN\\r\\n\\tx\\n\"\nsshKey: |\n  a\n  b\n"),
            None
        );
        assert_eq!(
            first("sshKey: \"ssh-ed25519 AAAA\\0\"\n"),
            Some(("sshKey".into(), '\0'))
        );
        assert_eq!(first("baseDomain: example.com\nreplicas: 3\n"), None);
    }
}
