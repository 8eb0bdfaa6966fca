//! `bootgen pointer`: a small config that replaces itself with IN.ign fetched from a URL.

use super::inspect::load;
use bootgen::inspect::budget::SizeBudget;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

/// `bootgen pointer`.
#[derive(Debug, Args)]
pub struct PointerArgs {
    /// Where the node fetches IN.ign from (https://, http://, s3://, gs://, tftp://).
    #[arg(long, value_name = "URL")]
    pub url: String,
    /// PEM CA certificate(s) that sign the server's certificate (each becomes a trusted CA).
    #[arg(long, value_name = "FILE")]
    pub ca: Option<PathBuf>,
    /// The config that will be served at URL, byte for byte (its SHA-512 goes into the pointer).
    #[arg(value_name = "IN.ign")]
    pub input: PathBuf,
    /// The pointer config to write.
    #[arg(long, short = 'o', value_name = "OUT.ign")]
    pub output: PathBuf,
}

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
    let doc = bootgen::ignition::pointer::replace_pointer(
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
            args.url,
            bytes.len()
        ) + "\n",
    )?;
    crate::report::emit(SizeBudget::of_config(&out, None).to_string())?;
    Ok(ExitCode::SUCCESS)
}
