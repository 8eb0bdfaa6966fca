//! Tests of `platform.vsphere` read with its serde types (`read.rs`, `written.rs`): a value of
//! the wrong shape named by its path and line, unknown keys refused as before for each release.

/// A vSphere install-config in the `vcenters` form, one key a line: the failure domain's
/// `region` is on line 14, its topology's `networks` on line 20.
pub(super) const CONFIG: &str = "apiVersion: v1
metadata:
  name: demo
baseDomain: example.com
platform:
  vsphere:
    vcenters:
    - server: vc.example.com
      user: u
      password: p
      datacenters: [dc1]
    failureDomains:
    - name: fd1
      region: r
      zone: z1
      server: vc.example.com
      topology:
        datacenter: dc1
        computeCluster: /dc1/host/c1
        networks: [n]
        datastore: /dc1/datastore/d1
pullSecret: '{\"auths\":{\"r\":{\"auth\":\"eDp5\"}}}'
";

/// The same cluster in the single-vCenter fields (`vCenter` on line 7).
pub(super) const LEGACY: &str = "apiVersion: v1
metadata:
  name: demo
baseDomain: example.com
platform:
  vsphere:
    vCenter: vc.example.com
    username: u
    password: p
    datacenter: dc1
    defaultDatastore: d1
    cluster: c1
    network: n
pullSecret: '{\"auths\":{\"r\":{\"auth\":\"eDp5\"}}}'
";

fn refusal(text: &str, version: &str) -> String {
    crate::model::refusal(text, version)
}

#[test]
fn both_forms_are_read() {
    for version in ["4.13.0", "4.16.0"] {
        assert_eq!(refusal(CONFIG, version), "", "{version}");
    }
    for version in ["4.9.0", "4.12.0", "4.16.0"] {
        assert_eq!(refusal(LEGACY, version), "", "{version}");
    }
}

// The single-vCenter fields without `cluster` and `network` (machines the user makes, as the
// UPI documents of those releases show them): every release takes them; from 4.13 a network
// without a cluster is refused, as the installer refuses it.
#[test]
fn the_single_vcenter_fields_may_leave_out_cluster_and_network() {
    let without = |keys: &[&str]| {
        LEGACY
            .lines()
            .filter(|line| !keys.iter().any(|k| line.trim_start().starts_with(k)))
            .map(|line| format!("{line}\n"))
            .collect::<String>()
    };
    let neither = without(&["cluster:", "network:"]);
    let cluster_only = without(&["network:"]);
    let network_only = without(&["cluster:"]);
    for version in ["4.9.0", "4.12.0", "4.13.0", "4.16.0", "4.22.0"] {
        assert_eq!(refusal(&neither, version), "", "{version}");
        assert_eq!(refusal(&cluster_only, version), "", "{version}");
    }
    for version in ["4.9.0", "4.12.0"] {
        assert_eq!(refusal(&network_only, version), "", "{version}");
    }
    for version in ["4.13.0", "4.22.0"] {
        let refused = refusal(&network_only, version);
        assert!(
            refused.contains("platform.vsphere.cluster") && refused.contains("leave out both"),
            "{version}: {refused}"
        );
    }
}

#[test]
fn a_wrong_type_in_a_failure_domain_names_its_path_and_line() {
    let region = refusal(&CONFIG.replace("region: r", "region: [r]"), "4.16.0");
    assert!(
        region.contains("`platform.vsphere.failureDomains[0].region` (line 14)")
            && region.contains("must be a string"),
        "{region}"
    );
    let networks = refusal(&CONFIG.replace("networks: [n]", "networks: n"), "4.16.0");
    assert!(
        networks.contains("`platform.vsphere.failureDomains[0].topology.networks` (line 20)")
            && networks.contains("must be a list"),
        "{networks}"
    );
    let network = refusal(&CONFIG.replace("networks: [n]", "networks: [7]"), "4.16.0");
    assert!(
        network.contains("`platform.vsphere.failureDomains[0].topology.networks[0]` (line 20)")
            && network.contains("must be a non-empty string"),
        "{network}"
    );
    let topology = refusal(
        &CONFIG.replace(
            "      topology:\n        datacenter: dc1\n        computeCluster: /dc1/host/c1\n        networks: [n]\n        datastore: /dc1/datastore/d1\n",
            "      topology: dc1\n",
        ),
        "4.16.0",
    );
    assert!(
        topology.contains("`platform.vsphere.failureDomains[0].topology` (line 17)")
            && topology.contains("must be a map"),
        "{topology}"
    );
    let port = refusal(
        &CONFIG.replace("      user: u\n", "      port: https\n      user: u\n"),
        "4.16.0",
    );
    assert!(
        port.contains("`platform.vsphere.vcenters[0].port` (line 9)")
            && port.contains("must be a port number, 1 to 65535"),
        "{port}"
    );
    let vip = refusal(
        &CONFIG.replace("    vcenters:\n", "    apiVIPs: [true]\n    vcenters:\n"),
        "4.16.0",
    );
    assert!(
        vip.contains("`platform.vsphere.apiVIPs[0]` (line 7)")
            && vip.contains("must be an IP address"),
        "{vip}"
    );
    let legacy = refusal(
        &LEGACY.replace("vCenter: vc.example.com", "vCenter: 5"),
        "4.12.0",
    );
    assert!(
        legacy.contains("`platform.vsphere.vCenter` (line 7)")
            && legacy.contains("must be a string"),
        "{legacy}"
    );
}

/// A key the types do not read is refused naming the keys its map takes, and what only a
/// later release reads is decided by the release, as its installer decides.
#[test]
fn an_unknown_key_is_decided_as_before_for_each_release() {
    let colour = CONFIG.replace("    vcenters:\n", "    colour: red\n    vcenters:\n");
    for version in ["4.13.0", "4.16.0", "4.22.0"] {
        let refused = refusal(&colour, version);
        assert!(
            refused.contains("`platform.vsphere.colour` (line 7)")
                && refused.contains("unknown key; bootgen reads vcenters, failureDomains"),
            "{version}: {refused}"
        );
    }
    let in_topology = CONFIG.replace(
        "        networks: [n]\n",
        "        networks: [n]\n        colour: red\n",
    );
    let refused = refusal(&in_topology, "4.16.0");
    assert!(
        refused.contains("`platform.vsphere.failureDomains[0].topology.colour` (line 21)")
            && refused.contains("bootgen reads datacenter, computeCluster"),
        "{refused}"
    );
    // The section's own keys are named before a vCenter's, whatever the order written.
    let both = colour.replace("      user: u\n", "      user: u\n      colour: red\n");
    assert!(refusal(&both, "4.16.0").contains("`platform.vsphere.colour`"));
    let legacy_colour = LEGACY.replace("    network: n\n", "    network: n\n    colour: red\n");
    for version in ["4.9.0", "4.10.0", "4.11.0", "4.12.0"] {
        let refused = refusal(&legacy_colour, version);
        assert!(
            refused.contains("`platform.vsphere.colour` (line 14)"),
            "{version}: {refused}"
        );
    }
    // apiVIPs arrived in 4.12: 4.10's and 4.11's installers refuse the field, 4.9's takes the
    // single-VIP fields only, 4.12's reads it.
    let vips = LEGACY.replace(
        "    network: n\n",
        "    network: n\n    apiVIPs: [192.0.2.5]\n    ingressVIPs: [192.0.2.6]\n",
    );
    for version in ["4.10.0", "4.11.0"] {
        let refused = refusal(&vips, version);
        assert!(
            refused.contains("`platform.vsphere.apiVIPs`")
                && refused.contains("does not know this field"),
            "{version}: {refused}"
        );
    }
    let refused = refusal(&vips, "4.9.0");
    assert!(
        refused.contains("`platform.vsphere.apiVIPs`") && refused.contains("apiVIP and ingressVIP"),
        "{refused}"
    );
    assert_eq!(refusal(&vips, "4.12.0"), "");
}

/// What the refusals of unknown keys list as a map's keys is what its serde type reads.
#[test]
fn the_keys_messages_list_are_the_keys_the_types_read() {
    use super::read::{FAILURE_DOMAIN_KEYS, TOPOLOGY_KEYS, VCENTER_KEYS};
    use super::written::{Written, WrittenFailureDomain, WrittenTopology, WrittenVCenter};
    use super::{KNOWN_KEYS, LEGACY_KEYS};
    use serde::de::DeserializeOwned;

    /// The keys of `keys`, each written null, that `T` does not read.
    fn unread<T: DeserializeOwned>(keys: &[&str]) -> Vec<String> {
        let loaded = crate::config::parse("apiVersion: v1\n", "ic.yaml").unwrap();
        let map: serde_json::Map<String, serde_json::Value> = keys
            .iter()
            .map(|k| (k.to_string(), serde_json::Value::Null))
            .collect();
        let mut found = Vec::new();
        let read = crate::model::section::read::<T>(
            &loaded,
            "platform.vsphere",
            &serde_json::Value::Object(map),
            |unknown| {
                found = unknown.to_vec();
                loaded.field_error("platform.vsphere", "unknown")
            },
        );
        assert!(read.is_ok() || !found.is_empty());
        found
    }
    let mut section: Vec<&str> = KNOWN_KEYS.to_vec();
    section.extend(LEGACY_KEYS.iter().map(|(k, _)| *k));
    assert!(unread::<Written>(&section).is_empty());
    assert!(unread::<WrittenVCenter>(VCENTER_KEYS).is_empty());
    assert!(unread::<WrittenFailureDomain>(FAILURE_DOMAIN_KEYS).is_empty());
    assert!(unread::<WrittenTopology>(TOPOLOGY_KEYS).is_empty());
    assert_eq!(
        unread::<WrittenTopology>(&["networks", "colour"]),
        ["colour"]
    );
}

/// vSphere takes an IPv6-primary dual-stack cluster from 4.14, as the installer does (platform
/// none only from 4.21).
#[test]
fn ipv6_first_dual_stack_is_taken_on_vsphere_from_4_14() {
    let v6_first = format!(
        "{LEGACY}networking:\n  clusterNetwork:\n  - cidr: fd01::/48\n    hostPrefix: 64\n  - cidr: 10.128.0.0/14\n    hostPrefix: 23\n  serviceNetwork:\n  - fd02::/112\n  - 172.30.0.0/16\n  machineNetwork:\n  - cidr: fd00::/48\n  - cidr: 192.0.2.0/24\n"
    );
    assert!(refusal(&v6_first, "4.13.0").contains("put the IPv4 network first"));
    for version in ["4.14.0", "4.19.0", "4.20.0"] {
        assert_eq!(refusal(&v6_first, version), "", "{version}");
    }
}

/// One control-plane machine on vSphere: taken until 4.18, refused from 4.19 with or without
/// bootstrapInPlace, naming controlPlane.replicas, as the installer refuses it.
#[test]
fn a_single_control_plane_machine_is_refused_from_4_19() {
    let one = format!(
        "{CONFIG}controlPlane:\n  name: master\n  replicas: 1\ncompute:\n- name: worker\n  replicas: 0\n"
    );
    let in_place = format!("{one}bootstrapInPlace:\n  installationDisk: /dev/sda\n");
    for config in [&one, &in_place] {
        for version in ["4.13.0", "4.18.0"] {
            assert_eq!(refusal(config, version), "", "{version}");
        }
        for version in ["4.19.0", "4.22.0", "5.0.0"] {
            let refused = refusal(config, version);
            assert!(
                refused.contains("controlPlane.replicas")
                    && refused.contains("no single-node cluster on platform vsphere"),
                "{version}: {refused}"
            );
        }
    }
}

/// The installer's checks between failure domains, each from its release on: a name used twice
/// (4.16), a zone used twice in one region (4.20), a datacenter its vCenter does not list (4.22).
#[test]
fn failure_domains_are_checked_against_each_other_from_their_release() {
    let second = |name: &str, region: &str, zone: &str, datacenter: &str| {
        format!(
            "{CONFIG}    - name: {name}\n      region: {region}\n      zone: {zone}\n      server: vc.example.com\n      topology:\n        datacenter: {datacenter}\n        computeCluster: /{datacenter}/host/c1\n        networks: [n]\n        datastore: /{datacenter}/datastore/d2\n"
        )
        .replace("pullSecret: '{\"auths\":{\"r\":{\"auth\":\"eDp5\"}}}'\n", "")
            + "pullSecret: '{\"auths\":{\"r\":{\"auth\":\"eDp5\"}}}'\n"
    };
    let cases = [
        (
            second("fd1", "r", "z2", "dc1"),
            "4.15.0",
            "4.16.0",
            "[1].name",
        ),
        (
            second("fd2", "r", "z1", "dc1"),
            "4.19.0",
            "4.20.0",
            "[1].zone",
        ),
        (
            second("fd2", "r", "z2", "dc2"),
            "4.21.0",
            "4.22.0",
            "[1].topology.datacenter",
        ),
    ];
    for (config, before, first, field) in &cases {
        assert_eq!(refusal(config, before), "", "{before}: {field}");
        for version in [*first, "5.0.0"] {
            let refused = refusal(config, version);
            assert!(refused.contains(field), "{version}: {refused}");
        }
    }
    // Another region may use the zone again.
    assert_eq!(refusal(&second("fd2", "r2", "z1", "dc1"), "5.0.0"), "");
}

/// A vCenter reached by an IPv6 address: taken until 4.22, refused from 5.0, whose installer
/// cannot parse it as a URL's host; in either form, naming the field written.
#[test]
fn an_ipv6_vcenter_is_refused_from_5_0() {
    let modern = CONFIG.replace("vc.example.com", "2001:db8::10");
    let legacy = LEGACY.replace("vc.example.com", "2001:db8::10");
    for (config, field) in [
        (&modern, "platform.vsphere.vcenters[0].server` (line 8)"),
        (&legacy, "platform.vsphere.vCenter` (line 7)"),
    ] {
        assert_eq!(refusal(config, "4.22.0"), "", "{field}");
        let refused = refusal(config, "5.0.0");
        assert!(refused.contains(field), "{refused}");
    }
}
