//! `bootgen extract`: every file and unit of a config, decoded, below a directory.

use crate::args::ExtractArgs;
use crate::input::read_path;
use bootgen::ignition::SplitDoc;
use std::process::ExitCode;

/// Runs `bootgen extract`.
pub fn run(args: ExtractArgs) -> anyhow::Result<ExitCode> {
    crate::input::refuse_stdout(&args.output, "a directory of files", "a directory")?;
    let (bytes, name) = read_path(&args.input)?;
    // The file entries stay raw JSON, each decoded when written: a large config is never a JSON
    // tree, nor in memory decoded, whole.
    let split = SplitDoc::parse_checked(&bytes, &name, |_| false)?;
    let report = bootgen::output::extract_split(&split, &args.output, args.force)
        .map_err(|e| e.in_config(&name))?;
    for skipped in &report.skipped {
        crate::report::notice(format!("not extracted: {skipped}"));
    }
    for reduced in &report.modes_reduced {
        crate::report::notice(reduced);
    }
    for replaced in &report.replaced {
        crate::report::notice(format!("replaced {replaced}: it held other contents"));
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
