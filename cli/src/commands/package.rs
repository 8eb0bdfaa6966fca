//! `bootgen package`: a reproducible `.tar.gz` of an output directory, with SHA256SUMS inside.

use anyhow::anyhow;
use clap::Args;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// `bootgen package`.
#[derive(Debug, Args)]
pub struct PackageArgs {
    /// The output directory to pack.
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// The tarball to write (atomically, mode 0600: it holds keys).
    #[arg(long, short = 'o', value_name = "FILE.tar.gz")]
    pub output: PathBuf,
}

/// Entry times: `SOURCE_DATE_EPOCH`, else 0, so two runs give the same bytes.
pub fn entry_mtime() -> anyhow::Result<u64> {
    match std::env::var("SOURCE_DATE_EPOCH") {
        Ok(text) => text
            .trim()
            .parse()
            .map_err(|_| anyhow!("SOURCE_DATE_EPOCH: `{text}` is not a number of seconds")),
        Err(_) => Ok(0),
    }
}

/// Packs `dir` into `output` and says so.
pub fn package(dir: &Path, output: &Path) -> anyhow::Result<()> {
    let report = bootgen::output::package::write_package(dir, output, entry_mtime()?)?;
    crate::report::emit(
        format!(
            "packaged {} files of {} into {} ({} bytes, with {})",
            report.files,
            dir.display(),
            output.display(),
            report.bytes,
            bootgen::output::package::CHECKSUMS
        ) + "\n",
    )?;
    Ok(())
}

/// Runs `bootgen package`.
pub fn run(args: PackageArgs) -> anyhow::Result<ExitCode> {
    package(&args.dir, &args.output)?;
    Ok(ExitCode::SUCCESS)
}
