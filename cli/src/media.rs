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
