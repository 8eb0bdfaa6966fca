//! `bootgen inspect`: the summary and size budget of a config, or its certificate report.

use super::clock;
use super::patch::read_config;
use crate::report::{emit, emit_json};
use bootgen::ignition::IgnitionDoc;
use bootgen::inspect::certs::{parse_duration, CertCollector, CertReport, CertStatus};
use bootgen::inspect::summary::summarize;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

/// `bootgen inspect`.
#[derive(Debug, Args)]
pub struct InspectArgs {
    /// The config (`-` for standard input), or an output directory (its bootstrap.ign; with
    /// --certs also tls/ and auth/kubeconfig).
    #[arg(value_name = "IN.ign|DIR")]
    pub input: PathBuf,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// Report every certificate inside: subject, issuer, SANs, validity, time left. Exits 1 when
    /// any has expired.
    #[arg(long)]
    pub certs: bool,
    /// With --certs: flag certificates expiring within this long (e.g. 24h, 90m, 7d).
    #[arg(long, value_name = "DURATION", default_value = "24h")]
    pub warn_within: String,
    /// With --certs: the clock (RFC 3339); default SOURCE_DATE_EPOCH, else now.
    #[arg(long, value_name = "TIME")]
    pub now: Option<String>,
}

/// Reads a config named on the command line; a directory means its `bootstrap.ign`.
pub fn load(input: &std::path::Path) -> anyhow::Result<(Vec<u8>, IgnitionDoc)> {
    let path = if input.is_dir() {
        input.join("bootstrap.ign")
    } else {
        input.to_path_buf()
    };
    let (bytes, name) = read_config(&path)?;
    let doc = IgnitionDoc::parse(&bytes, &name)?;
    Ok((bytes, doc))
}

/// Runs `bootgen inspect`.
pub fn run(args: InspectArgs) -> anyhow::Result<ExitCode> {
    if args.certs {
        return certs(&args);
    }
    let (bytes, doc) = load(&args.input)?;
    let summary = summarize(&doc, &bytes)?;
    if args.json {
        emit_json(&summary)?;
    } else {
        emit(summary.to_string())?;
    }
    Ok(ExitCode::SUCCESS)
}

fn certs(args: &InspectArgs) -> anyhow::Result<ExitCode> {
    let warn_within = parse_duration(&args.warn_within)?;
    let now = clock::now(args.now.as_deref())?;
    let mut found = CertCollector::default();
    if args.input.is_dir() {
        found.scan_output_dir(&args.input)?;
    } else {
        let (_, doc) = load(&args.input)?;
        found.scan_config(&doc)?;
    }
    let report = CertReport::new(found, now, warn_within);
    if args.json {
        emit_json(&report)?;
    } else {
        emit(report.to_string())?;
    }
    let expired = report.count(CertStatus::Expired);
    if expired > 0 {
        eprintln!("error: {expired} certificate(s) have expired");
        return Ok(ExitCode::from(crate::EXIT_INPUT));
    }
    Ok(ExitCode::SUCCESS)
}
