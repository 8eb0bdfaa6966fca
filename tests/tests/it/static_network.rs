//! Static networking (`bootgen ignition --hosts`, `--network-keyfile`), judged by the real
//! tools: NetworkManager (`nmcli --offline`) reads every keyfile bootgen writes back with the
//! same settings; `nmstatectl gc` given the same nmstate YAML writes the same settings; the real
//! Ignition writes them with mode 0600; the MAC selection script, shellcheck-clean, keeps the
//! right host in a root with fake interfaces. Fixtures: `fixtures/network/`.
//!
//! A missing tool skips its test with a message outside CI and fails it under CI (`CI` set).

use std::collections::BTreeMap;
use std::error::Error;
use std::fs;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use bootgen_conformance::{repo, BaseRoot, IgnitionView};

type TestResult = Result<(), Box<dyn Error>>;

/// Group name to its key/value pairs.
type Settings = BTreeMap<String, BTreeMap<String, String>>;

const KEYFILE_DIR: &str = "/etc/NetworkManager/system-connections/";
const SCRIPT: &str = "/usr/local/bin/bootgen-select-network.sh";

fn fixture(name: &str) -> PathBuf {
    repo().join("fixtures/network").join(name)
}

/// Whether `tool` runs; outside CI a missing tool skips (saying so), under CI it fails.
fn tool_present(tool: &str) -> bool {
    let found = Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|out| out.status.success());
    if !found {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must have {tool} (.ci/run installs it)"
        );
        eprintln!("SKIPPED: {tool} is not installed; run `bash .ci/run`");
    }
    found
}

/// A keyfile's groups and keys, read here (not by bootgen) so a bootgen bug cannot hide.
fn settings(text: &str) -> Settings {
    let mut out = Settings::new();
    let mut group = String::new();
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            group = name.to_string();
            out.entry(group.clone()).or_default();
        } else if let Some((key, value)) = line.split_once('=') {
            out.entry(group.clone())
                .or_default()
                .insert(key.trim().to_string(), value.trim().to_string());
        }
    }
    out
}

/// What NetworkManager reads from `keyfile`: `nmcli --offline connection modify` parses it
/// from stdin and prints the profile back.
fn read_by_network_manager(keyfile: &str) -> Result<Settings, Box<dyn Error>> {
    let mut child = Command::new("nmcli")
        .args(["--offline", "connection", "modify"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    child
        .stdin
        .take()
        .ok_or("no stdin")?
        .write_all(keyfile.as_bytes())?;
    let out = child.wait_with_output()?;
    if !out.status.success() {
        return Err(format!(
            "NetworkManager refuses the keyfile: {}\n{keyfile}",
            String::from_utf8_lossy(&out.stderr)
        )
        .into());
    }
    Ok(settings(&String::from_utf8(out.stdout)?))
}

/// Settings NetworkManager leaves out when it prints a profile back because they hold its
/// default: not a difference.
const NETWORK_MANAGER_DEFAULTS: &[(&str, &str, &str)] = &[
    ("connection", "autoconnect", "true"),
    ("connection", "autoconnect-slaves", "-1"),
];

/// Spellings NetworkManager reads as one value: (key, as written, as printed back).
const SAME_VALUES: &[(&str, &str, &str)] = &[
    ("type", "802-3-ethernet", "ethernet"),
    ("addr-gen-mode", "0", "eui64"),
    ("addr-gen-mode", "1", "stable-privacy"),
];

/// Settings in one spelling: lists without their closing `;`, the numbered `addressN`/`routeN`
/// (and `routeN_options`) renumbered by order (NetworkManager prints them from 1), and the
/// values of [`SAME_VALUES`] as NetworkManager prints them.
fn normalized(settings: &Settings) -> Settings {
    let mut out = Settings::new();
    for (group, pairs) in settings {
        let mut numbered: BTreeMap<(String, u32), Vec<(String, String)>> = BTreeMap::new();
        let target = out.entry(group.clone()).or_default();
        for (key, value) in pairs {
            let mut value = value.trim_end_matches(';').to_string();
            if let Some((_, _, printed)) = SAME_VALUES
                .iter()
                .find(|(k, written, _)| k == key && *written == value)
            {
                value = (*printed).to_string();
            }
            let stem = key.split('_').next().unwrap_or(key);
            let prefix = stem.trim_end_matches(|c: char| c.is_ascii_digit());
            match stem[prefix.len()..].parse::<u32>() {
                Ok(n) if ["address", "route"].contains(&prefix) => numbered
                    .entry((prefix.to_string(), n))
                    .or_default()
                    .push((key[stem.len()..].to_string(), value)),
                _ => {
                    target.insert(key.clone(), value);
                }
            }
        }
        let mut rank: BTreeMap<String, u32> = BTreeMap::new();
        for ((prefix, _), keys) in numbered {
            let position = rank.entry(prefix.clone()).or_default();
            *position += 1;
            for (suffix, value) in keys {
                target.insert(format!("{prefix}{position}{suffix}"), value);
            }
        }
    }
    out
}

/// Every setting of `keyfile` that NetworkManager reads back differently (it adds defaults of
/// its own, which are not differences).
fn network_manager_differences(name: &str, keyfile: &str) -> Result<Vec<String>, Box<dyn Error>> {
    let read = normalized(&read_by_network_manager(keyfile)?);
    let mut problems = Vec::new();
    for (group, pairs) in normalized(&settings(keyfile)) {
        for (key, value) in pairs {
            let back = read.get(&group).and_then(|g| g.get(&key));
            let default =
                NETWORK_MANAGER_DEFAULTS.contains(&(group.as_str(), key.as_str(), value.as_str()));
            if back != Some(&value) && !(back.is_none() && default) {
                problems.push(format!(
                    "{name}: [{group}] {key}={value} read back as {back:?}"
                ));
            }
        }
    }
    Ok(problems)
}

/// `bootgen ignition` for a fixture cluster, into `out`.
fn ignition(out: &Path, install_config: &str, extra: &[&str]) -> Output {
    bootgen_conformance::bootgen!()
        .arg("ignition")
        .arg("--install-config")
        .arg(fixture(install_config))
        .args(extra)
        .arg("--output")
        .arg(out)
        .arg("--key-algorithm")
        .arg("ecdsa-p256")
        .output()
        .unwrap()
}

fn succeeded(output: &Output) -> TestResult {
    if output.status.success() {
        return Ok(());
    }
    Err(format!(
        "bootgen failed: {}",
        String::from_utf8_lossy(&output.stderr)
    )
    .into())
}

fn text(view: &IgnitionView, path: &str) -> Result<String, Box<dyn Error>> {
    let entry = view
        .files
        .get(path)
        .ok_or(format!("{path} is not in the config"))?;
    Ok(String::from_utf8(entry.expected(None))?)
}

/// A keyfile of a fixture host: (fixture and host, file name, contents).
type FixtureKeyfile = (String, String, String);

/// Every host's keyfiles of every fixture, as bootgen converts them.
fn fixture_keyfiles() -> Result<Vec<FixtureKeyfile>, Box<dyn Error>> {
    let mut out = Vec::new();
    for name in [
        "agent-config.yaml",
        "bond-vlan.yaml",
        "dual-stack.yaml",
        "ipv6-only.yaml",
        "vlan.yaml",
        "single-node/agent-config.yaml",
    ] {
        let hosts = bootgen::network::load_hosts(&fixture(name))?;
        for host in &hosts.hosts {
            for (file, contents) in bootgen::network::host_keyfiles(host) {
                out.push((format!("{name} {}", host.hostname), file, contents));
            }
        }
    }
    Ok(out)
}

#[test]
fn network_manager_reads_every_fixture_keyfile_with_the_same_settings() -> TestResult {
    if !tool_present("nmcli") {
        return Ok(());
    }
    let keyfiles = fixture_keyfiles()?;
    assert!(keyfiles.len() >= 10, "{keyfiles:?}");
    let mut problems = Vec::new();
    for (host, file, contents) in &keyfiles {
        problems.extend(network_manager_differences(
            &format!("{host} {file}"),
            contents,
        )?);
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    Ok(())
}

/// A host's `networkConfig` as bootgen hands it to nmstate, written here from the rule: each
/// NIC of the host's `interfaces` it uses is matched by MAC (`identifier: mac-address`), with an
/// entry of its own when only a bond, bridge or VLAN names it.
fn nics_by_mac(host: &serde_yaml_ng::Value) -> serde_yaml_ng::Value {
    use serde_yaml_ng::Value;
    let macs: BTreeMap<String, String> = host["interfaces"]
        .as_sequence()
        .into_iter()
        .flatten()
        .map(|i| {
            let field = |k: &str| i[k].as_str().unwrap_or_default().to_string();
            (field("name"), field("macAddress").to_lowercase())
        })
        .collect();
    let mut config = host["networkConfig"].clone();
    let Some(items) = config["interfaces"].as_sequence_mut() else {
        return config;
    };
    let mut used = Vec::new();
    for item in items.iter_mut() {
        let name = item["name"].as_str().unwrap_or_default().to_string();
        used.extend(
            item["link-aggregation"]["port"]
                .as_sequence()
                .cloned()
                .unwrap_or_default(),
        );
        used.extend(
            item["bridge"]["port"]
                .as_sequence()
                .into_iter()
                .flatten()
                .map(|p| p["name"].clone()),
        );
        used.push(item["vlan"]["base-iface"].clone());
        let ethernet = item["type"].as_str().unwrap_or("ethernet") == "ethernet";
        if let (true, Some(mac)) = (ethernet, macs.get(&name)) {
            item["identifier"] = Value::from("mac-address");
            item["mac-address"] = Value::from(mac.as_str());
        }
    }
    let declared: Vec<String> = items
        .iter()
        .filter_map(|i| i["name"].as_str().map(String::from))
        .collect();
    let mut added: Vec<String> = Vec::new();
    for name in used.iter().filter_map(Value::as_str) {
        let Some(mac) = macs.get(name) else { continue };
        if declared.iter().chain(&added).any(|d| d == name) {
            continue;
        }
        added.push(name.to_string());
        let entry = format!(
            "{{name: {name}, type: ethernet, state: up, identifier: mac-address, mac-address: '{mac}'}}"
        );
        items.push(serde_yaml_ng::from_str(&entry).unwrap_or(Value::Null));
    }
    config
}

/// Every host interface a fixture host's network uses is matched by its MAC, so it works
/// whatever the machine's kernel names it: no keyfile names a NIC (`interface-name`, a VLAN's
/// `parent`), and each NIC used has a profile with its `[ethernet] mac-address`.
#[test]
fn every_nic_a_hosts_network_uses_is_matched_by_its_mac() -> TestResult {
    let mut checked = 0;
    for name in [
        "agent-config.yaml",
        "bond-vlan.yaml",
        "dual-stack.yaml",
        "ipv6-only.yaml",
        "vlan.yaml",
        "single-node/agent-config.yaml",
    ] {
        let hosts = bootgen::network::load_hosts(&fixture(name))?;
        for host in &hosts.hosts {
            let keyfiles: Vec<Settings> = bootgen::network::host_keyfiles(host)
                .iter()
                .map(|(_, text)| settings(text))
                .collect();
            let value = |k: &Settings, group: &str, key: &str| {
                k.get(group).and_then(|g| g.get(key)).cloned()
            };
            for keyfile in &keyfiles {
                for (group, key) in [("connection", "interface-name"), ("vlan", "parent")] {
                    if let Some(named) = value(keyfile, group, key) {
                        assert!(
                            !host.interfaces.iter().any(|i| i.name == named),
                            "{name} {}: [{group}] {key}={named} names a NIC",
                            host.hostname
                        );
                    }
                }
            }
            let used: Vec<&str> = host
                .network
                .interfaces
                .iter()
                .flat_map(|i| std::iter::once(&i.name).chain(&i.lower))
                .map(String::as_str)
                .collect();
            for nic in host
                .interfaces
                .iter()
                .filter(|i| used.contains(&i.name.as_str()))
            {
                let matched = keyfiles.iter().any(|k| {
                    value(k, "ethernet", "mac-address")
                        .is_some_and(|m| m.eq_ignore_ascii_case(&nic.mac_address))
                });
                assert!(
                    matched,
                    "{name} {}: no profile matches {} by its MAC",
                    host.hostname, nic.name
                );
                checked += 1;
            }
        }
    }
    assert!(checked >= 10, "{checked}");
    Ok(())
}

#[test]
fn nmstatectl_gc_writes_the_same_settings_from_the_same_yaml() -> TestResult {
    if !tool_present("nmstatectl") {
        return Ok(());
    }
    let dir = tempfile::tempdir()?;
    let mut compared = 0;
    for name in [
        "agent-config.yaml",
        "bond-vlan.yaml",
        "dual-stack.yaml",
        "ipv6-only.yaml",
        "vlan.yaml",
        "single-node/agent-config.yaml",
    ] {
        let document: serde_yaml_ng::Value =
            serde_yaml_ng::from_str(&fs::read_to_string(fixture(name))?)?;
        let hosts = bootgen::network::load_hosts(&fixture(name))?;
        for (k, host) in hosts.hosts.iter().enumerate() {
            let yaml = serde_yaml_ng::to_string(&nics_by_mac(&document["hosts"][k]))?;
            let path = dir.path().join(format!("{}.yaml", host.hostname));
            fs::write(&path, yaml)?;
            let out = Command::new("nmstatectl").arg("gc").arg(&path).output()?;
            assert!(
                out.status.success(),
                "nmstatectl gc {name} {}: {}",
                host.hostname,
                String::from_utf8_lossy(&out.stderr)
            );
            // `NetworkManager:` is a list of [file name, contents] pairs.
            let generated: serde_yaml_ng::Value = serde_yaml_ng::from_slice(&out.stdout)?;
            let theirs: BTreeMap<String, Settings> = generated["NetworkManager"]
                .as_sequence()
                .ok_or("nmstatectl gc printed no NetworkManager list")?
                .iter()
                .map(|pair| {
                    (
                        pair[0].as_str().unwrap_or_default().to_string(),
                        settings(pair[1].as_str().unwrap_or_default()),
                    )
                })
                .collect();
            let ours: BTreeMap<String, Settings> = bootgen::network::host_keyfiles(host)
                .into_iter()
                .map(|(file, contents)| (file, settings(&contents)))
                .collect();
            assert_eq!(ours, theirs, "{name} host {}", host.hostname);
            compared += ours.len();
        }
    }
    assert!(compared >= 10);
    Ok(())
}

#[test]
fn the_bootstrap_host_gets_its_keyfile_and_name_and_ignition_writes_them_0600() -> TestResult {
    let out = tempfile::tempdir()?;
    let hosts = fixture("agent-config.yaml");
    succeeded(&ignition(
        out.path(),
        "install-config.yaml",
        &["--hosts", hosts.to_str().ok_or("path")?],
    ))?;
    let config = out.path().join("bootstrap.ign");
    let view = IgnitionView::load(&config)?;
    let keyfile = format!("{KEYFILE_DIR}eno1.nmconnection");
    assert_eq!(view.files[&keyfile].mode, 0o600);
    assert!(text(&view, &keyfile)?.contains("address0=192.168.111.10/24"));
    // Matched by MAC, not by the hosts file's name for the NIC (the kernel may call it ens3).
    let own = text(&view, &keyfile)?;
    assert!(
        own.contains("[ethernet]\nmac-address=02:00:00:00:00:01\n")
            && !own.contains("interface-name="),
        "{own}"
    );
    assert_eq!(text(&view, "/etc/hostname")?, "bootstrap\n");
    // One bootstrap host: its files directly, no selection script.
    assert!(!view.files.contains_key(SCRIPT));
    // Each control-plane host: its own config beside master.ign, the pointer plus its network.
    for (host, address) in [
        ("master-0", "192.168.111.20"),
        ("master-1", "192.168.111.21"),
        ("master-2", "192.168.111.22"),
    ] {
        let path = out.path().join(format!("hosts/{host}.ign"));
        assert_eq!(fs::metadata(&path)?.permissions().mode() & 0o7777, 0o600);
        let json: serde_json::Value = serde_json::from_slice(&fs::read(&path)?)?;
        assert_eq!(
            json["ignition"]["config"]["merge"][0]["source"],
            "https://api-int.static.lab.example.org:22623/config/master"
        );
        let (valid, report) = bootgen_conformance::ignition_validate(&path);
        assert!(valid, "{host}: {report}");
        let host_view = IgnitionView::load(&path)?;
        assert_eq!(text(&host_view, "/etc/hostname")?, format!("{host}\n"));
        let keyfiles: Vec<&String> = host_view
            .files
            .keys()
            .filter(|p| p.starts_with(KEYFILE_DIR))
            .collect();
        assert!(
            keyfiles.iter().all(|k| host_view.files[*k].mode == 0o600),
            "{keyfiles:?}"
        );
        let all: String = keyfiles
            .iter()
            .map(|k| text(&host_view, k))
            .collect::<Result<_, _>>()?;
        assert!(
            all.contains(&format!("address0={address}/")),
            "{host}: {all}"
        );
        assert!(
            all.contains("mac-address=") && !all.contains("interface-name=eno"),
            "{host}: {all}"
        );
    }
    assert_eq!(
        IgnitionView::load(&out.path().join("hosts/master-0.ign"))?
            .files
            .keys()
            .filter(|p| p.starts_with(KEYFILE_DIR))
            .count(),
        4,
        "bond, VLAN and two ports"
    );
    // inspect shows each host's interfaces and addresses.
    let inspected = bootgen_conformance::bootgen!()
        .arg("inspect")
        .arg(out.path().join("hosts/master-0.ign"))
        .output()?;
    let shown = String::from_utf8(inspected.stdout)?;
    assert!(
        inspected.status.success(),
        "{}",
        String::from_utf8_lossy(&inspected.stderr)
    );
    let vlan = shown
        .lines()
        .find(|l| l.contains("bond0.300 "))
        .ok_or(format!("no bond0.300 in:\n{shown}"))?;
    for expected in ["vlan", "192.168.111.20/24", "192.168.111.1"] {
        assert!(vlan.contains(expected), "{expected} not in {vlan}");
    }
    // The golden view shows each host's config with its keyfiles.
    let golden = bootgen_conformance::bootgen!()
        .args(["inspect", "--golden"])
        .arg(out.path())
        .output()?;
    let golden_view = String::from_utf8(golden.stdout)?;
    let master2 = golden_view
        .split("######## ")
        .find(|s| s.starts_with("hosts/master-2.ign"))
        .ok_or("no hosts/master-2.ign in the golden view")?;
    assert!(
        master2.contains("address0=fd2e:6f44:5dd8:c956::22/64"),
        "{master2}"
    );
    // The per-host configs are bootgen's output: packed with the rest.
    let tarball = out.path().join("../static.tar.gz");
    let packed = bootgen_conformance::bootgen!()
        .arg("package")
        .arg(out.path())
        .arg("-o")
        .arg(&tarball)
        .output()?;
    assert!(
        packed.status.success(),
        "{}",
        String::from_utf8_lossy(&packed.stderr)
    );
    fs::remove_file(&tarball)?;
    if tool_present("nmcli") {
        let problems = network_manager_differences(&keyfile, &text(&view, &keyfile)?)?;
        assert!(problems.is_empty(), "{problems:?}");
    }
    let Some(root) = BaseRoot::new().apply(&config)? else {
        return Ok(());
    };
    let written = root.join(&keyfile);
    assert_eq!(fs::metadata(&written)?.permissions().mode() & 0o7777, 0o600);
    assert_eq!(fs::read_to_string(&written)?, text(&view, &keyfile)?);
    assert_eq!(
        fs::read_to_string(root.join("/etc/hostname"))?,
        "bootstrap\n"
    );
    Ok(())
}

/// Writes the config's files under `root` as Ignition would (contents and modes), so the script
/// runs the same with or without root privileges.
fn lay_out(view: &IgnitionView, root: &Path) -> TestResult {
    for (path, entry) in &view.files {
        let target = root.join(path.trim_start_matches('/'));
        fs::create_dir_all(target.parent().ok_or("no parent")?)?;
        fs::write(&target, entry.expected(None))?;
        fs::set_permissions(&target, fs::Permissions::from_mode(entry.mode))?;
    }
    Ok(())
}

/// Fake interfaces: `/sys/class/net/NAME/address` under `root`.
fn fake_interfaces(root: &Path, interfaces: &[(&str, &str)]) -> TestResult {
    for (name, mac) in interfaces {
        let dir = root.join("sys/class/net").join(name);
        fs::create_dir_all(&dir)?;
        fs::write(dir.join("address"), format!("{mac}\n"))?;
    }
    Ok(())
}

fn run_script(root: &Path) -> Result<Output, Box<dyn Error>> {
    Ok(Command::new("bash")
        .arg(root.join(SCRIPT.trim_start_matches('/')))
        .env("BOOTGEN_NETWORK_ROOT", root)
        .output()?)
}

#[test]
fn the_single_node_keeps_the_network_of_the_host_whose_mac_is_present() -> TestResult {
    let out = tempfile::tempdir()?;
    let hosts = fixture("single-node/agent-config.yaml");
    succeeded(&ignition(
        out.path(),
        "single-node/install-config.yaml",
        &["--hosts", hosts.to_str().ok_or("path")?],
    ))?;
    let config = out.path().join("bootstrap-in-place-for-live-iso.ign");
    let view = IgnitionView::load(&config)?;
    // The live ISO may boot on any machine: the host is chosen by MAC, before NetworkManager.
    let unit = view
        .units
        .get("bootgen-select-network.service")
        .ok_or("no selection unit")?;
    assert_eq!(unit.enabled, Some(true));
    assert!(unit
        .contents
        .as_deref()
        .unwrap_or_default()
        .contains("Before=NetworkManager.service"));
    assert_eq!(view.files[SCRIPT].mode, 0o755);
    if tool_present("shellcheck") {
        let dir = tempfile::tempdir()?;
        let script = dir.path().join("select.sh");
        fs::write(&script, text(&view, SCRIPT)?)?;
        let check = Command::new("shellcheck")
            .arg("--severity=style")
            .arg(&script)
            .output()?;
        assert!(
            check.status.success(),
            "{}",
            String::from_utf8_lossy(&check.stdout)
        );
    }

    let inspected = bootgen_conformance::bootgen!()
        .arg("inspect")
        .arg(&config)
        .output()?;
    let shown = String::from_utf8(inspected.stdout)?;
    assert!(
        shown.lines().any(|l| l.contains("edge2")
            && l.contains("02:00:00:00:07:0A")
            && l.contains("192.168.7.20/24")),
        "{shown}"
    );

    // A machine with the host's NIC, and another without it.
    let matching = tempfile::tempdir()?;
    lay_out(&view, matching.path())?;
    fake_interfaces(
        matching.path(),
        &[("lo", "00:00:00:00:00:00"), ("enp1s0", "02:00:00:00:07:0a")],
    )?;
    let ran = run_script(matching.path())?;
    assert!(
        ran.status.success(),
        "{}",
        String::from_utf8_lossy(&ran.stderr)
    );
    let keyfile = matching
        .path()
        .join("etc/NetworkManager/system-connections/enp1s0.nmconnection");
    assert_eq!(fs::metadata(&keyfile)?.permissions().mode() & 0o7777, 0o600);
    let staged = text(&view, "/etc/bootgen/network/edge2/enp1s0.nmconnection")?;
    assert_eq!(fs::read_to_string(&keyfile)?, staged);

    // The same machine whose kernel calls the NIC ens3 (MAC in capitals): the keyfile matches
    // the NIC by its MAC, so it is copied as it is.
    let renamed = tempfile::tempdir()?;
    lay_out(&view, renamed.path())?;
    fake_interfaces(
        renamed.path(),
        &[("lo", "00:00:00:00:00:00"), ("ens3", "02:00:00:00:07:0A")],
    )?;
    let ran = run_script(renamed.path())?;
    assert!(
        ran.status.success(),
        "{}",
        String::from_utf8_lossy(&ran.stderr)
    );
    let keyfile = renamed
        .path()
        .join("etc/NetworkManager/system-connections/enp1s0.nmconnection");
    assert_eq!(fs::metadata(&keyfile)?.permissions().mode() & 0o7777, 0o600);
    let written = fs::read_to_string(&keyfile)?;
    assert_eq!(written, staged);
    assert!(written.contains("address0=192.168.7.20/24"));
    assert!(
        written.contains("mac-address=02:00:00:00:07:0A") && !written.contains("interface-name=")
    );
    if tool_present("nmcli") {
        let problems = network_manager_differences("renamed", &written)?;
        assert!(problems.is_empty(), "{problems:?}");
    }
    assert_eq!(
        fs::read_to_string(matching.path().join("etc/hostname"))?,
        "edge2\n"
    );

    // A machine without it stays on DHCP: nothing is copied, and the boot goes on.
    let other = tempfile::tempdir()?;
    lay_out(&view, other.path())?;
    fake_interfaces(other.path(), &[("enp1s0", "02:00:00:00:99:99")])?;
    let ran = run_script(other.path())?;
    assert!(
        ran.status.success(),
        "{}",
        String::from_utf8_lossy(&ran.stderr)
    );
    assert!(String::from_utf8_lossy(&ran.stderr).contains("left to DHCP"));
    assert!(!other
        .path()
        .join("etc/NetworkManager/system-connections")
        .exists());

    // The real Ignition writes the staged keyfiles 0600 and the script 0755.
    let Some(root) = BaseRoot::new().apply(&config)? else {
        return Ok(());
    };
    let staged = root.join("/etc/bootgen/network/edge2/enp1s0.nmconnection");
    assert_eq!(fs::metadata(&staged)?.permissions().mode() & 0o7777, 0o600);
    assert_eq!(
        fs::metadata(root.join(SCRIPT))?.permissions().mode() & 0o7777,
        0o755
    );
    Ok(())
}

#[test]
fn a_users_keyfile_is_placed_0600_and_a_broken_one_refused_naming_its_file_and_line() -> TestResult
{
    let dir = tempfile::tempdir()?;
    let good = dir.path().join("storage.nmconnection");
    fs::write(&good, "[connection]\nid=storage\ntype=ethernet\ninterface-name=eno3\n\n[ipv4]\nmethod=manual\naddress1=10.0.5.20/24\n")?;
    let out = dir.path().join("out");
    succeeded(&ignition(
        &out,
        "install-config.yaml",
        &["--network-keyfile", good.to_str().ok_or("path")?],
    ))?;
    let view = IgnitionView::load(&out.join("bootstrap.ign"))?;
    let placed = format!("{KEYFILE_DIR}storage.nmconnection");
    assert_eq!(view.files[&placed].mode, 0o600);
    assert_eq!(text(&view, &placed)?, fs::read_to_string(&good)?);

    let bad = dir.path().join("broken.nmconnection");
    fs::write(
        &bad,
        "[connection]\nid=x\ntype=ethernet\nthis is no setting\n",
    )?;
    let refused = ignition(
        &dir.path().join("out2"),
        "install-config.yaml",
        &["--network-keyfile", bad.to_str().ok_or("path")?],
    );
    assert_eq!(refused.status.code(), Some(1));
    let message = String::from_utf8_lossy(&refused.stderr);
    assert!(message.contains("broken.nmconnection:4"), "{message}");
    Ok(())
}

#[test]
fn a_mistake_in_the_hosts_file_exits_1_naming_the_host_and_field() -> TestResult {
    let dir = tempfile::tempdir()?;
    let hosts = dir.path().join("agent-config.yaml");
    let text = fs::read_to_string(fixture("agent-config.yaml"))?.replacen(
        "ip: 192.168.111.22",
        "ip: 192.168.111.21",
        1,
    );
    fs::write(&hosts, text)?;
    let refused = ignition(
        &dir.path().join("out"),
        "install-config.yaml",
        &["--hosts", hosts.to_str().ok_or("path")?],
    );
    assert_eq!(refused.status.code(), Some(1));
    let message = String::from_utf8_lossy(&refused.stderr);
    assert!(
        message.contains("hosts[3].networkConfig.interfaces[0].ipv4.address[0].ip"),
        "{message}"
    );
    assert!(
        message.contains("host master-2: 192.168.111.21 is also host master-1's address"),
        "{message}"
    );
    assert!(!dir.path().join("out/bootstrap.ign").exists());
    Ok(())
}

/// `bootgen ignition --force` into `out`, with `install_config` and the flags in `extra`.
fn rerun(out: &Path, install_config: &Path, extra: &[&str]) -> Output {
    bootgen_conformance::bootgen!()
        .arg("ignition")
        .arg("--install-config")
        .arg(install_config)
        .args(extra)
        .args(["--force", "--key-algorithm", "ecdsa-p256", "--output"])
        .arg(out)
        .output()
        .unwrap()
}

/// The per-host configs in `out/hosts`, by name, with their bytes.
fn host_configs(out: &Path) -> Result<BTreeMap<String, Vec<u8>>, Box<dyn Error>> {
    let mut found = BTreeMap::new();
    for entry in fs::read_dir(out.join("hosts"))? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if entry.file_type()?.is_file() && name.ends_with(".ign") {
            found.insert(name, fs::read(entry.path())?);
        }
    }
    Ok(found)
}

/// A re-run leaves in `hosts/` the configs of its own hosts only: a host no longer in the
/// hosts file, or every host of a run without `--hosts`, loses its config, and the output
/// says so. A failed re-run removes nothing; a user's file and a link there are left alone
/// (with a warning), and the link is not followed.
#[test]
fn a_rerun_removes_the_configs_of_hosts_it_no_longer_has() -> TestResult {
    let dir = tempfile::tempdir()?;
    let out = dir.path().join("out");
    let hosts = fixture("agent-config.yaml");
    let hosts_flag = ["--hosts", hosts.to_str().ok_or("path")?];
    succeeded(&ignition(&out, "install-config.yaml", &hosts_flag))?;
    let first = host_configs(&out)?;
    let names: Vec<&str> = first.keys().map(String::as_str).collect();
    assert_eq!(names, ["master-0.ign", "master-1.ign", "master-2.ign"]);
    fs::write(out.join("hosts/notes.txt"), "mine")?;

    // A failed re-run (a mistake in the hosts file) keeps every file as it was.
    let bad = dir.path().join("bad.yaml");
    fs::write(
        &bad,
        fs::read_to_string(&hosts)?.replacen("ip: 192.168.111.22", "ip: 192.168.111.21", 1),
    )?;
    let refused = rerun(
        &out,
        &fixture("install-config.yaml"),
        &["--hosts", bad.to_str().ok_or("path")?],
    );
    assert_eq!(refused.status.code(), Some(1));
    assert_eq!(host_configs(&out)?, first, "a failed run removes nothing");

    // One host fewer (master-2 left out, the replicas left open): its config goes.
    let fewer = dir.path().join("fewer.yaml");
    let text = fs::read_to_string(&hosts)?;
    let cut = text.find("- hostname: master-2").ok_or("no master-2")?;
    fs::write(&fewer, &text[..cut])?;
    let open = dir.path().join("install-config.yaml");
    fs::write(
        &open,
        fs::read_to_string(fixture("install-config.yaml"))?.replacen("  replicas: 3\n", "", 1),
    )?;
    let again = rerun(&out, &open, &["--hosts", fewer.to_str().ok_or("path")?]);
    succeeded(&again)?;
    let names: Vec<String> = host_configs(&out)?.into_keys().collect();
    assert_eq!(names, ["master-0.ign", "master-1.ign"]);
    let stdout = String::from_utf8_lossy(&again.stdout);
    let stderr = String::from_utf8_lossy(&again.stderr);
    let removed = format!("removed {}", out.join("hosts/master-2.ign").display());
    assert!(stdout.contains(&removed), "{stdout}");
    // Said why first, in one line: the host is gone from the hosts file.
    let why = "removing 1 file an earlier run wrote and this one did not (per-host configs: of hosts the hosts file no longer names)";
    assert!(
        stdout
            .find(why)
            .is_some_and(|at| at < stdout.find(&removed).unwrap_or(0)),
        "{stdout}"
    );
    let line = format!("{}: left in place", out.join("hosts/notes.txt").display());
    assert!(stderr.contains(&line), "{stderr}");
    assert_eq!(fs::read_to_string(out.join("hosts/notes.txt"))?, "mine");
    let golden = bootgen_conformance::bootgen!()
        .args(["inspect", "--golden"])
        .arg(&out)
        .output()?;
    let golden = String::from_utf8_lossy(&golden.stdout);
    assert!(golden.contains("######## hosts/master-1.ign"), "{golden}");
    assert!(!golden.contains("hosts/master-2.ign"), "{golden}");

    // Without --hosts: no host has a config of its own any more. A link named as a host's
    // config is neither followed nor removed.
    let outside = dir.path().join("precious.ign");
    fs::write(&outside, "not bootgen's")?;
    std::os::unix::fs::symlink(&outside, out.join("hosts/master-9.ign"))?;
    let plain = rerun(&out, &open, &[]);
    succeeded(&plain)?;
    assert!(host_configs(&out)?.is_empty());
    let stdout = String::from_utf8_lossy(&plain.stdout);
    for host in ["master-0", "master-1"] {
        let removed = format!(
            "removed {}",
            out.join(format!("hosts/{host}.ign")).display()
        );
        assert!(stdout.contains(&removed), "{stdout}");
    }
    let line = format!(
        "{}: left in place",
        out.join("hosts/master-9.ign").display()
    );
    assert!(String::from_utf8_lossy(&plain.stderr).contains(&line));
    assert_eq!(fs::read_to_string(&outside)?, "not bootgen's");
    assert!(fs::symlink_metadata(out.join("hosts/master-9.ign"))?.is_symlink());
    assert_eq!(fs::read_to_string(out.join("hosts/notes.txt"))?, "mine");
    Ok(())
}

/// The lines of what `ignition` printed that tell how to log in.
fn login_lines(output: &Output) -> Vec<String> {
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter(|l| l.starts_with("log in to "))
        .map(str::to_string)
        .collect()
}

/// The login hint names the bootstrap host's static address when the hosts file gives it one
/// (each candidate's when there are several, a single node's host's), else a placeholder.
#[test]
fn the_login_hint_names_the_static_address_of_the_bootstrap_host() -> TestResult {
    let dir = tempfile::tempdir()?;
    let key = |out: &Path| out.join("auth/bootstrap-ssh-key").display().to_string();
    let hosts = fixture("agent-config.yaml");
    let out = dir.path().join("one");
    let output = ignition(
        &out,
        "install-config.yaml",
        &["--hosts", hosts.to_str().ok_or("path")?],
    );
    succeeded(&output)?;
    assert_eq!(
        login_lines(&output),
        [format!(
            "log in to the bootstrap node with: ssh -i {} core@192.168.111.10",
            key(&out)
        )]
    );
    // Two bootstrap candidates: each host's address.
    let two = dir.path().join("two.yaml");
    fs::write(
        &two,
        fs::read_to_string(&hosts)?.replacen(
            "- hostname: master-2\n  role: master",
            "- hostname: master-2\n  role: bootstrap",
            1,
        ),
    )?;
    let open = dir.path().join("install-config.yaml");
    fs::write(
        &open,
        fs::read_to_string(fixture("install-config.yaml"))?.replacen("  replicas: 3\n", "", 1),
    )?;
    let out = dir.path().join("two");
    // (An absolute path stands in for the fixture's name.)
    let output = ignition(
        &out,
        open.to_str().ok_or("path")?,
        &["--hosts", two.to_str().ok_or("path")?],
    );
    succeeded(&output)?;
    assert_eq!(
        login_lines(&output),
        [
            format!(
                "log in to the bootstrap node, if it is host bootstrap, with: ssh -i {} core@192.168.111.10",
                key(&out)
            ),
            format!(
                "log in to the bootstrap node, if it is host master-2, with: ssh -i {} core@192.168.111.22",
                key(&out)
            ),
        ]
    );
    // A single node: its host's address, while it runs the live ISO.
    let out = dir.path().join("sno");
    let sno_hosts = fixture("single-node/agent-config.yaml");
    let output = ignition(
        &out,
        "single-node/install-config.yaml",
        &["--hosts", sno_hosts.to_str().ok_or("path")?],
    );
    succeeded(&output)?;
    assert_eq!(
        login_lines(&output),
        [format!(
            "log in to the node (while it runs the live ISO) with: ssh -i {} core@192.168.7.20",
            key(&out)
        )]
    );
    // No hosts file: the address is not known.
    let out = dir.path().join("dhcp");
    let output = ignition(&out, "install-config.yaml", &[]);
    succeeded(&output)?;
    assert_eq!(
        login_lines(&output),
        [format!(
            "log in to the bootstrap node with: ssh -i {} core@<node-ip>",
            key(&out)
        )]
    );
    Ok(())
}

/// Stands for coreos-installer: records its arguments and keeps the config it would install.
const STUB_INSTALLER: &str = r#"#!/bin/bash
printf '%s\n' "$*" >"$STUB_STATE/coreos-installer.args"
while [ $# -gt 0 ]; do
	if [ "$1" = -i ]; then cp "$2" "$STUB_STATE/installed.ign"; fi
	shift
done
"#;

/// What bootkube's master-ignition stage makes, in small: a spec 3.1.0 config (Butane fcos
/// 1.1.0's) with a file of the bootstrap and a merge of its own, as master.ign has.
const FAKE_MASTER_IGN: &str = r#"{"ignition":{"version":"3.1.0","config":{"merge":[{"source":"data:,%7B%22ignition%22%3A%7B%22version%22%3A%223.1.0%22%7D%2C%22storage%22%3A%7B%22files%22%3A%5B%7B%22path%22%3A%22%2Fetc%2Foriginal-master%22%2C%22mode%22%3A420%2C%22contents%22%3A%7B%22source%22%3A%22data%3A%2Cmcs%22%7D%7D%5D%7D%7D"}]}},"storage":{"files":[{"path":"/etc/kubernetes/bootstrap-secrets/kubeconfig","mode":384,"contents":{"source":"data:,loopback"}}]}}"#;

/// Runs the live system's install-to-disk.sh (laid out under `root`, bootkube done, `master.ign`
/// made) with a stub coreos-installer; returns the config it installed and its arguments.
fn install_to_disk(root: &Path, state: &Path) -> Result<(PathBuf, String), Box<dyn Error>> {
    let assets = root.join("opt/openshift");
    fs::create_dir_all(&assets)?;
    fs::write(assets.join(".bootkube.done"), "")?;
    fs::write(assets.join("master.ign"), FAKE_MASTER_IGN)?;
    let stubs = state.join("bin");
    bootgen_conformance::write_file(&stubs.join("coreos-installer"), STUB_INSTALLER, 0o755)?;
    bootgen_conformance::write_file(&stubs.join("shutdown"), "#!/bin/sh\n", 0o755)?;
    let ran = Command::new("bash")
        .arg(root.join("usr/local/bin/install-to-disk.sh"))
        .env_clear()
        .env("PATH", format!("{}:/usr/bin:/bin", stubs.display()))
        .env("BOOTKUBE_ASSET_DIR", &assets)
        .env("BOOTKUBE_LIB_DIR", root.join("usr/local/bin"))
        .env("SERVICE_RECORDS_DIR", format!("{}/", state.display()))
        .env("BOOTGEN_NETWORK_ROOT", root)
        .env("STUB_STATE", state)
        .output()?;
    if !ran.status.success() {
        return Err(format!(
            "install-to-disk.sh failed: {}",
            String::from_utf8_lossy(&ran.stderr)
        )
        .into());
    }
    let args = fs::read_to_string(state.join("coreos-installer.args"))?;
    Ok((state.join("installed.ign"), args))
}

/// For every release, the static single node's live system installs a config that gives the
/// installed system the chosen host's name (the installer copies connections, not
/// /etc/hostname) and, where the release's coreos-installer has no `-n` (before 4.11), its
/// keyfiles: ignition-validate accepts it and the real Ignition writes them and everything of
/// master.ign. A machine no host matches installs master.ign itself.
#[test]
fn the_installed_single_node_keeps_the_chosen_hosts_name_in_every_release() -> TestResult {
    let loaded = bootgen::config::load(&fixture("single-node/install-config.yaml"))?;
    let hosts = bootgen::network::load_hosts(&fixture("single-node/agent-config.yaml"))?;
    for profile in bootgen::release::PROFILES.iter() {
        let minor = profile.minor.to_string();
        let mut options = bootgen_conformance::quick_options(Some(&format!("{minor}.0")));
        options.hosts = Some(hosts.clone());
        let generated = bootgen::generate(&loaded, &options)?;
        let view = IgnitionView::parse(&generated.bootstrap.to_bytes())?;

        let matching = tempfile::tempdir()?;
        let root = matching.path().join("root");
        lay_out(&view, &root)?;
        fake_interfaces(&root, &[("ens3", "02:00:00:00:07:0a")])?;
        let selected = run_script(&root)?;
        assert!(selected.status.success(), "{minor}: {selected:?}");
        let state = matching.path().join("state");
        let (installed, args) = install_to_disk(&root, &state)?;
        assert!(
            args.contains("-i ") && args.contains("/opt/openshift/master-installed.ign "),
            "{minor}: coreos-installer {args}"
        );
        let copies_network = args.split_whitespace().any(|a| a == "-n");
        let mode = fs::metadata(root.join("opt/openshift/master-installed.ign"))?
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600, "{minor}");
        let (valid, report) = bootgen_conformance::ignition_validate(&installed);
        assert!(valid, "{minor}: {report}");
        if let Some(applied) = BaseRoot::new().apply(&installed)? {
            assert_eq!(
                fs::read_to_string(applied.join("/etc/hostname"))?,
                "edge2\n",
                "{minor}"
            );
            let kubeconfig = applied.join("/etc/kubernetes/bootstrap-secrets/kubeconfig");
            assert_eq!(fs::read_to_string(&kubeconfig)?, "loopback", "{minor}");
            assert_eq!(
                fs::read_to_string(applied.join("/etc/original-master"))?,
                "mcs",
                "{minor}"
            );
            // Without -n the config carries the live system's keyfile; with it, the installer.
            let keyfile = format!("{KEYFILE_DIR}enp1s0.nmconnection");
            let carried = applied.join(&keyfile);
            assert_eq!(carried.exists(), !copies_network, "{minor}");
            if !copies_network {
                assert_eq!(
                    fs::read_to_string(&carried)?,
                    fs::read_to_string(root.join(keyfile.trim_start_matches('/')))?,
                    "{minor}"
                );
                let mode = fs::metadata(&carried)?.permissions().mode();
                assert_eq!(mode & 0o777, 0o600, "{minor}");
            }
        }

        // No host's MAC on the machine: master.ign is installed as bootkube made it.
        let other = tempfile::tempdir()?;
        let root = other.path().join("root");
        lay_out(&view, &root)?;
        fake_interfaces(&root, &[("ens3", "02:00:00:00:99:99")])?;
        assert!(run_script(&root)?.status.success(), "{minor}");
        let state = other.path().join("state");
        let (installed, args) = install_to_disk(&root, &state)?;
        assert!(
            args.contains("/opt/openshift/master.ign "),
            "{minor}: {args}"
        );
        assert_eq!(fs::read_to_string(installed)?, FAKE_MASTER_IGN, "{minor}");
        assert!(!root.join("etc/bootgen/selected-host").exists());
    }
    Ok(())
}

/// An agent-config.yaml as the agent installer documents it, with the keys bootgen does not
/// carry out: three control-plane hosts and two compute hosts (the minimal fixture's replicas).
const AGENT_CONFIG_WITH_KEYS_BOOTGEN_DOES_NOT_DO: &str = "apiVersion: v1beta1
kind: AgentConfig
metadata:
  name: minimal
rendezvousIP: 192.168.111.20
additionalNTPSources:
- ntp.drop-probe.example
minimalISO: true
hosts:
- {hostname: master-0, role: master, interfaces: [{name: eno1, macAddress: '52:54:00:00:00:01'}]}
- {hostname: master-1, role: master, interfaces: [{name: eno1, macAddress: '52:54:00:00:00:02'}]}
- {hostname: master-2, role: master, interfaces: [{name: eno1, macAddress: '52:54:00:00:00:03'}],
   rootDeviceHints: {serialNumber: S123}}
- {hostname: worker-0, role: worker, interfaces: [{name: eno1, macAddress: '52:54:00:00:00:04'}]}
- {hostname: worker-1, role: worker, interfaces: [{name: eno1, macAddress: '52:54:00:00:00:05'}],
   BMC: {username: admin, password: bmc-pass-9, address: 'redfish://10.0.0.9/x'}}
hostz: []
";

#[test]
fn each_agent_config_key_bootgen_does_not_carry_out_is_named_with_its_line() -> TestResult {
    let dir = tempfile::tempdir()?;
    let hosts = dir.path().join("agent-config.yaml");
    fs::write(&hosts, AGENT_CONFIG_WITH_KEYS_BOOTGEN_DOES_NOT_DO)?;
    let install_config = repo().join("fixtures/install-configs/valid/minimal.yaml");
    let run = |extra: &[&str]| {
        bootgen_conformance::bootgen!()
            .arg("ignition")
            .arg("--install-config")
            .arg(&install_config)
            .arg("--hosts")
            .arg(&hosts)
            .args(extra)
            .arg("-o")
            .arg(dir.path().join("out"))
            .output()
    };
    let output = run(&[])?;
    succeeded(&output)?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    let file = hosts.display();
    for (line, key, why) in [
        (5, "rendezvousIP", "bootgen does not use a rendezvous host"),
        (8, "minimalISO", "bootgen does not write minimal ISOs"),
        (
            16,
            "hosts[4].BMC",
            "bootgen does not drive hosts through their BMC",
        ),
        (17, "hostz", "unknown key"),
    ] {
        let said = format!("warning: {file}:{line}: `{key}`: ");
        let found = stderr
            .lines()
            .find(|l| l.starts_with(&said))
            .ok_or(format!("no {said:?} in:\n{stderr}"))?;
        assert!(found.contains(why), "{found}");
    }
    assert!(!stderr.contains("bmc-pass-9"), "{stderr}");
    // Warnings, so --strict refuses them, writing nothing new.
    fs::remove_dir_all(dir.path().join("out"))?;
    let strict = run(&["--strict"])?;
    assert_eq!(strict.status.code(), Some(1));
    assert!(!dir.path().join("out/bootstrap.ign").exists());
    Ok(())
}

/// The README's table of agent-config keys, as (key, what bootgen does: its first word).
fn readme_agent_config_keys() -> Result<BTreeMap<String, String>, Box<dyn Error>> {
    let readme = fs::read_to_string(repo().join("README.md"))?;
    let start = readme
        .find("| key | since | bootgen |")
        .ok_or("no agent-config key table in README.md")?;
    let mut out = BTreeMap::new();
    for line in readme[start..].lines().skip(2) {
        let Some(row) = line.strip_prefix("| ") else {
            break;
        };
        let cells: Vec<&str> = row.split(" | ").collect();
        let [keys, _since, what] = cells[..] else {
            return Err(format!("README row {line:?} has no three cells").into());
        };
        let names: Vec<&str> = keys.split(", ").map(|k| k.trim_matches('`')).collect();
        let parent = names[0].rsplit_once('.').map_or("", |(p, _)| p);
        let handling = what.split(':').next().unwrap_or_default().to_string();
        for (i, name) in names.iter().enumerate() {
            let key = if i == 0 || name.contains('.') || parent.is_empty() {
                name.to_string()
            } else {
                format!("{parent}.{name}")
            };
            out.insert(key, handling.clone());
        }
    }
    Ok(out)
}

#[test]
fn the_readme_tells_what_bootgen_does_with_each_agent_config_key() -> TestResult {
    let readme = readme_agent_config_keys()?;
    let table: BTreeMap<String, String> = bootgen::network::AGENT_CONFIG_KEYS
        .iter()
        .map(|row| {
            let handling = match row.handling {
                bootgen::network::KeyHandling::CarriedOut(_) => "carried out",
                bootgen::network::KeyHandling::Warned(_) => "warned",
                _ => "refused",
            };
            (row.key.to_string(), handling.to_string())
        })
        .collect();
    assert_eq!(readme, table);
    Ok(())
}

#[test]
fn pxe_sets_take_the_hosts_files_boot_artifacts_url_without_the_flag() -> TestResult {
    let dir = tempfile::tempdir()?;
    let hosts = dir.path().join("agent-config.yaml");
    fs::write(
        &hosts,
        AGENT_CONFIG_WITH_KEYS_BOOTGEN_DOES_NOT_DO.replacen(
            "hostz: []\n",
            "bootArtifactsBaseURL: ftp://10.0.0.1/pxe\n",
            1,
        ),
    )?;
    let install_config = repo().join("fixtures/install-configs/valid/minimal.yaml");
    let refused = bootgen_conformance::bootgen!()
        .arg("ignition")
        .arg("--install-config")
        .arg(&install_config)
        .arg("--hosts")
        .arg(&hosts)
        .arg("-o")
        .arg(dir.path().join("out"))
        .output()?;
    assert_eq!(refused.status.code(), Some(1));
    let message = String::from_utf8_lossy(&refused.stderr);
    assert!(message.contains("bootArtifactsBaseURL"), "{message}");
    assert!(message.contains("(line 17)"), "{message}");
    let without = bootgen_conformance::bootgen!()
        .arg("ignition")
        .arg("--install-config")
        .arg(&install_config)
        .arg("--pxe")
        .arg(dir.path().join("absent.iso"))
        .arg("-o")
        .arg(dir.path().join("out"))
        .output()?;
    assert_eq!(without.status.code(), Some(1));
    let message = String::from_utf8_lossy(&without.stderr);
    assert!(
        message.contains("--pxe needs the URL its PXE sets are served from"),
        "{message}"
    );
    assert!(!dir.path().join("out/bootstrap.ign").exists());
    Ok(())
}

/// NetworkManager's verdict on `keyfile`: `None` when it takes every setting as written, else
/// why not (it refuses the profile, or drops or changes a setting as it reads it).
fn network_manager_refusal(name: &str, keyfile: &str) -> Result<Option<String>, Box<dyn Error>> {
    match network_manager_differences(name, keyfile) {
        Ok(problems) if problems.is_empty() => Ok(None),
        Ok(problems) => Ok(Some(problems.join("; "))),
        Err(refused) if refused.to_string().starts_with("NetworkManager refuses") => {
            Ok(Some(refused.to_string()))
        }
        Err(other) => Err(other),
    }
}

/// The corpus `fixtures/network/keyfiles/`: `good/` keyfiles NetworkManager takes as written,
/// `bad/` ones it refuses or reads otherwise (an address it cannot parse, `method=manul`, a key
/// or setting it does not know, a value of the wrong type). `nmcli --offline` judges: bootgen
/// refuses every keyfile nmcli refuses, naming file, group, key and value, and nmcli takes
/// every keyfile bootgen accepts.
#[test]
fn bootgen_refuses_every_keyfile_network_manager_refuses_and_accepts_the_rest() -> TestResult {
    if !tool_present("nmcli") {
        return Ok(());
    }
    let dir = tempfile::tempdir()?;
    let corpus = repo().join("fixtures/network/keyfiles");
    let mut seen = 0;
    for kind in ["good", "bad"] {
        let mut paths: Vec<PathBuf> = fs::read_dir(corpus.join(kind))?
            .map(|e| e.map(|e| e.path()))
            .collect::<Result<_, _>>()?;
        paths.sort();
        for path in paths {
            seen += 1;
            let name = format!(
                "{kind}/{}",
                path.file_name().ok_or("name")?.to_string_lossy()
            );
            let text = fs::read_to_string(&path)?;
            let verdict = network_manager_refusal(&name, &text)?;
            assert_eq!(
                verdict.is_some(),
                kind == "bad",
                "the corpus is wrong: nmcli on {name}: {verdict:?}"
            );
            let out = dir.path().join(format!("out-{seen}"));
            let run = ignition(
                &out,
                "install-config.yaml",
                &["--network-keyfile", path.to_str().ok_or("path")?],
            );
            let stderr = String::from_utf8_lossy(&run.stderr);
            match verdict {
                None => assert!(run.status.success(), "{name}: bootgen refused it: {stderr}"),
                Some(why) => {
                    assert_eq!(run.status.code(), Some(1), "{name} ({why}): {stderr}");
                    assert!(
                        stderr.contains(&path.display().to_string())
                            && stderr.contains("NetworkManager would not take ["),
                        "{name}: {stderr}"
                    );
                    assert!(!out.join("bootstrap.ign").exists(), "{name}");
                }
            }
        }
    }
    assert!(seen >= 20, "the corpus holds {seen} keyfiles");
    Ok(())
}

/// A newline in an agent-config value (an interface's `description`, here) would reach the
/// keyfile raw and start a group the user never wrote (`[ipv4] method=disabled`): refused,
/// naming the host and the field, with nothing written.
#[test]
fn a_newline_in_an_agent_config_value_is_refused_naming_host_and_field() -> TestResult {
    let dir = tempfile::tempdir()?;
    let hosts = dir.path().join("agent-config.yaml");
    let text = fs::read_to_string(fixture("agent-config.yaml"))?;
    let broken = text.replacen(
        "    - name: eno1\n      type: ethernet\n",
        "    - name: eno1\n      type: ethernet\n      description: \"uplink\\n[ipv4]\\nmethod=disabled\"\n",
        1,
    );
    assert_ne!(broken, text, "the fixture changed shape");
    fs::write(&hosts, broken)?;
    let out = dir.path().join("out");
    let refused = ignition(
        &out,
        "install-config.yaml",
        &["--hosts", hosts.to_str().ok_or("path")?],
    );
    assert_eq!(refused.status.code(), Some(1));
    let message = String::from_utf8_lossy(&refused.stderr);
    assert!(
        message.contains("networkConfig.interfaces[0].description")
            && message.contains("host bootstrap:")
            && message.contains("a newline"),
        "{message}"
    );
    assert!(!out.join("bootstrap.ign").exists());
    Ok(())
}
