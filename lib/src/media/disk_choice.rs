//! The disk an install medium installs to: a path, or the one disk that matches a host's root
//! device hints (the agent installer's `rootDeviceHints`, as metal3 defines them). A path is
//! handed to coreos-installer as it is. Hints are chosen by on the node: the live system runs
//! `choose-disk.sh` before `coreos-installer.service`, which reads the disks' facts from
//! `lsblk` and udev, picks the one disk that matches every hint, says which and why on the
//! console, and writes it as the installer's `dest-device`; when no disk or more than one
//! matches, it names each candidate and the hint it failed, writes nothing, and the installer
//! never starts, so no disk is touched.

use serde::Deserialize;

/// How an installer finds the disk to install to (`rootDeviceHints`): every hint given must
/// match. Strings compare whole, except `model` and `vendor`, which match as substrings; sizes
/// are in GB of 10^9 bytes, as the agent installer counts them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct RootDeviceHints {
    /// A device path, e.g. `/dev/sda` or `/dev/disk/by-path/...` (any of the disk's links).
    pub device_name: Option<String>,
    /// The SCSI address, e.g. `0:0:0:0`.
    pub hctl: Option<String>,
    /// The vendor's model string (a substring matches).
    pub model: Option<String>,
    /// The vendor (a substring matches).
    pub vendor: Option<String>,
    /// The disk's serial number.
    pub serial_number: Option<String>,
    /// The smallest size in GB (10^9 bytes).
    pub min_size_gigabytes: Option<u64>,
    /// The World Wide Name.
    pub wwn: Option<String>,
    /// The WWN with its vendor extension.
    pub wwn_with_extension: Option<String>,
    /// The WWN's vendor extension.
    pub wwn_vendor_extension: Option<String>,
    /// A spinning disk (true) or a solid-state one (false).
    pub rotational: Option<bool>,
}

impl RootDeviceHints {
    /// Each hint given, as (its key in `rootDeviceHints`, its value), in the key order of the
    /// agent installer's type.
    pub fn given(&self) -> Vec<(&'static str, String)> {
        let text = [
            ("deviceName", &self.device_name),
            ("hctl", &self.hctl),
            ("model", &self.model),
            ("vendor", &self.vendor),
            ("serialNumber", &self.serial_number),
        ];
        let mut out: Vec<(&'static str, String)> = text
            .iter()
            .filter_map(|(key, value)| Some((*key, value.as_ref()?.clone())))
            .collect();
        if let Some(size) = self.min_size_gigabytes {
            out.push(("minSizeGigabytes", size.to_string()));
        }
        for (key, value) in [
            ("wwn", &self.wwn),
            ("wwnWithExtension", &self.wwn_with_extension),
            ("wwnVendorExtension", &self.wwn_vendor_extension),
        ] {
            if let Some(value) = value {
                out.push((key, value.clone()));
            }
        }
        if let Some(rotational) = self.rotational {
            out.push(("rotational", rotational.to_string()));
        }
        out
    }

    /// True when no hint is given.
    pub fn is_empty(&self) -> bool {
        self.given().is_empty()
    }

    /// `serialNumber=S1, rotational=false`: the hints in a message.
    pub fn describe(&self) -> String {
        self.given()
            .iter()
            .map(|(key, value)| format!("{key}={value}"))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The first hint the node could not match as written, as (its key, what is wrong): an
    /// empty string, a control character or a line break (the hints file holds a hint a
    /// line), a `deviceName` that is no device path, an `hctl` that is no `H:C:T:L`, a size
    /// of 0.
    pub fn check(&self) -> Result<(), (&'static str, String)> {
        for (key, value) in self.given() {
            if value.trim().is_empty() {
                return Err((
                    key,
                    "is empty: give the value the disk has, or leave the key out".into(),
                ));
            }
            if value.chars().any(char::is_control) {
                return Err((key, "holds a control character: a hint is one line".into()));
            }
        }
        if let Some(device) = &self.device_name {
            super::check_device_path(device).map_err(|why| ("deviceName", why))?;
        }
        if let Some(hctl) = &self.hctl {
            let parts: Vec<&str> = hctl.split(':').collect();
            let numeric = parts
                .iter()
                .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
            if parts.len() != 4 || !numeric {
                return Err((
                    "hctl",
                    format!("`{hctl}` is not a SCSI address: four numbers, host:channel:target:lun, e.g. 0:0:0:0"),
                ));
            }
        }
        if self.min_size_gigabytes == Some(0) {
            return Err((
                "minSizeGigabytes",
                "is 0, which every disk meets: give the smallest size in GB, or leave the key out"
                    .into(),
            ));
        }
        Ok(())
    }

    /// The hints file the node's step reads: `key=value`, a hint a line.
    pub fn to_file(&self) -> String {
        self.given()
            .iter()
            .map(|(key, value)| format!("{key}={value}\n"))
            .collect()
    }

    /// Reads [`RootDeviceHints::to_file`]'s text back; `None` for a line it does not write.
    pub fn from_file(text: &str) -> Option<RootDeviceHints> {
        let mut hints = RootDeviceHints::default();
        for line in text.lines().filter(|l| !l.is_empty()) {
            let (key, value) = line.split_once('=')?;
            let value = Some(value.to_string());
            match key {
                "deviceName" => hints.device_name = value,
                "hctl" => hints.hctl = value,
                "model" => hints.model = value,
                "vendor" => hints.vendor = value,
                "serialNumber" => hints.serial_number = value,
                "minSizeGigabytes" => hints.min_size_gigabytes = Some(value?.parse().ok()?),
                "wwn" => hints.wwn = value,
                "wwnWithExtension" => hints.wwn_with_extension = value,
                "wwnVendorExtension" => hints.wwn_vendor_extension = value,
                "rotational" => hints.rotational = Some(value?.parse().ok()?),
                _ => return None,
            }
        }
        Some(hints)
    }
}

/// The disk an install medium installs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InstallDisk {
    /// This path, as coreos-installer's `dest-device`.
    Device(String),
    /// The one disk that matches these hints, chosen on the node.
    Hints(RootDeviceHints),
}

impl Default for InstallDisk {
    fn default() -> Self {
        InstallDisk::Device(String::new())
    }
}

impl InstallDisk {
    /// The disk of a host's hints: a `deviceName` alone stays a path.
    pub fn from_hints(hints: RootDeviceHints) -> InstallDisk {
        match &hints.device_name {
            Some(device) if hints.given().len() == 1 => InstallDisk::Device(device.clone()),
            _ => InstallDisk::Hints(hints),
        }
    }

    /// `/dev/sda`, or `the disk matching serialNumber=S1`.
    pub fn describe(&self) -> String {
        match self {
            InstallDisk::Device(device) => device.clone(),
            InstallDisk::Hints(hints) => format!("the disk matching {}", hints.describe()),
        }
    }

    /// What the node could not carry out (see [`RootDeviceHints::check`]).
    pub fn check(&self) -> Result<(), String> {
        match self {
            InstallDisk::Device(device) => {
                super::check_device_path(device).map_err(|why| format!("dest-device: {why}"))
            }
            InstallDisk::Hints(hints) => hints
                .check()
                .map_err(|(key, why)| format!("rootDeviceHints.{key}: {why}")),
        }
    }
}

/// The hints the live system's step reads.
pub const HINTS_FILE: &str = "/etc/coreos/bootgen/root-device-hints";
/// The step that chooses the disk.
pub const CHOOSE_SCRIPT: &str = "/etc/coreos/bootgen/choose-disk.sh";
/// What the step writes: the installer config that names the chosen disk, read after
/// [`super::INSTALLER_CONFIG`] (coreos-installer reads `installer.d` in name order).
pub const CHOSEN_CONFIG: &str = "/etc/coreos/installer.d/0001-bootgen-chosen-disk.yaml";
/// The unit that runs the step.
pub const CHOOSE_UNIT: &str = "bootgen-choose-disk.service";
/// The drop-in that makes the live system's installer wait for the step, and not start
/// when the step fails.
pub const INSTALLER_DROPIN: (&str, &str) =
    ("coreos-installer.service", "10-bootgen-choose-disk.conf");

/// The step's script.
pub const CHOOSE_SCRIPT_TEXT: &str = include_str!("choose-disk.sh");

/// The step's unit: before the installer, after udev has seen the disks; a failure stops the
/// boot at the emergency shell, as a failed install does, with the step's words on the console.
pub fn choose_unit_text() -> String {
    format!(
        "[Unit]
Description=Choose the install disk from the host's root device hints (bootgen)
Before=coreos-installer.service
After=systemd-udevd.service
OnFailure=emergency.target
OnFailureJobMode=replace-irreversibly

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/bin/bash {CHOOSE_SCRIPT} {HINTS_FILE} {CHOSEN_CONFIG}
StandardOutput=journal+console
StandardError=journal+console
"
    )
}

/// The installer's drop-in text.
pub fn installer_dropin_text() -> String {
    format!("[Unit]\nRequires={CHOOSE_UNIT}\nAfter={CHOOSE_UNIT}\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hints(text: &str) -> RootDeviceHints {
        serde_yaml_ng::from_str(text).unwrap()
    }

    #[test]
    fn a_device_name_alone_stays_a_path_and_any_other_hint_is_chosen_on_the_node() {
        let path = InstallDisk::from_hints(hints("deviceName: /dev/nvme0n1"));
        assert_eq!(path, InstallDisk::Device("/dev/nvme0n1".into()));
        let chosen = InstallDisk::from_hints(hints("deviceName: /dev/sda\nrotational: false"));
        assert_eq!(
            chosen.describe(),
            "the disk matching deviceName=/dev/sda, rotational=false"
        );
    }

    #[test]
    fn the_hints_file_reads_back_as_written() {
        let all = hints(
            "deviceName: /dev/sda\nhctl: 1:0:0:0\nmodel: Samsung SSD\nvendor: ATA\nserialNumber: S4EV=1\nminSizeGigabytes: 100\nwwn: '0x5002538e40a1b2c3'\nwwnWithExtension: 0x5002538e40a1b2c3abcd\nwwnVendorExtension: '0xabcd'\nrotational: true",
        );
        assert_eq!(all.given().len(), 10);
        assert_eq!(RootDeviceHints::from_file(&all.to_file()), Some(all));
        assert_eq!(RootDeviceHints::from_file("colour=red\n"), None);
    }

    #[test]
    fn hints_the_node_could_not_match_are_named_by_key() {
        let key = |text: &str| hints(text).check().unwrap_err().0;
        assert_eq!(key("serialNumber: ''"), "serialNumber");
        assert_eq!(key("hctl: '0:0:0'"), "hctl");
        assert_eq!(key("hctl: 0:a:0:0"), "hctl");
        assert_eq!(key("deviceName: sda"), "deviceName");
        assert_eq!(key("minSizeGigabytes: 0"), "minSizeGigabytes");
        assert_eq!(key("model: \"a\\nb\""), "model");
        assert!(hints("hctl: 10:0:3:0\nminSizeGigabytes: 1").check().is_ok());
    }
}
