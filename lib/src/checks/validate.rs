//! `bootgen validate`: a config checked as Ignition checks it (JSON syntax, spec version,
//! schema, then the rules in `rules`), plus what the files stage would fail on, plus bootgen's
//! lints. Every problem has a JSON path and a line and column. Errors make a config invalid;
//! for Ignition's own rules the verdict agrees with `ignition-validate` (the conformance crate
//! proves it on the corpus in `fixtures/ign/`).

use super::lint;
use super::locate::locate;
use super::problem::{Check, Problem, Severity};
use super::syntax::{schema_problem, syntax_problem, version_problem, Checked};
use crate::ignition::files::FileList;
use crate::ignition::place::bracket_indices;
use crate::ignition::{IgnitionDoc, SplitDoc};
use serde::Serialize;
use serde_json::Value;
use std::fmt;

/// What to check besides Ignition's rules.
#[derive(Debug, Clone)]
pub struct ValidateOptions {
    /// Run bootgen's lints (unit graph, secret modes, certificates).
    pub lints: bool,
    /// The clock for certificate checks.
    pub now: time::OffsetDateTime,
    /// Certificates expiring within this are warned about.
    pub warn_within: time::Duration,
    /// Warnings make a config invalid too (`--strict`), so that `valid` agrees with the
    /// verdict a caller acts on.
    pub strict: bool,
}

/// The result for one config.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Validation {
    /// The file name as given.
    pub file: String,
    /// `ignition.version`, when it could be read.
    pub version: Option<String>,
    /// True when there is no error (and, under [`ValidateOptions::strict`], no warning).
    pub valid: bool,
    /// Judged under [`ValidateOptions::strict`]: shown only when set, so the non-strict JSON
    /// stays as it was.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub strict: bool,
    /// Every problem, in the order found.
    pub problems: Vec<Problem>,
}

impl Validation {
    /// How many problems of `severity`.
    pub fn count(&self, severity: Severity) -> usize {
        self.problems
            .iter()
            .filter(|p| p.severity == severity)
            .count()
    }
}

/// Validates one config; `file` names it in the result.
///
/// A JSON tree costs about ten times the bytes it was parsed from, so the config is checked
/// split ([`SplitDoc`]: every file entry kept raw and read one at a time); what the split cannot
/// read (a config that is not an object, a file entry that is not one) is checked whole. Both
/// give the same problems, in the same order, at the same places.
pub fn validate(bytes: &[u8], file: &str, options: &ValidateOptions) -> Validation {
    // The syntax as a tree would check it, without the tree.
    if let Err(e) = serde_json::from_slice::<Checked>(bytes) {
        return Validation {
            file: file.to_string(),
            version: None,
            valid: false,
            strict: options.strict,
            problems: vec![syntax_problem(bytes, &e)],
        };
    }
    if let Ok(split) = SplitDoc::parse(bytes, file, |_| false) {
        let version = version_problem(&split.doc.value);
        let checked = match &version {
            Err(_) => Some(Vec::new()),
            Ok((version, minor)) => check_config(
                bytes,
                &split.doc,
                split.file_list(),
                split.unknown_keys(),
                (version, *minor),
                options,
            )
            .ok(),
        };
        if let Some(problems) = checked {
            return finish(bytes, file, version, problems, options.strict);
        }
    }
    validate_whole(bytes, file, options)
}

/// The errors of Ignition's rules (and the files stage's) that `after` has and `before` does not
/// (by rule and message, wherever they are): what a change of `before` brought, such as a file a
/// patch added below an existing file.
pub fn errors_added(before: &[u8], after: &[u8]) -> Vec<Problem> {
    let options = ValidateOptions {
        lints: false,
        now: time::OffsetDateTime::UNIX_EPOCH,
        warn_within: time::Duration::ZERO,
        strict: false,
    };
    let errors = |bytes: &[u8]| -> Vec<Problem> {
        validate(bytes, "", &options)
            .problems
            .into_iter()
            .filter(Problem::is_error)
            .collect()
    };
    let added = errors(after);
    if added.is_empty() {
        return added;
    }
    let had = errors(before);
    added
        .into_iter()
        .filter(|p| {
            !had.iter()
                .any(|h| h.rule == p.rule && h.message == p.message)
        })
        .collect()
}

/// [`validate`] of the config parsed whole, as one JSON tree.
fn validate_whole(bytes: &[u8], file: &str, options: &ValidateOptions) -> Validation {
    let value: Value = match serde_json::from_slice(bytes) {
        Ok(v) => v,
        Err(e) => {
            return Validation {
                file: file.to_string(),
                version: None,
                valid: false,
                strict: options.strict,
                problems: vec![syntax_problem(bytes, &e)],
            }
        }
    };
    let version = version_problem(&value);
    let problems = match &version {
        Err(_) => Vec::new(),
        Ok((version, minor)) => {
            let doc = IgnitionDoc { value };
            let files = FileList::of(&doc.value);
            // A tree's entries are always readable.
            check_config(bytes, &doc, files, None, (version, *minor), options).unwrap_or_else(|e| {
                vec![Problem::new(
                    Severity::Error,
                    Check::Ignition,
                    "schema",
                    "$",
                    e.to_string(),
                )]
            })
        }
    };
    finish(bytes, file, version, problems, options.strict)
}

/// The result, every problem located, from the version (or the problem with it) and the
/// problems found after it; under `strict` a warning makes it invalid too.
fn finish(
    bytes: &[u8],
    file: &str,
    version: Result<(String, u32), Problem>,
    mut problems: Vec<Problem>,
    strict: bool,
) -> Validation {
    let version = match version {
        Ok((version, _)) => Some(version),
        Err(problem) => {
            problems.insert(0, problem);
            None
        }
    };
    locate(bytes, &mut problems);
    Validation {
        file: file.to_string(),
        version,
        valid: !problems
            .iter()
            .any(|p| p.is_error() || (strict && p.severity == Severity::Warning)),
        strict,
        problems,
    }
}

/// What follows a readable version: the schema, with unknown keys as warnings (`unknown` when
/// they are known already, else the whole config is checked for them), Ignition's rules and
/// bootgen's lints. The units are read from `doc`, the file entries from `files`; an error only
/// when a file entry cannot be read.
fn check_config(
    bytes: &[u8],
    doc: &IgnitionDoc,
    files: FileList<'_>,
    unknown: Option<Vec<String>>,
    (version, minor): (&str, u32),
    options: &ValidateOptions,
) -> crate::error::Result<Vec<Problem>> {
    let unknown = match unknown {
        Some(keys) => keys,
        None => match crate::ignition::schema::parse_typed(bytes) {
            Err(e) => return Ok(vec![schema_problem(&e, bytes, version)]),
            Ok((_, warnings)) => warnings
                .into_iter()
                .filter_map(|w| match w {
                    ignition_config::Warning::UnusedKey(path) => Some(path),
                    _ => None,
                })
                .collect(),
        },
    };
    let mut problems: Vec<Problem> = unknown
        .iter()
        .map(|path| {
            Problem::new(
                Severity::Warning,
                Check::Ignition,
                "unknown-key",
                bracket_indices(path),
                format!("unused key: not part of the Ignition {version} spec (ignored)"),
            )
        })
        .collect();
    problems.extend(super::rules::check(&doc.value, files, minor)?);
    if options.lints {
        // Ignition's rules already warn about enabled units without [Install].
        problems.extend(
            lint::units(doc, files)?
                .into_iter()
                .filter(|p| p.rule != "no-install-section"),
        );
        problems.extend(lint::secrets(files));
        problems.extend(lint::certificates(
            &doc.value,
            files,
            options.now,
            options.warn_within,
        ));
    }
    Ok(problems)
}

impl fmt::Display for Validation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for p in &self.problems {
            write!(f, "{}", self.file)?;
            if let (Some(line), Some(column)) = (p.location.line, p.location.column) {
                write!(f, ":{line}:{column}")?;
            }
            writeln!(f, ": {p}")?;
        }
        let verdict = if self.valid {
            "valid"
        } else if self.count(Severity::Error) == 0 {
            // Only the warnings make it so: say why, or "invalid: 0 error(s)" puzzles.
            "INVALID under --strict"
        } else {
            "INVALID"
        };
        let version = self
            .version
            .as_deref()
            .map(|v| format!(" (spec {v})"))
            .unwrap_or_default();
        writeln!(
            f,
            "{}: {verdict}{version}: {} error(s), {} warning(s), {} note(s)",
            self.file,
            self.count(Severity::Error),
            self.count(Severity::Warning),
            self.count(Severity::Note)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options() -> ValidateOptions {
        ValidateOptions {
            lints: true,
            now: time::OffsetDateTime::UNIX_EPOCH,
            warn_within: time::Duration::hours(24),
            strict: false,
        }
    }

    fn run(text: &str) -> Validation {
        validate(text.as_bytes(), "t.ign", &options())
    }

    #[test]
    fn syntax_errors_have_line_and_column() {
        let v = run("{\"ignition\":{\"version\":\"3.2.0\"},\n \"storage\": {\"files\": [}\n}");
        assert!(!v.valid);
        // One past the `}` at column 24: Go's reader counts the byte it stopped at, and
        // `ignition-validate` says `line 2 col 25`.
        assert_eq!(
            (v.problems[0].location.line, v.problems[0].location.column),
            (Some(2), Some(25))
        );
        assert!(run("variant: fcos\n").to_string().contains("Butane"));
        assert!(run("").to_string().contains("empty"));
    }

    #[test]
    fn a_mode_typed_as_octal_digits_gets_the_mode_meant() {
        let config = |mode: u32| {
            format!("{{\"ignition\":{{\"version\":\"3.4.0\"}},\"storage\":{{\"files\":[{{\"path\":\"/etc/a\",\"mode\":{mode}}}]}}}}")
        };
        let v = run(&config(644));
        let hint = v.problems.iter().find(|p| p.rule == "mode-decimal");
        assert_eq!(
            hint.map(|p| p.message.as_str()),
            Some("mode 644 is 01204 in octal: did you mean 0644? A mode in JSON is a decimal number: write 420 for 0644")
        );
        // 420 is 0644 already, and 0755's 493 is no octal digits: no hint for either.
        for usual in [420, 493, 384] {
            assert!(
                !run(&config(usual))
                    .problems
                    .iter()
                    .any(|p| p.rule == "mode-decimal"),
                "{usual}"
            );
        }
    }

    #[test]
    fn versions_and_schema() {
        assert!(run("{\"ignition\":{\"version\":\"2.2.0\"}}")
            .to_string()
            .contains("spec 2"));
        assert!(!run("{\"ignition\":{}}").valid);
        let v = run("{\"ignition\":{\"version\":\"3.2.0\"},\n\"storage\":{\"files\":[{\"path\":\"/a\",\"mode\":\"0644\"}]}}");
        assert!(!v.valid);
        assert_eq!(v.problems[0].rule, "schema");
        assert_eq!(
            v.problems[0].location.path.as_deref(),
            Some("$.storage.files[0].mode")
        );
        // Just past the value, where Go's decoder stopped (`ignition-validate`: `col 47`).
        assert_eq!(v.problems[0].location.column, Some(47));
        let v = run("{\"ignition\":{\"version\":\"3.2.0\"},\"storage\":{\"filez\":[]}}");
        assert!(v.valid);
        assert_eq!(v.problems[0].rule, "unknown-key");
        assert_eq!(
            v.problems[0].location.path.as_deref(),
            Some("$.storage.filez")
        );
        assert_eq!(v.problems[0].location.column, Some(44));
    }

    /// A field the schema requires is named as the field of its object, at the object's place
    /// (as `ignition-validate` names a RAID array without devices: `$.storage.raid.0.devices`),
    /// not as the object's last member, where serde stopped reading.
    #[test]
    fn a_missing_field_is_named_in_its_object() {
        for version in ["3.0.0", "3.1.0", "3.2.0"] {
            for (array, column) in [
                (r#"{"name":"md0","level":"raid1","spares":0}"#, 53),
                (r#"{"name":"md0","level":"raid1","options":["--x"]}"#, 53),
                ("\n  {\"level\": \"raid1\"\n  }", 4),
                ("{}", 53),
            ] {
                let text = format!(
                    r#"{{"ignition":{{"version":"{version}"}},"storage":{{"raid":[{array}]}}}}"#
                );
                let v = run(&text);
                let p = &v.problems[0];
                assert_eq!(
                    (p.rule, p.location.path.as_deref(), p.location.column),
                    ("schema", Some("$.storage.raid[0].devices"), Some(column)),
                    "{text}"
                );
                assert!(
                    p.message.ends_with("missing field `devices`"),
                    "{}",
                    p.message
                );
            }
        }
        // A member that is an object itself ends where serde stopped: still the outer one's.
        let v = run(
            r#"{"ignition":{"version":"3.2.0"},"storage":{"files":[{"mode":420,"contents":{"source":"data:,"}}]}}"#,
        );
        assert_eq!(
            v.problems[0].location.path.as_deref(),
            Some("$.storage.files[0].path")
        );
    }

    #[test]
    fn rule_problems_are_located() {
        let v = run("{\"ignition\":{\"version\":\"3.2.0\"},\"storage\":{\"files\":[\n{\"path\":\"/a\"},\n{\"path\":\"/a\"}]}}");
        assert!(!v.valid);
        let p = &v.problems[0];
        assert_eq!(p.location.path.as_deref(), Some("$.storage.files[1]"));
        // Just inside the entry's brace, as `ignition-validate` places an object.
        assert_eq!((p.location.line, p.location.column), (Some(3), Some(2)));
        assert!(v
            .to_string()
            .contains("t.ign:3:2: error[duplicate] $.storage.files[1]"));
    }

    /// Checked split, a config gets exactly what it gets checked whole: on every fixture config
    /// and on variants of one with a problem of each kind, pretty or not.
    #[test]
    fn the_split_check_agrees_with_the_whole_check() {
        const CONFIG: &str = r#"{"ignition":{"version":"3.2.0"},"passwd":{"users":[{"name":"core"}]},"storage":{"directories":[{"path":"/d","mode":493}],"files":[{"path":"/etc/a","mode":420,"contents":{"source":"data:,a"}},{"path":"/etc/kubernetes/kubeconfig","mode":420,"contents":{"source":"data:,apiVersion%3A%20v1%0Akind%3A%20Config%0A"}},{"path":"/usr/local/bin/run.sh","mode":493,"contents":{"source":"data:,x"}}],"links":[{"path":"/l","target":"/etc/a"}]},"systemd":{"units":[{"name":"a.service","enabled":true,"contents":"[Unit]\nWants=b.service\n[Service]\nExecStart=/usr/local/bin/run.sh\n[Install]\nWantedBy=multi-user.target\n"},{"name":"b.service","enabled":false,"contents":"[Service]\nExecStart=/usr/local/bin/gone.sh\n"}]}}"#;
        let first_file = r#"{"path":"/etc/a","mode":420,"contents":{"source":"data:,a"}}"#;
        let mut configs: Vec<String> = [
            (first_file, r#"{"path":"/etc/a","mode":420,"contents":{"source":"data:,a"},"x":{"y":1}}"#),
            (first_file, r#"{"path":"/etc/a","mode":"420"}"#),
            (first_file, r#"{"path":"etc//a","mode":99999,"overwrite":true}"#),
            (first_file, r#"{"path":"/etc/kubernetes/kubeconfig"}"#),
            (first_file, r#"{"path":"/d"},{"path":"/etc/a/b","append":[{"source":"data:,x","compression":"gzip"}]}"#),
            (first_file, r#"{"path":"\/etc\u002fa","x":1e999}"#),
            (first_file, r#"{"path":"/etc/a","x":"\ud800"}"#),
            (first_file, r#"7"#),
            (first_file, r#"{"path":7}"#),
            (first_file, r#"{"path":"/etc/a","path":"/etc/b"}"#),
            (r#""passwd":{"#, r#""passwd":{"x":1,"#),
            (r#""links":["#, r#""filez":[],"links":["#),
            (r#""links":["#, r#""files":[],"links":["#),
            (r#""storage":{"#, r#""storage":{"files":[{"path":"/z","w":1}],"#),
            (r#""3.2.0"}"#, r#""3.2.0"},"storage":{}"#),
            (r#""3.2.0"}"#, r#""3.4.0"}"#),
            (r#""3.2.0"}"#, r#""2.2.0"}"#),
            (r#"{"ignition":"#, r#"{"z":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]],"ignition":"#),
            (r#""ignition":{"version":"3.2.0"},"#, ""),
        ]
        .iter()
        .map(|(from, to)| CONFIG.replacen(from, to, 1))
        .collect();
        configs.push(CONFIG.to_string());
        configs.push(CONFIG[..CONFIG.len() - 2].to_string());
        configs.push("[]".to_string());
        let pretty: Vec<String> = configs
            .iter()
            .filter_map(|c| serde_json::from_str::<Value>(c).ok())
            .map(|v| serde_json::to_string_pretty(&v).unwrap())
            .collect();
        configs.extend(pretty);
        fn walk(dir: &std::path::Path, out: &mut Vec<String>) {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    walk(&path, out);
                } else if path.extension().is_some_and(|e| e == "ign") {
                    out.push(std::fs::read_to_string(path).unwrap());
                }
            }
        }
        walk(
            std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures")),
            &mut configs,
        );
        assert!(configs.len() > 80, "{}", configs.len());
        for text in &configs {
            let whole = validate_whole(text.as_bytes(), "t.ign", &options());
            assert_eq!(run(text), whole, "{text}");
        }
    }
}
