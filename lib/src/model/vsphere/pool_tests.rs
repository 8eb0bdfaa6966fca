//! Tests of the vSphere pools' merging (`pools.rs`) and stored form (`stored.rs`), and the
//! install-config they share with the checks' tests (`pool_checks.rs`).

pub(super) mod tests {
    /// A vSphere install-config with two failure domains and `pools` (placed before
    /// `platform`, from line 5 on).
    pub(in crate::model::vsphere) fn config(pools: &str) -> String {
        format!(
            "apiVersion: v1\nmetadata:\n  name: demo\nbaseDomain: example.com\n{pools}platform:\n  vsphere:\n    vcenters:\n    - {{server: vc.example.com, user: u, password: p, datacenters: [dc1]}}\n    failureDomains:\n    - {{name: fd1, region: r, zone: z1, server: vc.example.com, topology: {{datacenter: dc1, computeCluster: /dc1/host/c1, networks: [n], datastore: /dc1/datastore/d1}}}}\n    - {{name: fd2, region: r, zone: z2, server: vc.example.com, topology: {{datacenter: dc1, computeCluster: /dc1/host/c2, networks: [n], datastore: /dc1/datastore/d2}}}}\npullSecret: '{{\"auths\":{{\"r\":{{\"auth\":\"eDp5\"}}}}}}'\n"
        )
    }

    fn model(text: &str, version: &str) -> crate::model::Model {
        let loaded = crate::config::parse(text, "install-config.yaml").unwrap();
        let options = crate::model::ModelOptions {
            release_version: Some(version.into()),
            ..Default::default()
        };
        crate::model::Model::new(&loaded, &options).unwrap()
    }

    #[test]
    fn the_pool_wins_over_the_default_machine_platform_which_wins_over_the_defaults() {
        let text = config(
            "controlPlane:\n  platform:\n    vsphere: {}\ncompute:\n- name: worker\n  platform:\n    vsphere: {cpus: 8, zones: [fd2]}\n",
        )
        .replace(
            "    vcenters:",
            "    defaultMachinePlatform: {cpus: 12, memoryMB: 32768, zones: [fd1]}\n    vcenters:",
        );
        let built = model(&text, "4.16.0");
        let pools = &built.platform.vsphere().unwrap().machine_pools;
        let cp = &pools.control_plane;
        assert_eq!((cp.cpus, cp.cores_per_socket), (12, 4));
        assert_eq!((cp.memory_mib, cp.disk_gib), (32768, 120));
        // The installer's check filled the control plane's zones in: every failure domain.
        assert_eq!(cp.zones, ["fd1", "fd2"]);
        let worker = &pools.compute[0];
        assert_eq!((worker.cpus, worker.memory_mib), (8, 32768));
        assert_eq!(worker.zones, ["fd2"]);
        // A pool without `platform.vsphere` takes the default machine platform's zones.
        let bare = config("").replace(
            "    vcenters:",
            "    defaultMachinePlatform: {zones: [fd2]}\n    vcenters:",
        );
        let pools = model(&bare, "4.16.0")
            .platform
            .vsphere()
            .unwrap()
            .machine_pools
            .clone();
        assert_eq!(pools.control_plane.zones, ["fd2"]);
        assert_eq!(pools.compute[0].zones, ["fd2"]);
    }

    #[test]
    fn without_settings_the_pools_have_the_installers_sizes() {
        let model = model(&config(""), "4.20.0");
        let pools = &model.platform.vsphere().unwrap().machine_pools;
        assert_eq!(pools.control_plane.cpus, 4);
        assert_eq!(pools.compute.len(), 1);
        assert_eq!(pools.compute[0].memory_mib, 16384);
        assert!(pools.compute[0].zones.is_empty());
    }
}

mod stored_tests {
    use super::tests::config;

    fn stored(text: &str, version: &str) -> String {
        let loaded = crate::config::parse(text, "install-config.yaml").unwrap();
        let options = crate::model::ModelOptions {
            release_version: Some(version.into()),
            ..Default::default()
        };
        crate::model::Model::new(&loaded, &options)
            .unwrap()
            .stored_install_config
    }

    #[test]
    fn a_pools_settings_are_stored_as_the_installer_stores_them() {
        let text = config("compute:\n- name: worker\n  platform:\n    vsphere: {cpus: 8}\n");
        let pool = "    vsphere:\n      cpus: 8\n      coresPerSocket: 0\n      memoryMB: 0\n      osDisk:\n        diskSizeGB: 0\n      zones:\n      - fd1\n      - fd2\n";
        let at_20 = stored(&text, "4.20.0");
        assert!(
            at_20.contains(&format!("{pool}      dataDisks: null\n")),
            "{at_20}"
        );
        let at_22 = stored(&text, "4.22.0");
        assert!(
            at_22.contains(pool) && !at_22.contains("dataDisks"),
            "{at_22}"
        );
    }
}

/// A pool's settings read with their serde types (`pool_values.rs`).
mod shape_tests {
    use super::tests::config;
    use crate::model::refusal;

    /// The refusal of a compute pool with `settings` (from line 9 on) for `version`.
    fn refused(settings: &str, version: &str) -> String {
        let pools = format!("compute:\n- name: worker\n  platform:\n    vsphere:\n{settings}");
        refusal(&config(&pools), version)
    }

    #[test]
    fn a_value_of_the_wrong_shape_names_its_field_and_line() {
        let cases = [
            (
                "      cpus: many\n",
                "vsphere.cpus` (line 9)",
                "must be a whole number",
            ),
            (
                "      cpus: 1.5\n",
                "vsphere.cpus` (line 9)",
                "up to 2147483647",
            ),
            (
                "      osDisk: 120\n",
                "vsphere.osDisk` (line 9)",
                "`osDisk: {diskSizeGB: 120}`",
            ),
            (
                "      osDisk:\n        size: 120\n",
                "vsphere.osDisk.size` (line 10)",
                "unknown key; osDisk takes diskSizeGB",
            ),
            (
                "      zones: fd1\n",
                "vsphere.zones` (line 9)",
                "list of failure domains' names",
            ),
            (
                "      zones:\n      - 1\n",
                "vsphere.zones[0]` (line 10)",
                "a failure domain's name",
            ),
            (
                "      dataDisks: {}\n",
                "vsphere.dataDisks` (line 9)",
                "must be a list of disks",
            ),
            (
                "      dataDisks: [a]\n",
                "vsphere.dataDisks[0]` (line 9)",
                "map: name, sizeGiB",
            ),
            (
                "      dataDisks:\n      - name: [a]\n",
                "vsphere.dataDisks[0].name` (line 10)",
                "must be a string",
            ),
            (
                "      dataDisks:\n      - name: a\n        mode: Thin\n",
                "vsphere.dataDisks[0].mode` (line 11)",
                "a data disk takes name, sizeGiB, provisioningMode",
            ),
        ];
        for (settings, field, why) in cases {
            let refused = refused(settings, "4.20.0");
            assert!(
                refused.contains(&format!("`compute[0].platform.{field}")) && refused.contains(why),
                "{settings}: {refused}"
            );
        }
        let defaults = config("").replace(
            "    vcenters:",
            "    defaultMachinePlatform:\n      memoryMB: lots\n    vcenters:",
        );
        let refused = refusal(&defaults, "4.20.0");
        assert!(
            refused.contains("`platform.vsphere.defaultMachinePlatform.memoryMB` (line 8)")
                && refused.contains("must be a whole number"),
            "{refused}"
        );
    }

    /// A field the release's installer does not have is not read: 4.16's installer ignores
    /// `dataDisks`, whatever it holds.
    #[test]
    fn a_field_the_release_ignores_is_not_read() {
        assert_eq!(refused("      dataDisks: 5\n", "4.16.0"), "");
        assert!(refused("      dataDisks: 5\n", "4.20.0").contains("must be a list of disks"));
    }
}
