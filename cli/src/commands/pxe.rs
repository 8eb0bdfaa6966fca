//! `bootgen pxe`: the PXE set from a CoreOS live ISO, the config appended to its initramfs as a
//! second archive, with iPXE and GRUB entries that boot it.

use crate::args::PxeArgs;
use crate::media::{check_arch, customization, describe, read_iso, write_pxe_set};
use crate::report::emit;
use std::process::ExitCode;

/// Runs `bootgen pxe`.
pub fn run(args: PxeArgs) -> anyhow::Result<ExitCode> {
    crate::input::refuse_stdout(&args.output, "a directory of PXE files", "a directory")?;
    crate::media::check_base_url("--base-url", &args.base_url)?;
    let (customization, config) = customization(&args.media)?;
    let (_, iso) = read_iso(&args.input)?;
    check_arch(&iso, &config)?;
    let name = match &args.name {
        Some(name) => name.clone(),
        None => config
            .path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "node".into()),
    };
    bootgen::media::check_entry_name(&name).map_err(|why| match &args.name {
        Some(_) => anyhow::anyhow!("--name: {why}"),
        None => anyhow::anyhow!("{}: {why}; give one with --name", config.path.display()),
    })?;
    let _lock = crate::lock::hold_output_around(&args.output, true)?;
    let written = write_pxe_set(
        &args.input,
        &iso,
        &customization,
        &args.output,
        &name,
        &args.base_url,
        args.force,
    )?;
    for path in &written {
        emit(format!("wrote {}\n", path.display()))?;
    }
    emit(format!(
        "{} ({}): serve {} at {} and boot {name}.ipxe (or {name}-grub.cfg)\n",
        config.path.display(),
        describe(&customization),
        args.output.display(),
        args.base_url
    ))?;
    Ok(ExitCode::SUCCESS)
}
