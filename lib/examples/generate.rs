//! Generate a bootstrap config with the library and write it to a directory.
//!
//! `cargo run -p bootgen --example generate -- [install-config.yaml|-] [out-dir]`
//!
//! Without an install-config (or with `-`) it uses the embedded example cluster.
//!
//! Run it again with the same directory and it reuses the PKI in `out-dir/tls`, as
//! `bootgen ignition` does: keys are never replaced, so a second run gives the same configs.

use bootgen::{config, generate, output, Options};
use std::path::PathBuf;
use std::process::ExitCode;

fn run() -> Result<(), bootgen::Error> {
    let mut args = std::env::args().skip(1);
    let loaded = match args.next() {
        Some(path) if path != "-" => config::load(PathBuf::from(path).as_path())?,
        _ => config::load_default()?,
    };
    let out = PathBuf::from(args.next().unwrap_or_else(|| "bootgen-example-out".into()));
    // The library never reads the clock itself: the caller decides what "now" is.
    let mut options = Options::new(bootgen::time::OffsetDateTime::now_utc());
    // A directory written before holds the PKI its configs were made with: reuse it.
    let tls = out.join("tls");
    options.tls_dir = tls.is_dir().then_some(tls);
    let generated = generate(&loaded, &options)?;
    for warning in &generated.warnings {
        eprintln!("warning: {warning}");
    }
    for notice in &generated.pki_notices {
        eprintln!("note: {}", notice.message);
    }
    let size = generated.bootstrap.to_bytes().len();
    let domain = generated.model.cluster_domain();
    let report = output::write_dir(
        &out,
        &output::output_files(&generated),
        output::ExistingConfigs::Replace,
    )?;
    println!(
        "{}: {size} bytes of Ignition for {domain} ({} files written, {} unchanged)",
        out.join("bootstrap.ign").display(),
        report.written.len(),
        report.unchanged.len()
    );
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            // Display, with each cause: the library's errors are written to be read.
            eprintln!("error: {error}");
            let mut source = std::error::Error::source(&error);
            while let Some(cause) = source {
                eprintln!("caused by: {cause}");
                source = cause.source();
            }
            ExitCode::FAILURE
        }
    }
}
