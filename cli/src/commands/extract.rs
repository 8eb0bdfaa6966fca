//! `bootgen extract`: every file and unit of a config, decoded, below a directory.

use super::inspect::load;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

/// `bootgen extract`.
#[derive(Debug, Args)]
pub struct ExtractArgs {
    /// The config (`-` for standard input).
    #[arg(value_name = "IN.ign")]
    pub input: PathBuf,
    /// The directory to write into (created if needed); nothing is written outside it.
    #[arg(long, short = 'o', value_name = "DIR")]
    pub output: PathBuf,
}

/// Runs `bootgen extract`.
pub fn run(args: ExtractArgs) -> anyhow::Result<ExitCode> {
    let (_, doc) = load(&args.input)?;
    let report = bootgen::inspect::extract::extract(&doc, &args.output)?;
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
