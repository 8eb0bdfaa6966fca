//! `bootgen ignition`: generate the output directory.

use crate::args::IgnitionArgs;
use crate::report::{notice, warn};
use anyhow::Context;
use bootgen::report::{Carriage, SizeBudget};
use bootgen::{config, output};
use std::process::ExitCode;

/// The install-config read when `--install-config` is not given and this file exists.
const LOCAL_INSTALL_CONFIG: &str = "install-config.yaml";

/// Finishes (or undoes) a write into the output directory that a killed run left, before its
/// `tls/` is read for reuse, and says which.
fn finish_interrupted_write(dir: &std::path::Path, links: output::Links) -> anyhow::Result<()> {
    if !dir.is_dir() {
        return Ok(());
    }
    match output::recover(dir, links).with_context(|| format!("recovering {}", dir.display()))? {
        output::Recovery::Clean => {}
        output::Recovery::RolledBack => notice(format!(
            "{}: removed the staged files of an interrupted run (the directory is as it was before it)",
            dir.display()
        )),
        output::Recovery::RolledForward(files) => notice(format!(
            "{}: finished an interrupted run's write ({} files moved into place)",
            dir.display(),
            files.len()
        )),
    }
    Ok(())
}

/// Fault injection for the conformance tests: with `BOOTGEN_TEST_KILL_AT_STEP=N` the process
/// sends itself SIGKILL just before the N-th step of the output write (see `WriteStep`).
fn kill_switch() -> impl FnMut(&output::WriteStep) {
    let asked = std::env::var("BOOTGEN_TEST_KILL_AT_STEP").ok();
    // `finish`: the last step, every file in place and the commit record not yet removed.
    let at_finish = asked.as_deref() == Some("finish");
    let kill_at: Option<usize> = asked.and_then(|v| v.parse().ok());
    let mut step = 0;
    move |now| {
        step += 1;
        if kill_at == Some(step) || at_finish && *now == output::WriteStep::Finish {
            let _ = rustix::process::kill_process(
                rustix::process::getpid(),
                rustix::process::Signal::KILL,
            );
        }
    }
}

/// Refuses to write one kind of config into a directory holding the other: a directory with
/// both `bootstrap.ign` and `bootstrap-in-place-for-live-iso.ign` would leave the user to guess
/// which one is current.
fn refuse_other_kind(dir: &std::path::Path, writing: &str) -> anyhow::Result<()> {
    let (other, what) = if writing == bootgen::LIVE_ISO_CONFIG {
        (
            bootgen::BOOTSTRAP_CONFIG,
            "a cluster with a bootstrap machine",
        )
    } else {
        (bootgen::LIVE_ISO_CONFIG, "a single-node cluster")
    };
    if dir.join(other).exists() {
        anyhow::bail!(
            "{} holds {other}, the config of {what}; write this one ({writing}) into another --output directory",
            dir.display()
        );
    }
    Ok(())
}

/// Whether `OUTPUT/tls` may be a link: only when `--tls-dir` names it on purpose. Otherwise a
/// link there is refused before anything is read through it.
fn tls_links(args: &IgnitionArgs) -> anyhow::Result<output::Links> {
    let tls = args.output.join("tls");
    let is_link = std::fs::symlink_metadata(&tls).is_ok_and(|m| m.file_type().is_symlink());
    if !is_link {
        return Ok(output::Links::Refuse);
    }
    match &args.tls_dir {
        Some(named) if crate::lock::same_dir(named, &tls) => Ok(output::Links::AllowTls),
        _ => anyhow::bail!(
            "{} is a link; bootgen reads and writes keys through it only when it is named with --tls-dir",
            tls.display()
        ),
    }
}

/// Removes the per-host files (configs, ISOs, PXE entries) and role media an earlier run left
/// that this successful run did not write, saying which, and warns of what is in those directories that
/// bootgen did not put there.
fn remove_stale_host_files(
    args: &IgnitionArgs,
    wrote: &std::collections::BTreeSet<String>,
) -> anyhow::Result<()> {
    let dir = args.output.as_path();
    let listed = output::stale_host_files(dir, wrote)
        .with_context(|| format!("reading the per-host files in {}", dir.display()))?;
    if !listed.removed.is_empty() {
        crate::report::emit(why_removing(args, &listed.removed) + "\n")?;
    }
    let stale = output::remove_stale_host_files(dir, wrote)
        .with_context(|| format!("removing stale per-host files from {}", dir.display()))?;
    for path in &stale.removed {
        crate::report::emit(format!(
            "removed {}: an earlier run's file, not written by this run\n",
            dir.join(path).display()
        ))?;
    }
    let (host_files, role_media) = bootgen::output::own_file_names();
    for path in &stale.kept {
        warn(format!(
            "{}: left in place: bootgen did not write it, and removes only its own per-host files ({}) and role media ({})",
            dir.join(path).display(),
            host_files.join(", "),
            role_media.join(", ")
        ));
    }
    Ok(())
}

/// One line, before an earlier run's files go, that says why: which kinds of them this run did
/// not write, and the flag it ran without (or the hosts and roles it has no more).
fn why_removing(args: &IgnitionArgs, paths: &[String]) -> String {
    // The first of the flags the kind needs that this run went without, else `otherwise`.
    let cause = |needs: &[(bool, &str)], otherwise: &str| {
        needs
            .iter()
            .find(|(given, _)| !given)
            .map_or_else(|| otherwise.to_string(), |(_, flag)| format!("no {flag}"))
    };
    let (hosts, iso, pxe) = (
        (args.hosts.is_some(), "--hosts"),
        (args.iso.is_some(), "--iso"),
        (args.pxe.is_some(), "--pxe"),
    );
    let (gone_hosts, gone_roles) = (
        "of hosts the hosts file no longer names",
        "of roles this run has not",
    );
    // Most specific directory first: `media/pxe/hosts/` before `media/pxe/` before `media/`.
    let kinds = [
        ("hosts/", "per-host configs", cause(&[hosts], gone_hosts)),
        (
            "media/pxe/hosts/",
            "per-host PXE files",
            cause(&[pxe, hosts], gone_hosts),
        ),
        (
            "media/hosts/",
            "per-host ISOs",
            cause(&[iso, hosts], gone_hosts),
        ),
        ("media/pxe/", "PXE sets", cause(&[pxe], gone_roles)),
        ("media/", "ISOs", cause(&[iso], gone_roles)),
    ];
    let mut reasons: Vec<String> = Vec::new();
    for (i, (prefix, what, cause)) in kinds.iter().enumerate() {
        let more_specific = &kinds[..i];
        let of_kind = paths.iter().any(|path| {
            path.starts_with(prefix) && !more_specific.iter().any(|(p, _, _)| path.starts_with(p))
        });
        if of_kind {
            reasons.push(format!("{what}: {cause}"));
        }
    }
    format!(
        "removing {} an earlier run wrote and this one did not ({}): left in place, they would boot machines with that run's configs and secrets",
        bootgen::report::counted(paths.len(), "file"),
        reasons.join("; ")
    )
}

/// The lines that say how to log in to the bootstrap node (or the single node): at the first
/// static address the hosts file gives each host its config serves (one line per candidate
/// when there are several), else at a placeholder.
fn login_hints(
    args: &IgnitionArgs,
    hosts: Option<&bootgen::network::Hosts>,
    single_node: bool,
) -> Vec<String> {
    let node = if single_node {
        "the node (while it runs the live ISO)"
    } else {
        "the bootstrap node"
    };
    let key = args.output.join("auth/bootstrap-ssh-key");
    let ssh = |address: Option<std::net::IpAddr>| {
        let address = address.map_or_else(|| "<node-ip>".to_string(), |a| a.to_string());
        format!(
            "ssh -i {} core@{address}",
            crate::report::shell_word(&key.display().to_string())
        )
    };
    match bootgen::network::bootstrap_hosts(hosts, single_node).as_slice() {
        [] => vec![format!("log in to {node} with: {}", ssh(None))],
        [one] => vec![format!(
            "log in to {node} with: {}",
            ssh(one.network.first_address())
        )],
        several => several
            .iter()
            .map(|host| {
                format!(
                    "log in to {node}, if it is host {}, with: {}",
                    host.hostname,
                    ssh(host.network.first_address())
                )
            })
            .collect(),
    }
}

/// An output directory that is a directory of another output (its `tls/`, `auth/`, `media/`
/// or `hosts/`) is refused: a second cluster would land among the first one's keys, under
/// another lock, and the first one's directory could no longer be packaged.
fn refuse_inside_other_output(dir: &std::path::Path) -> anyhow::Result<()> {
    let Ok(absolute) = std::path::absolute(dir) else {
        return Ok(());
    };
    let (Some(name), Some(parent)) = (absolute.file_name(), absolute.parent()) else {
        return Ok(());
    };
    let own_dirs = ["tls", "auth", output::MEDIA_DIR, output::HOSTS_DIR];
    let is_output = |p: &std::path::Path| {
        p.join(output::LOCK_FILE).exists() || p.join(output::METADATA_FILE).exists()
    };
    if own_dirs.iter().any(|d| name == *d) && is_output(parent) {
        anyhow::bail!(
            "{} is the {}/ directory of the output directory {}: write this cluster to a directory of its own",
            dir.display(),
            name.to_string_lossy(),
            parent.display()
        );
    }
    Ok(())
}

/// The URL the PXE sets are served from: `--pxe-base-url`, else the hosts file's
/// `bootArtifactsBaseURL`; `--pxe` without either is refused.
fn pxe_base_url(
    args: &IgnitionArgs,
    hosts: Option<&bootgen::network::Hosts>,
) -> anyhow::Result<Option<String>> {
    let from_file = hosts.and_then(|h| h.boot_artifacts_base_url.as_deref().map(|u| (h, u)));
    if let (Some((hosts, url)), None) = (from_file, &args.pxe) {
        notice(format!(
            "{}: bootArtifactsBaseURL {url} serves only PXE sets, and no --pxe is given",
            hosts.source_name
        ));
    }
    match (&args.pxe_base_url, from_file) {
        (Some(flag), Some((hosts, url))) if flag != url => {
            notice(format!(
                "--pxe-base-url {flag} is used, not {}'s bootArtifactsBaseURL {url}",
                hosts.source_name
            ));
            Ok(Some(flag.clone()))
        }
        (Some(flag), _) => Ok(Some(flag.clone())),
        (None, Some((_, url))) => Ok(Some(url.to_string())),
        (None, None) if args.pxe.is_some() => anyhow::bail!(
            "--pxe needs the URL its PXE sets are served from: give --pxe-base-url, or bootArtifactsBaseURL in the --hosts file"
        ),
        (None, None) => Ok(None),
    }
}

/// Runs `bootgen ignition`.
pub fn run(args: IgnitionArgs) -> anyhow::Result<ExitCode> {
    crate::media::check_cluster_flags(args.dest_device.as_deref(), args.pxe_base_url.as_deref())?;
    crate::input::refuse_stdout(&args.output, "an output directory", "a directory")?;
    if args.package.as_deref().is_some_and(crate::input::is_stdio) {
        // Its report is on standard output already; `bootgen package DIR -o -` has it alone.
        anyhow::bail!(
            "--package -: ignition prints its report on standard output, so the tarball cannot go there too; pack the output afterwards with bootgen package {} -o -",
            crate::report::shell_word(&args.output.display().to_string())
        );
    }
    refuse_inside_other_output(&args.output)?;
    let links = tls_links(&args)?;
    // Another user's directory gets no lock file either; checked again under the lock.
    output::refuse_foreign_output(&args.output, links)?;
    // Held to the end: no other run writes the directory, or reads it, meanwhile.
    let _output_lock = crate::lock::hold(&args.output, output::Access::Write, args.wait)?;
    // A PKI reused from another output directory is not read while a run writes it.
    // (`--tls-dir tls` has the parent "": the current directory.)
    let tls_parent = args
        .tls_dir
        .as_deref()
        .and_then(std::path::Path::parent)
        .map(|p| p.to_path_buf())
        .map(|p| {
            if p.as_os_str().is_empty() {
                ".".into()
            } else {
                p
            }
        });
    let _tls_lock = match tls_parent {
        Some(parent) if !crate::lock::same_dir(&parent, &args.output) => {
            Some(crate::lock::hold(&parent, output::Access::Read, args.wait)?)
        }
        _ => None,
    };
    finish_interrupted_write(&args.output, links)?;
    // What packing would refuse is refused before anything is written, not after.
    if let Some(package) = &args.package {
        output::check_package(&args.output, package)?;
    }
    let local = std::path::Path::new(LOCAL_INSTALL_CONFIG);
    let loaded = match &args.install_config {
        Some(path) => config::load(path)?,
        // As openshift-install does: the install-config in the current directory.
        None if local.exists() => {
            notice(format!(
                "reading ./{LOCAL_INSTALL_CONFIG} (no --install-config given)"
            ));
            config::load(local)?
        }
        None if args.single_node => {
            warn("no --install-config given: using the embedded single-node example `sno.example.com`");
            warn("its pull secret and SSH key are placeholders: the cluster cannot pull images and nobody can log in with that key");
            config::load_default_single_node()?
        }
        None => {
            warn("no --install-config given: using the embedded example cluster `example.example.com`");
            warn("its pull secret and SSH key are placeholders: the cluster cannot pull images and nobody can log in with that key");
            config::load_default()?
        }
    };
    let options = crate::options::ignition_options(&args)?;
    let pxe_base_url = pxe_base_url(&args, options.hosts.as_ref())?;
    let mut generated = bootgen::generate(&loaded, &options)?;
    refuse_other_kind(&args.output, generated.bootstrap_name())?;
    let release = &generated.model.release;
    if release.defaulted {
        notice(format!(
            "making the bootstrap of OpenShift {} (the newest supported release; choose another with --release-version or a tagged --release-image)",
            release.version
        ));
    }
    if release.profile.development {
        warn(format!(
            "{} {} is still in development: its bootstrap follows the installer's main branch and may change",
            generated.model.distribution.label(),
            release.profile.minor
        ));
    }
    for warning in &generated.warnings {
        warn(crate::options::describe_warning(warning));
    }
    // What the PKI step re-issued or renewed is said once it is on disk: a write refused
    // (another cluster's directory, a config without --force) changed nothing.
    let pki_notices = std::mem::take(&mut generated.pki_notices);
    for change in &generated.changes {
        notice(change);
    }
    crate::checks::print_preflight(&generated.preflight, args.strict)?;
    crate::checks::print_lint(generated.unit_lint.clone());
    let file_count = bootgen::ignition::read::file_entries(&generated.bootstrap).len();
    let unit_count = bootgen::ignition::read::unit_names(&generated.bootstrap).len();
    let cluster_domain = generated.model.cluster_domain();
    let architecture = generated.model.control_plane.architecture;
    let release_image = generated.pulled_release_image();
    let distribution = generated.model.distribution.label();
    // The size budget against what can carry this config on its platform (a node of platform
    // `none` boots from a live ISO or over PXE/HTTP, never through a cloud's user data), and
    // only the sizes those channels count: gzipping every file or xz-compressing the config
    // costs more than the rest of a re-run.
    let platform = generated.model.platform.name();
    let compressed = SizeBudget::counts(platform, Carriage::Raw)
        .then(|| bootgen::report::compressed_size(&generated.bootstrap))
        .flatten();
    let config_name = generated.bootstrap_name();
    let single_node = generated.model.single_node.clone();
    let architectures = generated.metadata.architecture.clone();
    let compute_replicas: u32 = generated.model.compute.iter().map(|p| p.replicas).sum();
    // The media are planned (and checked) before anything is written.
    let sources = crate::media::MediaSources {
        iso: args.iso.as_deref(),
        pxe: args.pxe.as_deref().zip(pxe_base_url.as_deref()),
        dest_device: args.dest_device.as_deref(),
        hosts: options.hosts.as_ref(),
        replace_customized: args.force,
        compute_replicas,
    };
    let wants_media = sources.iso.is_some() || sources.pxe.is_some();
    // A config the directory already holds (a re-run's) is compared as it is serialized and
    // never made whole, unless the media embed it. The output's lock is held meanwhile.
    let (mut files, kept) = if wants_media {
        (output::into_output_files(generated), None)
    } else {
        output::into_output_files_in(generated, &args.output)
    };
    let media = if wants_media {
        Some(crate::media::plan_cluster(
            &sources,
            &files,
            &architectures,
            single_node.is_some(),
        )?)
    } else {
        None
    };
    // The budget comes from the bytes about to be written (or those measured in the file that
    // already holds them), not from serializing the config again (as `Generated::size_budget`
    // would); the live-ISO estimate of the same bytes from an earlier run is read back, and
    // recorded for the next.
    let mut remembered = None;
    let written = files.iter().find(|f| f.relative == config_name);
    let config_len = match &kept {
        Some(kept) => Some(kept.measured.len),
        None => written.map(|f| f.contents.len() as u64),
    };
    let budget = config_len.map(|len| {
        let iso = if SizeBudget::counts(platform, Carriage::XzCpio) {
            let (estimate, record) = match &kept {
                Some(kept) => output::iso_estimate_kept(&args.output, kept),
                None => output::iso_estimate(&args.output, written.map_or(&[], |f| &f.contents)),
            };
            remembered = Some(record);
            estimate
        } else {
            None
        };
        let budget = SizeBudget::for_platform(platform, len, iso, compressed);
        // A single node's config travels only in the live ISO, where gzip does not help.
        if single_node.is_some() {
            budget.live_iso_only()
        } else {
            budget
        }
    });
    if let Some(record) = remembered {
        files.push(record);
    }
    if media.is_some() {
        // Committed with the configs, removed once their media are written: a run killed in
        // between leaves media of the configs before it, and recover says so.
        files.push(output::media_pending_marker());
    }
    files.sort_by(|a, b| a.relative.cmp(&b.relative));
    let size = budget.as_ref().map_or(0, |b| b.size);
    let mut stop = kill_switch();
    let existing = if args.force {
        output::ExistingConfigs::Replace
    } else {
        output::ExistingConfigs::Refuse
    };
    let guards = output::Guards {
        links,
        other_cluster: if args.replace_cluster {
            output::OtherCluster::Replace
        } else {
            output::OtherCluster::Refuse
        },
    };
    // A link where the media go is refused before the configs are written, not after.
    if let Some(media) = &media {
        let dirs = media.dirs();
        let dirs: Vec<&str> = dirs.iter().map(String::as_str).collect();
        output::refuse_linked_dirs(&args.output, &dirs)
            .with_context(|| format!("writing {}", args.output.display()))?;
    }
    let mut report = output::write_dir_observed(&args.output, &files, existing, guards, &mut stop)
        .with_context(|| format!("writing {}", args.output.display()))?;
    for item in &pki_notices {
        notice(&item.message);
    }
    if let Some(other) = &report.replaced_cluster {
        warn(format!(
            "{} held the output of {other}; keys are never replaced, so this cluster keeps its PKI (tls/: every CA and the admin client certificate) and its admin credentials work here too; to give this cluster its own, write to a new directory (or move {dir}/tls and {dir}/auth away first)",
            args.output.display(),
            dir = args.output.display()
        ));
    }
    let mut wrote: std::collections::BTreeSet<String> =
        files.iter().map(|f| f.relative.clone()).collect();
    if let Some(kept) = kept {
        wrote.insert(kept.relative.clone());
        report.unchanged.push(kept.relative);
    }
    drop(files);
    crate::report::emit(
        format!(
            "wrote {} ({}, {}, {} KiB) for {} ({}), {distribution} release {}",
            args.output.join(config_name).display(),
            bootgen::report::counted(file_count, "file"),
            bootgen::report::counted(unit_count, "unit"),
            size.div_ceil(1024),
            cluster_domain,
            architecture,
            release_image,
        ) + "\n",
    )?;
    crate::report::emit(
        format!(
            "{} written, {} unchanged in {}",
            bootgen::report::counted(report.written.len(), "file"),
            report.unchanged.len(),
            args.output.display()
        ) + "\n",
    )?;
    if !report.replaced.is_empty() {
        // A hand edit a --force run replaces is named, not lost without a word.
        const SHOWN: usize = 12;
        let mut names = report
            .replaced
            .iter()
            .take(SHOWN)
            .cloned()
            .collect::<Vec<_>>()
            .join(", ");
        if report.replaced.len() > SHOWN {
            names.push_str(&format!(" and {} more", report.replaced.len() - SHOWN));
        }
        notice(format!(
            "replaced {} file(s) that held other contents: {names}",
            report.replaced.len()
        ));
    }
    if !report.made_private.is_empty() {
        notice(format!(
            "made private again (others could read them): {}",
            report.made_private.join(", ")
        ));
    }
    warn_if_others_read(&args.output.join(config_name));
    for line in login_hints(&args, options.hosts.as_ref(), single_node.is_some()) {
        crate::report::emit(line + "\n")?;
    }
    if let Some(budget) = budget {
        crate::report::emit_budget(&budget, &args.output.join(config_name))?;
    }
    if let Some(media) = &media {
        for line in media.write(&args.output)? {
            crate::report::emit(line + "\n")?;
        }
        wrote.extend(media.files());
    } else if let Some(single) = &single_node {
        crate::report::emit(format!(
            "single node: embed the config in the RHCOS live ISO and boot the node from it; it installs itself to {} and reboots:\n  bootgen iso rhcos-live.iso -c {} -o node.iso\n",
            single.installation_disk,
            crate::report::shell_word(&args.output.join(config_name).display().to_string())
        ))?;
    }
    if let Some(hosts) = options.hosts.as_ref() {
        let single_node_disk = single_node.as_ref().map(|s| s.installation_disk.as_str());
        let no_media = std::collections::BTreeMap::new();
        let host_disks = media.as_ref().map_or(&no_media, |m| m.host_disks());
        for line in crate::media::host_summary(
            hosts,
            &args.output,
            &wrote,
            config_name,
            single_node_disk,
            host_disks,
        ) {
            crate::report::emit(line + "\n")?;
        }
    }
    remove_stale_host_files(&args, &wrote)?;
    // The media of these configs are written, or a run without media removed the old ones.
    output::clear_media_pending(&args.output)?;
    if let Some(package) = &args.package {
        crate::pack::package(&args.output, package)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The boot config carries every private key of the cluster. Its mode is left as it is (people
/// serve it from a web server of their own), but others being able to read it is said.
fn warn_if_others_read(config: &std::path::Path) {
    crate::report::warn_if_others_can_read(
        config,
        "holds every private key of the cluster: serve it only to the bootstrap node, and chmod 600 it unless a web server of yours must read it",
    );
}
