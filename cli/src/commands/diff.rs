//! `bootgen diff`: a semantic diff of two configs. Exit 0 when they are the same, 1 when they
//! differ, 2 when either cannot be read (as `diff` and `cmp` do).

use crate::args::DiffArgs;
use crate::input::load;
use std::process::ExitCode;

/// Exit code when the configs differ.
const EXIT_DIFFERENT: u8 = 1;
/// Exit code when a config cannot be read or parsed (trouble, as for `diff`).
const EXIT_TROUBLE: u8 = 2;

fn compare(args: &DiffArgs) -> anyhow::Result<bool> {
    let (_, old) = load(&args.old)?;
    let (_, new) = load(&args.new)?;
    let diff = bootgen::inspect::diff::diff(
        &old,
        &new,
        &args.old.display().to_string(),
        &args.new.display().to_string(),
    )?;
    if args.json {
        crate::report::emit_json(&diff)?;
    } else {
        crate::report::emit(diff.to_string())?;
    }
    Ok(diff.is_empty())
}

/// Runs `bootgen diff`.
pub fn run(args: DiffArgs) -> anyhow::Result<ExitCode> {
    match compare(&args) {
        Ok(true) => Ok(ExitCode::SUCCESS),
        Ok(false) => Ok(ExitCode::from(EXIT_DIFFERENT)),
        Err(error) => {
            crate::report::print_error(&error);
            Ok(ExitCode::from(EXIT_TROUBLE))
        }
    }
}
