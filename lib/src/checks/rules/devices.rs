//! The rules for what Ignition does below the files: disks and their partitions, RAID arrays
//! and filesystems each on an absolute device (a LUKS volume's is `volumes.rs`'s), partition numbers unique on a
//! disk, a filesystem's format one Ignition makes (and given whenever anything else of it is);
//! and the kernel arguments of spec 3.3 and later, each named once.

use super::{list, str_at, Rules};
use crate::checks::problem::{Check, Problem, Severity};
use serde_json::Value;
use std::collections::BTreeMap;

/// The filesystem formats Ignition makes (spec 3.0 to 3.5); `none` (wipe, make nothing) from
/// spec 3.3.
const FORMATS: &[&str] = &["ext4", "btrfs", "xfs", "swap", "vfat", "none"];

/// The formats of spec 3.`minor`.
fn formats(minor: u32) -> &'static [&'static str] {
    if minor >= 3 {
        FORMATS
    } else {
        &FORMATS[..FORMATS.len() - 1]
    }
}

/// The longest partition label (bytes) the GPT holds.
const PARTITION_LABEL_MAX: usize = 36;

/// A GUID as Ignition takes it: hex digits in groups of 8, 4, 4, 4 and 12.
fn is_guid(text: &str) -> bool {
    let groups: Vec<&str> = text.split('-').collect();
    groups.len() == 5
        && groups
            .iter()
            .zip([8, 4, 4, 4, 12])
            .all(|(g, n)| g.len() == n && g.chars().all(|c| c.is_ascii_hexdigit()))
}

/// The fields of a filesystem that need its format, each with the first spec minor that has it
/// (before that it is an unknown key, ignored).
const NEEDS_FORMAT: &[(&str, u32)] = &[
    ("path", 0),
    ("label", 0),
    ("uuid", 0),
    ("wipeFilesystem", 0),
    ("options", 0),
    ("mountOptions", 1),
];

impl Rules {
    /// Disks, RAID arrays and filesystems.
    pub(super) fn devices(&mut self, config: &Value) {
        for (i, disk) in list(config, "/storage/disks").iter().enumerate() {
            let at = format!("$.storage.disks[{i}]");
            self.device(disk, &at);
            // A partition to delete and one numbered 0 (the next free number) on one disk:
            // Ignition refuses the mix (its message speaks of start or size, but it is the
            // number that decides).
            let partitions = list(disk, "/partitions");
            let number_of = |p: &Value| p.get("number").and_then(Value::as_i64).unwrap_or(0);
            if partitions
                .iter()
                .any(|p| p.get("shouldExist") == Some(&Value::Bool(false)))
                && partitions.iter().any(|p| number_of(p) == 0)
            {
                self.error(
                    Check::Ignition,
                    "partition",
                    format!("{at}.partitions"),
                    "shouldExist is false for a partition and other partition(s) has start or size 0",
                );
            }
            let (mut numbers, mut labels) = (BTreeMap::new(), BTreeMap::new());
            for (j, partition) in partitions.iter().enumerate() {
                self.partition(partition, &format!("{at}.partitions[{j}]"));
                // Every label given, an empty one too, names one partition of the disk.
                if let Some(label) = str_at(partition, "label") {
                    let here = ("partition-label", format!("{at}.partitions[{j}]"));
                    self.once(&mut labels, label, j, here, |first| {
                        format!("cannot use the same partition label twice: `{label}` is also $.storage.disks[{i}].partitions[{first}]")
                    });
                }
                let number = number_of(partition);
                // 0 means "the next free number": any number of them may say so.
                if number == 0 {
                    continue;
                }
                let here = ("partition-number", format!("{at}.partitions[{j}]"));
                self.once(&mut numbers, number, j, here, |first| {
                    format!("partition numbers collide: {number} is also $.storage.disks[{i}].partitions[{first}]")
                });
            }
        }
        for (i, array) in list(config, "/storage/raid").iter().enumerate() {
            // Ignition takes an array without a name (Go reads it as empty) and in its disks
            // stage runs `mdadm --create` with that name, which mdadm refuses.
            if str_at(array, "name").unwrap_or_default().is_empty() {
                self.problems.push(Problem::new(
                    Severity::Warning,
                    Check::Boot,
                    "raid-name",
                    format!("$.storage.raid[{i}].name"),
                    "the array has no name: Ignition accepts that, but its disks stage runs `mdadm --create` with an empty name, which mdadm refuses (\"is an invalid name for an md device\"), and the boot stops there",
                ));
            }
            if list(array, "/devices").is_empty() {
                self.error(
                    Check::Ignition,
                    "raid-devices",
                    format!("$.storage.raid[{i}].devices"),
                    "raid devices required",
                );
            }
        }
        for (i, filesystem) in list(config, "/storage/filesystems").iter().enumerate() {
            self.filesystem(filesystem, &format!("$.storage.filesystems[{i}]"));
        }
    }

    /// A partition: found by a number or a label; a label sgdisk keeps whole; GUIDs in their
    /// form; nothing but its number or label when it must not exist.
    fn partition(&mut self, partition: &Value, at: &str) {
        let set = |key: &str| partition.get(key).is_some_and(|v| !v.is_null());
        let label = str_at(partition, "label");
        let number = partition.get("number").and_then(Value::as_i64).unwrap_or(0);
        if partition.get("shouldExist") == Some(&Value::Bool(false))
            && (set("label")
                || set("startMiB")
                || set("sizeMiB")
                || ["typeGuid", "guid"]
                    .iter()
                    .any(|k| str_at(partition, k).is_some_and(|g| !g.is_empty())))
        {
            self.error(
                Check::Ignition,
                "partition",
                at.to_string(),
                "shouldExist specified false with other options also specified",
            );
        }
        if number == 0 && !set("label") {
            self.error(
                Check::Ignition,
                "partition",
                at.to_string(),
                "a partition number >= 1 or a label must be specified",
            );
        }
        if let Some(label) = label {
            if label.len() > PARTITION_LABEL_MAX {
                self.error(Check::Ignition, "partition", format!("{at}.label"), format!("partition labels may not exceed {PARTITION_LABEL_MAX} characters (it has {} bytes)", label.len()));
            } else if label.contains(':') {
                self.error(
                    Check::Ignition,
                    "partition",
                    format!("{at}.label"),
                    "partition label will be truncated to text before the colon",
                );
            }
        }
        for key in ["guid", "typeGuid"] {
            if let Some(guid) = str_at(partition, key).filter(|g| !g.is_empty() && !is_guid(g)) {
                self.error(
                    Check::Ignition,
                    "partition",
                    format!("{at}.{key}"),
                    format!(
                        "`{guid}` doesn't match the form \"01234567-89AB-CDEF-EDCB-A98765432101\""
                    ),
                );
            }
        }
    }

    /// A disk's or LUKS volume's `device`: given, and an absolute, clean path.
    pub(super) fn device(&mut self, entry: &Value, at: &str) {
        match str_at(entry, "device").filter(|d| !d.is_empty()) {
            None => self.error(
                Check::Ignition,
                "device",
                format!("{at}.device"),
                "disk device is required",
            ),
            Some(device) => self.clean_path("device", format!("{at}.device"), device),
        }
    }

    fn filesystem(&mut self, filesystem: &Value, at: &str) {
        // Absent is empty, as Go reads it: "path not specified".
        let device = str_at(filesystem, "device").unwrap_or_default();
        self.clean_path("device", format!("{at}.device"), device);
        if let Some(path) = str_at(filesystem, "path").filter(|p| !p.is_empty()) {
            self.clean_path("path", format!("{at}.path"), path);
        }
        match str_at(filesystem, "format").unwrap_or_default() {
            "" => {
                // As Ignition counts them: a text that is not empty, a list that is not, true.
                let given = NEEDS_FORMAT.iter().find_map(|(key, since)| {
                    (self.minor >= *since
                        && filesystem.get(*key).is_some_and(|v| match v {
                            Value::String(text) => !text.is_empty(),
                            Value::Array(list) => !list.is_empty(),
                            Value::Bool(set) => *set,
                            _ => false,
                        }))
                    .then_some(*key)
                });
                if let Some(key) = given {
                    self.error(
                        Check::Ignition,
                        "format",
                        format!("{at}.format"),
                        format!("format cannot be empty when {key} is given (a filesystem with a path, label, uuid, wipeFilesystem, options or mountOptions needs one)"),
                    );
                }
            }
            format if !formats(self.minor).contains(&format) => self.error(
                Check::Ignition,
                "format",
                format!("{at}.format"),
                format!(
                    "invalid filesystem format `{format}` for spec 3.{}.0 (one of {})",
                    self.minor,
                    formats(self.minor).join(", ")
                ),
            ),
            _ => {}
        }
    }

    /// Each kernel argument named once, across `shouldExist` and `shouldNotExist`.
    pub(super) fn kernel_arguments(&mut self, config: &Value) {
        let mut seen = BTreeMap::new();
        for key in ["shouldExist", "shouldNotExist"] {
            for (i, argument) in list(config, &format!("/kernelArguments/{key}"))
                .iter()
                .enumerate()
            {
                // Go reads a null one as the empty argument (the schema check lets it through).
                let Some(argument) = argument.as_str().or(argument.is_null().then_some("")) else {
                    continue;
                };
                let at = format!("$.kernelArguments.{key}[{i}]");
                if let Some(first) = seen.insert(argument, at.clone()) {
                    self.error(
                        Check::Ignition,
                        "duplicate",
                        at,
                        match argument {
                            "" => format!("duplicate entry defined: {first} is empty too"),
                            _ => format!(
                                "duplicate entry defined: kernel argument `{argument}` is also {first}"
                            ),
                        },
                    );
                }
            }
        }
    }

    /// A file's, directory's or link's `user` and `group`: an ID or a name, not both.
    pub(super) fn owners(&mut self, entry: &Value, at: &str) {
        for key in ["user", "group"] {
            let Some(owner) = entry.get(key) else {
                continue;
            };
            let has_id = owner.get("id").is_some_and(|v| !v.is_null());
            let has_name = str_at(owner, "name").is_some_and(|n| !n.is_empty());
            if has_id && has_name {
                self.error(
                    Check::Ignition,
                    "owner",
                    format!("{at}.{key}"),
                    "cannot set both id and name",
                );
            }
        }
    }

    /// A resource's HTTP headers: each named, each name once, and only on an http(s) source.
    pub(super) fn http_headers(&mut self, resource: &Value, at: &str) {
        let source = crate::ignition::decode::source_of(resource);
        let scheme = source.and_then(|s| crate::checks::source::scheme_of(s).ok());
        if self.minor >= 1
            && !list(resource, "/httpHeaders").is_empty()
            && scheme.is_some_and(|s| s != "http" && s != "https")
        {
            self.error(
                Check::Ignition,
                "http-header",
                format!("{at}.httpHeaders"),
                "cannot use HTTP headers with this source scheme (only http and https send them)",
            );
        }
        // Spec 3.0 has no headers: an unknown key, ignored, whatever it holds.
        if self.minor < 1 {
            return;
        }
        let mut seen = BTreeMap::new();
        for (i, header) in list(resource, "/httpHeaders").iter().enumerate() {
            let name = str_at(header, "name").unwrap_or_default();
            let here = format!("{at}.httpHeaders[{i}]");
            if name.is_empty() {
                self.error(
                    Check::Ignition,
                    "http-header",
                    format!("{here}.name"),
                    "HTTP header name can't be empty",
                );
            } else if let Some(first) = seen.insert(name, i) {
                self.error(
                    Check::Ignition,
                    "duplicate",
                    here,
                    format!(
                        "HTTP header `{name}` is given twice (first at {at}.httpHeaders[{first}])"
                    ),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::check;
    use crate::ignition::files::FileList;
    use serde_json::{json, Value};

    fn rules_of(config: Value, minor: u32) -> Vec<&'static str> {
        let problems = check(&config, FileList::of(&config), minor).unwrap();
        problems.iter().map(|p| p.rule).collect()
    }

    /// Each config Ignition's own validator refuses (its message in the comment) is refused,
    /// and the one next to it that it accepts is not.
    #[test]
    fn what_ignition_refuses_below_the_files_is_refused() {
        let storage = |s: Value| json!({ "storage": s });
        for (config, minor, rule) in [
            // cannot set both id and name
            (
                storage(json!({"files": [{"path": "/a", "user": {"id": 0, "name": "root"}}]})),
                2,
                "owner",
            ),
            (
                storage(
                    json!({"links": [{"path": "/l", "target": "/x", "group": {"id": 0, "name": "g"}}]}),
                ),
                2,
                "owner",
            ),
            // path not absolute; invalid filesystem format; format cannot be empty when ...
            (
                storage(
                    json!({"filesystems": [{"device": "/dev/sda", "path": "var", "format": "ext4"}]}),
                ),
                2,
                "path",
            ),
            (
                storage(json!({"filesystems": [{"device": "/dev/sda", "format": "ntfs"}]})),
                2,
                "format",
            ),
            (
                storage(json!({"filesystems": [{"device": "/dev/sda", "path": "/var"}]})),
                2,
                "format",
            ),
            (
                storage(json!({"filesystems": [{"device": "sda", "format": "ext4"}]})),
                2,
                "device",
            ),
            // partition numbers collide; disk device is required; raid devices required
            (
                storage(
                    json!({"disks": [{"device": "/dev/sda", "partitions": [{"number": 1}, {"number": 1}]}]}),
                ),
                2,
                "partition-number",
            ),
            // cannot use the same partition label twice (an empty one too, numbered or not)
            (
                storage(
                    json!({"disks": [{"device": "/dev/sda", "partitions": [{"number": 1, "label": "a"}, {"number": 2, "label": "a"}]}]}),
                ),
                0,
                "partition-label",
            ),
            (
                storage(
                    json!({"disks": [{"device": "/dev/sda", "partitions": [{"number": 1, "label": ""}, {"number": 2, "label": ""}]}]}),
                ),
                2,
                "partition-label",
            ),
            // duplicate entry defined (Tang servers are keyed by URL)
            (
                storage(
                    json!({"luks": [{"name": "l", "device": "/dev/sda", "clevis": {"tang": [{"url": "http://t", "thumbprint": "a"}, {"url": "http://t", "thumbprint": "b"}]}}]}),
                ),
                2,
                "duplicate",
            ),
            (storage(json!({"luks": [{"name": "l"}]})), 2, "device"),
            (
                storage(json!({"raid": [{"name": "md", "level": "raid1", "devices": []}]})),
                2,
                "raid-devices",
            ),
            // duplicate entry defined; HTTP header name can't be empty
            (
                storage(
                    json!({"files": [{"path": "/a", "contents": {"source": "https://h/a", "httpHeaders": [{"name": "X"}, {"name": "X"}]}}]}),
                ),
                2,
                "duplicate",
            ),
            (
                storage(
                    json!({"files": [{"path": "/a", "contents": {"source": "https://h/a", "httpHeaders": [{"name": ""}]}}]}),
                ),
                2,
                "http-header",
            ),
            (
                json!({"kernelArguments": {"shouldExist": ["a"], "shouldNotExist": ["a"]}}),
                3,
                "duplicate",
            ),
            // A null argument is the empty one to Go.
            (
                json!({"kernelArguments": {"shouldExist": [null], "shouldNotExist": [""]}}),
                3,
                "duplicate",
            ),
        ] {
            assert_eq!(rules_of(config.clone(), minor), [rule], "{config}");
        }
        for config in [
            storage(json!({"files": [{"path": "/a", "user": {"id": 0, "name": ""}}]})),
            storage(
                json!({"filesystems": [{"device": "/dev/sda", "path": "/var", "format": "xfs"}]}),
            ),
            storage(json!({"filesystems": [{"device": "/dev/sda"}]})),
            storage(
                json!({"filesystems": [{"device": "/dev/sda", "wipeFilesystem": false, "options": [], "path": "", "label": ""}]}),
            ),
            storage(
                json!({"disks": [{"device": "/dev/sda", "partitions": [{"number": 0, "label": "a"}, {"number": 0, "label": "b"}]}]}),
            ),
            json!({"kernelArguments": {"shouldExist": ["a"], "shouldNotExist": ["b"]}}),
            json!({"kernelArguments": {"shouldExist": [null], "shouldNotExist": ["b"]}}),
            storage(
                json!({"disks": [{"device": "/dev/sda", "partitions": [{"number": 1}, {"number": 2}]}]}),
            ),
            storage(
                json!({"luks": [{"name": "l", "device": "/dev/sda", "clevis": {"tang": [{"url": "http://t", "thumbprint": "a"}, {"url": "http://t/", "thumbprint": "a"}]}}]}),
            ),
        ] {
            assert!(rules_of(config.clone(), 3).is_empty(), "{config}");
        }
    }
}
