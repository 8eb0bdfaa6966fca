//! `bootgen package`: a reproducible `.tar.gz` of an output directory, with SHA256SUMS inside.

use crate::args::PackageArgs;
use std::process::ExitCode;

/// Runs `bootgen package`.
pub fn run(args: PackageArgs) -> anyhow::Result<ExitCode> {
    // Never a directory half way through a write.
    let _lock = crate::lock::hold(&args.dir, bootgen::output::Access::Read, args.wait)?;
    crate::input::refuse_interrupted(&args.dir, &args.dir)?;
    crate::pack::package(&args.dir, &args.output)?;
    Ok(ExitCode::SUCCESS)
}
