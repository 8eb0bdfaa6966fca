//! Workload partitioning (`cpuPartitioningMode`) and OVN-Kubernetes' join subnet
//! (`networking.ovnKubernetesConfig`), for every supported release of both distributions: what
//! each release's installer writes for them (the Infrastructure's status, the network operator's
//! config, the stored install-config), and each installer's decision on the mistakes its rules
//! catch. The expectations are the installers' own, read from each release's
//! `pkg/types/installconfig.go`, `pkg/types/validation` and `pkg/asset/manifests`: the field is
//! read from 4.13 (AllNodes only with TechPreviewNoUpgrade in 4.13) and the section from 4.18;
//! 4.10's and 4.11's installers refuse a field they do not know, the others ignore it.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use bootgen_conformance::lab::Lab;
use bootgen_conformance::IgnitionView;
use serde_yaml_ng::Value;
use std::fs;
use std::path::Path;
use std::process::Output;

const INFRASTRUCTURE: &str = "/opt/openshift/manifests/cluster-infrastructure-02-config.yml";
const OPERATOR_CONFIG: &str = "/opt/openshift/manifests/cluster-network-03-config.yml";
const JOIN_FIELD: &str = "networking.ovnKubernetesConfig.ipv4.internalJoinSubnet";

/// One release to generate for: its minor, and the options that choose it.
struct Release {
    minor: (u32, u32),
    label: String,
    args: Vec<String>,
}

/// Every supported release, OpenShift's and (where it exists) OKD's.
fn releases() -> Vec<Release> {
    let mut all = Vec::new();
    for profile in bootgen::release::PROFILES.iter() {
        let minor = profile.minor.to_string();
        let (major, rest) = minor.split_once('.').unwrap();
        let number = (major.parse().unwrap(), rest.parse().unwrap());
        all.push(Release {
            minor: number,
            label: minor.clone(),
            args: vec!["--release-version".into(), format!("{minor}.0")],
        });
        if profile
            .distribution(bootgen::release::Distribution::Okd)
            .is_some()
        {
            all.push(Release {
                minor: number,
                label: format!("okd-{minor}"),
                args: vec![
                    "--release-image".into(),
                    format!("quay.io/okd/scos-release:{minor}.0-okd-scos.0"),
                ],
            });
        }
    }
    all
}

/// 4.10's and 4.11's installers decode strictly: an unknown field refuses the install-config.
fn refuses_unknown_fields(minor: (u32, u32)) -> bool {
    minor == (4, 10) || minor == (4, 11)
}

/// The lab cluster with `networking` (indented under `networking:`) and `tail` (top-level
/// keys).
fn install_config(networking: &str, tail: &str) -> String {
    Lab {
        networking,
        tail,
        ..Lab::default()
    }
    .install_config()
}

/// `bootgen ignition` for `text` on `release`: its output, and the bootstrap config it wrote.
fn generate(dir: &Path, text: &str, release: &Release) -> (Output, Option<IgnitionView>) {
    let config = dir.join("install-config.yaml");
    fs::write(&config, text).unwrap();
    let out = dir.join("out");
    let _ = fs::remove_dir_all(&out);
    let output = bootgen_conformance::bootgen!()
        .args([
            "ignition",
            "--key-algorithm",
            "ecdsa-p256",
            "--install-config",
        ])
        .arg(&config)
        .args(&release.args)
        .arg("--output")
        .arg(&out)
        .output()
        .unwrap();
    let view = output
        .status
        .success()
        .then(|| IgnitionView::load(&out.join("bootstrap.ign")).unwrap());
    (output, view)
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The YAML object of the node's file at `path`, `None` when the node has no such file.
fn object(view: &IgnitionView, path: &str) -> Option<Value> {
    let entry = view.files.get(path)?;
    Some(serde_yaml_ng::from_slice(entry.contents.as_deref().unwrap_or_default()).unwrap())
}

/// The install-config as the cluster stores it (the `cluster-config-v1` ConfigMap).
fn stored_install_config(view: &IgnitionView) -> Value {
    let map = object(view, "/opt/openshift/manifests/cluster-config.yaml").unwrap();
    serde_yaml_ng::from_str(map["data"]["install-config"].as_str().unwrap()).unwrap()
}

/// Generates `text` for `release` and requires that it is refused as bad input with a message
/// holding every one of `words`.
fn assert_refused(dir: &Path, text: &str, release: &Release, words: &[&str]) {
    let (output, _) = generate(dir, text, release);
    assert_refusal(&output, release, words);
}

/// `output` is a refusal (exit 1) whose message holds each of `words`.
fn assert_refusal(output: &Output, release: &Release, words: &[&str]) {
    let message = stderr(output);
    assert_eq!(
        output.status.code(),
        Some(1),
        "{}: {message}",
        release.label
    );
    for word in words {
        assert!(
            message.contains(word),
            "{}: no `{word}` in: {message}",
            release.label
        );
    }
}

#[test]
fn every_release_partitions_the_nodes_as_its_installer_does() {
    let dir = tempfile::tempdir().unwrap();
    let text = install_config("", "cpuPartitioningMode: AllNodes\n");
    for release in releases() {
        let label = &release.label;
        let (output, view) = generate(dir.path(), &text, &release);
        if refuses_unknown_fields(release.minor) {
            assert_refusal(&output, &release, &["`cpuPartitioningMode` (line 19)"]);
            continue;
        }
        let view = view.unwrap_or_else(|| panic!("{label}: {}", stderr(&output)));
        let infrastructure = object(&view, INFRASTRUCTURE).unwrap();
        let status = &infrastructure["status"]["cpuPartitioning"];
        let stored = &stored_install_config(&view)["cpuPartitioningMode"];
        if release.minor < (4, 13) {
            // The installer has no such field: no status either, and a warning from bootgen.
            assert!(status.is_null(), "{label}: {status:?}");
            assert!(stored.is_null(), "{label}: {stored:?}");
            assert!(
                stderr(&output).contains("`cpuPartitioningMode`: ignored"),
                "{label}: {}",
                stderr(&output)
            );
            continue;
        }
        assert_eq!(stored.as_str(), Some("AllNodes"), "{label}");
        let expected = if release.minor == (4, 13) {
            "None"
        } else {
            "AllNodes"
        };
        assert_eq!(status.as_str(), Some(expected), "{label}");
        // The machine-config operator's bootstrap renders the nodes' configs from this object,
        // workload pinning included.
        let bootkube = view.files.get("/usr/local/bin/bootkube.sh").unwrap();
        let script = String::from_utf8_lossy(bootkube.contents.as_deref().unwrap_or_default());
        assert!(
            script.contains(
                "--infra-config-file=/assets/manifests/cluster-infrastructure-02-config.yml"
            ),
            "{label}: the MCO's bootstrap does not read the Infrastructure"
        );
    }
}

/// 4.13's installer partitions only a Tech Preview cluster, and bootgen says so otherwise.
#[test]
fn the_4_13_installer_partitions_tech_preview_clusters_only() {
    let dir = tempfile::tempdir().unwrap();
    let release = releases().into_iter().find(|r| r.label == "4.13").unwrap();
    let text = install_config("", "cpuPartitioningMode: AllNodes\n");
    let (output, _) = generate(dir.path(), &text, &release);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("`cpuPartitioningMode`: ignored")
            && stderr(&output).contains("featureSet: TechPreviewNoUpgrade"),
        "{}",
        stderr(&output)
    );
    let preview = install_config(
        "",
        "cpuPartitioningMode: AllNodes\nfeatureSet: TechPreviewNoUpgrade\n",
    );
    let (output, view) = generate(dir.path(), &preview, &release);
    let view = view.unwrap_or_else(|| panic!("{}", stderr(&output)));
    let infrastructure = object(&view, INFRASTRUCTURE).unwrap();
    assert_eq!(
        infrastructure["status"]["cpuPartitioning"].as_str(),
        Some("AllNodes")
    );
}

#[test]
fn a_mode_no_installer_carries_out_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let release = releases().into_iter().find(|r| r.label == "4.16").unwrap();
    let text = install_config("", "cpuPartitioningMode: allnodes\n");
    assert_refused(
        dir.path(),
        &text,
        &release,
        &["`cpuPartitioningMode` (line 19)", "`allnodes`", "AllNodes"],
    );
}

#[test]
fn every_release_passes_the_join_subnet_on_as_its_installer_does() {
    let dir = tempfile::tempdir().unwrap();
    let join = "  ovnKubernetesConfig:\n    ipv4:\n      internalJoinSubnet: 100.99.0.0/16\n";
    let text = install_config(join, "");
    for release in releases() {
        let label = &release.label;
        let (output, view) = generate(dir.path(), &text, &release);
        if refuses_unknown_fields(release.minor) {
            assert_refusal(
                &output,
                &release,
                &["`networking.ovnKubernetesConfig` (line 15)"],
            );
            continue;
        }
        let view = view.unwrap_or_else(|| panic!("{label}: {}", stderr(&output)));
        let stored = &stored_install_config(&view)["networking"]["ovnKubernetesConfig"];
        if release.minor < (4, 18) {
            assert!(
                !view.files.contains_key(OPERATOR_CONFIG),
                "{label}: an installer without the section writes no operator config"
            );
            assert!(stored.is_null(), "{label}: {stored:?}");
            assert!(
                stderr(&output).contains("`networking.ovnKubernetesConfig`: ignored"),
                "{label}: {}",
                stderr(&output)
            );
            continue;
        }
        assert_eq!(
            stored["ipv4"]["internalJoinSubnet"].as_str(),
            Some("100.99.0.0/16"),
            "{label}"
        );
        let entry = view.files.get(OPERATOR_CONFIG).unwrap();
        assert_eq!(entry.mode, 0o644, "{label}");
        let network = object(&view, OPERATOR_CONFIG).unwrap();
        assert_eq!(
            network["apiVersion"].as_str(),
            Some("operator.openshift.io/v1")
        );
        assert_eq!(network["kind"].as_str(), Some("Network"));
        assert_eq!(network["metadata"]["name"].as_str(), Some("cluster"));
        let spec = &network["spec"];
        assert_eq!(
            spec["defaultNetwork"]["type"].as_str(),
            Some("OVNKubernetes")
        );
        assert_eq!(
            spec["defaultNetwork"]["ovnKubernetesConfig"]["ipv4"]["internalJoinSubnet"].as_str(),
            Some("100.99.0.0/16"),
            "{label}"
        );
        assert_eq!(spec["managementState"].as_str(), Some("Managed"));
        assert_eq!(
            spec["clusterNetwork"][0]["cidr"].as_str(),
            Some("10.128.0.0/14")
        );
        assert_eq!(spec["clusterNetwork"][0]["hostPrefix"].as_u64(), Some(23));
        assert_eq!(spec["serviceNetwork"][0].as_str(), Some("172.30.0.0/16"));
        let (clean, report) =
            bootgen_conformance::ignition_validate(&dir.path().join("out/bootstrap.ign"));
        assert!(clean, "{label}: {report}");
    }
}

/// Each mistake the installers' rules catch: refused naming the field and value by every
/// release that reads the section, ignored by the releases before it (refused as an unknown
/// field by 4.10 and 4.11).
#[test]
fn join_subnet_mistakes_are_decided_as_each_installer_decides_them() {
    let dir = tempfile::tempdir().unwrap();
    let join = |subnet: &str| {
        format!("  ovnKubernetesConfig:\n    ipv4:\n      internalJoinSubnet: {subnet}\n")
    };
    let proxy = "proxy:\n  httpProxy: http://100.99.0.10:3128\n";
    let mistakes: Vec<(String, Vec<&str>)> = vec![
        (
            install_config(&join("10.128.0.0/16"), ""),
            vec![JOIN_FIELD, "10.128.0.0/16", "clusterNetwork 10.128.0.0/14"],
        ),
        (
            install_config(&join("192.0.2.0/25"), ""),
            vec![JOIN_FIELD, "192.0.2.0/25", "machineNetwork 192.0.2.0/24"],
        ),
        (
            install_config(&join("172.30.128.0/17"), ""),
            vec![
                JOIN_FIELD,
                "172.30.128.0/17",
                "serviceNetwork 172.30.0.0/16",
            ],
        ),
        // 10.128.0.0/14 cut into /23s holds 512 nodes; a /23 has 512 addresses, 3 reserved.
        (
            install_config(&join("100.99.0.0/23"), ""),
            vec![JOIN_FIELD, "100.99.0.0/23", "not large enough"],
        ),
        (
            install_config(&join("100.99.0.0/16"), "")
                .replace("networkType: OVNKubernetes", "networkType: Calico"),
            vec![
                "networking.networkType",
                "Calico",
                "OVNKubernetes networkType",
            ],
        ),
        (
            install_config(&join("100.99.0.0/16"), proxy),
            vec!["proxy.httpProxy", "100.99.0.10", "100.99.0.0/16"],
        ),
    ];
    for release in releases() {
        for (text, words) in &mistakes {
            if release.minor >= (4, 18) {
                assert_refused(dir.path(), text, &release, words);
            } else if refuses_unknown_fields(release.minor) {
                assert_refused(
                    dir.path(),
                    text,
                    &release,
                    &["`networking.ovnKubernetesConfig`"],
                );
            } else {
                let (output, _) = generate(dir.path(), text, &release);
                assert!(
                    output.status.success(),
                    "{}: {}",
                    release.label,
                    stderr(&output)
                );
            }
        }
    }
}

/// From 4.19 no network may overlap OVN-Kubernetes' default join subnet, 100.64.0.0/16: a
/// machine network there is refused, unless the join subnet is moved elsewhere.
#[test]
fn moving_the_join_subnet_frees_its_default_range() {
    let dir = tempfile::tempdir().unwrap();
    let machines = |text: String| text.replace("192.0.2.0/24", "100.64.0.0/24");
    let plain = machines(install_config("", ""));
    let moved = machines(install_config(
        "  ovnKubernetesConfig:\n    ipv4:\n      internalJoinSubnet: 100.99.0.0/16\n",
        "",
    ));
    for release in releases().into_iter().filter(|r| r.minor >= (4, 18)) {
        if release.minor >= (4, 19) {
            assert_refused(
                dir.path(),
                &plain,
                &release,
                &[
                    "networking.machineNetwork[0].cidr",
                    "100.64.0.0/16",
                    "internalJoinSubnet",
                ],
            );
        } else {
            let (output, _) = generate(dir.path(), &plain, &release);
            assert!(
                output.status.success(),
                "{}: {}",
                release.label,
                stderr(&output)
            );
        }
        let (output, view) = generate(dir.path(), &moved, &release);
        assert!(
            output.status.success(),
            "{}: {}",
            release.label,
            stderr(&output)
        );
        assert!(view.unwrap().files.contains_key(OPERATOR_CONFIG));
    }
}
