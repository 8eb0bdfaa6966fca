//! Packing an output directory into a reproducible tarball: `bootgen package` and
//! `bootgen ignition --package` both go through here.

use std::path::Path;

/// Packs `dir` into `output` (standard output for `-`) and says so.
pub fn package(dir: &Path, output: &Path) -> anyhow::Result<()> {
    let mtime = crate::clock::entry_mtime()?;
    let to_stdout = crate::input::is_stdio(output);
    if to_stdout && std::io::IsTerminal::is_terminal(&std::io::stdout()) {
        // Compressed bytes on a screen: unreadable, and any of them may be a terminal's
        // control sequence.
        anyhow::bail!(
            "-o -: standard output is a terminal; redirect it (bootgen package {} -o - > cluster.tar.gz) or give a file",
            crate::report::shell_word(&dir.display().to_string())
        );
    }
    let report = if to_stdout {
        let (bytes, report) = bootgen::output::package_bytes(dir, mtime)?;
        crate::report::write_output(output, &bytes, 0o600)?;
        report
    } else {
        bootgen::output::write_package(dir, output, mtime)?
    };
    let said = format!(
        "packaged {} of {} into {} ({} bytes, with {})",
        bootgen::report::counted(report.files, "file"),
        dir.display(),
        if to_stdout {
            "standard output".into()
        } else {
            output.display().to_string()
        },
        report.bytes,
        bootgen::output::CHECKSUMS
    );
    if to_stdout {
        // Standard output holds the tarball: what is said goes to standard error.
        crate::report::notice(said);
    } else {
        crate::report::emit(said + "\n")?;
    }
    Ok(())
}
