//! `bootgen releases`: the supported OpenShift releases, and what differs between two.

use crate::args::ReleasesArgs;
use crate::report::emit;
use bootgen::release::{
    compare, default_minor, profile_for, profile_for_patch, z_stream_profiles, Minor, Profile,
    ReleaseVersion, PROFILES,
};
use std::fmt::Write as _;
use std::process::ExitCode;

/// A minor (`4.9`: as of its first release) or a patch release (`4.9.5`).
fn profile(text: &str) -> anyhow::Result<&'static Profile> {
    let (minor, found) = match text.parse::<ReleaseVersion>() {
        Ok(version) => (
            version.minor,
            profile_for_patch(version.minor, version.patch),
        ),
        Err(_) => {
            let minor: Minor = text.parse().map_err(anyhow::Error::msg)?;
            (minor, profile_for(minor))
        }
    };
    found.ok_or_else(|| {
        anyhow::anyhow!(
            "OpenShift {minor} is not supported; bootgen makes bootstraps for {}",
            bootgen::release::supported_list()
        )
    })
}

/// `4.9`, or `4.9.5+` for a z-stream profile.
fn label(profile: &Profile) -> String {
    match profile.from_patch {
        0 => profile.minor.to_string(),
        patch => format!("{}.{patch}+", profile.minor),
    }
}

fn commands(profile: &Profile) -> String {
    let mut out = format!("OpenShift {} ({}):\n", label(profile), profile.source);
    for facts in &profile.distributions {
        let graph = facts
            .upstream
            .as_ref()
            .map(|u| format!(" (update graph {u})"))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "  {} payloads {}, channel {}{graph}, node image {}",
            facts.distribution.label(),
            facts.repository,
            facts.channel,
            facts.node_image
        );
    }
    for stage in &profile.stages {
        let run = stage.run();
        let opt_in = stage
            .opt_in
            .as_ref()
            .map(|g| format!("[opt-in {g}] "))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "  {:<34} {opt_in}{}",
            stage.name,
            if run.is_empty() {
                "(no container)"
            } else {
                &run
            }
        );
    }
    for opt_in in &profile.opt_ins {
        let flow = match opt_in.flow {
            Some(bootgen::release::Flow::Cluster) => ", with a bootstrap machine",
            Some(bootgen::release::Flow::InPlace) => ", on a single node",
            None => "",
        };
        let _ = writeln!(
            out,
            "  the {} opt-in is chosen with {}{flow}",
            opt_in.name,
            opt_in.chosen_with()
        );
    }
    out
}

/// Runs `bootgen releases`.
pub fn run(args: ReleasesArgs) -> anyhow::Result<ExitCode> {
    // A table that does not load is an error, not an empty list.
    bootgen::release::check_table()?;
    if args.commands && args.minors.len() != 2 {
        // It would change nothing: accepting it would say it did something.
        anyhow::bail!(
            "--commands goes with two releases to compare (bootgen releases 4.16 4.19 --commands); one release alone (bootgen releases 4.16) prints its stages and commands anyway"
        );
    }
    match args.minors.as_slice() {
        [] => {
            let mut out =
                String::from("RELEASE  STAGES  IMAGES  IGNITION  DISTRIBUTIONS  SOURCE\n");
            let z_streams: Vec<&Profile> = z_stream_profiles().collect();
            let rows = PROFILES.iter().flat_map(|p| {
                std::iter::once(p).chain(z_streams.iter().copied().filter(|z| z.minor == p.minor))
            });
            for p in rows {
                let mark = if p.from_patch > 0 {
                    " (z-stream)"
                } else if p.development {
                    " (development)"
                } else if Some(p.minor) == default_minor() {
                    " (default)"
                } else {
                    ""
                };
                let distributions: Vec<&str> = p
                    .distributions
                    .iter()
                    .map(|d| d.distribution.name())
                    .collect();
                let _ = writeln!(
                    out,
                    "{:<8} {:>6}  {:>6}  {:<8}  {:<13}  {}{mark}",
                    label(p),
                    p.stages.len(),
                    p.images.len(),
                    p.ignition_spec,
                    distributions.join(" "),
                    p.source
                );
            }
            emit(out)?;
        }
        [one] => emit(commands(profile(one)?))?,
        [from_name, to_name] => {
            let (from, to) = (profile(from_name)?, profile(to_name)?);
            let mut diff = compare(from, to);
            // Told as asked: `4.9.0 4.9.5` are two z-streams, not 4.9 twice.
            diff.from = from_name.clone();
            diff.to = to_name.clone();
            emit(diff.to_string())?;
            if args.commands {
                emit(commands(from) + &commands(to))?;
            }
        }
        _ => anyhow::bail!("give at most two releases"),
    }
    Ok(ExitCode::SUCCESS)
}
