//! What `diagnose` reports: the timeline, the first failure, its cause and its evidence.

use serde::Serialize;

use crate::causes::Cause;
use crate::evidence::Evidence;

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
