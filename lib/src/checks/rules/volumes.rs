//! What Ignition checks of the volumes it makes: a filesystem's label within what its format
//! holds, a RAID array's level (and no spares where the level has none), a LUKS volume's device,
//! name and label, its key file's source, its Clevis pins and Tang servers, and (spec 3.5) a CEX
//! volume without Clevis or a key file.

use super::{list, str_at, Rules};
use crate::checks::problem::Check;
use crate::checks::source::{check_http_url, check_source};
use serde_json::Value;

/// The longest label (in bytes) each format takes.
const LABEL_LIMITS: &[(&str, usize)] = &[
    ("ext4", 16),
    ("btrfs", 256),
    ("xfs", 12),
    ("swap", 15),
    ("vfat", 11),
];

/// The RAID levels Ignition makes, and those that take no spares.
const RAID_LEVELS: &[&str] = &[
    "linear", "raid0", "raid1", "raid4", "raid5", "raid6", "raid10",
];
const NO_SPARES: &[&str] = &["linear", "raid0"];

/// The first spec minor with LUKS volumes: before 3.2 `luks` is an unknown key, which Ignition
/// ignores whole, so no rule judges what it holds.
pub(super) const LUKS_SINCE: u32 = 2;

/// The longest LUKS label cryptsetup takes.
const LUKS_LABEL_MAX: usize = 47;

/// The pins a custom Clevis config may name.
const CLEVIS_PINS: &[&str] = &["tpm2", "tang", "sss"];

/// A string that is set and not empty; `true`; a number other than 0; a list with entries.
fn given(value: Option<&Value>) -> bool {
    match value {
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Bool(b)) => *b,
        Some(Value::Number(n)) => n.as_f64() != Some(0.0),
        Some(Value::Array(a)) => !a.is_empty(),
        _ => false,
    }
}

impl Rules {
    pub(super) fn volumes(&mut self, config: &Value) {
        for (i, filesystem) in list(config, "/storage/filesystems").iter().enumerate() {
            self.filesystem_label(filesystem, &format!("$.storage.filesystems[{i}]"));
        }
        for (i, array) in list(config, "/storage/raid").iter().enumerate() {
            self.raid_level(array, &format!("$.storage.raid[{i}]"));
        }
        if self.minor >= LUKS_SINCE {
            for (i, volume) in list(config, "/storage/luks").iter().enumerate() {
                self.luks(volume, &format!("$.storage.luks[{i}]"));
            }
        }
    }

    fn filesystem_label(&mut self, filesystem: &Value, at: &str) {
        let (Some(label), Some(format)) =
            (str_at(filesystem, "label"), str_at(filesystem, "format"))
        else {
            return;
        };
        let limit = LABEL_LIMITS
            .iter()
            .find(|(f, _)| *f == format)
            .map(|(_, n)| *n);
        if let Some(limit) = limit.filter(|limit| label.len() > *limit) {
            self.error(
                Check::Ignition,
                "label",
                format!("{at}.label"),
                format!("filesystem labels cannot be longer than {limit} characters when using {format} (`{label}` has {})", label.len()),
            );
        }
    }

    fn raid_level(&mut self, array: &Value, at: &str) {
        let level = str_at(array, "level").unwrap_or_default();
        let why = if level.is_empty() && self.minor >= 3 {
            "raid level is required".to_string()
        } else if !RAID_LEVELS.contains(&level) {
            format!(
                "unrecognized raid level `{level}` (one of {})",
                RAID_LEVELS.join(", ")
            )
        } else if NO_SPARES.contains(&level) && given(array.get("spares")) {
            "spares unsupported for linear and raid0 arrays".to_string()
        } else {
            return;
        };
        self.error(Check::Ignition, "raid-level", format!("{at}.level"), why);
    }

    fn luks(&mut self, volume: &Value, at: &str) {
        self.device(volume, at);
        if str_at(volume, "name").is_some_and(|name| name.contains('/')) {
            self.error(
                Check::Ignition,
                "luks",
                format!("{at}.name"),
                "device names cannot contain slashes",
            );
        }
        if let Some(label) = str_at(volume, "label").filter(|l| l.len() > LUKS_LABEL_MAX) {
            self.error(
                Check::Ignition,
                "luks",
                format!("{at}.label"),
                format!("luks device labels cannot be longer than {LUKS_LABEL_MAX} characters (it has {})", label.len()),
            );
        }
        let key_file = volume
            .get("keyFile")
            .and_then(|k| crate::ignition::decode::source_of(k));
        if let Some(Err(why)) = key_file.map(|s| check_source(s, self.minor)) {
            self.error(
                Check::Ignition,
                "source",
                format!("{at}.keyFile.source"),
                format!("invalid key-file source: {why}"),
            );
        }
        let clevis = volume.get("clevis").unwrap_or(&Value::Null);
        let uses_clevis = self.clevis(clevis, &format!("{at}.clevis"));
        let cex = volume.pointer("/cex/enabled") == Some(&Value::Bool(true));
        if cex && self.minor >= 5 {
            if uses_clevis {
                self.error(
                    Check::Ignition,
                    "cex",
                    format!("{at}.cex"),
                    "cannot use cex with clevis: a volume is unlocked by one or the other",
                );
            }
            if key_file.is_some() {
                self.error(
                    Check::Ignition,
                    "cex",
                    format!("{at}.cex"),
                    "cannot use cex with a key file: a volume is unlocked by one or the other",
                );
            }
        }
    }

    /// A LUKS volume's Clevis settings; whether any pin is given.
    fn clevis(&mut self, clevis: &Value, at: &str) -> bool {
        let custom = clevis.get("custom").unwrap_or(&Value::Null);
        let custom_given = ["pin", "config", "needsNetwork"]
            .iter()
            .any(|key| given(custom.get(*key)));
        let others = ["tang", "tpm2", "threshold"]
            .iter()
            .any(|key| given(clevis.get(*key)));
        if custom_given {
            match str_at(custom, "pin").unwrap_or_default() {
                "" => self.error(
                    Check::Ignition,
                    "clevis",
                    format!("{at}.custom.pin"),
                    "missing required custom clevis pin",
                ),
                pin if !CLEVIS_PINS.contains(&pin) => self.error(
                    Check::Ignition,
                    "clevis",
                    format!("{at}.custom.pin"),
                    format!(
                        "unsupported clevis pin `{pin}` (one of {})",
                        CLEVIS_PINS.join(", ")
                    ),
                ),
                _ => {}
            }
            if !given(custom.get("config")) {
                self.error(
                    Check::Ignition,
                    "clevis",
                    format!("{at}.custom.config"),
                    "missing required custom clevis config",
                );
            }
            if others {
                self.error(
                    Check::Ignition,
                    "clevis",
                    at.to_string(),
                    "cannot use custom clevis config with tpm2, tang, or threshold",
                );
            }
        }
        // Ignition keys Tang servers by URL: a second entry of one URL is a duplicate entry.
        let mut urls = std::collections::BTreeMap::new();
        for (i, tang) in list(clevis, "/tang").iter().enumerate() {
            let here = format!("{at}.tang[{i}]");
            self.tang(tang, &here);
            let url = str_at(tang, "url").unwrap_or_default();
            self.once(&mut urls, url, i, ("duplicate", here), |first| {
                let url = crate::ignition::redact::Redact::Marker.inline(url);
                format!("duplicate entry defined: Tang server `{url}` is also {at}.tang[{first}]")
            });
        }
        custom_given || others
    }

    fn tang(&mut self, tang: &Value, at: &str) {
        let url = str_at(tang, "url").unwrap_or_default();
        if let Err(why) = check_http_url(url, "invalid url scheme (a Tang server is http or https)")
        {
            self.error(Check::Ignition, "tang", format!("{at}.url"), why);
        }
        if !given(tang.get("thumbprint")) {
            self.error(
                Check::Ignition,
                "tang",
                format!("{at}.thumbprint"),
                "thumbprint is required",
            );
        }
        let advertisement = str_at(tang, "advertisement").filter(|a| !a.is_empty());
        if self.minor >= 4
            && advertisement.is_some_and(|a| serde_json::from_str::<Value>(a).is_err())
        {
            self.error(
                Check::Ignition,
                "tang",
                format!("{at}.advertisement"),
                "advertisement is not valid JSON",
            );
        }
    }
}
