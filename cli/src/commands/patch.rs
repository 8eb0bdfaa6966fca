//! `bootgen patch`: the same transforms as `bootgen ignition`, on any Ignition config.

use crate::args::PatchArgs;
use crate::input::{is_stdio, read_config};
use crate::report::notice;
use anyhow::Context;
use bootgen::ignition::IgnitionDoc;
use std::io::Write;
use std::process::ExitCode;

/// Runs `bootgen patch`.
pub fn run(args: PatchArgs) -> anyhow::Result<ExitCode> {
    let (bytes, name) = read_config(&args.input)?;
    let mut doc = IgnitionDoc::parse(&bytes, &name)?;
    // Refuse a config whose data URLs do not decode: patching it would hide the problem. One
    // file at a time, so a large config's contents are never all in memory at once.
    bootgen::inspect::decoded_files(&doc)
        .try_for_each(|file| file.map(drop))
        .map_err(|e| match e {
            bootgen::Error::Ignition { message, .. } => bootgen::Error::Ignition {
                file: name.clone(),
                message,
            },
            other => other,
        })?;
    let mut options = args.passes.to_options();
    options.mirrors = args.passes.mirror_options()?;
    let changes = bootgen::passes::apply(&mut doc, &options)?;
    for change in &changes {
        notice(change);
    }
    if changes.is_empty() {
        notice("no transform requested: output equals input");
    }
    crate::checks::preflight(&doc, args.strict)?;
    crate::checks::print_unit_lint(&doc);
    // A patch with no transform gives back the input exactly.
    let out = if changes.is_empty() {
        bytes
    } else {
        drop(bytes);
        doc.to_bytes()
    };
    drop(doc);
    // Whatever we write must still be a config Ignition accepts.
    IgnitionDoc::check(&out, "<patched config>")?;
    if is_stdio(&args.output) {
        let mut stdout = std::io::stdout().lock();
        stdout
            .write_all(&out)
            .context("cannot write standard output")?;
        stdout.flush().context("cannot write standard output")?;
    } else {
        bootgen::output::write_atomic(&args.output, &out, 0o600)?;
    }
    Ok(ExitCode::SUCCESS)
}
