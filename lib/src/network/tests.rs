//! The hosts reader and the checks against the cluster, on the fixtures of
//! `fixtures/network/`: each mistake is refused naming the host and the field.

use super::*;
use crate::config;
use crate::model::Model;

fn fixture(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/network")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn model(install_config: &str) -> Model {
    let loaded = config::parse(install_config, "install-config.yaml").unwrap();
    Model::new(&loaded, &Default::default()).unwrap()
}

fn cluster() -> Model {
    model(&fixture("install-config.yaml"))
}

/// The error checking `hosts` (read or against the cluster) gives.
fn refusal(hosts: &str, model: &Model) -> String {
    match parse_hosts(hosts, "agent-config.yaml") {
        Err(error) => error.to_string(),
        Ok(hosts) => check_hosts(&hosts, model)
            .map(|w| format!("accepted, warnings: {w:?}"))
            .unwrap_or_else(|e| e.to_string()),
    }
}

#[test]
fn the_cluster_fixture_reads_converts_and_passes_every_check() {
    let hosts = parse_hosts(&fixture("agent-config.yaml"), "agent-config.yaml").unwrap();
    assert!(hosts.warnings.is_empty(), "{:?}", hosts.warnings);
    let names: Vec<&str> = hosts.hosts.iter().map(|h| h.hostname.as_str()).collect();
    assert_eq!(names, ["bootstrap", "master-0", "master-1", "master-2"]);
    let files: Vec<String> = host_keyfiles(&hosts.hosts[1])
        .into_iter()
        .map(|(name, _)| name)
        .collect();
    assert_eq!(
        files,
        [
            "bond0.300.nmconnection",
            "bond0.nmconnection",
            "eno1.nmconnection",
            "eno2.nmconnection"
        ]
    );
    let master2 = &hosts.hosts[3].network.interfaces[0];
    assert_eq!(master2.addresses.len(), 2, "dual-stack: {master2:?}");
    assert_eq!(
        hosts.hosts[1]
            .root_device_hints
            .as_ref()
            .and_then(|h| h.device_name.as_deref()),
        Some("/dev/sda")
    );
    assert_eq!(check_hosts(&hosts, &cluster()).unwrap(), Vec::new());
}

#[test]
fn each_mistake_is_refused_naming_the_host_and_the_field() {
    let text = fixture("agent-config.yaml");
    let cluster = cluster();
    let cases: &[(&str, &str, &str, &[&str])] = &[
        (
            "two hosts with one address",
            "ip: 192.168.111.22",
            "ip: 192.168.111.21",
            &["hosts[3].networkConfig.interfaces[0].ipv4.address[0].ip", "host master-2:", "also host master-1's"],
        ),
        (
            "the bootstrap's address a control-plane host's",
            "ip: 192.168.111.10",
            "ip: 192.168.111.20",
            &["hosts[1].networkConfig.interfaces[1].ipv4.address[0].ip", "host master-0:", "also host bootstrap's", "bootstrap host"],
        ),
        (
            "one MAC on two hosts",
            "macAddress: 02:00:00:00:03:01",
            "macAddress: 02:00:00:00:02:02",
            &["hosts[3].interfaces[0].macAddress", "host master-2:", "also host master-1's"],
        ),
        (
            "an interface networkConfig names that the host does not list",
            "- name: eno1\n    macAddress: 02:00:00:00:03:01",
            "- name: eno9\n    macAddress: 02:00:00:00:03:01",
            &["hosts[3].networkConfig.interfaces[0].name", "host master-2:", "eno1 is not among the host's interfaces"],
        ),
        (
            "an address in no machine network",
            "ip: 192.168.111.22",
            "ip: 192.168.112.22",
            &["hosts[3].networkConfig.interfaces[0].ipv4.address[0].ip", "host master-2:", "in no machine network"],
        ),
        (
            "a gateway outside its subnet",
            "next-hop-address: 192.168.111.1\n        next-hop-interface: eno1\n        table-id: 254\n      - destination: ::/0",
            "next-hop-address: 192.168.112.1\n        next-hop-interface: eno1\n        table-id: 254\n      - destination: ::/0",
            &["hosts[3].networkConfig.routes.config[0].next-hop-address", "host master-2:", "outside the subnet"],
        ),
        (
            "no DNS server where every interface is static",
            "        - 192.168.111.1\n        - fd2e:6f44:5dd8:c956::1\n",
            "",
            &["hosts[3].networkConfig.dns-resolver.config.server", "host master-2:", "no DNS server"],
        ),
        (
            "fewer control-plane hosts than replicas",
            "- hostname: master-2\n  role: master",
            "- hostname: master-2\n  role: worker",
            &["`hosts`", "2 host(s) with role master", "controlPlane.replicas is 3"],
        ),
        (
            "a role missing among several hosts",
            "- hostname: master-2\n  role: master\n",
            "- hostname: master-2\n",
            &["hosts[3].role", "host master-2:", "is required"],
        ),
        (
            "an interface kind bootgen does not convert",
            "type: vlan",
            "type: ovs-bridge",
            &["hosts[1].networkConfig.interfaces[1].type", "host master-0:", "does not convert `ovs-bridge`"],
        ),
        (
            "an interface name that is a path",
            "    - name: bond0.300\n      type: vlan",
            "    - name: ../../x\n      type: vlan",
            &["hosts[1].networkConfig.interfaces[1].name", "host master-0:", "is not an interface name"],
        ),
        (
            "a VLAN ID NetworkManager drops",
            "        id: 300",
            "        id: 5000",
            &["hosts[1].networkConfig.interfaces[1].vlan.id", "host master-0:", "`5000` is not a VLAN ID: 0 to 4094"],
        ),
        (
            "a VLAN without its ID",
            "        id: 300\n",
            "",
            &["hosts[1].networkConfig.interfaces[1].vlan.id", "host master-0:", "is required: the VLAN ID"],
        ),
        (
            "an interface's mac-address that is none",
            "    - name: eno1\n      type: ethernet\n      state: up\n      ipv4:\n        enabled: true\n        dhcp: false\n        address:\n        - ip: 192.168.111.22",
            "    - name: eno1\n      type: ethernet\n      mac-address: nonsense\n      state: up\n      ipv4:\n        enabled: true\n        dhcp: false\n        address:\n        - ip: 192.168.111.22",
            &["hosts[3].networkConfig.interfaces[0].mac-address", "host master-2:", "`nonsense` is not a MAC address"],
        ),
        (
            "an interface's mac-address another host's NIC has",
            "    - name: eno1\n      type: ethernet\n      state: up\n      ipv4:\n        enabled: true\n        dhcp: false\n        address:\n        - ip: 192.168.111.22",
            "    - name: eno1\n      type: ethernet\n      mac-address: 02:00:00:00:01:01\n      state: up\n      ipv4:\n        enabled: true\n        dhcp: false\n        address:\n        - ip: 192.168.111.22",
            &["hosts[3].networkConfig.interfaces[0].mac-address", "host master-2:", "MAC 02:00:00:00:01:01 is also host master-0's"],
        ),
        (
            "the subnet's broadcast address",
            "ip: 192.168.111.22",
            "ip: 192.168.111.255",
            &["hosts[3].networkConfig.interfaces[0].ipv4.address[0].ip", "host master-2:", "the broadcast address of its subnet"],
        ),
        (
            "the subnet's network address",
            "ip: 192.168.111.22",
            "ip: 192.168.111.0",
            &["hosts[3].networkConfig.interfaces[0].ipv4.address[0].ip", "the network address of its subnet"],
        ),
        (
            "a prefix length of 0",
            "- ip: 192.168.111.22\n          prefix-length: 24",
            "- ip: 192.168.111.22\n          prefix-length: 0",
            &["hosts[3].networkConfig.interfaces[0].ipv4.address[0]", "prefix-length of 1 to 32"],
        ),
        (
            "the host's own address as its gateway",
            "next-hop-address: 192.168.111.1\n        next-hop-interface: eno1\n        table-id: 254\n      - destination: ::/0",
            "next-hop-address: 192.168.111.22\n        next-hop-interface: eno1\n        table-id: 254\n      - destination: ::/0",
            &["hosts[3].networkConfig.routes.config[0].next-hop-address", "the host's own address"],
        ),
        (
            "a root device that is no device path",
            "    deviceName: /dev/sda\n  networkConfig:\n    interfaces:\n    - name: eno1\n      type: ethernet\n      state: up\n      ipv4:\n        enabled: true\n        dhcp: false\n        address:\n        - ip: 192.168.111.22",
            "    deviceName: sda\n  networkConfig:\n    interfaces:\n    - name: eno1\n      type: ethernet\n      state: up\n      ipv4:\n        enabled: true\n        dhcp: false\n        address:\n        - ip: 192.168.111.22",
            &["hosts[3].rootDeviceHints.deviceName", "host master-2:", "`/dev/sda`"],
        ),
        (
            "a key nmstate does not know",
            "      type: ethernet\n      state: up\n      ipv4:\n        enabled: true\n        dhcp: false\n        address:\n        - ip: 192.168.111.22",
            "      type: ethernet\n      state: up\n      colour: red\n      ipv4:\n        enabled: true\n        dhcp: false\n        address:\n        - ip: 192.168.111.22",
            &["hosts[3].networkConfig", "host master-2:", "nmstate cannot convert it", "colour"],
        ),
    ];
    for (what, from, to, fragments) in cases {
        assert!(text.contains(from), "{what}: the fixture has no `{from}`");
        let error = refusal(&text.replacen(from, to, 1), &cluster);
        for fragment in *fragments {
            assert!(
                error.contains(fragment),
                "{what}: `{fragment}` not in: {error}"
            );
        }
    }
}

#[test]
fn an_ipv6_host_needs_a_cluster_with_ipv6() {
    let single = model(&fixture("single-node/install-config.yaml"));
    let error = refusal(&fixture("ipv6-only.yaml"), &single);
    assert!(
        error.contains("hosts[0].networkConfig.interfaces[0].ipv6.address[0].ip"),
        "{error}"
    );
    assert!(error.contains("host master-0: fd00:10::20 is an IPv6 address, and the cluster has no IPv6 machine network"), "{error}");
    let ipv6 = model(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../fixtures/install-configs/valid/ipv6.yaml"
        ))
        .unwrap(),
    );
    let hosts = parse_hosts(&fixture("ipv6-only.yaml"), "ipv6-only.yaml").unwrap();
    // One host of three replicas: the count is wrong, the address is not.
    let error = check_hosts(&hosts, &ipv6).unwrap_err().to_string();
    assert!(error.contains("1 host(s) with role master"), "{error}");
}

#[test]
fn a_vip_is_no_host_address() {
    let vsphere = model(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../fixtures/install-configs/valid/vsphere.yaml"
        ))
        .unwrap(),
    );
    let text = "hosts:\n- hostname: m0\n  role: master\n  interfaces:\n  - name: eno1\n    macAddress: 02:00:00:00:00:09\n  networkConfig:\n    interfaces:\n    - name: eno1\n      type: ethernet\n      ipv4:\n        enabled: true\n        address:\n        - ip: 10.0.0.5\n          prefix-length: 24\n    dns-resolver:\n      config:\n        server: [10.0.0.1]\n";
    let error = refusal(text, &vsphere);
    assert!(
        error.contains("host m0: 10.0.0.5 is one of the cluster's VIPs"),
        "{error}"
    );
}

#[test]
fn replicas_left_open_warn_and_unknown_keys_warn_with_their_line() {
    let open = fixture("install-config.yaml").replace("  replicas: 3\n", "");
    let text = fixture("agent-config.yaml")
        .replacen(
            "- hostname: master-2\n  role: master",
            "- hostname: master-2\n  role: bootstrap",
            1,
        )
        .replacen(
            "  name: static\n",
            "  name: static\nrendezvousIP: 192.168.111.20\nhostz: []\n",
            1,
        );
    let hosts = parse_hosts(&text, "agent-config.yaml").unwrap();
    let said: Vec<(&str, Option<usize>)> = hosts
        .warnings
        .iter()
        .map(|w| (w.field.as_str(), w.line))
        .collect();
    assert_eq!(said, [("rendezvousIP", Some(5)), ("hostz", Some(6))]);
    assert!(hosts.warnings[0]
        .message
        .contains("bootgen does not use a rendezvous host"));
    let warnings = check_hosts(&hosts, &model(&open)).unwrap();
    assert!(
        warnings
            .iter()
            .any(|w| w.message.contains("2 host(s) with role master")
                && w.message.contains("leaves it open")),
        "{warnings:?}"
    );
}

#[test]
fn the_bootstrap_config_places_one_host_directly_and_several_through_the_script() {
    let hosts = parse_hosts(&fixture("agent-config.yaml"), "agent-config.yaml").unwrap();
    let (files, unit) = bootstrap_files(Some(&hosts), &[], false).unwrap();
    assert!(unit.is_none());
    let paths: Vec<(&str, u32)> = files.iter().map(|f| (f.path.as_str(), f.mode)).collect();
    assert_eq!(
        paths,
        [
            (
                "/etc/NetworkManager/system-connections/eno1.nmconnection",
                0o600
            ),
            ("/etc/hostname", 0o644)
        ]
    );
    // Two bootstrap candidates: both staged, chosen on the machine by MAC.
    let two = fixture("agent-config.yaml").replacen(
        "- hostname: master-2\n  role: master",
        "- hostname: master-2\n  role: bootstrap",
        1,
    );
    let hosts = parse_hosts(&two, "agent-config.yaml").unwrap();
    let (files, unit) = bootstrap_files(Some(&hosts), &[], false).unwrap();
    assert!(unit.is_some_and(|u| u.contains("Before=NetworkManager.service")));
    let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
    assert!(
        paths.contains(&"/etc/bootgen/network/master-2/macs"),
        "{paths:?}"
    );
    assert!(
        paths.contains(&"/etc/bootgen/network/bootstrap/eno1.nmconnection"),
        "{paths:?}"
    );
    assert!(paths.contains(&SELECT_SCRIPT), "{paths:?}");
}

#[test]
fn a_user_keyfile_of_a_host_keyfile_name_is_refused() {
    let hosts = parse_hosts(&fixture("agent-config.yaml"), "agent-config.yaml").unwrap();
    let mine = Keyfile {
        name: "eno1.nmconnection".into(),
        contents: "[connection]\ntype=ethernet\n".into(),
    };
    let error = bootstrap_files(
        Some(&hosts),
        &[("mine/eno1.nmconnection".into(), mine)],
        false,
    )
    .unwrap_err()
    .to_string();
    assert!(
        error.contains("mine/eno1.nmconnection") && error.contains("another keyfile"),
        "{error}"
    );
}

/// The keyfile `name` of the only host of `hosts`.
fn converted(hosts: &str, name: &str) -> String {
    let hosts = parse_hosts(hosts, "agent-config.yaml").unwrap();
    host_keyfiles(&hosts.hosts[0])
        .into_iter()
        .find(|(file, _)| file == name)
        .unwrap_or_else(|| panic!("no {name} in {:?}", hosts.hosts[0].keyfiles))
        .1
}

const ONE_HOST: &str = "hosts:\n- hostname: h\n  role: master\n  interfaces:\n  - name: eno1\n    macAddress: 02:00:00:00:00:0a\n  networkConfig:\n    interfaces:\n";

#[test]
fn a_vlan_on_a_nic_without_an_entry_names_the_nics_profile_matched_by_mac() {
    let vlan = "    - name: eno1.20\n      type: vlan\n      state: up\n      vlan:\n        base-iface: eno1\n        id: 20\n";
    let hosts = format!("{ONE_HOST}{vlan}");
    let nic = converted(&hosts, "eno1.nmconnection");
    assert!(nic.contains("mac-address=02:00:00:00:00:0A"), "{nic}");
    assert!(!nic.contains("interface-name="), "{nic}");
    let uuid = nic
        .lines()
        .find_map(|l| l.strip_prefix("uuid="))
        .unwrap()
        .to_string();
    let vlan = converted(&hosts, "eno1.20.nmconnection");
    assert!(vlan.contains(&format!("parent={uuid}\n")), "{vlan}");
}

#[test]
fn a_nic_the_user_identifies_otherwise_is_left_as_written() {
    for (extra, kept) in [
        ("      identifier: name\n", "interface-name=eno1"),
        (
            "      mac-address: 02:00:00:00:00:99\n",
            "interface-name=eno1",
        ),
    ] {
        let nic = format!("    - name: eno1\n      type: ethernet\n      state: up\n{extra}");
        let text = converted(&format!("{ONE_HOST}{nic}"), "eno1.nmconnection");
        assert!(text.contains(kept), "{extra}: {text}");
        assert!(
            !text.contains("mac-address=02:00:00:00:00:0A"),
            "{extra}: {text}"
        );
    }
}

#[test]
fn the_bootstrap_config_serves_its_hosts_reached_at_their_first_static_address() {
    let hosts = parse_hosts(&fixture("agent-config.yaml"), "agent-config.yaml").unwrap();
    let first = |name: &str| {
        hosts
            .hosts
            .iter()
            .find(|h| h.hostname == name)
            .and_then(|h| h.network.first_address())
            .map(|a| a.to_string())
    };
    // master-0's address is on a VLAN of a bond; master-2 has IPv4 before IPv6.
    assert_eq!(first("master-0").as_deref(), Some("192.168.111.20"));
    assert_eq!(first("master-2").as_deref(), Some("192.168.111.22"));
    let served: Vec<&str> = bootstrap_hosts(Some(&hosts), false)
        .iter()
        .map(|h| h.hostname.as_str())
        .collect();
    assert_eq!(served, ["bootstrap"]);
    assert!(bootstrap_hosts(None, false).is_empty());
    let dhcp = parse_hosts(
        "hosts:\n- hostname: sno\n  role: master\n  interfaces:\n  - name: eno1\n    macAddress: 52:54:00:00:00:01\n  networkConfig:\n    interfaces:\n    - name: eno1\n      type: ethernet\n      state: up\n      ipv4:\n        enabled: true\n        dhcp: true\n",
        "agent-config.yaml",
    )
    .unwrap();
    let served = bootstrap_hosts(Some(&dhcp), true);
    assert_eq!(served.len(), 1);
    assert_eq!(served[0].network.first_address(), None);
}

#[test]
fn an_ipv6_link_local_gateway_is_reached_through_its_interface() {
    let text = fixture("agent-config.yaml");
    let from = "next-hop-address: fd2e:6f44:5dd8:c956::1\n        next-hop-interface: eno1";
    assert!(text.contains(from));
    let linked = text.replace(
        from,
        "next-hop-address: fe80::1\n        next-hop-interface: eno1",
    );
    let hosts = parse_hosts(&linked, "agent-config.yaml").unwrap();
    check_hosts(&hosts, &cluster()).unwrap();
}

#[test]
fn every_agent_config_key_is_carried_out_or_warned_about_never_read_past() {
    let text = "apiVersion: v1beta1\nkind: AgentConfig\nmetadata:\n  name: every-key\nrendezvousIP: 10.0.0.5\nadditionalNTPSources:\n- ntp.example.org\nbootArtifactsBaseURL: http://10.0.0.1/pxe\nminimalISO: true\nhosts:\n- hostname: m0\n  role: master\n  interfaces:\n  - name: eno1\n    macAddress: 02:00:00:00:00:01\n  rootDeviceHints:\n    deviceName: /dev/sda\n    hctl: 0:0:0:0\n    model: M\n    vendor: V\n    serialNumber: S\n    minSizeGigabytes: 100\n    wwn: '0x5000'\n    wwnWithExtension: '0x5000x'\n    wwnVendorExtension: '0x1'\n    rotational: false\n  networkConfig:\n    interfaces:\n    - name: eno1\n      type: ethernet\n      state: up\n      ipv4:\n        enabled: true\n        dhcp: true\n  BMC:\n    username: admin\n    password: bmc-secret\n    address: redfish://10.0.0.9/x\n    disableCertificateVerification: true\n";
    let hosts = parse_hosts(text, "agent-config.yaml").unwrap();
    let mut warned: Vec<String> = Vec::new();
    for row in crate::network::AGENT_CONFIG_KEYS {
        let written = row.key.replacen("hosts[]", "hosts[0]", 1);
        let said = hosts.warnings.iter().filter(|w| w.field == written).count();
        match row.handling {
            crate::network::KeyHandling::CarriedOut(_) => assert_eq!(said, 0, "{}", row.key),
            _ => {
                assert_eq!(said, 1, "{}: {:?}", row.key, hosts.warnings);
                warned.push(written);
            }
        }
    }
    let all: Vec<&str> = hosts.warnings.iter().map(|w| w.field.as_str()).collect();
    assert_eq!(
        all, warned,
        "only the table's keys are warned about, once each"
    );
    assert!(hosts
        .warnings
        .iter()
        .all(|w| !w.message.contains("bmc-secret")));
    assert_eq!(
        hosts.boot_artifacts_base_url.as_deref(),
        Some("http://10.0.0.1/pxe")
    );
}

#[test]
fn a_key_the_table_lacks_is_an_unknown_key_named_with_its_line() {
    let text = "hosts:\n- hostname: m0\n  role: master\n  bmc: {}\nrendezvousIp: 10.0.0.5\n";
    let hosts = parse_hosts(text, "agent-config.yaml").unwrap();
    let said: Vec<(&str, Option<usize>)> = hosts
        .warnings
        .iter()
        .map(|w| (w.field.as_str(), w.line))
        .collect();
    assert_eq!(said, [("hosts[0].bmc", Some(4)), ("rendezvousIp", Some(5))]);
    assert!(hosts
        .warnings
        .iter()
        .all(|w| w.message.contains("unknown key")));
}

#[test]
fn a_boot_artifacts_url_the_pxe_entries_cannot_carry_is_refused_naming_the_key() {
    let text = "bootArtifactsBaseURL: ftp://10.0.0.1/pxe\nhosts:\n- hostname: m0\n";
    let error = parse_hosts(text, "agent-config.yaml")
        .unwrap_err()
        .to_string();
    assert!(error.contains("bootArtifactsBaseURL"), "{error}");
    assert!(error.contains("(line 1)"), "{error}");
}

#[test]
fn a_control_character_in_any_value_is_refused_naming_the_host_and_field() {
    let text = "hosts:\n- hostname: m0\n  role: master\n  interfaces:\n  - name: eno1\n    macAddress: 02:00:00:00:00:01\n  networkConfig:\n    interfaces:\n    - name: eno1\n      type: ethernet\n      description: \"uplink\\n[ipv4]\\nmethod=disabled\"\n      ipv4:\n        enabled: true\n        dhcp: true\n";
    let error = parse_hosts(text, "agent-config.yaml")
        .unwrap_err()
        .to_string();
    assert!(error.contains("host m0"), "{error}");
    assert!(
        error.contains("hosts[0].networkConfig.interfaces[0].description"),
        "{error}"
    );
    assert!(error.contains("a newline (U+000A)"), "{error}");
    assert!(error.contains("(line 11)"), "{error}");
}

#[test]
fn static_hosts_without_a_bootstrap_host_warn_that_the_bootstrap_uses_dhcp() {
    let with_bootstrap = fixture("agent-config.yaml");
    let hosts = parse_hosts(&with_bootstrap, "agent-config.yaml").unwrap();
    let config = fixture("install-config.yaml");
    let said = |warnings: &[crate::config::Warning]| {
        warnings
            .iter()
            .any(|w| w.message.contains("the bootstrap machine will use DHCP"))
    };
    assert!(!said(&check_hosts(&hosts, &model(&config)).unwrap()));
    let start = with_bootstrap.find("- hostname: bootstrap").unwrap();
    let end = with_bootstrap.find("- hostname: master-0").unwrap();
    let without = format!("{}{}", &with_bootstrap[..start], &with_bootstrap[end..]);
    let hosts = parse_hosts(&without, "agent-config.yaml").unwrap();
    let warnings = check_hosts(&hosts, &model(&config)).unwrap();
    assert!(said(&warnings), "{warnings:?}");
    assert!(
        warnings
            .iter()
            .any(|w| w.message.contains("master-0, master-1, master-2")),
        "{warnings:?}"
    );
}

#[test]
fn a_hosts_disk_is_its_hints_with_the_runs_disk_added_or_refused_when_they_disagree() {
    use crate::media::InstallDisk;
    let text = fixture("agent-config.yaml").replacen(
        "    deviceName: /dev/sda\n",
        "    serialNumber: S1\n",
        1,
    );
    let hosts = parse_hosts(&text, "agent-config.yaml").unwrap();
    let [bootstrap, serial, device, _] = &hosts.hosts[..] else {
        panic!("four hosts")
    };
    let disk = |host, default| hosts.install_disk(host, default, "--dest-device");
    assert_eq!(disk(bootstrap, None).unwrap(), None);
    assert_eq!(
        disk(bootstrap, Some("/dev/vdb")).unwrap(),
        Some(InstallDisk::Device("/dev/vdb".into()))
    );
    assert_eq!(
        disk(device, Some("/dev/sda")).unwrap(),
        Some(InstallDisk::Device("/dev/sda".into()))
    );
    assert_eq!(
        disk(serial, Some("/dev/sdb")).unwrap().unwrap().describe(),
        "the disk matching deviceName=/dev/sdb, serialNumber=S1"
    );
    let refused = disk(device, Some("/dev/vdb")).unwrap_err().to_string();
    for fragment in [
        "hosts[2].rootDeviceHints.deviceName",
        "host master-1",
        "/dev/sda",
        "--dest-device is /dev/vdb",
    ] {
        assert!(refused.contains(fragment), "{fragment:?} in {refused}");
    }
    let bad =
        fixture("agent-config.yaml").replacen("    deviceName: /dev/sda\n", "    hctl: '1:0'\n", 1);
    let refused = refusal(&bad, &cluster());
    assert!(
        refused.contains("hosts[1].rootDeviceHints.hctl"),
        "{refused}"
    );
}
