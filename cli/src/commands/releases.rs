//! `bootgen releases`: the supported OpenShift releases, and what differs between two.

use crate::args::ReleasesArgs;
use crate::report::emit;
use bootgen::release::{compare, default_minor, profile_for, Minor, Profile, PROFILES};
use std::fmt::Write as _;
use std::process::ExitCode;

fn profile(text: &str) -> anyhow::Result<&'static Profile> {
    let minor: Minor = text.parse().map_err(anyhow::Error::msg)?;
    profile_for(minor).ok_or_else(|| {
        anyhow::anyhow!(
            "OpenShift {minor} is not supported; bootgen makes bootstraps for {}",
            bootgen::release::supported_list()
        )
    })
}

fn commands(profile: &Profile) -> String {
    let mut out = format!("OpenShift {} ({}):\n", profile.minor, profile.source);
    for stage in &profile.stages {
        let run = stage.run();
        let gate = stage
            .gate
            .as_ref()
            .map(|g| format!("[{g} gate] "))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "  {:<34} {gate}{}",
            stage.name,
            if run.is_empty() {
                "(no container)"
            } else {
                &run
            }
        );
    }
    for gate in &profile.gates {
        let flow = match gate.flow {
            Some(bootgen::release::Flow::Cluster) => ", with a bootstrap machine",
            Some(bootgen::release::Flow::InPlace) => ", on a single node",
            None => "",
        };
        let _ = writeln!(
            out,
            "  the {} gate opens with {}{flow}",
            gate.name,
            gate.opens_with()
        );
    }
    out
}

/// Runs `bootgen releases`.
pub fn run(args: ReleasesArgs) -> anyhow::Result<ExitCode> {
    match args.minors.as_slice() {
        [] => {
            let mut out = String::from("RELEASE  STAGES  IMAGES  IGNITION  SOURCE\n");
            for p in PROFILES.iter() {
                let mark = if p.development {
                    " (development)"
                } else if p.minor == default_minor() {
                    " (default)"
                } else {
                    ""
                };
                let _ = writeln!(
                    out,
                    "{:<8} {:>6}  {:>6}  {:<8}  {}{mark}",
                    p.minor.to_string(),
                    p.stages.len(),
                    p.images.len(),
                    p.ignition_spec,
                    p.source
                );
            }
            emit(out)?;
        }
        [one] => emit(commands(profile(one)?))?,
        [from, to] => {
            let (from, to) = (profile(from)?, profile(to)?);
            emit(compare(from, to).to_string())?;
            if args.commands {
                emit(commands(from) + &commands(to))?;
            }
        }
        _ => anyhow::bail!("give at most two releases"),
    }
    Ok(ExitCode::SUCCESS)
}
