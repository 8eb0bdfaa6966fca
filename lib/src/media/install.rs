//! An image that installs itself, as `coreos-installer iso customize --dest-device
//! --dest-ignition` makes one: the live system's Ignition config writes the role's config to
//! `/etc/coreos/dest.ign` and an installer config to `/etc/coreos/installer.d/`, which the
//! live system's `coreos-installer.service` reads (when the image's features say it does) to
//! install to the device and reboot into the installed system. A disk chosen by hints adds
//! the step that chooses it (`disk_choice`), which names the device in a second installer
//! config.

use super::disk_choice::{self, InstallDisk};
use flate2::{write::GzEncoder, Compression};
use serde_json::json;
use std::io::Write;

/// Where the live system keeps the installed system's config.
pub const DEST_CONFIG: &str = "/etc/coreos/dest.ign";
/// The installer config the live system's installer reads.
pub const INSTALLER_CONFIG: &str = "/etc/coreos/installer.d/0000-customize.yaml";

/// Installing to a disk: where, with which config, and the installed system's settings.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Install {
    /// The disk the live system installs to, without asking: a path (`/dev/sda`), or the one
    /// disk that matches a host's hints.
    pub disk: InstallDisk,
    /// The installed system's Ignition config (the role's config).
    pub dest_config: Vec<u8>,
    /// Kernel arguments the installed system gets.
    pub dest_karg_append: Vec<String>,
    /// The installed system's consoles (`ttyS0,115200n8`).
    pub console: Vec<String>,
    /// Copy the live system's network keyfiles to the installed system.
    pub copy_network: bool,
}

impl Install {
    /// What the node's installer would refuse at install time: the disk, a console, a kernel
    /// argument (see [`super::check_console`] and the checks beside it).
    pub fn check(&self) -> Result<(), String> {
        self.disk.check()?;
        for console in &self.console {
            super::check_console(console).map_err(|why| format!("console: {why}"))?;
        }
        for arg in &self.dest_karg_append {
            super::check_kernel_argument(arg).map_err(|why| format!("append-karg: {why}"))?;
        }
        Ok(())
    }

    /// The installer config: YAML, in coreos-installer's key order.
    pub fn installer_yaml(&self) -> String {
        let mut text = format!("ignition-file: {DEST_CONFIG}\n");
        list(&mut text, "console", &self.console);
        list(&mut text, "append-karg", &self.dest_karg_append);
        if self.copy_network {
            text.push_str("copy-network: true\n");
        }
        // Hints leave the device to the config the node's step writes.
        if let InstallDisk::Device(device) = &self.disk {
            text.push_str(&format!("dest-device: {}\n", scalar(device)));
        }
        text
    }

    /// The live system's Ignition config (spec 3.2.0, which every image with an installer
    /// config reads): the installed system's config and the installer config, both 0600; for
    /// a disk chosen by hints, the hints, the step's script and unit, and the installer's
    /// drop-in that waits for it.
    pub fn live_config(&self) -> std::io::Result<Vec<u8>> {
        let mut files = vec![
            (DEST_CONFIG, self.dest_config.clone(), 0o600),
            (INSTALLER_CONFIG, self.installer_yaml().into_bytes(), 0o600),
        ];
        let mut units = Vec::new();
        if let InstallDisk::Hints(hints) = &self.disk {
            files.push((disk_choice::HINTS_FILE, hints.to_file().into_bytes(), 0o644));
            files.push((
                disk_choice::CHOOSE_SCRIPT,
                disk_choice::CHOOSE_SCRIPT_TEXT.as_bytes().to_vec(),
                0o755,
            ));
            let (installer, dropin) = disk_choice::INSTALLER_DROPIN;
            units.push(json!({"name": disk_choice::CHOOSE_UNIT, "contents": disk_choice::choose_unit_text()}));
            units.push(json!({
                "name": installer,
                "dropins": [{"name": dropin, "contents": disk_choice::installer_dropin_text()}],
            }));
        }
        let files = files
            .into_iter()
            .map(|(path, contents, mode)| {
                Ok(json!({
                    "path": path,
                    "contents": {"compression": "gzip", "source": gzip_data_url(&contents)?},
                    "mode": mode,
                }))
            })
            .collect::<std::io::Result<Vec<_>>>()?;
        let mut config = json!({"ignition": {"version": "3.2.0"}, "storage": {"files": files}});
        if !units.is_empty() {
            config["systemd"] = json!({ "units": units });
        }
        let mut bytes = serde_json::to_vec(&config).map_err(std::io::Error::other)?;
        bytes.push(b'\n');
        Ok(bytes)
    }
}

/// `key:` and one `- item` line per item, when there are any.
fn list(text: &mut String, key: &str, items: &[String]) {
    if !items.is_empty() {
        text.push_str(&format!("{key}:\n"));
        for item in items {
            text.push_str(&format!("- {}\n", scalar(item)));
        }
    }
}

/// A YAML scalar that reads back as the same string: plain when nothing in it means more,
/// else double-quoted (JSON's quoting is valid YAML).
fn scalar(value: &str) -> String {
    let plain = !value.is_empty()
        && value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/_-.,=+@".contains(c))
        && !value.starts_with(['-', '.', '@'])
        && value.parse::<f64>().is_err()
        && !matches!(
            value.to_ascii_lowercase().as_str(),
            "true" | "false" | "yes" | "no" | "on" | "off" | "null" | "y" | "n"
        );
    if plain {
        value.to_string()
    } else {
        serde_json::Value::String(value.to_string()).to_string()
    }
}

/// A gzip data URL, as coreos-installer writes its files (best compression).
fn gzip_data_url(contents: &[u8]) -> std::io::Result<String> {
    use base64::Engine as _;
    let mut encoder = GzEncoder::new(Vec::new(), Compression::best());
    encoder.write_all(contents)?;
    let compressed = encoder.finish()?;
    Ok(format!(
        "data:;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(compressed)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_installer_config_names_the_device_and_quotes_what_needs_it() {
        let install = Install {
            disk: InstallDisk::Device("/dev/disk/by-id/wwn-0x5000".into()),
            dest_config: b"{}".to_vec(),
            dest_karg_append: vec!["console=tty0".into(), "a: b".into()],
            console: vec!["ttyS0,115200n8".into()],
            copy_network: true,
        };
        assert_eq!(
            install.installer_yaml(),
            "ignition-file: /etc/coreos/dest.ign\nconsole:\n- ttyS0,115200n8\n\
             append-karg:\n- console=tty0\n- \"a: b\"\ncopy-network: true\n\
             dest-device: /dev/disk/by-id/wwn-0x5000\n"
        );
        let live: serde_json::Value =
            serde_json::from_slice(&install.live_config().unwrap()).unwrap();
        assert_eq!(live["storage"]["files"][0]["path"], DEST_CONFIG);
        assert_eq!(live["storage"]["files"][1]["mode"], 0o600);
        assert!(live.get("systemd").is_none());
    }

    #[test]
    fn a_disk_chosen_by_hints_leaves_the_device_to_the_step_that_chooses_it() {
        let hints: super::super::RootDeviceHints =
            serde_yaml_ng::from_str("serialNumber: S1\nrotational: false").unwrap();
        let install = Install {
            disk: InstallDisk::Hints(hints),
            dest_config: b"{}".to_vec(),
            ..Install::default()
        };
        assert_eq!(
            install.installer_yaml(),
            "ignition-file: /etc/coreos/dest.ign\n"
        );
        let live: serde_json::Value =
            serde_json::from_slice(&install.live_config().unwrap()).unwrap();
        let paths: Vec<&str> = live["storage"]["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["path"].as_str().unwrap())
            .collect();
        assert_eq!(
            paths,
            [
                DEST_CONFIG,
                INSTALLER_CONFIG,
                disk_choice::HINTS_FILE,
                disk_choice::CHOOSE_SCRIPT
            ]
        );
        assert_eq!(
            live["systemd"]["units"][1]["name"],
            "coreos-installer.service"
        );
    }
}
