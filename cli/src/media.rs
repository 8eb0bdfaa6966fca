//! What `iso`, `pxe` and `ignition --iso/--pxe` share: a `Customization` from the media flags,
//! the config's architecture (told by --arch, its directory's metadata.json, or the
//! install-config it stores), and the one line that says what was written.

use crate::args::MediaArgs;
use bootgen::media::{Customization, Install, LiveIso};
use bootgen::model::Arch;
use std::path::{Path, PathBuf};

/// A config read for the media, with its architecture when known.
pub struct MediaConfig {
    /// The config file (the output directory's file when a directory was given).
    pub path: PathBuf,
    /// The config's architecture, and what told it.
    pub arch: Option<(Arch, String)>,
}

/// Reads the config and the keyfiles the flags name, and makes the customization.
pub fn customization(args: &MediaArgs) -> anyhow::Result<(Customization, MediaConfig)> {
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
        let contents =
            std::fs::read(file).map_err(|e| bootgen::Error::io("cannot read", file, e))?;
        let name = file
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        network_keyfiles.push((name, contents));
    }
    let mut customization = Customization {
        network_keyfiles,
        ..Customization::default()
    };
    match &args.dest_device {
        Some(device) => {
            customization.install = Some(Install {
                dest_device: device.clone(),
                dest_config: bytes,
                dest_karg_append: args.dest_karg_append.clone(),
                console: args.console.clone(),
                copy_network: false,
            })
        }
        None => customization.live_config = Some(bytes),
    }
    Ok((customization, MediaConfig { path, arch }))
}

/// The architecture a config is for: its output directory's metadata.json (by the config's
/// role), else the control plane's in the install-config a bootstrap config stores.
fn config_arch(path: &Path, doc: &bootgen::ignition::IgnitionDoc) -> Option<(Arch, String)> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let metadata = dir.join("metadata.json");
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
            install.dest_device
        ),
        (None, Some(_)) => "boots the live system with the config".into(),
        (None, None) => "holds no config".into(),
    }
}

/// The boot media of one generated cluster, planned: each ISO's name in the output's media
/// directory and the patch that makes it from the live ISO.
pub struct ClusterMedia {
    iso: PathBuf,
    planned: Vec<(String, bootgen::media::Patch, String)>,
}

/// Plans `ignition --iso`: one ISO per role from the configs about to be written (a single
/// node's live config; bootstrap, master and worker installing to `dest_device`), every check
/// (the ISO, each role's architecture, each archive's size) done before anything is written.
pub fn plan_cluster(
    iso_path: &Path,
    files: &[bootgen::output::OutputFile],
    arch: &bootgen::ArchitectureRecord,
    single_node: bool,
    dest_device: Option<&str>,
) -> anyhow::Result<ClusterMedia> {
    let (_, iso) = read_iso(iso_path)?;
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
    let device = match (single_node, dest_device) {
        (false, None) => anyhow::bail!(
            "--iso: the bootstrap, control-plane and compute ISOs install themselves to a disk: give it with --dest-device (e.g. /dev/sda or /dev/disk/by-id/...)"
        ),
        (_, device) => device,
    };
    let mut planned = Vec::new();
    for (config, role_arch) in roles {
        let Some(file) = files.iter().find(|f| f.relative == *config) else {
            continue;
        };
        if let Ok(role_arch) = role_arch.parse::<Arch>() {
            iso.check_arch(role_arch, config)?;
        }
        let mut customization = Customization::default();
        match device {
            Some(device) if !single_node => {
                customization.install = Some(Install {
                    dest_device: device.to_string(),
                    dest_config: file.contents.clone(),
                    ..Install::default()
                })
            }
            _ => customization.live_config = Some(file.contents.clone()),
        }
        let patch = iso.plan(&customization, false)?;
        let name = format!("{}.iso", config.trim_end_matches(".ign"));
        planned.push((name, patch, describe(&customization)));
    }
    Ok(ClusterMedia {
        iso: iso_path.to_path_buf(),
        planned,
    })
}

impl ClusterMedia {
    /// Writes every ISO into `output`'s media directory (the run holds the directory's lock),
    /// each a copy of the live ISO renamed into place; returns one line per ISO.
    pub fn write(&self, output: &Path) -> anyhow::Result<Vec<String>> {
        let dir = output.join(bootgen::output::MEDIA_DIR);
        std::fs::create_dir_all(&dir).map_err(|e| bootgen::Error::io("cannot create", &dir, e))?;
        let mut lines = Vec::new();
        for (name, patch, what) in &self.planned {
            let path = dir.join(name);
            bootgen::output::patch_to_copy(&self.iso, &path, patch, true)?;
            lines.push(format!("wrote {}: {what}", path.display()));
        }
        Ok(lines)
    }
}
