//! bootgen's lints on a config that Ignition accepts but that may not do what its author meant
//! (what Ignition's validator lets through): the unit graph (see `units`), secrets readable by others, and expired
//! certificates.

mod units;

pub use units::{lint_units, lint_units_with_files};

/// [`lint_units`] of a config whose units are in `doc` and whose file entries are `files`.
pub(crate) fn units(doc: &IgnitionDoc, files: FileList<'_>) -> crate::error::Result<Vec<Problem>> {
    let paths = files.paths()?;
    let names: std::collections::BTreeSet<&str> =
        paths.iter().flatten().map(|p| p.as_ref()).collect();
    Ok(lint_units_with_files(doc, &names))
}

use super::problem::{Check, Problem, Severity};
use crate::ignition::classify;
use crate::ignition::files::FileList;
use crate::ignition::IgnitionDoc;
use crate::report::{CertCollector, CertReport, CertStatus};
use serde_json::Value;

/// Keys, kubeconfigs, pull secrets and Secret manifests readable by group or others (an unset
/// mode is Ignition's 0644). Secret manifests of the cluster (under `/opt/openshift/manifests/`
/// and `/opt/openshift/openshift/`) at 0644 are how openshift-install writes every one of them:
/// they get one note for all, at the first, rather than a warning each on every read.
pub fn lint_secrets(doc: &IgnitionDoc) -> Vec<Problem> {
    secrets(FileList::of(&doc.value))
}

/// [`lint_secrets`] of a config whose file entries are `files`, decoded one at a time.
pub(crate) fn secrets(files: FileList<'_>) -> Vec<Problem> {
    let mut problems = Vec::new();
    let mut installer_manifests: Vec<(usize, String)> = Vec::new();
    for (i, entry) in files.iter().enumerate() {
        // A file that cannot be decoded is Ignition's rules' finding; then none of these.
        let Ok(file) = entry.and_then(|e| crate::ignition::decode_file(i, &e)) else {
            return Vec::new();
        };
        let bytes = file.contents.as_ref().or(file.append.first());
        let kind = classify(&file.path, bytes.map(Vec::as_slice));
        let mode = file.mode.unwrap_or(0o644);
        if !kind.is_secret() || mode & 0o044 == 0 {
            continue;
        }
        let cluster_manifest = file.path.starts_with("/opt/openshift/manifests/")
            || file.path.starts_with("/opt/openshift/openshift/");
        if kind == crate::ignition::FileKind::SecretManifest && cluster_manifest && mode == 0o644 {
            installer_manifests.push((i, file.path.clone()));
            continue;
        }
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
    if let Some((first, _)) = installer_manifests.first() {
        let paths: Vec<&str> = installer_manifests
            .iter()
            .map(|(_, p)| p.as_str())
            .collect();
        problems.push(Problem::new(
            Severity::Note,
            Check::Lint,
            "secret-manifests-readable",
            format!("$.storage.files[{first}].mode"),
            format!(
                "{} Secret manifest(s) with mode 0644, as openshift-install writes them: any user on the bootstrap node can read them ({}); mode 0600 keeps them to root",
                paths.len(),
                paths.join(", ")
            ),
        ));
    }
    problems
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
    certificates(&doc.value, FileList::of(&doc.value), now, warn_within)
}

/// [`lint_certificates`] of a config whose file entries are `files` (the rest is read from
/// `config`), scanned one at a time.
pub(crate) fn certificates(
    config: &Value,
    files: FileList<'_>,
    now: time::OffsetDateTime,
    warn_within: time::Duration,
) -> Vec<Problem> {
    let mut found = CertCollector::default();
    if found.scan_entries(config, files).is_err() {
        return Vec::new();
    }
    let report = CertReport::new(found, now, warn_within);
    if report
        .certificates
        .iter()
        .all(|line| line.status == CertStatus::Valid)
    {
        return Vec::new();
    }
    let Ok(paths) = files.paths() else {
        return Vec::new();
    };
    let files: Vec<&str> = paths
        .iter()
        .map(|p| p.as_deref().unwrap_or_default())
        .collect();
    let mut problems = Vec::new();
    for line in &report.certificates {
        let (severity, rule, what) = match line.status {
            CertStatus::Expired => (Severity::Error, "expired-certificate", "expired"),
            CertStatus::Expiring => (Severity::Warning, "expiring-certificate", "expires soon"),
            CertStatus::NotYetValid => {
                (Severity::Warning, "future-certificate", "is not valid yet")
            }
            CertStatus::Valid => continue,
        };
        let first = line.cert.found_in.first().cloned().unwrap_or_default();
        // A location is a file path, or a file path followed by ` (base64)`.
        let index = files
            .iter()
            .position(|p| first == *p || first.strip_prefix(p).is_some_and(|r| r.starts_with(' ')));
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

#[cfg(test)]
mod tests {
    use super::*;

    /// openshift-install writes its Secret manifests 0644: one note for them all, not a warning
    /// each; a readable key elsewhere is still a warning.
    #[test]
    fn installer_secret_manifests_get_one_note() {
        let secret =
            "data:,apiVersion%3A%20v1%0Akind%3A%20Secret%0Ametadata%3A%0A%20%20name%3A%20x%0A";
        let files: Vec<Value> = (0..6)
            .map(|i| {
                serde_json::json!({
                    "path": format!("/opt/openshift/manifests/secret-{i}.yaml"),
                    "mode": 0o644,
                    "contents": {"source": secret}
                })
            })
            .chain([serde_json::json!({
                "path": "/root/.docker/config.json",
                "mode": 0o644,
                "contents": {"source": "data:,%7B%22auths%22%3A%7B%7D%7D"}
            })])
            .collect();
        let doc = IgnitionDoc {
            value: serde_json::json!({"ignition": {"version": "3.2.0"}, "storage": {"files": files}}),
        };
        let problems = lint_secrets(&doc);
        let warnings: Vec<&Problem> = problems
            .iter()
            .filter(|p| p.severity == Severity::Warning)
            .collect();
        assert_eq!(warnings.len(), 1, "{problems:?}");
        assert!(warnings[0].message.contains("/root/.docker/config.json"));
        let notes: Vec<&Problem> = problems
            .iter()
            .filter(|p| p.severity == Severity::Note)
            .collect();
        assert_eq!(notes.len(), 1, "{problems:?}");
        assert!(
            notes[0].message.starts_with("6 Secret manifest(s)"),
            "{}",
            notes[0].message
        );
        assert!(notes[0]
            .message
            .contains("/opt/openshift/manifests/secret-5.yaml"));
    }
}
