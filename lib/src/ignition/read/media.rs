//! What a live ISO's or initramfs's embedded archive boots: the live config itself, or, in an
//! image that installs itself, the installed system's config and the installer's target.

use crate::error::{Error, Result};
use crate::ignition::{decode_file, IgnitionDoc};
use crate::media::{
    Members, RootDeviceHints, CONFIG_MEMBER, DEST_CONFIG, HINTS_FILE, INSTALLER_CONFIG,
};

/// The config an image carries, read back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmbeddedConfig {
    /// `IMAGE:config.ign`, or `IMAGE:/etc/coreos/dest.ign` for an image that installs.
    pub name: String,
    /// The config's bytes: the live config, or the installed system's.
    pub bytes: Vec<u8>,
    /// The disk the image installs to without asking, when it installs: its path, or `the
    /// disk matching ...` when the node chooses it by hints.
    pub installs_to: Option<String>,
    /// The installer config's text, when the image installs.
    pub installer_config: Option<String>,
}

/// The config `members` (an embedded archive of `file`) carry; `None` without `config.ign`.
pub fn embedded_config(members: &Members, file: &str) -> Result<Option<EmbeddedConfig>> {
    let Some(live) = members.get(CONFIG_MEMBER) else {
        return Ok(None);
    };
    let live_name = format!("{file}:{CONFIG_MEMBER}");
    let doc = IgnitionDoc::parse(live, &live_name)?;
    let mut dest = None;
    let mut installer = None;
    let mut hints = None;
    let files = doc
        .value
        .pointer("/storage/files")
        .and_then(|f| f.as_array());
    for (i, entry) in files.into_iter().flatten().enumerate() {
        let path = entry
            .get("path")
            .and_then(|p| p.as_str())
            .unwrap_or_default();
        if path == DEST_CONFIG || path == INSTALLER_CONFIG || path == HINTS_FILE {
            let contents = decode_file(i, entry)?.contents.unwrap_or_default();
            if path == DEST_CONFIG {
                dest = Some(contents);
            } else if path == HINTS_FILE {
                hints = RootDeviceHints::from_file(&String::from_utf8_lossy(&contents));
            } else {
                installer = Some(String::from_utf8_lossy(&contents).into_owned());
            }
        }
    }
    let Some(dest) = dest else {
        return Ok(Some(EmbeddedConfig {
            name: live_name,
            bytes: live.clone(),
            installs_to: None,
            installer_config: None,
        }));
    };
    let installs_to = match &installer {
        Some(text) => serde_yaml_ng::from_str::<serde_yaml_ng::Value>(text)
            .map_err(|e| Error::Parse {
                file: format!("{file}:{INSTALLER_CONFIG}"),
                line: None,
                message: e.to_string(),
            })?
            .get("dest-device")
            .and_then(|d| d.as_str())
            .map(str::to_string),
        None => None,
    };
    let installs_to =
        installs_to.or_else(|| hints.map(|h| crate::media::InstallDisk::Hints(h).describe()));
    Ok(Some(EmbeddedConfig {
        name: format!("{file}:{DEST_CONFIG}"),
        bytes: dest,
        installs_to,
        installer_config: installer,
    }))
}
