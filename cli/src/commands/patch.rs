//! `bootgen patch`: the same transforms as `bootgen ignition`, on any Ignition config.

use crate::args::PatchArgs;
use crate::input::{is_stdio, read_path};
use crate::report::notice;
use anyhow::Context;
use bootgen::ignition::SplitDoc;
use bootgen::passes::{Change, PassOptions};
use std::collections::BTreeSet;
use std::io::Write;
use std::process::ExitCode;

/// Runs `bootgen patch`.
pub fn run(args: PatchArgs) -> anyhow::Result<ExitCode> {
    let (bytes, name) = read_path(&args.input)?;
    // Most passes read and change a few well-known files: the config's other file entries stay
    // raw JSON (a JSON tree of a config costs about ten times its size), parsed one at a time
    // when checked and written. The mirror passes and --compress read every file.
    let mut options = args.passes.to_options();
    let keep = |options: &PassOptions| {
        let lean = bootgen::passes::reads_known_files_only(options);
        move |path: &str| !lean || bootgen::passes::reads_file(path)
    };
    let mut split = SplitDoc::parse_checked(&bytes, &name, keep(&options))?;
    // Refuse a config whose data URLs do not decode: patching it would hide the problem. One
    // file at a time, so a large config's contents are never all in memory at once.
    split
        .input_files()
        .enumerate()
        .try_for_each(|(i, file)| bootgen::ignition::decode_file(i, &file?).map(drop))
        .map_err(|e| match e {
            bootgen::Error::Ignition { message, .. } => bootgen::Error::Ignition {
                file: name.clone(),
                message,
            },
            other => other,
        })?;
    options.mirrors = args.passes.mirror_options()?;
    if !options.mirrors.is_empty() {
        split = SplitDoc::parse(&bytes, &name, keep(&options))?;
    }
    let changes = apply(&mut split, &options, args.strict)?;
    // A patch with no transform gives back the input exactly.
    let out = if changes.is_empty() {
        drop(split);
        bytes
    } else {
        let out = split.to_bytes()?;
        drop(split);
        drop(bytes);
        out
    };
    // Whatever we write must still be a config Ignition accepts.
    SplitDoc::check(&out, "<patched config>")?;
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

/// Applies the passes and prints what they changed and what the checks of the result say.
fn apply(
    split: &mut SplitDoc<'_>,
    options: &PassOptions,
    strict: bool,
) -> anyhow::Result<Vec<Change>> {
    let changes = bootgen::passes::apply(&mut split.doc, options)?;
    for change in &changes {
        notice(change);
    }
    if changes.is_empty() {
        notice("no transform requested: output equals input");
    }
    crate::checks::preflight(&split.doc, strict)?;
    let paths = split.paths()?;
    let files: BTreeSet<&str> = paths.iter().map(String::as_str).collect();
    crate::checks::print_unit_lint_with_files(&split.doc, &files);
    Ok(changes)
}
