//! `bootgen extract`: every file and unit of a config, decoded, below a directory.

use crate::args::ExtractArgs;
use crate::input::load;
use std::process::ExitCode;

/// Runs `bootgen extract`.
pub fn run(args: ExtractArgs) -> anyhow::Result<ExitCode> {
    let (_, doc) = load(&args.input)?;
    let report = bootgen::output::extract(&doc, &args.output)?;
    for skipped in &report.skipped {
        crate::report::notice(format!("not extracted: {skipped}"));
    }
    crate::report::emit(
        format!(
            "extracted {} files and {} directories into {}",
            report.written.len(),
            report.directories.len(),
            args.output.display()
        ) + "\n",
    )?;
    Ok(ExitCode::SUCCESS)
}
