//! `bootgen inspect`: the summary and size budget of a config (`--budget`: the budget alone),
//! its certificate report, its objects view, or the golden view of an output directory.

use crate::args::InspectArgs;
use crate::clock;
use crate::input::{load, read_path};
use crate::report::{emit, emit_display, emit_json};
use bootgen::ignition::SplitDoc;
use bootgen::report::{parse_duration, CertCollector, CertReport, CertStatus};
use bootgen::report::{summarize_split, summary_reads};
use std::process::ExitCode;

/// Runs `bootgen inspect`.
pub fn run(args: InspectArgs) -> anyhow::Result<ExitCode> {
    if let (Some(file), false) = (&args.output, args.golden) {
        anyhow::bail!(
            "-o {}: only the golden view (--golden) is written to a file; the other views print to standard output (redirect it with >)",
            file.display()
        );
    }
    if args.certs {
        return certs(&args);
    }
    if args.golden {
        return golden(&args);
    }
    if args.objects {
        let (_, doc) = load(&args.input)?;
        let name = args.input.display().to_string();
        emit_json(&bootgen::report::object_view(&doc).map_err(|e| e.in_config(&name))?)?;
        return Ok(ExitCode::SUCCESS);
    }
    if !args.json {
        if let Some(media) = crate::input::read_media(&crate::input::config_path(&args.input))? {
            emit(media.summary() + "\n")?;
        }
    }
    let (bytes, name) = read_path(&args.input)?;
    // The file entries stay raw JSON, parsed one at a time: a JSON tree of a config costs
    // about ten times its size.
    let split = SplitDoc::parse_checked(&bytes, &name, summary_reads)?;
    let summary = summarize_split(&split, &bytes).map_err(|e| e.in_config(&name))?;
    drop(split);
    drop(bytes);
    let config = crate::input::config_path(&args.input);
    if args.budget {
        if args.json {
            emit_json(&summary.budget)?;
        } else {
            crate::report::emit_budget(&summary.budget, &config)?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    if args.json {
        emit_json(&summary)?;
    } else {
        emit_display(&summary)?;
        emit(crate::report::budget_hints(&summary.budget, &config))?;
    }
    Ok(ExitCode::SUCCESS)
}

fn certs(args: &InspectArgs) -> anyhow::Result<ExitCode> {
    let warn_within = parse_duration(&args.warn_within)?;
    let now = clock::now(args.now.as_deref())?;
    let mut found = CertCollector::default();
    if args.input.is_dir() {
        crate::input::refuse_interrupted(&args.input, &args.input)?;
        found.scan_output_dir(&args.input)?;
    } else {
        // One file entry at a time, as the summary reads them.
        let (bytes, name) = read_path(&args.input)?;
        found.scan_config_bytes(&bytes, &name)?;
    }
    let report = CertReport::new(found, now, warn_within);
    if args.json {
        emit_json(&report)?;
    } else {
        emit(report.to_string())?;
    }
    let expired = report.count(CertStatus::Expired);
    if expired > 0 {
        crate::report::error_line(format!("{expired} certificate(s) have expired"));
        return Ok(ExitCode::from(crate::EXIT_INPUT));
    }
    Ok(ExitCode::SUCCESS)
}

fn golden(args: &InspectArgs) -> anyhow::Result<ExitCode> {
    let dir = &args.input;
    if !dir.is_dir() {
        anyhow::bail!(
            "{}: --golden takes an output directory (with bootstrap.ign or bootstrap-in-place-for-live-iso.ign, worker.ign, metadata.json, auth/)",
            dir.display()
        );
    }
    crate::input::refuse_interrupted(dir, dir)?;
    let view = bootgen::golden::view_dir(dir)?;
    match &args.output {
        Some(file) if !crate::input::is_stdio(file) => {
            bootgen::output::write_atomic(file, view.as_bytes(), 0o644)?
        }
        _ => emit(view)?,
    }
    Ok(ExitCode::SUCCESS)
}
