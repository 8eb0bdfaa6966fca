//! What `validate` and the lints report: a problem, how bad it is, which check found it, and
//! where it is (a JSON path such as `$.storage.files[3].path`, with line and column).

use serde::Serialize;
use std::fmt;

/// How bad a problem is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The config is rejected by Ignition, or fails on the node.
    Error,
    /// Probably not what the author meant.
    Warning,
    /// Worth knowing (for example which units want a held unit).
    Note,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        })
    }
}

/// Which kind of check found a problem.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Check {
    /// A rule `ignition-validate` enforces too (its errors and warnings).
    Ignition,
    /// Ignition's validator accepts it, but its `files` stage fails on the node.
    Boot,
    /// bootgen's own lints: unit graph, secret modes, certificates.
    Lint,
}

/// Where a problem is.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Location {
    /// JSON path, e.g. `$.storage.files[3].path`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// 1-based line in the config.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// 1-based column (bytes) in that line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
}

impl Location {
    /// A location known only by its JSON path (line and column are filled in later).
    pub fn at(path: impl Into<String>) -> Location {
        Location {
            path: Some(path.into()),
            line: None,
            column: None,
        }
    }
}

/// One problem.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// How bad.
    pub severity: Severity,
    /// Which kind of check.
    pub check: Check,
    /// A short stable name for the rule, e.g. `duplicate-path`.
    pub rule: &'static str,
    /// Where.
    pub location: Location,
    /// What is wrong, and what to do about it when that is not obvious.
    pub message: String,
}

impl Problem {
    /// A problem at JSON path `path`.
    pub fn new(
        severity: Severity,
        check: Check,
        rule: &'static str,
        path: impl Into<String>,
        message: impl Into<String>,
    ) -> Problem {
        Problem {
            severity,
            check,
            rule,
            location: Location::at(path),
            message: message.into(),
        }
    }

    /// True for errors.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}[{}]", self.severity, self.rule)?;
        if let Some(path) = &self.location.path {
            write!(f, " {path}")?;
        }
        write!(f, ": {}", self.message)
    }
}
