//! `bootgen diagnose`: why a bootstrap failed, from a log bundle or on the node. Exit 0 when no
//! failure is found, 1 when a failure is explained (or at least found), 2 when the input cannot
//! be read.

use std::process::ExitCode;

use bootgen::diagnose::{diagnose_node, diagnose_path, Diagnosis, Limits};

use crate::args::DiagnoseArgs;

/// Exit code when a failure was found.
const EXIT_FAILURE_FOUND: u8 = 1;
/// Exit code when the bundle cannot be read.
const EXIT_UNREADABLE: u8 = 2;

fn diagnosis(args: &DiagnoseArgs) -> anyhow::Result<Diagnosis> {
    let limits = Limits::default();
    if args.node {
        let now = crate::clock::now(args.now.as_deref())?;
        let (state, notes) = crate::node::collect(now);
        let mut diagnosis = diagnose_node(&state, &limits);
        diagnosis.notes.extend(notes);
        return Ok(diagnosis);
    }
    let Some(bundle) = &args.bundle else {
        anyhow::bail!("give a log bundle or --node");
    };
    Ok(diagnose_path(bundle, &limits)?)
}

/// Runs `bootgen diagnose`.
pub fn run(args: DiagnoseArgs) -> anyhow::Result<ExitCode> {
    if args.now.is_some() && !args.node {
        // A bundle's own files say when it was gathered: --now would be silently unused.
        crate::report::print_error(&anyhow::anyhow!(
            "--now is for --node (a bundle's time is when it was gathered): leave it out, or add --node"
        ));
        return Ok(ExitCode::from(EXIT_UNREADABLE));
    }
    let mut diagnosis = match diagnosis(&args) {
        Ok(diagnosis) => diagnosis,
        Err(error) => {
            crate::report::print_error(&error);
            return Ok(ExitCode::from(EXIT_UNREADABLE));
        }
    };
    // The library names bootgen's settings; the fix a person runs names the flags.
    if let Some(failure) = &mut diagnosis.failure {
        failure.sentence = crate::options::with_flags(&failure.sentence);
        failure.fix = failure.fix.as_deref().map(crate::options::with_flags);
    }
    if args.json {
        crate::report::emit_json(&diagnosis)?;
    } else {
        crate::report::emit_display(&diagnosis)?;
    }
    Ok(match diagnosis.failure {
        Some(_) => ExitCode::from(EXIT_FAILURE_FOUND),
        None => ExitCode::SUCCESS,
    })
}
