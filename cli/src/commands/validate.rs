//! `bootgen validate`: Ignition's rules plus bootgen's lints, with a location for every problem.

use crate::args::ValidateArgs;
use crate::clock;
use crate::input::read_path;
use bootgen::checks::{validate, ValidateOptions};
use bootgen::report::parse_duration;
use std::process::ExitCode;

/// Runs `bootgen validate`: exit 0 when every config is valid (under --strict: also without
/// warnings), 1 otherwise.
pub fn run(args: ValidateArgs) -> anyhow::Result<ExitCode> {
    let options = ValidateOptions {
        lints: !args.no_lint,
        now: clock::now(args.now.as_deref())?,
        warn_within: parse_duration(&args.warn_within)?,
        strict: args.strict,
    };
    let mut results = Vec::new();
    for input in &args.inputs {
        let (bytes, name) = read_path(input)?;
        results.push(validate(&bytes, &name, &options));
    }
    if args.json {
        crate::report::emit_json(&results)?;
    } else {
        let text: String = results.iter().map(ToString::to_string).collect();
        crate::report::emit(text)?;
    }
    // `valid` already counts warnings under --strict: the output and the exit code agree.
    Ok(if results.iter().any(|r| !r.valid) {
        ExitCode::from(crate::EXIT_INPUT)
    } else {
        ExitCode::SUCCESS
    })
}
