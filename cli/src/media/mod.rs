//! What `iso`, `pxe` and `ignition --iso/--pxe` share: a `Customization` from the media flags,
//! the config's architecture (told by --arch, its directory's metadata.json, or the
//! install-config it stores), and the one line that says what was written.

use crate::args::MediaArgs;
use bootgen::media::{Customization, Install, InstallDisk, LiveIso};
use bootgen::model::Arch;
use std::path::{Path, PathBuf};

mod hosts;
mod pxe;
pub use hosts::host_summary;
use hosts::{check_hosts_arch, host_customizations, write_host_pxe, HostMedium};
pub use pxe::{write_boot_files, write_pxe_set};

/// A config read for the media, with its architecture when known.
pub struct MediaConfig {
    /// The config file (the output directory's file when a directory was given).
    pub path: PathBuf,
    /// The config's architecture, and what told it.
    pub arch: Option<(Arch, String)>,
    /// Whether what goes into the media carries secrets: the config's private keys, pull
    /// secrets or passwords, or a keyfile (which may hold a Wi-Fi or 802.1X password).
    pub secrets: bool,
}

/// Reads the config and the keyfiles the flags name, and makes the customization.
pub fn customization(args: &MediaArgs) -> anyhow::Result<(Customization, MediaConfig)> {
    check_install_flags(
        args.dest_device.as_deref(),
        &args.console,
        &args.dest_karg_append,
    )?;
    let path = crate::input::config_path(&args.config);
    let (bytes, name) = crate::input::read_config(&path)?;
    // Parsed to refuse what is no config before any image is touched.
    let doc = bootgen::ignition::IgnitionDoc::parse(&bytes, &name)?;
    let arch = match args.arch {
        Some(arch) => Some((arch, "--arch".to_string())),
        None => config_arch(&path, &doc),
    };
    let mut network_keyfiles = Vec::new();
    for file in &args.network_keyfile {
        // Held to NetworkManager's rules as ignition's are; placed under the name given.
        let contents = bootgen::network::read_user_keyfile(file)?
            .contents
            .into_bytes();
        let name = file
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        network_keyfiles.push((name, contents));
    }
    let secrets = bootgen::ignition::read::holds_secrets(&doc) || !network_keyfiles.is_empty();
    let mut customization = Customization {
        network_keyfiles,
        ..Customization::default()
    };
    match &args.dest_device {
        Some(device) => {
            customization.install = Some(Install {
                disk: InstallDisk::Device(device.clone()),
                dest_config: bytes,
                dest_karg_append: args.dest_karg_append.clone(),
                console: args.console.clone(),
                copy_network: false,
            })
        }
        None => customization.live_config = Some(bytes),
    }
    Ok((
        customization,
        MediaConfig {
            path,
            arch,
            secrets,
        },
    ))
}

/// Refuses what the node's installer would refuse (or misread) at install time: the disk, each
/// console, each kernel argument of the installed system.
fn check_install_flags(
    dest_device: Option<&str>,
    consoles: &[String],
    kargs: &[String],
) -> anyhow::Result<()> {
    if let Some(device) = dest_device {
        bootgen::media::check_device_path(device)
            .map_err(|why| anyhow::anyhow!("--dest-device: {why}"))?;
    }
    for console in consoles {
        bootgen::media::check_console(console)
            .map_err(|why| anyhow::anyhow!("--console: {why}"))?;
    }
    check_kernel_arguments("--dest-karg-append", kargs)
}

/// Refuses a kernel argument a boot loader would split into two lines.
pub fn check_kernel_arguments(flag: &str, kargs: &[String]) -> anyhow::Result<()> {
    for arg in kargs {
        bootgen::media::check_kernel_argument(arg)
            .map_err(|why| anyhow::anyhow!("{flag}: {why}"))?;
    }
    Ok(())
}

/// Refuses a PXE base URL its boot entries could not carry (see [`bootgen::media::check_base_url`]).
pub fn check_base_url(flag: &str, url: &str) -> anyhow::Result<()> {
    bootgen::media::check_base_url(url).map_err(|why| anyhow::anyhow!("{flag}: {why}"))
}

/// Checks `ignition`'s media flags before anything is generated.
pub fn check_cluster_flags(
    dest_device: Option<&str>,
    pxe_base_url: Option<&str>,
) -> anyhow::Result<()> {
    check_install_flags(dest_device, &[], &[])?;
    if let Some(url) = pxe_base_url {
        check_base_url("--pxe-base-url", url)?;
    }
    Ok(())
}

/// The architecture a config is for: its output directory's metadata.json (by the config's
/// role), else the control plane's in the install-config a bootstrap config stores.
fn config_arch(path: &Path, doc: &bootgen::ignition::IgnitionDoc) -> Option<(Arch, String)> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let metadata = dir.join(bootgen::output::METADATA_FILE);
    if let Some(record) = std::fs::read(&metadata)
        .ok()
        .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
    {
        let architecture = &record["architecture"];
        let file = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let value = match file.as_str() {
            bootgen::BOOTSTRAP_CONFIG => &architecture["bootstrap"],
            "worker.ign" => &architecture["compute"]["worker"],
            _ => &architecture["controlPlane"],
        };
        if let Some(arch) = value.as_str().and_then(|a| a.parse().ok()) {
            return Some((arch, metadata.display().to_string()));
        }
    }
    let stored = bootgen::ignition::read::stored_install_config(doc)?;
    let arch = stored
        .get("controlPlane")
        .and_then(|c| c.get("architecture"))
        .and_then(|a| a.as_str())
        .unwrap_or("amd64");
    Some((arch.parse().ok()?, "the install-config it stores".into()))
}

/// Opens a live ISO for reading and reads its areas.
pub fn read_iso(path: &Path) -> anyhow::Result<(std::fs::File, LiveIso)> {
    let mut file =
        std::fs::File::open(path).map_err(|e| bootgen::Error::io("cannot read", path, e))?;
    let iso = LiveIso::read(&mut file, &path.display().to_string())?;
    Ok((file, iso))
}

/// Refuses an ISO for another architecture than the config's.
pub fn check_arch(iso: &LiveIso, config: &MediaConfig) -> anyhow::Result<()> {
    if let Some((arch, source)) = &config.arch {
        iso.check_arch(*arch, &format!("{} (by {source})", config.path.display()))?;
    }
    Ok(())
}

/// What an image now does, in a few words.
pub fn describe(customization: &Customization) -> String {
    match (&customization.install, &customization.live_config) {
        (Some(install), _) => format!(
            "installs to {} without asking, then reboots",
            install.disk.describe()
        ),
        (None, Some(_)) => "boots the live system with the config".into(),
        (None, None) => "holds no config".into(),
    }
}

/// The boot media of one generated cluster, planned: per role, the ISO's name in the output's
/// media directory and the patch that makes it, and the PXE set's customization.
pub struct ClusterMedia {
    /// The ISO's path, the file its areas were read from (the copies are made from it), and
    /// the media planned from it.
    iso: Option<(PathBuf, std::fs::File, Vec<PlannedIso>)>,
    pxe: Option<PlannedPxe>,
    /// Each host's disk as its own media install to it (a path, or the hints it is chosen by).
    host_disks: std::collections::BTreeMap<String, String>,
}

/// One role's ISO: its file name, the patch that makes it, what it does.
struct PlannedIso {
    name: String,
    patch: bootgen::media::Patch,
    what: String,
}

/// The PXE sets: the live ISO they come from, the URL they are served from, each role's
/// name and customization, the hosts' entries, and the roles whose hosts' entries need the
/// role's kernel and rootfs without a set of the role's own.
struct PlannedPxe {
    path: PathBuf,
    iso: LiveIso,
    url: String,
    sets: Vec<(String, Customization)>,
    hosts: Vec<HostMedium>,
    boot_files_only: Vec<&'static str>,
}

/// Where `ignition --iso` and `--pxe` take their media from.
pub struct MediaSources<'a> {
    /// The live ISO the ISOs are made from.
    pub iso: Option<&'a Path>,
    /// The live ISO the PXE sets are made from, and the URL they are served from.
    pub pxe: Option<(&'a Path, &'a str)>,
    /// The disk the install media install to; without it, only hosts with rootDeviceHints get
    /// install media (their own), and each role must have such a host.
    pub dest_device: Option<&'a str>,
    /// The hosts file's hosts: each control-plane and compute host gets an ISO of its own.
    pub hosts: Option<&'a bootgen::network::Hosts>,
    /// Take an ISO that is already customized (its config and arguments replaced), as
    /// `bootgen iso --force` does.
    pub replace_customized: bool,
    /// The install-config's compute replicas: without any, no compute media are made.
    pub compute_replicas: u32,
}

/// Plans `ignition --iso/--pxe`: per role, from the configs about to be written (a single
/// node's live config; bootstrap, master and worker installing to the disk), every check (the
/// ISOs, each role's architecture, each archive's size) done before anything is written.
pub fn plan_cluster(
    sources: &MediaSources<'_>,
    files: &[bootgen::output::OutputFile],
    arch: &bootgen::ArchitectureRecord,
    single_node: bool,
) -> anyhow::Result<ClusterMedia> {
    let roles: &[(&str, &str)] = if single_node {
        &[(bootgen::LIVE_ISO_CONFIG, arch.control_plane.as_str())]
    } else {
        &[
            (bootgen::BOOTSTRAP_CONFIG, arch.bootstrap.as_str()),
            ("master.ign", arch.control_plane.as_str()),
            (
                "worker.ign",
                arch.compute
                    .get("worker")
                    .map_or(arch.control_plane.as_str(), String::as_str),
            ),
        ]
    };
    let per_host = match sources.hosts {
        Some(hosts) if !single_node => {
            host_customizations(hosts, files, arch, sources.dest_device)?
        }
        _ => Vec::new(),
    };
    // Without --dest-device, the roles' media have no disk: each role is booted from its
    // hosts' own media, which install to the disks their hints choose.
    let role_media = single_node || sources.dest_device.is_some();
    if !role_media {
        let given: Vec<&str> = [sources.iso.map(|_| "--iso"), sources.pxe.map(|_| "--pxe")]
            .into_iter()
            .flatten()
            .collect();
        for (config, role, what) in [
            (bootgen::BOOTSTRAP_CONFIG, "bootstrap", "bootstrap"),
            ("master.ign", "master", "control-plane"),
            ("worker.ign", "worker", "compute"),
        ] {
            let wanted = files.iter().any(|f| f.relative == config)
                && (role != "worker" || sources.compute_replicas > 0);
            if wanted && !per_host.iter().any(|h| h.role == role) {
                // Named as given: the flag not given is no part of the mistake.
                anyhow::bail!(
                    "{}: the {what} media install themselves to a disk, and no --dest-device names it: give --dest-device (e.g. /dev/sda or /dev/disk/by-id/...), or list the {what} hosts with role: {role} and their rootDeviceHints in a --hosts file",
                    given.join(", ")
                );
            }
        }
    }
    let mut customizations = Vec::new();
    for (config, role_arch) in roles {
        let Some(file) = files.iter().find(|f| f.relative == *config) else {
            continue;
        };
        // A cluster without compute machines boots none from the compute media.
        if (*config == "worker.ign" && sources.compute_replicas == 0) || !role_media {
            continue;
        }
        let mut customization = Customization::default();
        match sources.dest_device {
            Some(device) if !single_node => {
                customization.install = Some(Install {
                    disk: InstallDisk::Device(device.to_string()),
                    dest_config: file.contents.clone(),
                    ..Install::default()
                })
            }
            _ => customization.live_config = Some(file.contents.clone()),
        }
        customizations.push((
            config.trim_end_matches(".ign").to_string(),
            role_arch.parse::<Arch>().ok(),
            customization,
        ));
    }
    let check = |iso: &LiveIso| -> anyhow::Result<()> {
        for (name, arch, _) in &customizations {
            if let Some(arch) = arch {
                iso.check_arch(*arch, &format!("{name}.ign"))?;
            }
        }
        Ok(())
    };
    let iso = match sources.iso {
        Some(path) => {
            let (file, iso) = read_iso(path)?;
            check(&iso)?;
            check_hosts_arch(&iso, &per_host)?;
            let mut planned = Vec::new();
            for (name, _, customization) in &customizations {
                planned.push(PlannedIso {
                    name: format!("{name}.iso"),
                    patch: iso.plan(customization, sources.replace_customized)?,
                    what: describe(customization),
                });
            }
            for host in &per_host {
                planned.push(PlannedIso {
                    name: format!("{}/{}.iso", bootgen::output::HOSTS_DIR, host.host),
                    patch: iso.plan(&host.customization, sources.replace_customized)?,
                    what: describe(&host.customization),
                });
            }
            Some((path.to_path_buf(), file, planned))
        }
        None => None,
    };
    let pxe = match sources.pxe {
        Some((path, url)) => {
            let (_, pxe_iso) = read_iso(path)?;
            check(&pxe_iso)?;
            check_hosts_arch(&pxe_iso, &per_host)?;
            let sets: Vec<(String, Customization)> = customizations
                .iter()
                .map(|(name, _, c)| (name.clone(), c.clone()))
                .collect();
            let mut boot_files_only: Vec<&'static str> = Vec::new();
            for host in &per_host {
                if !sets.iter().any(|(name, _)| name == host.role)
                    && !boot_files_only.contains(&host.role)
                {
                    boot_files_only.push(host.role);
                }
            }
            Some(PlannedPxe {
                path: path.to_path_buf(),
                iso: pxe_iso,
                url: url.to_string(),
                sets,
                hosts: per_host.clone(),
                boot_files_only,
            })
        }
        None => None,
    };
    let host_disks = per_host
        .iter()
        .filter_map(|h| {
            Some((
                h.host.clone(),
                h.customization.install.as_ref()?.disk.describe(),
            ))
        })
        .collect();
    Ok(ClusterMedia {
        iso,
        pxe,
        host_disks,
    })
}

impl ClusterMedia {
    /// The media files [`ClusterMedia::write`] writes, the roles' and the hosts', relative to
    /// the output directory (as `bootgen::output::ROLE_MEDIA_DIRS` and `HOST_FILE_DIRS` name
    /// them): what the run's pruning keeps.
    pub fn files(&self) -> Vec<String> {
        let media = bootgen::output::MEDIA_DIR;
        let hosts = bootgen::output::HOSTS_DIR;
        let mut names = Vec::new();
        if let Some((_, _, planned)) = &self.iso {
            names.extend(planned.iter().map(|p| format!("{media}/{}", p.name)));
        }
        if let Some(pxe) = &self.pxe {
            for (name, _) in &pxe.sets {
                for suffix in bootgen::media::ROLE_SET_SUFFIXES {
                    names.push(format!("{media}/pxe/{name}{suffix}"));
                }
            }
            for role in &pxe.boot_files_only {
                for suffix in [bootgen::media::KERNEL_SUFFIX, bootgen::media::ROOTFS_SUFFIX] {
                    names.push(format!("{media}/pxe/{role}{suffix}"));
                }
            }
            for host in &pxe.hosts {
                for suffix in bootgen::media::HOST_SET_SUFFIXES {
                    names.push(format!("{media}/pxe/{hosts}/{}{suffix}", host.host));
                }
            }
        }
        names
    }

    /// Each host's disk, by host name, as its own media install to it.
    pub fn host_disks(&self) -> &std::collections::BTreeMap<String, String> {
        &self.host_disks
    }

    /// The directories [`ClusterMedia::write`] makes or enters, relative to the output
    /// directory: checked for links before the run writes anything.
    pub fn dirs(&self) -> Vec<String> {
        let media = bootgen::output::MEDIA_DIR;
        let hosts = bootgen::output::HOSTS_DIR;
        let mut dirs = vec![media.to_string()];
        if let Some((_, _, planned)) = &self.iso {
            if planned.iter().any(|p| p.name.contains('/')) {
                dirs.push(format!("{media}/{hosts}"));
            }
        }
        if let Some(pxe) = &self.pxe {
            dirs.push(format!("{media}/pxe"));
            if !pxe.hosts.is_empty() {
                dirs.push(format!("{media}/pxe/{hosts}"));
            }
        }
        dirs
    }

    /// Writes every ISO and PXE set into `output`'s media directory (the run holds the
    /// directory's lock), each file a copy renamed into place; returns one line per medium.
    /// What a killed run left there (an ISO's size each) is gone already: the configs' write
    /// (`write_dir_observed`) removed it.
    pub fn write(&self, output: &Path) -> anyhow::Result<Vec<String>> {
        let media = bootgen::output::MEDIA_DIR;
        let below = |relative: &str| bootgen::output::create_dir_below(output, relative);
        let dir = below(media)?;
        let mut lines = Vec::new();
        if let Some((iso, file, planned)) = &self.iso {
            for planned in planned {
                let path = dir.join(&planned.name);
                if let Some((parent, _)) = planned.name.rsplit_once('/') {
                    below(&format!("{media}/{parent}"))?;
                }
                bootgen::output::patch_to_copy(file, iso, &path, &planned.patch, true)?;
                lines.push(format!("wrote {}: {}", path.display(), planned.what));
            }
        }
        if let Some(pxe) = &self.pxe {
            let pxe_dir = below(&format!("{media}/pxe"))?;
            if !pxe.hosts.is_empty() {
                below(&format!("{media}/pxe/{}", bootgen::output::HOSTS_DIR))?;
            }
            for (name, customization) in &pxe.sets {
                write_pxe_set(
                    &pxe.path,
                    &pxe.iso,
                    customization,
                    &pxe_dir,
                    name,
                    &pxe.url,
                    true,
                )?;
                use bootgen::media::{IPXE_SUFFIX, ROLE_SET_SUFFIXES};
                let others: Vec<String> = ROLE_SET_SUFFIXES
                    .iter()
                    .filter(|suffix| **suffix != IPXE_SUFFIX)
                    .map(|suffix| format!("{name}{suffix}"))
                    .collect();
                lines.push(format!(
                    "wrote {}: {} ({})",
                    pxe_dir.join(format!("{name}{IPXE_SUFFIX}")).display(),
                    others.join(", "),
                    describe(customization)
                ));
            }
            for role in &pxe.boot_files_only {
                let written = write_boot_files(&pxe.path, &pxe.iso, &pxe_dir, role)?;
                let names: Vec<String> = written.iter().map(|p| p.display().to_string()).collect();
                lines.push(format!(
                    "wrote {}: the {role} hosts' kernel and rootfs (no {role} set: its hosts boot their own)",
                    names.join(", ")
                ));
            }
            for host in &pxe.hosts {
                let written = write_host_pxe(&pxe.path, &pxe.iso, host, &pxe_dir, &pxe.url)?;
                lines.push(format!(
                    "wrote {}: its initramfs and GRUB entry, with {}'s kernel and rootfs ({})",
                    written.display(),
                    host.role,
                    describe(&host.customization)
                ));
            }
        }
        Ok(lines)
    }
}
