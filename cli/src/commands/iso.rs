//! `bootgen iso`: a config embedded into a CoreOS live ISO, in place or to a new file, as
//! coreos-installer embeds it; every check passes before the first byte is written, and the
//! image written is the one checked (read and written through one descriptor).

use crate::args::IsoArgs;
use crate::media::{check_arch, customization, describe};
use crate::report::{emit, notice, warn};
use bootgen::media::LiveIso;
use bootgen::output::ImageMode;
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
    let name = args.input.display().to_string();
    let (written, patch, iso, mode) = match &args.output {
        Some(output) if !crate::lock::same_file(&args.input, output) => {
            let (file, iso) = crate::media::read_iso(&args.input)?;
            check_arch(&iso, &config)?;
            let patch = iso.plan(&customization, args.force)?;
            pause_before_write();
            bootgen::output::patch_to_copy(&file, &args.input, output, &patch, args.force)?;
            (output, patch, iso, ImageMode::Private)
        }
        _ => {
            let mut image = bootgen::output::open_in_place(&args.input)?;
            let iso = LiveIso::read(image.file(), &name)?;
            check_arch(&iso, &config)?;
            let patch = iso.plan(&customization, args.force)?;
            pause_before_write();
            let mode = image.patch(&patch, config.secrets, args.keep_mode)?;
            (&args.input, patch, iso, mode)
        }
    };
    say_mode(written, mode);
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

/// Fault injection for the conformance tests: with `BOOTGEN_TEST_PAUSE_BEFORE_WRITE_MS=N` the
/// run waits N ms between its checks and its write, widening the window in which another user
/// could swap the image's name for a link.
fn pause_before_write() {
    if let Some(ms) = std::env::var("BOOTGEN_TEST_PAUSE_BEFORE_WRITE_MS")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
    {
        std::thread::sleep(std::time::Duration::from_millis(ms.min(60_000)));
    }
}

/// What became of an image's mode written in place: made private, or kept readable on purpose.
fn say_mode(image: &std::path::Path, mode: ImageMode) {
    match mode {
        ImageMode::Private => {}
        ImageMode::MadePrivate(old) => notice(format!(
            "{}: made private (mode {:04o}, was {old:04o}): the config now in it carries private keys or passwords; --keep-mode keeps an image's mode",
            image.display(),
            old & 0o700
        )),
        ImageMode::KeptReadable(old) => warn(format!(
            "{}: others can read it (mode {old:04o}, kept by --keep-mode), and the config now in it carries private keys or passwords",
            image.display()
        )),
    }
}
