//! Saying why a bootstrap failed, from a log bundle or from the node's own state.
//!
//! A bundle is what `openshift-install gather bootstrap` or the node's `installer-gather.sh`
//! writes (`log-bundle-ID.tar.gz`, read as a stream, never unpacked), or the unpacked directory.
//! On the node, the caller collects the same files ([`NodeState`]) and passes them in; this
//! module reads no environment, clock or command output itself.
//!
//! The report is a timeline (service records and `.done` markers), the first failure, its cause
//! in one sentence with the evidence lines (file and line) and a fix, or, when no known cause
//! matches, the last error lines.
//!
//! ```no_run
//! let diagnosis = bootgen::diagnose::diagnose_path(
//!     std::path::Path::new("log-bundle-20260101010000.tar.gz"),
//!     &bootgen::diagnose::Limits::default(),
//! )?;
//! if let Some(failure) = &diagnosis.failure {
//!     println!("{}: {}", failure.what, failure.sentence);
//! }
//! # Ok::<(), bootgen::Error>(())
//! ```

mod analysis;
mod archive;
mod bundle;
mod causes;
mod conclude;
mod explain;
mod facts;
mod klog;
mod lines;
mod matcher;
mod node;
mod records;
mod text;
mod verdict;

use std::fs;
use std::io::Read;
use std::path::Path;

use serde::Serialize;

pub use causes::Cause;
pub use node::{journal_json_to_text, NodeFile, NodeState};

use crate::error::{Error, Result};

/// How much of a bundle is read before the report is made from what came before. The defaults
/// read any real log bundle whole and stop an archive bomb in seconds.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Uncompressed bytes read in all.
    pub max_total_bytes: u64,
    /// Bytes read of one file.
    pub max_file_bytes: u64,
    /// Bytes of one service record file (it is parsed whole).
    pub max_records_bytes: u64,
    /// Archive entries.
    pub max_entries: u64,
    /// Uncompressed to compressed bytes; above it the archive is taken for a bomb...
    pub max_ratio: u64,
    /// ...once this many uncompressed bytes were read.
    pub ratio_applies_after: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_total_bytes: 32 << 30,
            max_file_bytes: 4 << 30,
            max_records_bytes: 16 << 20,
            max_entries: 500_000,
            max_ratio: 200,
            ratio_applies_after: 256 << 20,
        }
    }
}

/// What `diagnose` found.
#[derive(Debug, Clone, Serialize)]
pub struct Diagnosis {
    /// Service starts and ends, stages with their results, `.done` markers, by time.
    pub timeline: Vec<Event>,
    /// The first failure, if one was found.
    pub failure: Option<Failure>,
    /// What was skipped or cut short, and why the report may be partial.
    pub notes: Vec<String>,
    /// How many files were read.
    pub files_read: u64,
}

/// One step of the bootstrap.
#[derive(Debug, Clone, Serialize)]
pub struct Event {
    /// When, in UTC (`YYYY-MM-DDTHH:MM:SSZ`), if known.
    pub time: Option<String>,
    /// The service (`bootkube.service`) or `marker`.
    pub source: String,
    /// What happened: `stage etcd-bootstrap ended: failure`, `etcd-bootstrap.done written`.
    pub what: String,
}

/// The first failure and what explains it.
#[derive(Debug, Clone, Serialize)]
pub struct Failure {
    /// What failed, in words: `bootkube.service failed in stage etcd-bootstrap`.
    pub what: String,
    /// The service, without `.service`.
    pub service: Option<String>,
    /// The stage that failed, if the service records one.
    pub stage: Option<String>,
    /// When, in UTC, if known.
    pub time: Option<String>,
    /// The recognised cause, if any.
    pub cause: Option<Cause>,
    /// The cause in one sentence (or that none was recognised).
    pub sentence: String,
    /// The lines that show the cause, with their file and line.
    pub evidence: Vec<Evidence>,
    /// A command that fixes it or shows more.
    pub fix: Option<String>,
    /// Other causes the bundle also shows evidence of, in priority order (they lost to `cause`).
    pub other_causes: Vec<Cause>,
    /// The last lines that look like errors, for a person to read when no cause matched.
    pub last_errors: Vec<Evidence>,
}

/// A line of a bundle file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Evidence {
    /// The file, relative to the bundle's top directory.
    pub file: String,
    /// 1-based line number.
    pub line: u64,
    /// The line (trimmed, and cut at 400 characters).
    pub text: String,
}

/// Diagnoses a bundle archive read from `reader` (a tar archive, plain or compressed with gzip
/// or xz, as its first bytes say), in one pass; `name` names it in messages. A bundle is
/// gathered because the bootstrap did not complete, so a service that had not finished is
/// taken for the failure. What holds none of what every bundle has, or is damaged where no
/// failure was found, is an error ([`Error::UnreadableBundle`]), not a clean report.
pub fn diagnose_archive(reader: impl Read, name: &str, limits: &Limits) -> Result<Diagnosis> {
    let mut analysis = analysis::Analysis::default();
    let walked = bundle::read_archive(reader, name, limits, &mut analysis)?;
    judged(analysis, &walked, name)
}

/// Diagnoses an unpacked bundle directory, judged as [`diagnose_archive`] judges an archive.
pub fn diagnose_dir(dir: &Path, limits: &Limits) -> Result<Diagnosis> {
    let mut analysis = analysis::Analysis::default();
    let walked = bundle::read_dir(dir, limits, &mut analysis)?;
    judged(analysis, &walked, &dir.display().to_string())
}

fn judged(analysis: analysis::Analysis, walked: &verdict::Walked, name: &str) -> Result<Diagnosis> {
    let records_read = analysis.records.len();
    let diagnosis = conclude::conclude(analysis, conclude::Source::Bundle);
    walked.verdict(name, records_read, diagnosis.failure.is_some())?;
    Ok(diagnosis)
}

/// Diagnoses a bundle given by path: a directory, or else an archive.
pub fn diagnose_path(path: &Path, limits: &Limits) -> Result<Diagnosis> {
    diagnose_path_with(path, &NodeState::default(), limits)
}

/// Diagnoses a bundle given by path together with what was seen of the node while it ran
/// (`seen`'s files, named apart from the bundle's: `check --watch` gives the CSRs the API
/// listed at its last look, which a bundle gathered when the API no longer answers lacks).
/// Judged as [`diagnose_path`] judges the bundle alone.
pub fn diagnose_path_with(path: &Path, seen: &NodeState, limits: &Limits) -> Result<Diagnosis> {
    let meta = fs::metadata(path).map_err(|err| Error::io("cannot read", path, err))?;
    let name = path.display().to_string();
    let mut analysis = analysis::Analysis::default();
    let walked = if meta.is_dir() {
        bundle::read_dir(path, limits, &mut analysis)?
    } else {
        let file = fs::File::open(path).map_err(|err| Error::io("cannot read", path, err))?;
        bundle::read_archive(std::io::BufReader::new(file), &name, limits, &mut analysis)?
    };
    node::read_node(seen, limits, &mut analysis);
    judged(analysis, &walked, &name)
}

/// Diagnoses the state the caller collected on the node itself. Unlike a bundle's, a service
/// still running here is a failure only when there is evidence of a cause: it may be busy.
pub fn diagnose_node(state: &NodeState, limits: &Limits) -> Diagnosis {
    let mut analysis = analysis::Analysis::default();
    node::read_node(state, limits, &mut analysis);
    conclude::conclude(analysis, conclude::Source::Node)
}
