//! The one pass over a bundle's files: each file is offered once, in whatever order the archive
//! or directory gives, and only what the report needs is kept (records, markers, a few evidence
//! lines per cause, the last error lines), so memory does not grow with the bundle.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::io::{self, BufRead};

use crate::causes::Cause;
use crate::evidence::Evidence;
use crate::facts::{FactFile, Facts};
use crate::lines::for_each_line;
use crate::matcher;
use crate::records::{self, Record};

/// Evidence lines kept per cause.
const EVIDENCE_PER_CAUSE: usize = 5;
/// Error lines kept for a failure no cause explains.
const LAST_ERRORS: usize = 10;
/// The longest evidence text shown, in characters.
const EVIDENCE_CHARS: usize = 400;

/// How much of a line its credentials are looked for in before it is cut to
/// [`EVIDENCE_CHARS`]: far more than is shown, however long the secrets hidden before it.
const EVIDENCE_SCAN_BYTES: usize = 64 * 1024;

/// `text` cut to at most `limit` bytes, at a character boundary.
fn bounded(text: &str, limit: usize) -> &str {
    if text.len() <= limit {
        return text;
    }
    let mut end = limit;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// What the pass has kept so far.
#[derive(Default)]
pub(crate) struct Analysis {
    /// Service name (prefixed with `log-bundle-bootstrap/` for a single node's pre-reboot
    /// bundle) to its record file and entries.
    pub(crate) records: BTreeMap<String, (String, Vec<Record>)>,
    /// `.done` markers: name, time, where they were seen.
    pub(crate) markers: Vec<(String, Option<String>, String)>,
    /// Units systemd listed as failed, with the line that says so.
    pub(crate) failed_units: Vec<(String, Evidence)>,
    /// Evidence per cause, in the order found.
    pub(crate) evidence: BTreeMap<Cause, Vec<Evidence>>,
    /// The last lines that look like errors.
    pub(crate) last_errors: VecDeque<Evidence>,
    /// Why the report is partial, or what was skipped.
    pub(crate) notes: Vec<String>,
    /// Files looked at.
    pub(crate) files_read: u64,
    /// What no single line shows (`facts.rs`).
    pub(crate) facts: Facts,
    /// Units whose journal (`bootstrap/journals/UNIT.log`, gathered for every bootstrap unit)
    /// was read whole and holds no entry: they never ran this boot.
    pub(crate) silent_journals: BTreeSet<String>,
}

/// What kind of file a bundle path is, by its place in the layout.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum FileKind {
    /// Service records of the named service.
    Records(String),
    /// `ls -la --time-style=full-iso` of the asset directory.
    MarkerListing,
    /// A `.done` marker itself (its time is the entry's mtime).
    Marker(String),
    /// systemd's list of failed units.
    FailedUnits,
    /// A gzip-compressed journal.
    GzipText,
    /// Logs and other text worth scanning.
    Text,
    /// Not read (manifests, inspect dumps, binaries).
    Skip,
}

/// Classifies `path`, relative to the bundle's top directory.
pub(crate) fn classify(path: &str) -> FileKind {
    let (prefix, inner) = match path.strip_prefix(crate::layout::PRE_REBOOT) {
        Some(rest) => (crate::layout::PRE_REBOOT, rest),
        None => ("", path),
    };
    let file = inner.rsplit('/').next().unwrap_or(inner);
    for dir in ["bootstrap/services/", "bootstrap/progress/"] {
        if let Some(name) = inner
            .strip_prefix(dir)
            .and_then(|f| f.strip_suffix(".json"))
        {
            if !name.is_empty() && !name.contains('/') {
                return FileKind::Records(format!("{prefix}{name}"));
            }
        }
    }
    if inner == "bootstrap/done-markers.txt" || inner == "bootstrap/progress/done-markers.txt" {
        return FileKind::MarkerListing;
    }
    if inner.starts_with("rendered-assets/") {
        if file.ends_with(".done") && inner.matches('/').count() == 2 {
            return FileKind::Marker(file.to_string());
        }
        // The Infrastructure manifest names api-int for the fixes.
        if file == "cluster-infrastructure-02-config.yml" {
            return FileKind::Text;
        }
        return FileKind::Skip;
    }
    if file == "failed-units.txt" {
        return FileKind::FailedUnits;
    }
    if file.ends_with(".log.gz") {
        return FileKind::GzipText;
    }
    if file.ends_with(".inspect") || file == "gather.log" || inner.contains("/rpm-ostree/") {
        return FileKind::Skip;
    }
    // `.list`: the installer's resources/nodes.list and masters.list.
    let text_like = [".log", ".txt", ".yaml", ".err", ".conf", ".json", ".list"]
        .iter()
        .any(|ext| file.ends_with(ext))
        || !file.contains('.');
    if text_like {
        FileKind::Text
    } else {
        FileKind::Skip
    }
}

impl Analysis {
    /// Notes why the report is partial or what was left out.
    pub(crate) fn note(&mut self, message: String) {
        if self.notes.len() < 50 {
            self.notes.push(message);
        }
    }

    /// Scans the text of `path` for causes and error lines, at most `limit` bytes of it.
    pub(crate) fn scan_text(
        &mut self,
        path: &str,
        reader: &mut dyn BufRead,
        limit: u64,
    ) -> io::Result<u64> {
        self.files_read += 1;
        let failed_units = classify(path) == FileKind::FailedUnits;
        let lower_path = path.to_ascii_lowercase();
        let fact_file = FactFile::of(&lower_path);
        // journalctl's own lines (`-- No entries --`, `-- Logs begin at ...`) are no entries.
        let mut entries = 0u64;
        let (read, cut) = for_each_line(reader, limit, |number, line| {
            if !line.trim().is_empty() && !line.starts_with("-- ") {
                entries += 1;
            }
            self.scan_line(path, &lower_path, fact_file, number, line, failed_units);
        })?;
        // The pre-reboot bundle's journals are another boot's.
        let journal = crate::layout::journal_of(path)
            .filter(|_| !path.starts_with(crate::layout::PRE_REBOOT));
        if let Some(unit) = journal.filter(|_| entries == 0 && !cut) {
            self.silent_journals.insert(unit.to_string());
        }
        if cut {
            self.note(format!(
                "{path}: only the first {} MiB were read",
                limit / (1024 * 1024)
            ));
        }
        Ok(read)
    }

    fn scan_line(
        &mut self,
        path: &str,
        lower_path: &str,
        fact_file: FactFile,
        number: u64,
        line: &str,
        failed_units: bool,
    ) {
        let evidence = || Evidence {
            file: path.to_string(),
            line: number,
            // Hidden in a bounded prefix (a line may be hundreds of MiB), then cut.
            text: crate::evidence::hide_credentials(bounded(line.trim(), EVIDENCE_SCAN_BYTES))
                .chars()
                .take(EVIDENCE_CHARS)
                .collect(),
        };
        if failed_units {
            if let Some(unit) = line
                .split_whitespace()
                .find(|w| w.ends_with(".service") || w.ends_with(".socket"))
            {
                if line.contains("failed") && self.failed_units.len() < 50 {
                    self.failed_units.push((unit.to_string(), evidence()));
                }
            }
        }
        let mut matched = false;
        let found = matcher::scan(line);
        self.facts.observe(fact_file, line, &found, evidence);
        for cause in found.causes(lower_path) {
            matched = true;
            let list = self.evidence.entry(cause).or_default();
            let text = evidence();
            if list.len() < EVIDENCE_PER_CAUSE && !list.iter().any(|e| e.text == text.text) {
                list.push(text);
            }
        }
        if matched || found.is_error_line() {
            let text = evidence();
            if !self.last_errors.iter().any(|e| e.text == text.text) {
                if self.last_errors.len() == LAST_ERRORS {
                    self.last_errors.pop_front();
                }
                self.last_errors.push_back(text);
            }
        }
    }

    /// Reads a service record file (already bounded by the caller) and scans its text.
    pub(crate) fn add_records(&mut self, path: &str, service: &str, bytes: &[u8]) {
        // The text too: a failure's errorMessage quotes the journal, with its evidence.
        let _ = self.scan_text(path, &mut &bytes[..], u64::MAX);
        match records::parse(bytes) {
            Ok(entries) => {
                self.records
                    .insert(service.to_string(), (path.to_string(), entries));
            }
            Err(message) => self.note(format!("{path}: {message}; its records are left out")),
        }
    }

    /// Reads an `ls -la --time-style=full-iso` listing for `.done` markers.
    pub(crate) fn add_marker_listing(&mut self, path: &str, reader: &mut dyn BufRead, limit: u64) {
        self.files_read += 1;
        let mut found = Vec::new();
        let result = for_each_line(reader, limit, |_, line| {
            if let Some(marker) = records::done_marker_in_listing(line) {
                if found.len() < 1000 {
                    found.push(marker);
                }
            }
        });
        if let Err(err) = result {
            self.note(format!("{path}: cannot be read ({err})"));
        }
        for (name, time) in found {
            self.add_marker(name, time, path);
        }
    }

    /// Records a `.done` marker, once per name.
    pub(crate) fn add_marker(&mut self, name: String, time: Option<String>, source: &str) {
        if self.markers.len() < 1000 && !self.markers.iter().any(|(n, _, _)| *n == name) {
            self.markers.push((name, time, source.to_string()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_both_layouts() {
        assert_eq!(
            classify("bootstrap/services/bootkube.json"),
            FileKind::Records("bootkube".into())
        );
        assert_eq!(
            classify("bootstrap/progress/bootkube.json"),
            FileKind::Records("bootkube".into())
        );
        assert_eq!(
            classify("log-bundle-bootstrap/bootstrap/services/bootkube.json"),
            FileKind::Records("log-bundle-bootstrap/bootkube".into())
        );
        assert_eq!(
            classify("rendered-assets/openshift/etcd-bootstrap.done"),
            FileKind::Marker("etcd-bootstrap.done".into())
        );
        assert_eq!(
            classify("rendered-assets/openshift/manifests/a.yaml"),
            FileKind::Skip
        );
        assert_eq!(
            classify("bootstrap/journals/journal.log.gz"),
            FileKind::GzipText
        );
        assert_eq!(classify("bootstrap/journals/crio.log"), FileKind::Text);
        assert_eq!(classify("failed-units.txt"), FileKind::FailedUnits);
        assert_eq!(
            classify("rendered-assets/openshift/manifests/cluster-infrastructure-02-config.yml"),
            FileKind::Text
        );
        assert_eq!(classify("resources/masters.list"), FileKind::Text);
        assert_eq!(
            classify("bootstrap/containers/etcd-1.inspect"),
            FileKind::Skip
        );
    }

    #[test]
    fn keeps_a_bounded_number_of_lines() {
        let mut analysis = Analysis::default();
        let mut text = String::new();
        for i in 0..1000 {
            text.push_str(&format!("error {i}: no space left on device\n"));
        }
        analysis
            .scan_text("a.log", &mut text.as_bytes(), u64::MAX)
            .unwrap();
        assert_eq!(
            analysis.evidence[&Cause::DiskFull].len(),
            EVIDENCE_PER_CAUSE
        );
        assert_eq!(analysis.last_errors.len(), LAST_ERRORS);
        assert_eq!(analysis.last_errors.back().unwrap().line, 1000);
    }
}
