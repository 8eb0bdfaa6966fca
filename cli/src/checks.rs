//! The checks `ignition` and `patch` print about the config they are about to write: the
//! mirror pre-flight (which can stop the write) and the unit-graph lint.

use crate::report::{error_line, notice, warn};
use crate::resolver::resolve;
use bootgen::checks::preflight::{self, Severity};
use bootgen::checks::Severity as LintSeverity;
use bootgen::ignition::IgnitionDoc;
use std::collections::BTreeSet;

/// Prints the mirror pre-flight of a config being patched (its release image is its own); an
/// error when it found problems that would break the boot (or any warning under `strict`).
/// Call it before writing anything.
pub fn preflight_of_patched(doc: &IgnitionDoc, strict: bool) -> anyhow::Result<()> {
    print_preflight(
        &preflight::check(doc, preflight::ReleaseChosenBy::Config, &mut resolve),
        strict,
    )
}

/// Prints a pre-flight report (see [`preflight_of_patched`]).
pub fn print_preflight(report: &preflight::Report, strict: bool) -> anyhow::Result<()> {
    if report.is_empty() {
        return Ok(());
    }
    for line in report.summary() {
        notice(format!(
            "pre-flight: {}",
            crate::options::with_flags(&line.to_string())
        ));
    }
    for finding in &report.findings {
        match finding.severity {
            Severity::Warning => warn(format!(
                "pre-flight: {}",
                crate::options::with_flags(&finding.to_string())
            )),
            Severity::Error => error_line(format!(
                "pre-flight: {}",
                crate::options::with_flags(&finding.to_string())
            )),
        }
    }
    report.verdict(strict)?;
    Ok(())
}

/// The unit-graph lint of a config whose file paths are `files` (its units are in `doc`), printed.
pub fn print_unit_lint_with_files(doc: &IgnitionDoc, files: &BTreeSet<&str>) {
    print_lint(bootgen::checks::lint_units_with_files(doc, files));
}

pub fn print_lint(problems: Vec<bootgen::checks::Problem>) {
    for problem in problems {
        let at = problem.location.path.as_deref().unwrap_or("$");
        match problem.severity {
            LintSeverity::Note => notice(format!("{} ({at})", problem.message)),
            _ => warn(format!("{} ({at})", problem.message)),
        }
    }
}
