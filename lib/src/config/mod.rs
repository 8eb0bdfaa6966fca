//! Loading `install-config.yaml`: the document as the user wrote it. A key bootgen does not
//! know is refused with its line and, for a typo, the key that was meant.

mod bounded;
pub(crate) mod control_chars;
mod deprecated;
pub(crate) mod depth;
mod known_keys;
mod locate;
mod object_metadata;
mod string_map;
mod types;

pub use bounded::{
    read_at_most, read_stream_at_most, IGNITION_CONFIG_LIMIT, INSTALL_CONFIG_LIMIT, KEYFILE_LIMIT,
    MANIFEST_LIMIT,
};
pub use known_keys::nearest;
pub(crate) use known_keys::unsupported_refusal;
pub use locate::{line_of, parse_dotted, Step};
pub use types::*;

use crate::error::{Error, Result};
use std::path::Path;

/// The embedded default install-config, used when the user gives none.
pub const DEFAULT_INSTALL_CONFIG: &str = include_str!("default-install-config.yaml");

/// Name used in messages for the embedded default.
pub const DEFAULT_NAME: &str = "<embedded default install-config>";

/// A parsed install-config and where it came from. Its `Debug` leaves out the raw text and
/// hides the config's secrets.
#[derive(Clone)]
pub struct LoadedConfig {
    /// The document.
    pub config: InstallConfig,
    /// The file name shown in messages.
    pub source_name: String,
    /// The raw text (for line look-ups).
    pub text: String,
    /// Problems that do not stop generation.
    pub warnings: Vec<Warning>,
}

impl std::fmt::Debug for LoadedConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoadedConfig")
            .field("config", &self.config)
            .field("source_name", &self.source_name)
            .field("warnings", &self.warnings)
            .finish_non_exhaustive()
    }
}

/// A problem in the input that does not stop generation (unless `--strict`).
#[derive(Debug, Clone, PartialEq)]
pub struct Warning {
    /// The file.
    pub file: String,
    /// The field path, e.g. `networking.foo`.
    pub field: String,
    /// 1-based line, when known.
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(line) => write!(
                f,
                "{}:{}: `{}`: {}",
                self.file, line, self.field, self.message
            ),
            None => write!(f, "{}: `{}`: {}", self.file, self.field, self.message),
        }
    }
}

impl LoadedConfig {
    /// The line of a dotted field path (`networking.serviceNetwork.0`), when it is in the text.
    pub fn line_of(&self, field: &str) -> Option<usize> {
        line_of(&self.text, &parse_dotted(field))
    }

    /// An [`Error::InvalidField`] for this file, with the field's line (or, for a field not
    /// written, the line of the nearest part of the document that holds it).
    pub fn field_error(&self, field: &str, message: impl Into<String>) -> Error {
        Error::InvalidField {
            file: self.source_name.clone(),
            field: display_path(field),
            line: self.line_near(field),
            message: message.into(),
        }
    }

    /// The line of `field`, else of its nearest written parent (`compute.0` for
    /// `compute.0.architecture`); none for a missing top-level field.
    fn line_near(&self, field: &str) -> Option<usize> {
        let mut path = field;
        loop {
            if let Some(line) = self.line_of(path) {
                return Some(line);
            }
            path = path.rsplit_once('.')?.0;
        }
    }

    /// A warning for this file, with the field's line.
    pub fn warning(&self, field: &str, message: impl Into<String>) -> Warning {
        Warning {
            file: self.source_name.clone(),
            field: display_path(field),
            line: self.line_of(field),
            message: message.into(),
        }
    }
}

/// serde's type names in a message (`expected i64`) in the words of a YAML file's author.
fn in_plain_words(said: &str) -> String {
    let mut said = said.to_string();
    for (rust, plain) in [
        ("expected i64", "expected a whole number"),
        ("expected u64", "expected a whole number of 0 or more"),
        ("expected i32", "expected a whole number"),
        ("expected u32", "expected a whole number of 0 or more"),
        ("expected u16", "expected a whole number of 0 or more"),
        ("expected u8", "expected a whole number of 0 or more"),
        ("expected f64", "expected a number"),
        ("expected a boolean", "expected true or false"),
    ] {
        said = said.replace(rust, plain);
    }
    said
}

/// Turns `compute.0.name` into `compute[0].name` for messages.
pub(crate) fn display_path(dotted: &str) -> String {
    let mut out = String::new();
    for part in dotted.split('.') {
        if part.parse::<usize>().is_ok() {
            out.push_str(&format!("[{part}]"));
        } else {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(part);
        }
    }
    out
}

/// Reads and parses an install-config file.
pub fn load(path: &Path) -> Result<LoadedConfig> {
    let bytes = read_at_most(path, INSTALL_CONFIG_LIMIT)?;
    let text = String::from_utf8(bytes).map_err(|e| {
        let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        Error::Parse {
            file: path.display().to_string(),
            line: Some(valid.iter().filter(|b| **b == b'\n').count() + 1),
            message: "is not UTF-8 text, as YAML must be".into(),
        }
    })?;
    parse(&text, &path.display().to_string())
}

/// The embedded default install-config.
pub fn load_default() -> Result<LoadedConfig> {
    parse(DEFAULT_INSTALL_CONFIG, DEFAULT_NAME)
}

/// The embedded single-node example: one control-plane machine, no compute, no installation
/// disk (the caller gives one).
pub const DEFAULT_SINGLE_NODE_INSTALL_CONFIG: &str =
    include_str!("default-single-node-install-config.yaml");

/// The embedded single-node example install-config.
pub fn load_default_single_node() -> Result<LoadedConfig> {
    parse(
        DEFAULT_SINGLE_NODE_INSTALL_CONFIG,
        "<embedded single-node install-config>",
    )
}

/// For the parser's "duplicate field `KEY`", which it places where the mapping starts: the line
/// (1-based) of the second `KEY:` of that mapping, the one to remove, found from `from` on among
/// the lines indented as its first `KEY:`.
fn duplicate_key_line(text: &str, message: &str, from: usize) -> Option<usize> {
    let key = message
        .split_once("duplicate field `")?
        .1
        .split('`')
        .next()?;
    let mut first_indent = None;
    for (i, line) in text.lines().enumerate().skip(from.saturating_sub(1)) {
        let body = line.trim_start().trim_start_matches("- ");
        let indent = line.len() - body.len();
        let names_key = body
            .strip_prefix(key)
            .or_else(|| body.strip_prefix(&format!("\"{key}\"")))
            .is_some_and(|rest| rest.trim_start().starts_with(':'));
        if !names_key {
            continue;
        }
        match first_indent {
            None => first_indent = Some(indent),
            Some(first) if first == indent => return Some(i + 1),
            Some(_) => {}
        }
    }
    None
}

/// The first line (1-based) whose indentation contains a tab.
fn tab_indented_line(text: &str) -> Option<usize> {
    text.lines()
        .position(|line| {
            line.chars()
                .take_while(|c| c.is_whitespace())
                .any(|c| c == '\t')
        })
        .map(|index| index + 1)
}

/// Refuses a second document that holds anything, naming its line: the installer's reader
/// takes the first and drops the rest silently, so their settings would be lost. An empty one
/// (a trailing `---`) is nothing lost.
fn refuse_more_documents(
    documents: serde_yaml_ng::Deserializer<'_>,
    text: &str,
    source_name: &str,
) -> Result<()> {
    use serde::Deserialize as _;
    // Lines that start a document; one before any content starts the first.
    let mut starts: Vec<usize> = Vec::new();
    let mut content = false;
    for (index, line) in text.lines().enumerate() {
        let trimmed = line.trim_end();
        if trimmed == "---" || trimmed.starts_with("--- ") {
            if content {
                starts.push(index + 1);
            }
            content = true;
        } else if !trimmed.is_empty() && !trimmed.starts_with('#') {
            content = true;
        }
    }
    for (k, document) in documents.enumerate() {
        let line = starts.get(k).copied();
        let fail = |message: String| Error::Parse {
            file: source_name.to_string(),
            line,
            message,
        };
        match serde_yaml_ng::Value::deserialize(document) {
            Ok(serde_yaml_ng::Value::Null) => {}
            Ok(_) => {
                return Err(fail(
                    "a second YAML document begins here; an install-config is one document (the installer would read only the first)".into(),
                ))
            }
            Err(e) => return Err(fail(format!("the YAML document beginning here: {e}"))),
        }
    }
    Ok(())
}

/// Parses install-config text; `source_name` is used in messages.
pub fn parse(text: &str, source_name: &str) -> Result<LoadedConfig> {
    if let Some(line) = depth::too_deep(text) {
        return Err(Error::Parse {
            file: source_name.to_string(),
            line: Some(line),
            message: depth::too_deep_message(),
        });
    }
    let mut unknown = Vec::new();
    // The installer's reader takes a UTF-8 byte-order mark, as editors on Windows write it.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let document = serde_yaml_ng::from_str(text).unwrap_or(serde_yaml_ng::Value::Null);
    // Named by their field here, before the typed reading refuses them by its own words.
    if let Some((field, message)) =
        string_map::first_refused(&document).or_else(|| object_metadata::first_refused(&document))
    {
        return Err(Error::InvalidField {
            file: source_name.to_string(),
            line: line_of(text, &parse_dotted(&field)),
            field: display_path(&field),
            message,
        });
    }
    let mut documents = serde_yaml_ng::Deserializer::from_str(text);
    let Some(deserializer) = documents.next() else {
        return Err(Error::Parse {
            file: source_name.to_string(),
            line: None,
            message: "holds no YAML document".into(),
        });
    };
    let config: InstallConfig =
        serde_ignored::deserialize(deserializer, |path| unknown.push(path.to_string())).map_err(
            |e| {
                match tab_indented_line(text) {
        // The YAML parser's own words ("found character that cannot start any token")
        // do not say what is wrong.
        Some(line) => Error::Parse {
            file: source_name.to_string(),
            line: Some(line),
            message:
                "indented with a tab: YAML does not allow tabs for indentation; indent with spaces"
                    .into(),
        },
        None => {
            let said = in_plain_words(&e.to_string());
            let duplicate = e
                .location()
                .and_then(|l| duplicate_key_line(text, &said, l.line()));
            Error::Parse {
                file: source_name.to_string(),
                line: duplicate.or_else(|| e.location().map(|l| l.line())),
                // The parser's own position is the mapping's, not the duplicate's.
                message: match (duplicate, said.rfind(" at line ")) {
                    (Some(_), Some(at)) => said[..at].to_string(),
                    _ => said,
                },
            }
        }
    }
            },
        )?;
    refuse_more_documents(documents, text, source_name)?;
    let mut loaded = LoadedConfig {
        config,
        source_name: source_name.to_string(),
        text: text.to_string(),
        warnings: Vec::new(),
    };
    // A key that does nothing hides a typo: the installer refuses unknown keys from 4.22 on
    // (older ones ignore them with a warning), and bootgen refuses them for every release.
    if let Some(path) = unknown.first() {
        let dotted = dotted_path(path);
        let refusal =
            object_metadata::refusal(&dotted).or_else(|| known_keys::unsupported_refusal(&dotted));
        let message = match (refusal, known_keys::suggestion(&dotted)) {
            (Some(refusal), _) => refusal,
            (None, Some(meant)) => format!("unknown key: did you mean `{meant}`?"),
            (None, None) => "unknown key: the install-config has no such field; remove it (or check its indentation)".to_string(),
        };
        return Err(loaded.field_error(&dotted, message));
    }
    // Every string that may reach a template, checked once here rather than where each is used.
    if let Some((field, c)) = control_chars::first_control_character(&document) {
        return Err(loaded.field_error(
            &field,
            format!(
                "contains {}: this value may not hold control characters",
                control_chars::describe(c)
            ),
        ));
    }
    loaded.warnings.clear();
    deprecated::upconvert(&mut loaded);
    Ok(loaded)
}

/// A key path as serde_ignored reports it, as the dotted field path messages name: it marks
/// `Option` layers with `?`, which are dropped.
pub(crate) fn dotted_path(path: &str) -> String {
    path.split('.')
        .map(|part| part.trim_end_matches('?'))
        .filter(|part| !part.is_empty())
        .collect::<Vec<_>>()
        .join(".")
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_value_of_the_wrong_type_is_named_in_plain_words() {
        let text = "apiVersion: v1\nmetadata:\n  name: x\nbaseDomain: example.com\ncontrolPlane:\n  replicas: three\n";
        let err = super::parse(text, "install-config.yaml")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("controlPlane.replicas") && err.contains("expected a whole number"),
            "{err}"
        );
        assert!(!err.contains("i64"), "{err}");
    }

    use super::*;

    #[test]
    fn default_parses_without_warnings() {
        let loaded = load_default().unwrap();
        assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
        assert_eq!(loaded.config.metadata.name.as_deref(), Some("example"));
    }

    #[test]
    fn a_byte_order_mark_and_a_trailing_document_marker_are_taken_a_second_document_is_not() {
        let text = "apiVersion: v1\nbaseDomain: a.b\n";
        let bom = parse(&format!("\u{feff}{text}"), "ic.yaml").unwrap();
        assert_eq!(bom.config.base_domain.as_deref(), Some("a.b"));
        assert!(parse(&format!("---\n{text}---\n"), "ic.yaml").is_ok());
        assert!(parse(&format!("\u{feff}{text}---\n# end\n"), "ic.yaml").is_ok());
        let two = parse(
            &format!("# a comment\n{text}---\nbaseDomain: c.d\n"),
            "ic.yaml",
        )
        .unwrap_err();
        assert!(
            matches!(&two, Error::Parse { line: Some(4), message, .. } if message.contains("second YAML document")),
            "{two:?}"
        );
    }

    #[test]
    fn unknown_keys_are_refused_with_line_and_the_key_meant() {
        let text = "apiVersion: v1\nbaseDomain: a.b\nnetworking:\n  networkType: OVNKubernetes\n  colour: red\n";
        let err = parse(text, "ic.yaml").unwrap_err();
        assert!(
            matches!(&err, Error::InvalidField { field, line: Some(5), .. } if field == "networking.colour"),
            "{err:?}"
        );
        let typo = parse("apiVersion: v1\ncontrolplane:\n  replicas: 3\n", "ic.yaml")
            .unwrap_err()
            .to_string();
        assert!(typo.contains("did you mean `controlPlane`?"), "{typo}");
        let unsupported = parse("credentialsMode: Mint\n", "ic.yaml")
            .unwrap_err()
            .to_string();
        assert!(
            unsupported.contains("bootgen does not support it")
                && !unsupported.contains("platform none has not")
                && unsupported.contains("none, vSphere and external"),
            "{unsupported}"
        );
        // Later installers' pool settings, in any pool of the list: not "no such field".
        for (text, field) in [
            (
                "compute:\n- name: worker\n  management: MachineAPI\n",
                "`compute[0].management`",
            ),
            (
                "controlPlane:\n  diskSetup:\n  - type: etcd\n",
                "`controlPlane.diskSetup`",
            ),
        ] {
            let refused = parse(text, "ic.yaml").unwrap_err().to_string();
            assert!(
                refused.contains(field) && refused.contains("bootgen does not support it"),
                "{refused}"
            );
        }
        // The topologies bootgen does not make name the platforms the installer makes them on,
        // so nobody reads the refusal as bootgen lagging behind on vSphere.
        for (text, platforms) in [
            (
                "arbiter:\n  replicas: 1\n",
                "on platform baremetal (in its later releases also on external and none)",
            ),
            (
                "controlPlane:\n  fencing:\n    credentials: []\n",
                "on platforms baremetal, external and none",
            ),
        ] {
            let refused = parse(text, "ic.yaml").unwrap_err().to_string();
            assert!(
                refused.contains(platforms) && refused.contains("bootgen does not make"),
                "{refused}"
            );
        }
        // What `openshift-install create install-config` writes under metadata is not a typo.
        let loaded = parse(
            "metadata:\n  creationTimestamp: null\n  name: x\n",
            "ic.yaml",
        )
        .unwrap();
        assert!(loaded.warnings.is_empty());
    }

    #[test]
    fn malformed_yaml_names_file_and_line() {
        let err = parse("apiVersion: v1\nmetadata: [\n", "ic.yaml").unwrap_err();
        let text = err.to_string();
        assert!(text.starts_with("ic.yaml:"), "{text}");
    }

    #[test]
    fn tab_indentation_is_named_with_its_line() {
        let text = "apiVersion: v1\nmetadata:\n\tname: x\nbaseDomain: a.b\n";
        let err = parse(text, "ic.yaml").unwrap_err().to_string();
        assert_eq!(
            err,
            "ic.yaml:3: indented with a tab: YAML does not allow tabs for indentation; indent with spaces"
        );
    }

    #[test]
    fn field_paths_read_naturally() {
        assert_eq!(display_path("compute.0.name"), "compute[0].name");
    }
}
