//! `bootgen pointer`: a small config that replaces itself with IN.ign fetched from a URL.

use crate::args::PointerArgs;
use crate::input::load;
use bootgen::report::SizeBudget;
use std::process::ExitCode;

/// Runs `bootgen pointer`.
pub fn run(args: PointerArgs) -> anyhow::Result<ExitCode> {
    let (bytes, _) = load(&args.input)?;
    let ca = match &args.ca {
        Some(path) => Some((
            std::fs::read_to_string(path)
                .map_err(|e| bootgen::Error::io("cannot read", path, e))?,
            path.display().to_string(),
        )),
        None => None,
    };
    let doc = bootgen::ignition::replace_pointer(
        &args.url,
        &bytes,
        ca.as_ref().map(|(pem, name)| (pem.as_str(), name.as_str())),
    )?;
    let out = doc.to_bytes();
    bootgen::output::write_atomic(&args.output, &out, 0o644)?;
    crate::report::emit(
        format!(
            "wrote {}: replaces itself with {} ({} bytes, sha512 verified)",
            args.output.display(),
            // A URL may carry credentials (`https://user:token@host/...`).
            bootgen::report::hide_secrets(&args.url),
            bytes.len()
        ) + "\n",
    )?;
    crate::report::emit_budget(&SizeBudget::of_config(&out, None), &args.output)?;
    Ok(ExitCode::SUCCESS)
}
