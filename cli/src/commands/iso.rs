//! `bootgen iso`: a config embedded into a CoreOS live ISO, in place or to a new file, as
//! coreos-installer embeds it; every check passes before the first byte is written.

use crate::args::IsoArgs;
use crate::media::{check_arch, customization, describe, read_iso};
use crate::report::emit;
use std::process::ExitCode;

/// Runs `bootgen iso`.
pub fn run(args: IsoArgs) -> anyhow::Result<ExitCode> {
    crate::media::check_kernel_arguments("--live-karg-append", &args.live_karg_append)?;
    crate::media::check_kernel_arguments("--live-karg-delete", &args.live_karg_delete)?;
    let (mut customization, config) = customization(&args.media)?;
    customization.live_karg_append = args.live_karg_append.clone();
    customization.live_karg_delete = args.live_karg_delete.clone();
    if let Some(output) = &args.output {
        crate::input::refuse_stdout(
            output,
            "a copy of the ISO and then its embed areas in place",
            "a file",
        )?;
    }
    // Held from before the image is read: a run writing the same output directory meanwhile
    // could replace the image, or remove our temporary copy as a killed run's.
    let target = args.output.as_ref().unwrap_or(&args.input);
    let _lock = crate::lock::hold_output_around(&crate::lock::parent_of(target), true)?;
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
            warn_if_readable_by_others(&args.input);
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

/// An image written in place keeps its mode; the config in it may hold the cluster's private
/// keys (a bootstrap's or a single node's), so say so when others can read it.
fn warn_if_readable_by_others(image: &std::path::Path) {
    crate::report::warn_if_others_can_read(
        image,
        "now holds the config and keyfiles embedded, with any private key or password they carry: chmod 600 it unless they hold none (a pointer config holds none; a Wi-Fi or 802.1X keyfile may hold a password)",
    );
}
