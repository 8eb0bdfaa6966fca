//! `bootgen recover`: finish (or undo) an interrupted write into an output directory, without
//! generating anything, so a directory cut short can be made whole without knowing the
//! install-config it was made from.

use crate::args::RecoverArgs;
use bootgen::output::{self, Recovery};
use std::process::ExitCode;

/// Runs `bootgen recover`.
pub fn run(args: RecoverArgs) -> anyhow::Result<ExitCode> {
    if !args.dir.is_dir() {
        anyhow::bail!("{} is not a directory", args.dir.display());
    }
    let _lock = crate::lock::hold(&args.dir, output::Access::Write, args.wait)?;
    let said = match output::recover(&args.dir, output::Links::Refuse)? {
        Recovery::Clean => format!(
            "{}: no interrupted write to finish; nothing changed",
            args.dir.display()
        ),
        Recovery::RolledBack => format!(
            "{}: removed the staged files of a run killed before its commit point; the directory is as it was before that run",
            args.dir.display()
        ),
        Recovery::RolledForward(files) => format!(
            "{}: finished the interrupted write ({} files moved into place)",
            args.dir.display(),
            files.len()
        ),
    };
    crate::report::emit(said + "\n")?;
    let scratch = output::remove_temp_files(&args.dir)?;
    if !scratch.is_empty() {
        crate::report::emit(format!(
            "{}: removed the temporary files a killed write left: {}\n",
            args.dir.display(),
            scratch.join(", ")
        ))?;
    }
    if output::media_pending(&args.dir) {
        crate::report::warn(format!(
            "the media in {} were made from the configs before the killed run, which it had written but not yet made media of: make them again (bootgen ignition -o {} --force with the run's --iso or --pxe options) before a node boots from them",
            args.dir.join(output::MEDIA_DIR).display(),
            args.dir.display()
        ));
    }
    Ok(ExitCode::SUCCESS)
}
