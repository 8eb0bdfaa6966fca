//! The diagnosis as a person reads it: timeline, failure, cause, evidence, fix.

use std::fmt;

use crate::evidence::Evidence;
use crate::report::Diagnosis;

fn evidence_lines(f: &mut fmt::Formatter<'_>, lines: &[Evidence]) -> fmt::Result {
    for e in lines {
        writeln!(f, "  {}:{}: {}", e.file, e.line, e.text)?;
    }
    Ok(())
}

impl fmt::Display for Diagnosis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "Timeline:")?;
        if self.timeline.is_empty() {
            writeln!(f, "  (no service records or .done markers)")?;
        }
        for event in &self.timeline {
            let time = event.time.as_deref().unwrap_or("????-??-??T??:??:??Z");
            writeln!(f, "  {time}  {:<28} {}", event.source, event.what)?;
        }
        writeln!(f)?;
        match &self.failure {
            None => writeln!(f, "No failure found.")?,
            Some(failure) => {
                write!(f, "First failure: {}", failure.what)?;
                match &failure.time {
                    Some(time) => writeln!(f, " at {time}")?,
                    None => writeln!(f)?,
                }
                writeln!(f, "Cause: {}", failure.sentence)?;
                if !failure.evidence.is_empty() {
                    writeln!(f, "Evidence:")?;
                    evidence_lines(f, &failure.evidence)?;
                }
                if let Some(fix) = &failure.fix {
                    writeln!(f, "Fix:\n  {fix}")?;
                }
                if !failure.other_causes.is_empty() {
                    let names: Vec<String> = failure
                        .other_causes
                        .iter()
                        // The names `--json` gives them (kebab case).
                        .map(|c| match serde_json::to_value(c) {
                            Ok(serde_json::Value::String(name)) => name,
                            _ => format!("{c:?}"),
                        })
                        .collect();
                    writeln!(f, "Also seen: {}", names.join(", "))?;
                }
                if failure.cause.is_none() && !failure.last_errors.is_empty() {
                    writeln!(f, "Last error lines:")?;
                    evidence_lines(f, &failure.last_errors)?;
                }
            }
        }
        if !self.notes.is_empty() {
            writeln!(f, "\nNotes:")?;
            for note in &self.notes {
                writeln!(f, "  {note}")?;
            }
        }
        Ok(())
    }
}
