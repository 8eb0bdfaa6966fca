//! `bootgen iso`: a config embedded into a CoreOS live ISO, in place or to a new file, as
//! coreos-installer embeds it; every check passes before the first byte is written.

use crate::args::IsoArgs;
use crate::media::{check_arch, customization, describe, read_iso};
use crate::report::emit;
use std::process::ExitCode;

/// Runs `bootgen iso`.
pub fn run(args: IsoArgs) -> anyhow::Result<ExitCode> {
    let (mut customization, config) = customization(&args.media)?;
    customization.live_karg_append = args.live_karg_append.clone();
    customization.live_karg_delete = args.live_karg_delete.clone();
    let (file, iso) = read_iso(&args.input)?;
    drop(file);
    check_arch(&iso, &config)?;
    let patch = iso.plan(&customization, args.force)?;
    let written = match &args.output {
        Some(output) if !crate::lock::same_file(&args.input, output) => {
            bootgen::output::patch_to_copy(&args.input, output, &patch, args.force)?;
            output
        }
        _ => {
            bootgen::output::patch_in_place(&args.input, &patch)?;
            &args.input
        }
    };
    let area = iso.ignition_area();
    emit(format!(
        "wrote {}: {} ({}); the embed area holds {} of its {} bytes\n",
        written.display(),
        config.path.display(),
        describe(&customization),
        patch.writes().first().map_or(0, |(_, bytes)| bytes
            .iter()
            .rposition(|b| *b != 0)
            .map_or(0, |i| i + 1)),
        area.length
    ))?;
    Ok(ExitCode::SUCCESS)
}
