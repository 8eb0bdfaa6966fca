//! bootgen's lints on a config that Ignition accepts but that may not do what its author meant
//! (what Ignition's validator lets through): the unit graph (see `units`), secrets readable by others, and expired
//! certificates.

mod units;

pub use units::{lint_units, lint_units_with_files};

use super::problem::{Check, Problem, Severity};
use crate::ignition::classify;
use crate::ignition::IgnitionDoc;
use crate::report::{CertCollector, CertReport, CertStatus};
use serde_json::Value;

/// Keys, kubeconfigs, pull secrets and Secret manifests readable by group or others (an unset
/// mode is Ignition's 0644).
pub fn lint_secrets(doc: &IgnitionDoc) -> Vec<Problem> {
    let Ok(decoded) = crate::ignition::decode(doc) else {
        return Vec::new();
    };
    let mut problems = Vec::new();
    for (i, file) in decoded.files.iter().enumerate() {
        let bytes = file.contents.as_ref().or(file.append.first());
        let kind = classify(&file.path, bytes.map(Vec::as_slice));
        let mode = file.mode.unwrap_or(0o644);
        if kind.is_secret() && mode & 0o044 != 0 {
            problems.push(Problem::new(
                Severity::Warning,
                Check::Lint,
                "secret-readable",
                format!("$.storage.files[{i}].mode"),
                format!(
                    "{} is a {kind} with mode {mode:04o}: group and others can read it; use 0600",
                    file.path
                ),
            ));
        }
    }
    problems
}

fn past_half_life(cert: &crate::report::FoundCert, now: time::OffsetDateTime) -> bool {
    let life = cert.not_after - cert.not_before;
    now - cert.not_before >= life / 2
}

/// Expired certificates (errors) and certificates expiring within `warn_within` (warnings).
/// A certificate that has not used half its life is not "expiring" whatever its length: the
/// bootstrap's one-day certificates of a config made a minute ago are fresh, not a problem,
/// while the same config twelve hours later is warned about (and a day later is an error).
pub fn lint_certificates(
    doc: &IgnitionDoc,
    now: time::OffsetDateTime,
    warn_within: time::Duration,
) -> Vec<Problem> {
    let mut found = CertCollector::default();
    if found.scan_config(doc).is_err() {
        return Vec::new();
    }
    let report = CertReport::new(found, now, warn_within);
    let files: Vec<String> = crate::passes::file_entries(doc)
        .iter()
        .map(|f| {
            f.get("path")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        })
        .collect();
    let mut problems = Vec::new();
    for line in &report.certificates {
        let (severity, rule, what) = match line.status {
            CertStatus::Expired => (Severity::Error, "expired-certificate", "expired"),
            CertStatus::Expiring if !past_half_life(&line.cert, now) => continue,
            CertStatus::Expiring => (Severity::Warning, "expiring-certificate", "expires soon"),
            CertStatus::NotYetValid => {
                (Severity::Warning, "future-certificate", "is not valid yet")
            }
            CertStatus::Valid => continue,
        };
        let first = line.cert.found_in.first().cloned().unwrap_or_default();
        // A location is a file path, or a file path followed by ` (base64)`.
        let index = files.iter().position(|p| {
            first == *p
                || first
                    .strip_prefix(p.as_str())
                    .is_some_and(|r| r.starts_with(' '))
        });
        let path = index.map_or("$.storage.files".to_string(), |i| {
            format!("$.storage.files[{i}].contents")
        });
        problems.push(Problem::new(
            severity,
            Check::Lint,
            rule,
            path,
            format!(
                "certificate {} {what} (valid {} .. {}); in {}",
                line.cert.subject,
                crate::pki::rfc3339(line.cert.not_before),
                crate::pki::rfc3339(line.cert.not_after),
                line.cert.found_in.join(", ")
            ),
        ));
    }
    problems
}
