//! The installer's checks of one vSphere pool's settings as written (before merging): sizes not
//! negative, CPUs a multiple of cores per socket, data disks named and sized within vSphere's
//! limits, zones naming failure domains (each once, where the release's installer says so).

use super::pool_values::Written;
use super::VSpherePlatform;
use crate::config::LoadedConfig;
use crate::error::Result;

/// What the installer's checks count for a CPU count or cores per socket left out.
const CHECKED_DEFAULT_CPUS: i64 = 4;

/// At most this many data disks per machine.
const MAX_DATA_DISKS: usize = 29;

/// A data disk's name is at most this long.
const MAX_DISK_NAME: usize = 80;

/// The installer's limit on a data disk, in GiB (16 TiB).
const MAX_DISK_GIB: i64 = 16384;

/// The provisioning modes vSphere has.
const PROVISIONING_MODES: &[&str] = &["EagerlyZeroed", "Thick", "Thin"];

/// Checks one pool's settings at `at`; `cores_rule`: the release's installer checks CPUs against
/// cores per socket; `zones_once`: it refuses a zone listed twice (before, a zone listed twice
/// gets machines there twice as often, and a MachineSet each time it is listed).
pub(super) fn check_pool(
    loaded: &LoadedConfig,
    pool: &Written,
    at: &str,
    vsphere: &VSpherePlatform,
    cores_rule: bool,
    zones_once: bool,
) -> Result<()> {
    for (key, value, what) in [
        ("osDisk.diskSizeGB", pool.disk_gib, "the OS disk's size"),
        ("memoryMB", pool.memory_mib, "the memory size"),
        ("cpus", pool.cpus, "the number of CPUs"),
        ("coresPerSocket", pool.cores_per_socket, "cores per socket"),
    ] {
        if value < 0 {
            return Err(loaded.field_error(
                &format!("{at}.{key}"),
                format!("{value}: {what} must be positive"),
            ));
        }
    }
    if cores_rule {
        let or_default = |v: i64| if v > 0 { v } else { CHECKED_DEFAULT_CPUS };
        let (cpus, cores) = (or_default(pool.cpus), or_default(pool.cores_per_socket));
        if cores > cpus {
            return Err(loaded.field_error(
                &format!("{at}.coresPerSocket"),
                format!(
                    "{cores} is more than the pool's {cpus} CPUs (left out, each counts as \
                     {CHECKED_DEFAULT_CPUS}): write at most as many cores per socket as CPUs"
                ),
            ));
        }
        if cpus % cores != 0 {
            return Err(loaded.field_error(
                &format!("{at}.cpus"),
                format!(
                    "{cpus} is not a multiple of the {cores} cores per socket (left out, cores \
                     per socket count as {CHECKED_DEFAULT_CPUS}): each socket has the same cores"
                ),
            ));
        }
    }
    check_data_disks(loaded, pool, at)?;
    check_zones(loaded, pool, at, vsphere, zones_once)
}

fn check_data_disks(loaded: &LoadedConfig, pool: &Written, at: &str) -> Result<()> {
    if pool.data_disks.len() > MAX_DATA_DISKS {
        return Err(loaded.field_error(
            &format!("{at}.dataDisks"),
            format!(
                "has {} disks: a machine takes at most {MAX_DATA_DISKS}",
                pool.data_disks.len()
            ),
        ));
    }
    for (i, disk) in pool.data_disks.iter().enumerate() {
        let disk_at = format!("{at}.dataDisks.{i}");
        let name = &disk.name;
        if name.is_empty() {
            return Err(
                loaded.field_error(&format!("{disk_at}.name"), "is required: the disk's name")
            );
        }
        if name.len() > MAX_DISK_NAME {
            return Err(loaded.field_error(
                &format!("{disk_at}.name"),
                format!("is {} characters long: at most {MAX_DISK_NAME}", name.len()),
            ));
        }
        let inner_ok = name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        let ends_ok = [name.chars().next(), name.chars().last()]
            .iter()
            .all(|c| c.is_some_and(|c| c.is_ascii_alphanumeric()));
        if !inner_ok || !ends_ok {
            return Err(loaded.field_error(
                &format!("{disk_at}.name"),
                format!(
                    "`{name}`: a disk's name has only letters, digits, `-` and `_`, and starts \
                     and ends with a letter or digit"
                ),
            ));
        }
        if pool.data_disks[..i].iter().any(|d| d.name == *name) {
            return Err(loaded.field_error(
                &format!("{disk_at}.name"),
                format!("`{name}` names an earlier disk too: each disk has its own name"),
            ));
        }
        if disk.size_gib <= 0 || disk.size_gib > MAX_DISK_GIB {
            return Err(loaded.field_error(
                &format!("{disk_at}.sizeGiB"),
                format!(
                    "is required, from 1 to {MAX_DISK_GIB} (GiB){}",
                    if disk.size_gib == 0 {
                        String::new()
                    } else {
                        format!(", not {}", disk.size_gib)
                    }
                ),
            ));
        }
        let mode = disk.provisioning_mode.as_str();
        if !mode.is_empty() && !PROVISIONING_MODES.contains(&mode) {
            return Err(loaded.field_error(
                &format!("{disk_at}.provisioningMode"),
                format!(
                    "`{mode}` is not a provisioning mode: write one of {}, or leave it out",
                    PROVISIONING_MODES.join(", ")
                ),
            ));
        }
    }
    Ok(())
}

fn check_zones(
    loaded: &LoadedConfig,
    pool: &Written,
    at: &str,
    vsphere: &VSpherePlatform,
    zones_once: bool,
) -> Result<()> {
    for (i, zone) in pool.zones.iter().enumerate() {
        let field = format!("{at}.zones.{i}");
        // The installer checks a zone as it checks a cluster name that must begin with a
        // letter: a DNS subdomain of at most 54 characters.
        let chars_ok = zone
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '.');
        let starts_ok = zone.starts_with(|c: char| c.is_ascii_lowercase());
        let ends_ok = zone.ends_with(|c: char| c.is_ascii_lowercase() || c.is_ascii_digit());
        if zone.len() > 54 || !chars_ok || !starts_ok || !ends_ok {
            return Err(loaded.field_error(
                &field,
                format!(
                    "`{zone}` is not a failure domain's name: at most 54 lower-case letters, \
                     digits, `-` and `.`, beginning with a letter"
                ),
            ));
        }
        if zones_once && pool.zones[..i].contains(zone) {
            return Err(loaded.field_error(
                &field,
                format!("`{zone}` is listed twice: name each failure domain once"),
            ));
        }
        if !vsphere.failure_domains.iter().any(|fd| fd.name == *zone) {
            let names: Vec<&str> = vsphere
                .failure_domains
                .iter()
                .map(|fd| fd.name.as_str())
                .collect();
            return Err(loaded.field_error(
                &field,
                format!(
                    "`{zone}` names no failure domain: write one of {}",
                    names.join(", ")
                ),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::pool_tests::tests::config;
    use crate::model::refusal;

    /// The refusal of a compute pool with `settings` for `version`.
    fn refused(settings: &str, version: &str) -> String {
        let pools = format!("compute:\n- name: worker\n  platform:\n    vsphere:\n{settings}");
        refusal(&config(&pools), version)
    }

    #[test]
    fn each_mistake_is_refused_naming_its_field_and_line() {
        let cases = [
            (
                "      cpus: -2\n",
                "compute[0].platform.vsphere.cpus` (line 9)",
                "must be positive",
            ),
            (
                "      memoryMB: -1\n",
                "vsphere.memoryMB` (line 9)",
                "must be positive",
            ),
            (
                "      osDisk: {diskSizeGB: -5}\n",
                "vsphere.osDisk.diskSizeGB` (line 9)",
                "positive",
            ),
            (
                "      cpus: 6\n",
                "vsphere.cpus` (line 9)",
                "not a multiple of the 4 cores",
            ),
            (
                "      cpus: 2\n",
                "vsphere.coresPerSocket`",
                "more than the pool's 2 CPUs",
            ),
            (
                "      zones: [fd3]\n",
                "vsphere.zones[0]` (line 9)",
                "names no failure domain: write one of fd1, fd2",
            ),
            (
                "      zones:\n      - fd1\n      - fd1\n",
                "vsphere.zones[1]` (line 11)",
                "listed twice",
            ),
            (
                "      dataDisks: [{name: a, sizeGiB: 0}]\n",
                "dataDisks[0].sizeGiB` (line 9)",
                "is required",
            ),
            (
                "      dataDisks: [{name: -a, sizeGiB: 1}]\n",
                "dataDisks[0].name`",
                "starts",
            ),
            (
                "      dataDisks: [{name: a, sizeGiB: 1, provisioningMode: Fast}]\n",
                "dataDisks[0].provisioningMode`",
                "Thin",
            ),
            (
                "      memory: 1\n",
                "vsphere.memory` (line 9)",
                "unknown key",
            ),
        ];
        for (settings, field, why) in cases {
            let refused = refused(settings, "4.20.0");
            assert!(
                refused.contains(field) && refused.contains(why),
                "{settings}: {refused}"
            );
        }
        assert_eq!(
            refused("      cpus: 8\n      coresPerSocket: 2\n", "4.20.0"),
            ""
        );
    }

    #[test]
    fn each_release_takes_the_fields_its_installer_has() {
        // Before 4.11 the installer did not check CPUs against cores per socket.
        let text = config("compute:\n- name: worker\n  platform:\n    vsphere: {cpus: 6}\n");
        assert!(refusal(&text, "4.20.0").contains("not a multiple"));
        // Data disks arrived in 4.19: 4.16's installer ignores them (a warning, no refusal).
        let disks = "      dataDisks: [{name: a, sizeGiB: 10}]\n";
        assert_eq!(refused(disks, "4.16.0"), "");
        assert_eq!(refused(disks, "4.19.0"), "");
        // A zone listed twice is refused from 4.16; before, it takes the domain twice.
        let twice = "      zones:\n      - fd1\n      - fd1\n";
        assert_eq!(refused(twice, "4.15.0"), "");
        assert!(refused(twice, "4.16.0").contains("listed twice"));
        // 4.11's installer refuses a field it does not know: zones arrived in 4.12.
        let zones = refused("      zones: [fd1]\n", "4.11.0");
        assert!(
            zones.contains("`compute[0].platform.vsphere.zones`") && zones.contains("4.12"),
            "{zones}"
        );
    }

    #[test]
    fn other_platforms_refuse_vsphere_settings_naming_their_platform() {
        let text = "apiVersion: v1\nmetadata:\n  name: demo\nbaseDomain: example.com\ncompute:\n- name: worker\n  platform:\n    vsphere: {cpus: 8}\nplatform:\n  none: {}\npullSecret: '{\"auths\":{\"r\":{\"auth\":\"eDp5\"}}}'\n";
        let refused = refusal(text, "4.20.0");
        assert!(
            refused.contains("`compute[0].platform.vsphere`")
                && refused
                    .contains("a pool on platform none takes no settings of platform `vsphere`"),
            "{refused}"
        );
        // On vSphere another platform's settings are refused too; `none: {}` says nothing.
        let aws = config("compute:\n- name: worker\n  platform:\n    aws: {type: m5}\n");
        let refused = refusal(&aws, "4.20.0");
        assert!(
            refused.contains("a pool on platform vsphere takes no settings of platform `aws`"),
            "{refused}"
        );
        let none = config("compute:\n- name: worker\n  platform:\n    none: {}\n");
        assert_eq!(refusal(&none, "4.20.0"), "");
        let external = text.replace("  none: {}", "  external: {platformName: oci}");
        let refused = refusal(&external, "4.20.0");
        assert!(refused.contains("a pool on platform external"), "{refused}");
    }
}
