//! Saying why an OpenShift bootstrap failed, from a log bundle or from the node's own state:
//! bootgen's `diagnose`, as a crate of its own (the `bootgen` library re-exports it as
//! `bootgen::diagnose`, its errors as `bootgen::Error`).
//!
//! A bundle is what `openshift-install gather bootstrap` or the node's `installer-gather.sh`
//! writes (`log-bundle-ID.tar.gz`, read as a stream, never unpacked), or the unpacked directory.
//! On the node, the caller collects the same files ([`NodeState`]) and passes them in; this
//! crate reads no environment, clock or command output itself.
//!
//! The report is a timeline (service records and `.done` markers), the first failure, its cause
//! in one sentence with the evidence lines (file and line) and a fix, or, when no known cause
//! matches, the last error lines. A fix names bootgen's settings as [`Setting`]s.
//!
//! ```no_run
//! let diagnosis = bootgen_diagnose::diagnose_path(
//!     std::path::Path::new("log-bundle-20260101010000.tar.gz"),
//!     &bootgen_diagnose::Limits::default(),
//! )?;
//! if let Some(failure) = &diagnosis.failure {
//!     println!("{}: {}", failure.what, failure.sentence);
//! }
//! # Ok::<(), bootgen_diagnose::Error>(())
//! ```

mod analysis;
mod archive;
mod bundle;
mod causes;
mod clues;
mod conclude;
mod error;
mod evidence;
mod explain;
mod facts;
mod klog;
mod layout;
mod limits;
mod lines;
mod matcher;
mod node;
mod records;
mod report;
mod setting;
mod text;
mod verdict;

use std::fs;
use std::io::Read;
use std::path::Path;

pub use causes::Cause;
pub use error::{Error, Result};
pub use evidence::{
    is_secret_variable, replace_authorization_tokens, replace_curl_user_passwords,
    replace_url_user_info, Evidence,
};
pub use limits::Limits;
pub use node::{journal_json_to_text, NodeFile, NodeState};
pub use report::{Diagnosis, Event, Failure};
pub use setting::Setting;

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
