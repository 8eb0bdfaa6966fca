//! What `check` found: one finding per thing tested, each with what was seen and, when it
//! failed, the fix; and the report that holds them with every contact made.

use super::probe::Contact;
use serde::Serialize;

/// How a test came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// As the install needs it.
    Pass,
    /// Not wrong yet, but worth a look (a service not up before the bootstrap runs).
    Warn,
    /// The install will not get past this.
    Fail,
    /// Not tested, because a test it needs failed first (said with why, in `evidence`).
    Skip,
}

/// One thing tested.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// The area: `dns`, `load balancer`, `mirror`, `time`.
    pub area: &'static str,
    /// What was tested (`api-int.example.com`, `api-int.example.com:22623`).
    pub target: String,
    /// How it came out.
    pub status: Status,
    /// One sentence: what is right or what failed.
    pub what: String,
    /// The exact answer received; for a skipped test, why it was not run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evidence: Option<String>,
    /// What to do about it, when it is not a pass.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
}

impl Finding {
    /// A pass.
    pub fn pass(area: &'static str, target: impl Into<String>, what: String) -> Finding {
        Finding {
            area,
            target: target.into(),
            status: Status::Pass,
            what,
            evidence: None,
            fix: None,
        }
    }

    /// A failure or a warning, with its evidence and fix.
    pub fn problem(
        status: Status,
        area: &'static str,
        target: impl Into<String>,
        what: String,
        evidence: String,
        fix: String,
    ) -> Finding {
        Finding {
            area,
            target: target.into(),
            status,
            what,
            evidence: Some(evidence),
            fix: Some(fix),
        }
    }
}

impl Finding {
    /// A test not run, and why (the test it needs that failed).
    pub fn skipped(
        area: &'static str,
        target: impl Into<String>,
        what: String,
        why: String,
    ) -> Finding {
        Finding {
            area,
            target: target.into(),
            status: Status::Skip,
            what,
            evidence: Some(why),
            fix: None,
        }
    }
}

/// Everything `check` found, and every contact it made.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Report {
    /// True when nothing failed (warnings allowed).
    pub passed: bool,
    /// The findings, in the order tested.
    pub findings: Vec<Finding>,
    /// What the configs did not let `check` test, said once each.
    pub notes: Vec<String>,
    /// Every DNS question, connection and request made, in order.
    pub contacts: Vec<Contact>,
}

impl Report {
    /// Adds a finding the caller made (a front end's own test, such as SSH), keeping
    /// [`Report::passed`] true to the findings.
    pub fn add(&mut self, finding: Finding) {
        self.passed &= finding.status != Status::Fail;
        self.findings.push(finding);
    }

    /// How many findings have this status.
    pub fn count(&self, status: Status) -> usize {
        self.findings.iter().filter(|f| f.status == status).count()
    }

    /// The fixes and evidence of findings pass through `edit` (the CLI names flags there).
    pub fn map_text(&mut self, edit: impl Fn(&str) -> String) {
        for finding in &mut self.findings {
            finding.what = edit(&finding.what);
            finding.fix = finding.fix.as_deref().map(&edit);
        }
    }
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for finding in &self.findings {
            let (mark, evidence_is) = match finding.status {
                Status::Pass => ("ok  ", "received"),
                Status::Warn => ("WARN", "received"),
                Status::Fail => ("FAIL", "received"),
                Status::Skip => ("skip", "because"),
            };
            writeln!(
                f,
                "{mark} {:<14} {}: {}",
                finding.area, finding.target, finding.what
            )?;
            if let Some(evidence) = &finding.evidence {
                writeln!(f, "       {evidence_is}: {evidence}")?;
            }
            if let Some(fix) = &finding.fix {
                writeln!(f, "       fix: {fix}")?;
            }
        }
        for note in &self.notes {
            writeln!(f, "note: {note}")?;
        }
        writeln!(
            f,
            "{}: {} passed, {}, {} failed, {} skipped",
            if self.passed { "ready" } else { "NOT READY" },
            self.count(Status::Pass),
            crate::report::counted(self.count(Status::Warn), "warning"),
            self.count(Status::Fail),
            self.count(Status::Skip)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_counts_in_words() {
        let warning = || {
            Finding::problem(
                Status::Warn,
                "dns",
                "api.example.com",
                "slow".into(),
                "2 s".into(),
                "look".into(),
            )
        };
        let mut report = Report {
            passed: true,
            ..Report::default()
        };
        report.add(warning());
        let text = report.to_string();
        assert!(
            text.ends_with("ready: 0 passed, 1 warning, 0 failed, 0 skipped\n"),
            "{text}"
        );
        report.add(warning());
        assert!(report
            .to_string()
            .ends_with(", 2 warnings, 0 failed, 0 skipped\n"));
    }
}
