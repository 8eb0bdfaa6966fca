//! From what the pass kept to the report: the timeline, the first failure, its cause.

use crate::analysis::Analysis;
use crate::causes::{self, Cause};
use crate::clues::Context;
use crate::evidence::Evidence;
use crate::explain::explain;
use crate::records::Record;
use crate::report::{Diagnosis, Event, Failure};

/// Timeline events kept; a bundle with more says so in its notes.
const MAX_EVENTS: usize = 2000;

/// Where the files came from, which decides what a service that never finished means.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Source {
    /// A log bundle: it was gathered because the bootstrap did not complete, so a service
    /// still running then is the failure.
    Bundle,
    /// The node now: a service still running may just be busy, so it is a failure only with
    /// evidence of a cause.
    Node,
}

/// The report for everything `analysis` kept.
pub(crate) fn conclude(mut analysis: Analysis, source: Source) -> Diagnosis {
    drop_recovered(&mut analysis);
    let timeline = timeline(&mut analysis);
    let context = add_facts(&mut analysis);
    let failure = first_failure(&analysis, source).map(|first| {
        let FirstFailure {
            what,
            service,
            stage,
            time,
        } = first;
        let (cause, evidence) = best_cause(&analysis, service.as_deref());
        // What the cause produces is no other cause.
        let produced = |c: &Cause| {
            causes::SYMPTOMS
                .iter()
                .any(|(symptom, root)| symptom == c && Some(*root) == cause)
        };
        let mut other_causes: Vec<Cause> = analysis
            .evidence
            .keys()
            .copied()
            .filter(|c| Some(*c) != cause && !produced(c))
            .collect();
        other_causes.sort_by_key(|c| causes::priority(*c));
        let (sentence, fix, evidence) = match (cause, evidence.first()) {
            (Some(cause), Some(first)) => {
                let (sentence, fix) = explain(cause, first, &context);
                (sentence, Some(fix), evidence)
            }
            _ => {
                let (sentence, shown) = without_cause(&analysis);
                (sentence, None, shown)
            }
        };
        Failure {
            what,
            service,
            stage,
            time,
            cause,
            sentence,
            evidence,
            fix,
            other_causes,
            last_errors: analysis.last_errors.iter().cloned().collect(),
        }
    });
    if failure.is_none() {
        still_running(&mut analysis);
    }
    if analysis.records.is_empty() {
        analysis.note(
            "no service records (bootstrap/services/*.json): the node may not have started its services, or this is not a bootstrap log bundle"
                .to_string(),
        );
    }
    Diagnosis {
        timeline,
        failure,
        notes: analysis.notes,
        files_read: analysis.files_read,
    }
}

/// The sentence when no cause matched, and the lines that show the state instead (none when
/// the last error lines do): never a promise of lines that are not there.
fn without_cause(analysis: &Analysis) -> (String, Vec<Evidence>) {
    if !analysis.last_errors.is_empty() {
        return (
            "No known cause matched; the last error lines are below.".to_string(),
            Vec::new(),
        );
    }
    let pods = analysis.facts.pod_states();
    if !pods.is_empty() {
        return (
            "No known cause matched and no line reads as an error; cluster-bootstrap was still waiting for control-plane pods, whose last states are below.".to_string(),
            pods,
        );
    }
    let files = analysis.files_read;
    (
        format!("No known cause matched, and none of the {files} files read has a line that reads as an error."),
        Vec::new(),
    )
}

/// Adds what the facts prove as evidence of its cause (`facts.rs`), and returns what the bundle
/// as a whole tells the explanations.
fn add_facts(analysis: &mut Analysis) -> Context {
    let mut context = Context {
        api_int_host: analysis.facts.api_int_host().map(str::to_string),
        silent_minutes: None,
    };
    match analysis.facts.silence() {
        Some(silence) => {
            context.silent_minutes = Some(silence.minutes);
            let list = analysis
                .evidence
                .entry(Cause::MachineConfigServerUnreachable)
                .or_default();
            for evidence in silence.evidence {
                if !list.iter().any(|e| e.text == evidence.text) {
                    list.push(evidence);
                }
            }
        }
        None => {
            if let Some(note) = analysis.facts.early_silence_note() {
                analysis.note(note);
            }
        }
    }
    context
}

/// The unit of a service as a person names it; a single node's pre-reboot bundle says so.
fn unit_name(service: &str) -> String {
    match service.strip_prefix(crate::layout::PRE_REBOOT) {
        Some(base) => format!("{base}.service (before the reboot)"),
        None => format!("{service}.service"),
    }
}

fn describe(record: &Record) -> String {
    let phase = record.phase.as_deref().unwrap_or("entry");
    let mut what = match (&record.stage, phase) {
        (Some(stage), "stage start") => format!("stage {stage} started"),
        (Some(stage), "stage end") => format!("stage {stage} ended"),
        (_, phase) => phase.to_string(),
    };
    if let Some(command) = record.pre_command.as_ref().or(record.post_command.as_ref()) {
        what.push_str(&format!(" ({command})"));
    }
    if let Some(result) = &record.result {
        what.push_str(&format!(": {result}"));
    }
    what
}

fn timeline(analysis: &mut Analysis) -> Vec<Event> {
    let mut events = Vec::new();
    for (service, (_, entries)) in &analysis.records {
        for record in entries {
            events.push(Event {
                time: record
                    .timestamp
                    .as_deref()
                    .and_then(crate::records::normalize_time),
                source: unit_name(service),
                what: describe(record),
            });
        }
    }
    for (name, time, _) in &analysis.markers {
        events.push(Event {
            time: time.clone(),
            source: "marker".to_string(),
            what: format!("{name} written"),
        });
    }
    // Stable: entries of one file keep their order within a second.
    events.sort_by(|a, b| match (&a.time, &b.time) {
        (Some(x), Some(y)) => x.cmp(y),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => std::cmp::Ordering::Equal,
    });
    if events.len() > MAX_EVENTS {
        analysis.note(format!(
            "the timeline has {} events; the first {MAX_EVENTS} are shown",
            events.len()
        ));
        events.truncate(MAX_EVENTS);
    }
    events
}

/// What failed first, before its cause is looked for.
struct FirstFailure {
    what: String,
    service: Option<String>,
    stage: Option<String>,
    time: Option<String>,
}

fn first(
    what: String,
    service: Option<String>,
    stage: Option<String>,
    time: Option<String>,
) -> Option<FirstFailure> {
    Some(FirstFailure {
        what,
        service,
        stage,
        time,
    })
}

/// The earliest failure: a failing record, else a unit systemd lists as failed, else a bootstrap
/// service that never finished or never started while evidence of a cause is at hand.
fn first_failure(analysis: &Analysis, source: Source) -> Option<FirstFailure> {
    let mut failures: Vec<(Option<String>, &String, &Record)> = analysis
        .records
        .iter()
        .flat_map(|(service, (_, entries))| {
            entries.iter().filter(|r| r.failed()).map(move |r| {
                let time = r
                    .timestamp
                    .as_deref()
                    .and_then(crate::records::normalize_time);
                (time, service, r)
            })
        })
        .collect();
    failures.sort_by(|a, b| a.0.cmp(&b.0));
    if let Some((time, service, record)) = failures.into_iter().next() {
        let what = match &record.stage {
            Some(stage) => format!("{} failed in stage {stage}", unit_name(service)),
            None => format!("{} failed", unit_name(service)),
        };
        return first(what, Some(service.clone()), record.stage.clone(), time);
    }
    if let Some((unit, _)) = analysis.failed_units.first() {
        let service = unit.strip_suffix(".service").map(str::to_string);
        return first(format!("{unit} failed"), service, None, None);
    }
    let counts = source == Source::Bundle || !analysis.evidence.is_empty();
    let running = stuck_service(analysis).filter(|_| counts);
    // The release image first: nothing after it runs without it.
    if running
        .as_ref()
        .is_some_and(|(service, ..)| service == "release-image")
    {
        return running.and_then(never_finished);
    }
    // A service of the bootstrap that a hold kept from starting, or (in a bundle, gathered
    // because the bootstrap did not complete) whose journal shows it never ran, stopped the
    // bootstrap there: nothing started it. Not on a single node after its reboot (a bundle that
    // carries the pre-reboot one), where these services have no more to do. What else still
    // ran then (progress, approve-csr waiting for bootkube) followed from it.
    let held = analysis.evidence.contains_key(&Cause::UnitHeld);
    let after_reboot = analysis
        .records
        .keys()
        .any(|s| s.starts_with(crate::layout::PRE_REBOOT));
    for service in ["release-image", "bootkube"] {
        let silent =
            source == Source::Bundle && !after_reboot && analysis.silent_journals.contains(service);
        if !analysis.records.contains_key(service) && (held || silent) {
            return first(
                format!("{service}.service never started"),
                Some(service.to_string()),
                None,
                None,
            );
        }
    }
    running.and_then(never_finished)
}

/// The failure of a service whose last run never ended: (service, open stage, time).
fn never_finished(
    (service, stage, time): (String, Option<String>, Option<String>),
) -> Option<FirstFailure> {
    let what = match &stage {
        Some(stage) => format!(
            "{} never finished: stage {stage} did not end",
            unit_name(&service)
        ),
        None => format!("{} never finished", unit_name(&service)),
    };
    first(what, Some(service), stage, time)
}

/// A service whose last run started and never ended: (service, open stage, time of the last entry).
fn stuck_service(analysis: &Analysis) -> Option<(String, Option<String>, Option<String>)> {
    // The services the bootstrap waits on first, then the rest in name order.
    let first = ["release-image", "bootkube"];
    let ordered = first
        .iter()
        .filter_map(|name| analysis.records.get_key_value(*name))
        .chain(
            analysis
                .records
                .iter()
                .filter(|(name, _)| !first.contains(&name.as_str())),
        );
    ordered.into_iter().find_map(|(service, (_, entries))| {
        // A single node's pre-reboot bundle is gathered by bootkube's master-ignition stage,
        // in every install: what was still running then (that stage, install-to-disk waiting
        // for it) was running on purpose.
        if service.starts_with(crate::layout::PRE_REBOOT) {
            return None;
        }
        let last_start = entries
            .iter()
            .rposition(|r| r.phase.as_deref() == Some("service start"))?;
        let run = &entries[last_start..];
        if run
            .iter()
            .any(|r| r.phase.as_deref() == Some("service end"))
        {
            return None;
        }
        let open_stage = run.iter().rev().find_map(|r| match r.phase.as_deref() {
            Some("stage start") => Some(r.stage.clone()),
            Some("stage end") => Some(None),
            _ => None,
        });
        let time = run
            .last()
            .and_then(|r| r.timestamp.as_deref())
            .and_then(crate::records::normalize_time);
        Some((service.clone(), open_stage.flatten(), time))
    })
}

fn still_running(analysis: &mut Analysis) {
    if let Some((service, stage, time)) = stuck_service(analysis) {
        analysis.note(format!(
            "{} is still running{}{}; nothing failed so far",
            unit_name(&service),
            stage.map(|s| format!(" (stage {s})")).unwrap_or_default(),
            time.map(|t| format!(", last record at {t}"))
                .unwrap_or_default()
        ));
    }
}

/// Whether `file` belongs to `service`: its records, journal or unit status.
fn belongs_to(file: &str, service: &str) -> bool {
    let base = service.rsplit('/').next().unwrap_or(service);
    let name = file.rsplit('/').next().unwrap_or(file);
    name == format!("{base}.json")
        || name == format!("{base}.log")
        || name.starts_with(&format!("{base}.service"))
}

/// Leaves out the evidence in the files of a service whose record says it ended well: an
/// error it logged (a pull refused on the first attempt) was overcome, and is no cause of what
/// failed later (nor "also seen").
fn drop_recovered(analysis: &mut Analysis) {
    let ended_well: Vec<String> = analysis
        .records
        .iter()
        .filter(|(_, (_, records))| {
            records
                .iter()
                .rev()
                .find(|r| r.phase.as_deref() == Some("service end"))
                .is_some_and(|end| end.result.as_deref() == Some("success"))
        })
        .map(|(service, _)| service.clone())
        .collect();
    if ended_well.is_empty() {
        return;
    }
    let recovered = |e: &Evidence| ended_well.iter().any(|s| belongs_to(&e.file, s));
    for evidence in analysis.evidence.values_mut() {
        evidence.retain(|e| !recovered(e));
    }
    analysis.evidence.retain(|_, evidence| !evidence.is_empty());
    // Nor are its error lines among the last ones shown for a failure elsewhere.
    analysis.last_errors.retain(|e| !recovered(e));
}

/// The highest-priority cause with evidence in the failing service's own files, else anywhere;
/// a symptom's root instead when the root has evidence anywhere (`causes::SYMPTOMS`).
fn best_cause(analysis: &Analysis, service: Option<&str>) -> (Option<Cause>, Vec<Evidence>) {
    let (cause, evidence) = best_cause_shown(analysis, service);
    let root = causes::SYMPTOMS
        .iter()
        .filter(|(symptom, _)| Some(*symptom) == cause)
        .find_map(|(_, root)| Some((*root, analysis.evidence.get(root)?)));
    match root {
        Some((root, evidence)) => (Some(root), evidence.clone()),
        None => (cause, evidence),
    }
}

/// The highest-priority cause with evidence in the failing service's own files, else anywhere.
fn best_cause_shown(analysis: &Analysis, service: Option<&str>) -> (Option<Cause>, Vec<Evidence>) {
    let mut ranked: Vec<(&Cause, &Vec<Evidence>)> = analysis.evidence.iter().collect();
    ranked.sort_by_key(|(cause, _)| causes::priority(**cause));
    if let Some(service) = service {
        for (cause, evidence) in &ranked {
            let own: Vec<Evidence> = evidence
                .iter()
                .filter(|e| belongs_to(&e.file, service))
                .cloned()
                .collect();
            if !own.is_empty() {
                let others = evidence.iter().filter(|e| !belongs_to(&e.file, service));
                let all = own.iter().cloned().chain(others.cloned()).collect();
                return (Some(**cause), all);
            }
        }
    }
    match ranked.first() {
        Some((cause, evidence)) => (Some(**cause), (*evidence).clone()),
        None => (None, Vec::new()),
    }
}
