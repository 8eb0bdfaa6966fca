//! Packing an output directory into a reproducible tarball: `bootgen package` and
//! `bootgen ignition --package` both go through here.

use std::path::Path;

/// Packs `dir` into `output` and says so.
pub fn package(dir: &Path, output: &Path) -> anyhow::Result<()> {
    let report = bootgen::output::write_package(dir, output, crate::clock::entry_mtime()?)?;
    crate::report::emit(
        format!(
            "packaged {} files of {} into {} ({} bytes, with {})",
            report.files,
            dir.display(),
            output.display(),
            report.bytes,
            bootgen::output::CHECKSUMS
        ) + "\n",
    )?;
    Ok(())
}
