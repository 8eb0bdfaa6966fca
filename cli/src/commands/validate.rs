//! `bootgen validate`: Ignition's rules plus bootgen's lints, with a location for every problem.
//! Also the unit-graph lint that `bootgen ignition` and `bootgen patch` print.

use super::clock;
use crate::report::{notice, warn};
use bootgen::ignition::IgnitionDoc;
use bootgen::inspect::certs::parse_duration;
use bootgen::inspect::validate::{validate, ValidateOptions};
use bootgen::inspect::Severity;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

/// `bootgen validate`.
#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// The configs to check (`-` for standard input).
    #[arg(value_name = "IN.ign", required = true)]
    pub inputs: Vec<PathBuf>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// Only Ignition's own rules: skip the unit-graph, secret-mode and certificate lints.
    #[arg(long)]
    pub no_lint: bool,
    /// Treat warnings as errors.
    #[arg(long)]
    pub strict: bool,
    /// Warn about certificates expiring within this long (e.g. 24h, 90m, 7d).
    #[arg(long, value_name = "DURATION", default_value = "24h")]
    pub warn_within: String,
    /// The clock for certificate checks (RFC 3339); default SOURCE_DATE_EPOCH, else now.
    #[arg(long, value_name = "TIME")]
    pub now: Option<String>,
}

/// Runs `bootgen validate`: exit 0 when every config is valid, 1 otherwise.
pub fn run(args: ValidateArgs) -> anyhow::Result<ExitCode> {
    let options = ValidateOptions {
        lints: !args.no_lint,
        now: clock::now(args.now.as_deref())?,
        warn_within: parse_duration(&args.warn_within)?,
    };
    let mut results = Vec::new();
    for input in &args.inputs {
        let (bytes, name) = super::patch::read_config(input)?;
        results.push(validate(&bytes, &name, &options));
    }
    if args.json {
        crate::report::emit_json(&results)?;
    } else {
        let text: String = results.iter().map(ToString::to_string).collect();
        crate::report::emit(text)?;
    }
    let failed = results
        .iter()
        .any(|r| !r.valid || (args.strict && r.count(Severity::Warning) > 0));
    Ok(if failed {
        ExitCode::from(crate::EXIT_INPUT)
    } else {
        ExitCode::SUCCESS
    })
}

/// Prints the unit-graph lint of a config bootgen is about to write: warnings and notes.
pub fn print_unit_lint(doc: &IgnitionDoc) {
    for problem in bootgen::inspect::lint_units(doc) {
        let at = problem.location.path.as_deref().unwrap_or("$");
        match problem.severity {
            Severity::Note => notice(format!("{} ({at})", problem.message)),
            _ => warn(format!("{} ({at})", problem.message)),
        }
    }
}
