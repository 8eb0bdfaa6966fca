//! `bootgen validate`: a config checked as Ignition checks it (JSON syntax, spec version,
//! schema, then the rules in `rules`), plus what the files stage would fail on, plus bootgen's
//! lints. Every problem has a JSON path and a line and column. Errors make a config invalid;
//! for Ignition's own rules the verdict agrees with `ignition-validate` (the conformance crate
//! proves it on the corpus in `fixtures/ign/`).

use super::lint::{lint_certificates, lint_secrets, lint_units};
use super::locate::{bracket_indices, Positions};
use super::problem::{Check, Location, Problem, Severity};
use crate::ignition::{IgnitionDoc, READABLE_VERSIONS};
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
}

/// The result for one config.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Validation {
    /// The file name as given.
    pub file: String,
    /// `ignition.version`, when it could be read.
    pub version: Option<String>,
    /// True when there is no error.
    pub valid: bool,
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

fn syntax_problem(bytes: &[u8], e: &serde_json::Error) -> Problem {
    let trimmed = String::from_utf8_lossy(bytes);
    let trimmed = trimmed.trim_start();
    let hint = if trimmed.is_empty() {
        " (the file is empty)"
    } else if trimmed.starts_with("variant:") || trimmed.starts_with("version:") {
        " (this looks like Butane YAML: translate it with `butane` first)"
    } else {
        ""
    };
    let mut problem = Problem::new(
        Severity::Error,
        Check::Ignition,
        "json-syntax",
        "$",
        format!("not valid JSON: {}{hint}", without_position(&e.to_string())),
    );
    problem.location = Location {
        path: None,
        line: Some(e.line().max(1)),
        column: Some(e.column().max(1)),
    };
    problem
}

/// serde's message without its trailing " at line N column M" (the location says that).
fn without_position(text: &str) -> String {
    match text.rfind(" at line ") {
        Some(cut) if text[cut..].contains(" column ") => text[..cut].to_string(),
        _ => text.to_string(),
    }
}

/// The minor number of a 3.x.0 version bootgen reads.
fn spec_minor(version: &str) -> Option<u32> {
    READABLE_VERSIONS
        .contains(&version)
        .then(|| version.split('.').nth(1).and_then(|m| m.parse().ok()))
        .flatten()
}

fn version_problem(value: &Value) -> Result<(String, u32), Problem> {
    let problem = |message: String| {
        Problem::new(
            Severity::Error,
            Check::Ignition,
            "version",
            "$.ignition.version",
            message,
        )
    };
    let Some(version) = value.pointer("/ignition/version").and_then(Value::as_str) else {
        return Err(problem(
            "no ignition.version: is this an Ignition config?".to_string(),
        ));
    };
    match spec_minor(version) {
        Some(minor) => Ok((version.to_string(), minor)),
        None if version.starts_with("2.") => Err(problem(format!(
            "spec {version} is Ignition spec 2 (RHCOS before OCP 4.6); spec 3 is needed: {}",
            READABLE_VERSIONS.join(", ")
        ))),
        None => Err(problem(format!(
            "unsupported config version {version}; supported: {}",
            READABLE_VERSIONS.join(", ")
        ))),
    }
}

/// Validates one config; `file` names it in the result.
pub fn validate(bytes: &[u8], file: &str, options: &ValidateOptions) -> Validation {
    let mut result = Validation {
        file: file.to_string(),
        version: None,
        valid: false,
        problems: Vec::new(),
    };
    let value: Value = match serde_json::from_slice(bytes) {
        Ok(v) => v,
        Err(e) => {
            result.problems.push(syntax_problem(bytes, &e));
            return result;
        }
    };
    let positions = Positions::index(bytes);
    let mut problems = Vec::new();
    match version_problem(&value) {
        Err(p) => problems.push(p),
        Ok((version, minor)) => {
            result.version = Some(version.clone());
            match ignition_config::Config::parse_slice(bytes) {
                Err(e) => problems.push(schema_problem(&e, &positions, &version)),
                Ok((_, warnings)) => {
                    for w in warnings {
                        let ignition_config::Warning::UnusedKey(path) = w else {
                            continue;
                        };
                        problems.push(Problem::new(
                            Severity::Warning,
                            Check::Ignition,
                            "unknown-key",
                            bracket_indices(&path),
                            format!(
                                "unused key: not part of the Ignition {version} spec (ignored)"
                            ),
                        ));
                    }
                    problems.extend(super::rules::check(&value, minor));
                    if options.lints {
                        let doc = IgnitionDoc { value };
                        // Ignition's rules already warn about enabled units without [Install].
                        problems.extend(
                            lint_units(&doc)
                                .into_iter()
                                .filter(|p| p.rule != "no-install-section"),
                        );
                        problems.extend(lint_secrets(&doc));
                        problems.extend(lint_certificates(&doc, options.now, options.warn_within));
                    }
                }
            }
        }
    }
    for problem in &mut problems {
        if problem.rule == "unknown-key" {
            // Ignition points at the key itself: there is no field for its value.
            let path = problem.location.path.clone().unwrap_or_default();
            if let Some((line, column)) = positions.find_key(&path) {
                problem.location.line = Some(line);
                problem.location.column = Some(column);
            }
        }
        locate(problem, &positions);
    }
    result.valid = !problems.iter().any(Problem::is_error);
    result.problems = problems;
    result
}

fn schema_problem(e: &ignition_config::Error, positions: &Positions, version: &str) -> Problem {
    let mut problem = Problem::new(
        Severity::Error,
        Check::Ignition,
        "schema",
        "$",
        match e {
            ignition_config::Error::Serialization(inner) => format!(
                "does not match the Ignition {version} schema: {}",
                without_position(&inner.to_string())
            ),
            other => format!("does not match the Ignition {version} schema: {other}"),
        },
    );
    if let ignition_config::Error::Serialization(inner) = e {
        problem.location = Location {
            path: positions
                .path_at(inner.line(), inner.column())
                .map(str::to_string),
            line: Some(inner.line()),
            column: Some(inner.column()),
        };
    }
    problem
}

/// Fills in line and column from the JSON path (or its nearest existing parent).
fn locate(problem: &mut Problem, positions: &Positions) {
    if problem.location.line.is_some() {
        return;
    }
    let Some(path) = problem.location.path.clone() else {
        return;
    };
    let mut candidate = path.as_str();
    loop {
        if let Some((line, column)) = positions.find(candidate) {
            problem.location.line = Some(line);
            problem.location.column = Some(column);
            return;
        }
        match candidate.rfind(['.', '[']) {
            Some(cut) if cut > 0 => candidate = &candidate[..cut],
            _ => return,
        }
    }
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
        let verdict = if self.valid { "valid" } else { "INVALID" };
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
        }
    }

    fn run(text: &str) -> Validation {
        validate(text.as_bytes(), "t.ign", &options())
    }

    #[test]
    fn syntax_errors_have_line_and_column() {
        let v = run("{\"ignition\":{\"version\":\"3.2.0\"},\n \"storage\": {\"files\": [}\n}");
        assert!(!v.valid);
        assert_eq!(v.problems[0].location.line, Some(2));
        assert!(run("variant: fcos\n").to_string().contains("Butane"));
        assert!(run("").to_string().contains("empty"));
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
        let v = run("{\"ignition\":{\"version\":\"3.2.0\"},\"storage\":{\"filez\":[]}}");
        assert!(v.valid);
        assert_eq!(v.problems[0].rule, "unknown-key");
        assert_eq!(
            v.problems[0].location.path.as_deref(),
            Some("$.storage.filez")
        );
        assert_eq!(v.problems[0].location.column, Some(44));
    }

    #[test]
    fn rule_problems_are_located() {
        let v = run("{\"ignition\":{\"version\":\"3.2.0\"},\"storage\":{\"files\":[\n{\"path\":\"/a\"},\n{\"path\":\"/a\"}]}}");
        assert!(!v.valid);
        let p = &v.problems[0];
        assert_eq!(p.location.path.as_deref(), Some("$.storage.files[1]"));
        assert_eq!((p.location.line, p.location.column), (Some(3), Some(1)));
        assert!(v
            .to_string()
            .contains("t.ign:3:1: error[duplicate] $.storage.files[1]"));
    }
}
