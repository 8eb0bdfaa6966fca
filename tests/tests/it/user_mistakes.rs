//! The mistakes people really make, and values that must reach the node unchanged: each test
//! runs the built binary the way a user would and checks what they would check.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use bootgen_conformance::IgnitionView;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bootgen() -> Command {
    let mut cmd = bootgen_conformance::bootgen!();
    cmd.env("SOURCE_DATE_EPOCH", "1767229200");
    cmd
}

fn generate(dir: &Path, extra: &[&str]) -> Output {
    bootgen()
        .args(["ignition", "--key-algorithm", "ecdsa-p256", "--output"])
        .arg(dir.join("out"))
        .args(extra)
        .output()
        .unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn default_config() -> &'static str {
    bootgen::config::DEFAULT_INSTALL_CONFIG
}

fn write_config(dir: &Path, text: &str) -> PathBuf {
    let path = dir.join("install-config.yaml");
    std::fs::write(&path, text).unwrap();
    path
}

fn file_text(view: &IgnitionView, path: &str) -> String {
    let entry = view
        .files
        .get(path)
        .unwrap_or_else(|| panic!("{path} missing"));
    String::from_utf8(entry.expected(None)).unwrap()
}

#[test]
fn install_config_in_the_current_directory_is_used() {
    let dir = tempfile::tempdir().unwrap();
    write_config(
        dir.path(),
        &default_config().replace("name: example", "name: local"),
    );
    let output = bootgen()
        .current_dir(dir.path())
        .args(["ignition", "--key-algorithm", "ecdsa-p256"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("reading ./install-config.yaml"),
        "{}",
        stderr(&output)
    );
    assert!(
        !stderr(&output).contains("embedded example"),
        "{}",
        stderr(&output)
    );
    let metadata = std::fs::read_to_string(dir.path().join("bootgen-out/metadata.json")).unwrap();
    assert!(metadata.contains("\"clusterName\":\"local\""), "{metadata}");
}

#[test]
fn a_truncated_ssh_key_is_refused_naming_field_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let text = default_config();
    let key_line = text.lines().find(|l| l.starts_with("sshKey:")).unwrap();
    // The base64 body cut short by a copy and paste (four characters: still valid base64).
    let body = key_line.split_whitespace().nth(2).unwrap();
    let cut = key_line.replace(body, &body[..body.len() - 4]);
    let config = write_config(dir.path(), &text.replace(key_line, &cut));
    let line = text.lines().position(|l| l.starts_with("sshKey:")).unwrap() + 1;
    let output = generate(dir.path(), &["--install-config", config.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let message = stderr(&output);
    assert!(message.contains("sshKey"), "{message}");
    assert!(message.contains(&format!("line {line}")), "{message}");
    assert!(!dir.path().join("out").exists(), "something was written");
}

#[test]
fn a_key_copied_over_another_is_refused_on_a_re_run_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    // RSA (the default), what a re-run reads without importing its keys when their files are
    // unchanged.
    let run = |extra: &[&str]| {
        bootgen()
            .args(["ignition", "--output"])
            .arg(dir.path().join("out"))
            .args(extra)
            .output()
            .unwrap()
    };
    let output = run(&[]);
    assert!(output.status.success(), "{}", stderr(&output));
    let tls = dir.path().join("out/tls");
    assert!(tls.join("verified-keys.sha256").is_file());
    let before = std::fs::read(dir.path().join("out/bootstrap.ign")).unwrap();
    // Another valid RSA key in place of the lb signer's: the record no longer vouches for the
    // file, and its public key is not the certificate's.
    std::fs::copy(
        tls.join("kube-apiserver-localhost-signer.key"),
        tls.join("kube-apiserver-lb-signer.key"),
    )
    .unwrap();
    let output = run(&["--force"]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let message = stderr(&output);
    assert!(
        message.contains("tls/kube-apiserver-lb-signer.key")
            && message.contains("tls/kube-apiserver-lb-signer.crt"),
        "{message}"
    );
    assert!(!message.contains("PRIVATE"), "{message}");
    let after = std::fs::read(dir.path().join("out/bootstrap.ign")).unwrap();
    assert!(after == before, "bootstrap.ign was rewritten");
}

/// A key written twice is named at its second line, the one to remove, at the top level and
/// inside a mapping.
#[test]
fn a_key_written_twice_is_named_at_its_second_line() {
    let dir = tempfile::tempdir().unwrap();
    let top = format!("{}baseDomain: other.example.com\n", default_config());
    let nested =
        default_config().replacen("  name: example\n", "  name: example\n  name: again\n", 1);
    for (text, again) in [(top, "baseDomain: other"), (nested, "  name: again")] {
        let line = text.lines().position(|l| l.starts_with(again)).unwrap() + 1;
        let config = write_config(dir.path(), &text);
        let output = generate(dir.path(), &["--install-config", config.to_str().unwrap()]);
        assert_eq!(output.status.code(), Some(1));
        let message = stderr(&output);
        assert!(
            message.contains(&format!("install-config.yaml:{line}: "))
                && message.contains("duplicate field"),
            "{again}: {message}"
        );
    }
}

#[test]
fn tab_indentation_is_explained() {
    let dir = tempfile::tempdir().unwrap();
    let text = default_config().replacen("  name: example", "\tname: example", 1);
    let line = text.lines().position(|l| l.starts_with('\t')).unwrap() + 1;
    let config = write_config(dir.path(), &text);
    let output = generate(dir.path(), &["--install-config", config.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    let message = stderr(&output);
    assert!(
        message.contains(&format!(
            "install-config.yaml:{line}: indented with a tab: YAML does not allow tabs"
        )),
        "{message}"
    );
}

#[test]
fn fresh_output_validates_strictly_and_old_output_does_not() {
    let dir = tempfile::tempdir().unwrap();
    assert!(generate(dir.path(), &[]).status.success());
    let config = dir.path().join("out/bootstrap.ign");
    let validate = |now: &str| {
        bootgen()
            .args(["validate", "--strict", "--now", now])
            .arg(&config)
            .output()
            .unwrap()
    };
    // SOURCE_DATE_EPOCH above is 2026-01-01T01:00:00Z.
    let fresh = validate("2026-01-01T01:05:00Z");
    assert!(
        fresh.status.success(),
        "{}",
        String::from_utf8_lossy(&fresh.stdout)
    );
    let half_a_day = validate("2026-01-01T14:00:00Z");
    assert_eq!(half_a_day.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&half_a_day.stdout).contains("expiring-certificate"));
    let days_later = validate("2026-01-03T01:00:00Z");
    assert_eq!(days_later.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&days_later.stdout).contains("expired-certificate"));
}

#[test]
fn a_digest_can_be_declared_a_multi_arch_payload() {
    let dir = tempfile::tempdir().unwrap();
    let digest = "quay.io/openshift-release-dev/ocp-release@sha256:".to_string() + &"ab".repeat(32);
    let refused = generate(
        dir.path(),
        &[
            "--arch",
            "arm64",
            "--bootstrap-arch",
            "amd64",
            "--release-image",
            &digest,
            "--release-version",
            "4.22.0",
        ],
    );
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        stderr(&refused).contains("--multi-arch-payload"),
        "{}",
        stderr(&refused)
    );
    let accepted = generate(
        dir.path(),
        &[
            "--arch",
            "arm64",
            "--bootstrap-arch",
            "amd64",
            "--release-image",
            &digest,
            "--release-version",
            "4.22.0",
            "--multi-arch-payload",
        ],
    );
    assert!(accepted.status.success(), "{}", stderr(&accepted));
    let view = IgnitionView::load(&dir.path().join("out/bootstrap.ign")).unwrap();
    assert!(file_text(&view, "/usr/local/bin/release-image-download.sh")
        .contains("PAYLOAD_MULTI=\"true\""));
    // A tag that names one architecture is not a multi payload, whatever the flag says.
    let contradiction = generate(
        dir.path(),
        &[
            "--release-image",
            "quay.io/x/ocp-release:4.19.0-x86_64",
            "--multi-arch-payload",
        ],
    );
    assert_eq!(contradiction.status.code(), Some(1));
}

/// What coreos-installer embeds is `config.ign` in a cpio archive, xz-compressed: the real
/// `cpio` and `xz` tools give (nearly) the size bootgen judges the live ISO by.
#[test]
fn the_live_iso_budget_is_the_compressed_archive() {
    for tool in ["cpio", "xz"] {
        if Command::new(tool).arg("--version").output().is_err() {
            assert!(std::env::var_os("CI").is_none(), "CI must install {tool}");
            eprintln!("SKIPPED: no {tool}");
            return;
        }
    }
    let dir = tempfile::tempdir().unwrap();
    // Manifests that make the config larger than 256 KiB but compress well.
    let manifests = dir.path().join("manifests");
    std::fs::create_dir(&manifests).unwrap();
    for i in 0..40 {
        let data: String = (0..200).map(|j| format!("  key{j}: value-{j}\n")).collect();
        std::fs::write(
            manifests.join(format!("cm-{i}.yaml")),
            format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-{i}\n  namespace: default\ndata:\n{data}"),
        )
        .unwrap();
    }
    let output = generate(
        dir.path(),
        &["--manifests-dir", manifests.to_str().unwrap()],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let config = dir.path().join("out/bootstrap.ign");
    assert!(std::fs::metadata(&config).unwrap().len() > 256 * 1024);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let iso_line = stdout
        .lines()
        .find(|l| l.contains("live ISO embed area"))
        .unwrap();
    assert!(iso_line.contains(" fits ("), "{stdout}");
    // The cloud limits are not for platform none; the full table has them, and the way out.
    assert!(!stdout.contains("GCP metadata"), "{stdout}");
    let table = bootgen()
        .args(["inspect", "--budget"])
        .arg(&config)
        .output()
        .unwrap();
    let table = String::from_utf8_lossy(&table.stdout);
    assert!(
        table.contains("GCP metadata")
            && table.contains("fits with its files gzipped")
            && table.contains("bootgen ignition (or bootgen patch) with --compress"),
        "{table}"
    );

    // The same archive with the real tools.
    let staging = dir.path().join("embed");
    std::fs::create_dir(&staging).unwrap();
    std::fs::copy(&config, staging.join("config.ign")).unwrap();
    let real = Command::new("sh")
        .arg("-c")
        .arg("echo config.ign | cpio -o -H newc --quiet | xz -9 --check=crc32 | wc -c")
        .current_dir(&staging)
        .output()
        .unwrap();
    let real: u64 = String::from_utf8_lossy(&real.stdout)
        .trim()
        .parse()
        .unwrap();
    let ours = bootgen::report::xz_cpio_size(&std::fs::read(&config).unwrap());
    let ratio = ours as f64 / real as f64;
    assert!(
        (0.98..1.02).contains(&ratio),
        "bootgen {ours} bytes, cpio|xz {real} bytes"
    );
}

#[test]
fn debug_motd_names_only_what_a_foreign_config_has() {
    // An installer-shaped config: bootkube and release scripts, but no reset tool and no
    // progress-record library.
    let dir = tempfile::tempdir().unwrap();
    let data = |text: &str| {
        use base64::Engine;
        format!(
            "data:text/plain;charset=utf-8;base64,{}",
            base64::engine::general_purpose::STANDARD.encode(text)
        )
    };
    let config = serde_json::json!({
        "ignition": {"version": "3.2.0"},
        "storage": {"files": [
            {"path": "/usr/local/bin/bootkube.sh", "mode": 365, "contents": {"source": data("#!/bin/bash\necho bootkube\n")}},
            {"path": "/etc/motd", "mode": 420, "append": [{"source": data("This is the bootstrap node.\n")}]}
        ]},
        "systemd": {"units": [
            {"name": "bootkube.service", "contents": "[Service]\nExecStart=/usr/local/bin/bootkube.sh\n"},
            {"name": "approve-csr.service", "enabled": true, "contents": "[Unit]\nWants=bootkube.service\n[Service]\nExecStart=/bin/true\n[Install]\nWantedBy=multi-user.target\n"}
        ]}
    });
    let input = dir.path().join("installer.ign");
    std::fs::write(&input, config.to_string()).unwrap();
    let patched = dir.path().join("debug.ign");
    let output = bootgen()
        .args(["patch", "--debug", "-o"])
        .arg(&patched)
        .arg(&input)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let view = IgnitionView::load(&patched).unwrap();
    let motd = file_text(&view, "/etc/motd");
    assert!(
        motd.contains("\n  cd /opt/openshift && sudo bash -x /usr/local/bin/bootkube.sh"),
        "{motd}"
    );
    assert!(!motd.contains("bootkube-reset.sh"), "{motd}");
    assert!(!motd.contains("/var/log/openshift"), "{motd}");
    // bootgen's own config has both, and says so.
    assert!(generate(dir.path(), &["--debug"]).status.success());
    let own = IgnitionView::load(&dir.path().join("out/bootstrap.ign")).unwrap();
    let motd = file_text(&own, "/etc/motd");
    assert!(
        motd.contains("bootkube-reset.sh") && motd.contains("/var/log/openshift"),
        "{motd}"
    );
}

/// A release by tag under a source that must never be contacted: the install-config route and
/// the command-line route end the same way (pointed at the mirror, with a warning).
#[test]
fn blocked_sources_with_a_tagged_release_behave_the_same_either_way() {
    let dir = tempfile::tempdir().unwrap();
    // 4.21: the first release whose installer reads imageDigestSources' sourcePolicy (before,
    // it is ignored with a warning, as the installer ignores it).
    let tag = "quay.io/openshift-release-dev/ocp-release:4.21.0-x86_64";
    let mirror = "mirror.example.com:5000/ocp/release";
    let with_sources = format!(
        "{}imageDigestSources:\n- source: quay.io/openshift-release-dev/ocp-release\n  mirrors:\n  - {mirror}\n  sourcePolicy: NeverContactSource\n",
        default_config()
    );
    let config = write_config(dir.path(), &with_sources);
    let hosts = "--add-host=192.0.2.10=mirror.example.com";
    let by_config = generate(
        dir.path(),
        &[
            "--install-config",
            config.to_str().unwrap(),
            "--release-image",
            tag,
            hosts,
        ],
    );
    let first = IgnitionView::load(&dir.path().join("out/bootstrap.ign"));
    let by_flags_dir = tempfile::tempdir().unwrap();
    let by_flags = generate(
        by_flags_dir.path(),
        &[
            "--release-image",
            tag,
            "--mirror",
            &format!("quay.io/openshift-release-dev/ocp-release={mirror}"),
            "--block-source",
            hosts,
        ],
    );
    for (route, output) in [("install-config", &by_config), ("flags", &by_flags)] {
        assert!(output.status.success(), "{route}: {}", stderr(output));
        assert!(
            stderr(output).contains("pulled from the mirror by tag"),
            "{route}: {}",
            stderr(output)
        );
    }
    let second = IgnitionView::load(&by_flags_dir.path().join("out/bootstrap.ign")).unwrap();
    let expected = format!("RELEASE_IMAGE='{mirror}:4.21.0-x86_64'");
    for view in [&first.unwrap(), &second] {
        assert!(file_text(view, "/usr/local/bin/release-image.sh").contains(&expected));
    }
}

/// Values with quotes, `$`, backticks, spaces, `#`, `;` and non-ASCII reach the node exactly:
/// every script stays valid shell, every manifest parses to the same value.
#[test]
fn awkward_values_arrive_unchanged_in_every_language() {
    let have_shellcheck = Command::new("shellcheck").arg("--version").output().is_ok();
    assert!(
        have_shellcheck || std::env::var_os("CI").is_none(),
        "CI must install shellcheck"
    );
    // URL user info may hold ' $ ; ( ) ! * & = + , (RFC 3986 sub-delims); the SSH key comment
    // may hold anything printable.
    let cases = [
        (
            "http://o'brien:pa$$;w(o)rd!*&=+,@proxy.example.com:3128",
            "quote'dollar$back`tick",
        ),
        (
            "http://user:%25%27x@proxy.example.com:3128",
            "space and # hash; semi \"dq\" é ü 中",
        ),
        (
            "http://plain.example.com:3128",
            "$(touch /tmp/pwned) `id` ${HOME}",
        ),
    ];
    let key = default_config()
        .lines()
        .find_map(|l| l.strip_prefix("sshKey: "))
        .unwrap()
        .trim_matches('\'')
        .split_whitespace()
        .take(2)
        .collect::<Vec<_>>()
        .join(" ");
    for (proxy, comment) in cases {
        let dir = tempfile::tempdir().unwrap();
        let ssh_key = format!("{key} {comment}");
        let mut config: serde_yaml_ng::Value = serde_yaml_ng::from_str(default_config()).unwrap();
        config["sshKey"] = ssh_key.clone().into();
        let proxy_yaml: serde_yaml_ng::Value = serde_yaml_ng::from_str(&format!(
            "httpProxy: {0}\nhttpsProxy: {0}\nnoProxy: .corp.example.com\n",
            serde_json::to_string(proxy).unwrap()
        ))
        .unwrap();
        config["proxy"] = proxy_yaml;
        // A custom feature gate's name is free text up to its `=`.
        let gate = comment.replace('=', "");
        config["featureSet"] = "CustomNoUpgrade".into();
        config["featureGates"] = vec![serde_yaml_ng::Value::from(format!("{gate}=true"))].into();
        let path = write_config(dir.path(), &serde_yaml_ng::to_string(&config).unwrap());
        let output = generate(dir.path(), &["--install-config", path.to_str().unwrap()]);
        assert!(output.status.success(), "{proxy}: {}", stderr(&output));
        let view = IgnitionView::load(&dir.path().join("out/bootstrap.ign")).unwrap();

        // Shell: sourcing proxy.sh gives the value back; every script parses and lints clean.
        let scripts = dir.path().join("scripts");
        std::fs::create_dir_all(&scripts).unwrap();
        for (path, _) in view
            .files
            .iter()
            .filter(|(p, _)| p.starts_with("/usr/local/bin/") || p.starts_with("/etc/profile.d/"))
        {
            let text = file_text(&view, path);
            if !(text.starts_with("#!") || path.ends_with(".sh")) {
                continue;
            }
            let local = scripts.join(path.trim_start_matches('/').replace('/', "_"));
            std::fs::write(&local, &text).unwrap();
            let syntax = Command::new("bash").arg("-n").arg(&local).output().unwrap();
            assert!(
                syntax.status.success(),
                "{path} with {proxy}: {}",
                stderr(&syntax)
            );
            if have_shellcheck {
                let mut lint = Command::new("shellcheck");
                lint.args(["--severity=warning", "--external-sources"]);
                if !text.starts_with("#!") {
                    lint.arg("--shell=sh");
                }
                let lint = lint.arg(&local).output().unwrap();
                assert!(
                    lint.status.success(),
                    "{path} with {proxy}: {}",
                    String::from_utf8_lossy(&lint.stdout)
                );
            }
        }
        let sourced = Command::new("bash")
            .arg("-c")
            .arg("set -u; . \"$1\"; printf '%s\\n%s' \"$HTTP_PROXY\" \"$https_proxy\"")
            .arg("-")
            .arg(scripts.join("etc_profile.d_proxy.sh"))
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8_lossy(&sourced.stdout),
            format!("{proxy}\n{proxy}"),
            "{}",
            stderr(&sourced)
        );

        // systemd: one quoted assignment per variable, % doubled, quotes and backslashes escaped.
        let env_conf = file_text(&view, "/etc/systemd/system.conf.d/10-default-env.conf");
        let line = env_conf
            .lines()
            .find(|l| l.contains("HTTP_PROXY="))
            .unwrap();
        let unquoted = line
            .strip_prefix("DefaultEnvironment=\"")
            .and_then(|l| l.strip_suffix('"'))
            .unwrap()
            .replace("%%", "%")
            .replace("\\\"", "\"")
            .replace("\\\\", "\\");
        assert_eq!(unquoted, format!("HTTP_PROXY={proxy}"));

        // YAML: the cluster's proxy, the SSH machine configs and the stored install-config.
        let yaml = |path: &str| -> serde_yaml_ng::Value {
            serde_yaml_ng::from_str(&file_text(&view, path)).unwrap()
        };
        let cluster_proxy = yaml("/opt/openshift/manifests/cluster-proxy-01-config.yaml");
        assert_eq!(cluster_proxy["spec"]["httpProxy"].as_str(), Some(proxy));
        for role in ["master", "worker"] {
            let mc = yaml(&format!(
                "/opt/openshift/openshift/99_openshift-machineconfig_99-{role}-ssh.yaml"
            ));
            let keys = &mc["spec"]["config"]["passwd"]["users"][0]["sshAuthorizedKeys"];
            assert_eq!(keys[0].as_str(), Some(ssh_key.as_str()), "{role}");
        }
        let stored = yaml("/opt/openshift/manifests/cluster-config.yaml");
        let install_config: serde_yaml_ng::Value =
            serde_yaml_ng::from_str(stored["data"]["install-config"].as_str().unwrap()).unwrap();
        assert_eq!(install_config["sshKey"].as_str(), Some(ssh_key.as_str()));
        assert_eq!(install_config["proxy"]["httpProxy"].as_str(), Some(proxy));
        let feature_gate = yaml("/opt/openshift/openshift/99_feature-gate.yaml");
        let enabled = &feature_gate["spec"]["customNoUpgrade"]["enabled"];
        assert_eq!(enabled[0].as_str(), Some(gate.as_str()));
        assert_eq!(
            install_config["featureGates"][0].as_str(),
            Some(format!("{gate}=true").as_str())
        );
        // The core user's key, in Ignition's JSON.
        assert_eq!(view.users["core"].ssh_keys[0], ssh_key);
    }
}

/// A mistyped key is answered with the key meant, and the default it falls back to is not a
/// surprise; a bare unsupported minor is told it is unsupported, not to add `.0`.
#[test]
fn mistyped_keys_and_bare_minors_get_answers_that_lead_somewhere() {
    let dir = tempfile::tempdir().unwrap();
    let text = default_config().replace("controlPlane:", "controlplane:");
    assert_ne!(text, default_config(), "the example has a controlPlane key");
    let config = write_config(dir.path(), &text);
    let output = generate(dir.path(), &["--install-config", config.to_str().unwrap()]);
    let warnings = stderr(&output);
    assert!(
        warnings.contains("controlplane") && warnings.contains("did you mean `controlPlane`?"),
        "{warnings}"
    );

    let output = generate(dir.path(), &["--release-version", "3.11", "--force"]);
    assert_eq!(output.status.code(), Some(1));
    let message = stderr(&output);
    assert!(
        message.contains("--release-version")
            && message.contains("OpenShift 3.11 is not supported"),
        "{message}"
    );
    assert!(!message.contains("3.11.0"), "{message}");
}

#[test]
fn a_manifest_named_like_a_generated_one_is_said_and_refused_when_it_drops_the_networks() {
    let scratch = tempfile::tempdir().unwrap();
    let manifests = scratch.path().join("manifests");
    std::fs::create_dir(&manifests).unwrap();
    let name = "cluster-network-02-config.yml";
    // What a user copied from a blog: the network type alone.
    std::fs::write(
        manifests.join(name),
        "apiVersion: config.openshift.io/v1\nkind: Network\nmetadata:\n  name: cluster\nspec:\n  networkType: Cilium\n",
    )
    .unwrap();
    let dir = manifests.to_str().unwrap();
    let refused = generate(scratch.path(), &["--manifests-dir", dir]);
    let text = stderr(&refused);
    assert_eq!(refused.status.code(), Some(1), "{text}");
    assert!(text.contains("--manifests-dir"), "{text}");
    assert!(text.contains(name), "{text}");
    assert!(text.contains("spec.clusterNetwork"), "{text}");
    assert!(text.contains("spec.serviceNetwork"), "{text}");
    assert!(!scratch.path().join("out/bootstrap.ign").exists());

    // The whole object, changed on purpose: written, and said.
    std::fs::write(
        manifests.join(name),
        "apiVersion: config.openshift.io/v1\nkind: Network\nmetadata:\n  name: cluster\nspec:\n  clusterNetwork:\n  - cidr: 10.128.0.0/14\n    hostPrefix: 23\n  externalIP:\n    policy: {}\n  networkType: Cilium\n  serviceNetwork:\n  - 172.30.0.0/16\n",
    )
    .unwrap();
    let replaced = generate(scratch.path(), &["--manifests-dir", dir]);
    let text = stderr(&replaced);
    assert!(replaced.status.success(), "{text}");
    assert!(
        text.contains(&format!(
            "warning: --manifests-dir: {name} replaces the manifest bootgen generates as manifests/{name}"
        )),
        "{text}"
    );
    let view = IgnitionView::load(&scratch.path().join("out/bootstrap.ign")).unwrap();
    assert!(file_text(&view, &format!("/opt/openshift/manifests/{name}")).contains("Cilium"));
    // Under --strict the replacement is an error too.
    let strict = generate(
        scratch.path(),
        &["--manifests-dir", dir, "--strict", "--force"],
    );
    assert_eq!(strict.status.code(), Some(1), "{}", stderr(&strict));
}

#[test]
fn a_running_clusters_stored_install_config_with_deprecated_networking_is_read() {
    // As a 4.13 cluster's cluster-config-v1 holds it: the deprecated networking fields.
    let scratch = tempfile::tempdir().unwrap();
    let current = "networking:\n  networkType: OVNKubernetes\n  clusterNetwork:\n  - cidr: 10.128.0.0/14\n    hostPrefix: 23\n  serviceNetwork:\n  - 172.30.0.0/16\n  machineNetwork:\n  - cidr: 10.0.0.0/16\n";
    assert!(default_config().contains(current));
    let text = default_config().replace(
        current,
        "networking:\n  clusterNetworks:\n  - cidr: 10.132.0.0/14\n    hostSubnetLength: 8\n  machineCIDR: 10.0.0.0/16\n  serviceCIDR: 172.30.0.0/16\n  type: OVNKubernetes\n",
    );
    let config = write_config(scratch.path(), &text);
    let output = generate(
        scratch.path(),
        &[
            "--release-version",
            "4.13.0",
            "--install-config",
            config.to_str().unwrap(),
        ],
    );
    let said = stderr(&output);
    assert!(output.status.success(), "{said}");
    assert!(
        said.contains("networking.clusterNetworks[0].hostSubnetLength"),
        "{said}"
    );
    assert!(said.contains("hostPrefix: 24"), "{said}");
    assert!(said.contains("networking.machineCIDR"), "{said}");
    let view = IgnitionView::load(&scratch.path().join("out/bootstrap.ign")).unwrap();
    let network = file_text(
        &view,
        "/opt/openshift/manifests/cluster-network-02-config.yml",
    );
    assert!(
        network.contains("10.132.0.0/14") && network.contains("hostPrefix: 24"),
        "{network}"
    );
}

#[test]
fn control_characters_in_values_are_refused_naming_field_and_line() {
    let fixture = |name: &str| {
        std::fs::read_to_string(
            bootgen_conformance::repo()
                .join("fixtures/install-configs/valid")
                .join(name),
        )
        .unwrap()
    };
    let (proxied, mirrors) = (fixture("proxy-trust-bundle.yaml"), fixture("mirrors.yaml"));
    let key_line = proxied.lines().find(|l| l.starts_with("sshKey:")).unwrap();
    let key = key_line.strip_prefix("sshKey: ").unwrap();
    let (key_type, key_rest) = key.split_once(' ').unwrap();
    let source = "- source: quay.io/openshift-release-dev/ocp-release";
    // (config, the line replaced, its replacement (YAML escapes), field, what is named)
    let cases = [
        (
            &proxied,
            "  httpsProxy: http://proxy.corp.example.net:3128",
            "  httpsProxy: \"http://proxy.corp.example.net:3128\\nX-Injected: 1\"",
            "proxy.httpsProxy",
            "a newline (U+000A)",
        ),
        (
            &proxied,
            "  httpProxy: http://proxy.corp.example.net:3128",
            "  httpProxy: \"http://proxy.corp.example.net:3128\\e[2J\"",
            "proxy.httpProxy",
            "an escape (ESC) (U+001B)",
        ),
        (
            &proxied,
            "  noProxy: .corp.example.net,10.0.0.0/8",
            "  noProxy: \".corp.example.net\\0,10.0.0.0/8\"",
            "proxy.noProxy",
            "a NUL (U+0000)",
        ),
        (
            &proxied,
            "  noProxy: .corp.example.net,10.0.0.0/8",
            "  noProxy: \".corp.example.net,\\n10.0.0.0/8\"",
            "proxy.noProxy",
            "a newline",
        ),
        (
            &proxied,
            "baseDomain: corp.example.net",
            "baseDomain: \"corp.example.net\\n\"",
            "baseDomain",
            "a newline",
        ),
        (
            &proxied,
            "  name: proxied",
            "  name: \"prox\\eied\"",
            "metadata.name",
            "an escape (ESC)",
        ),
        (
            &proxied,
            "  name: proxied",
            "  name: \"proxied\\u009b\"",
            "metadata.name",
            "a control character (U+009B)",
        ),
        (
            &proxied,
            key_line,
            &format!("sshKey: \"{key_type} {key_rest}\\e]0;x\\a\""),
            "sshKey",
            "an escape (ESC)",
        ),
        (
            &proxied,
            key_line,
            &format!("sshKey: \"{key_type}\\0 {key_rest}\""),
            "sshKey",
            "a NUL",
        ),
        (
            &mirrors,
            source,
            "- source: \"quay.io/openshift-release-dev/ocp-release\\n\"",
            "imageDigestSources[0].source",
            "a newline",
        ),
    ];
    for (config, line, replacement, field, named) in cases {
        let dir = tempfile::tempdir().unwrap();
        assert!(config.contains(line), "{line}");
        let text = config.replacen(line, replacement, 1);
        let number = text.lines().position(|l| l == replacement).unwrap() + 1;
        let path = write_config(dir.path(), &text);
        let output = generate(dir.path(), &["--install-config", path.to_str().unwrap()]);
        let message = stderr(&output);
        assert_eq!(output.status.code(), Some(1), "{field}: {message}");
        for fragment in [
            "install-config.yaml",
            &format!("`{field}` (line {number})"),
            named,
        ] {
            assert!(
                message.contains(fragment),
                "{field}: no {fragment} in {message}"
            );
        }
        assert!(
            !dir.path().join("out").exists(),
            "{field}: something was written"
        );
    }
    // Several lines are legitimate where a value has them: a PEM bundle (the fixture's), SSH
    // keys one per line.
    let dir = tempfile::tempdir().unwrap();
    let text = proxied.replacen(key_line, &format!("sshKey: \"{key}\\n{key}\\n\""), 1);
    let path = write_config(dir.path(), &text);
    let output = generate(dir.path(), &["--install-config", path.to_str().unwrap()]);
    assert!(output.status.success(), "{}", stderr(&output));
}

/// A misspelled network plugin is warned of with the one meant (a third party's is taken as it
/// is), and refused under --strict; a unit named without its suffix gets the unit meant.
#[test]
fn misspelled_values_get_the_value_meant() {
    let dir = tempfile::tempdir().unwrap();
    let text = default_config().replace("networkType: OVNKubernetes", "networkType: OVNKubernates");
    let config = write_config(dir.path(), &text);
    let config = config.to_str().unwrap();
    let output = generate(dir.path(), &["--install-config", config]);
    assert!(output.status.success(), "{}", stderr(&output));
    let warnings = stderr(&output);
    assert!(
        warnings.contains("networking.networkType")
            && warnings.contains("did you mean OVNKubernetes?"),
        "{warnings}"
    );
    let output = generate(
        dir.path(),
        &["--install-config", config, "--strict", "--force"],
    );
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(stderr(&output).contains("did you mean OVNKubernetes?"));

    let third_party = default_config().replace("networkType: OVNKubernetes", "networkType: Calico");
    let config = write_config(dir.path(), &third_party);
    let output = generate(
        dir.path(),
        &["--install-config", config.to_str().unwrap(), "--force"],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        !stderr(&output).contains("networkType"),
        "{}",
        stderr(&output)
    );

    let output = generate(dir.path(), &["--disable-unit", "bootkube", "--force"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("did you mean bootkube.service?"),
        "{}",
        stderr(&output)
    );
}

/// Patching a config whose certificates have expired says so at once (how many, which, and the
/// way out), instead of leaving it to `validate`; the patch itself still succeeds.
#[test]
fn patching_an_expired_config_warns_of_its_certificates() {
    let dir = tempfile::tempdir().unwrap();
    assert!(generate(dir.path(), &[]).status.success());
    let out = dir.path().join("out");
    let patch = |input: &Path, epoch: &str| {
        bootgen()
            .env("SOURCE_DATE_EPOCH", epoch)
            .arg("patch")
            .arg(input)
            .arg("-o")
            .arg(dir.path().join("patched.ign"))
            .arg("--debug")
            .output()
            .unwrap()
    };
    // Years later, every certificate has expired, the CAs too.
    let output = patch(&out.join("bootstrap.ign"), "2400000000");
    assert!(output.status.success(), "{}", stderr(&output));
    let warning = stderr(&output);
    assert!(
        warning.contains("certificates in this config expired")
            && warning.contains("/opt/openshift/tls/")
            && warning.contains("more")
            && warning.contains("a certificate authority among them expired"),
        "{warning}"
    );
    // A config alone: bootgen does not hold its CAs.
    let lone = dir.path().join("lone.ign");
    std::fs::copy(out.join("bootstrap.ign"), &lone).unwrap();
    let warning = stderr(&patch(&lone, "1767340800"));
    assert!(
        warning.contains("bootgen does not hold this config's CAs"),
        "{warning}"
    );
    // While they are valid, nothing is said.
    let quiet = stderr(&patch(&out.join("bootstrap.ign"), "1767229200"));
    assert!(!quiet.contains("expired"), "{quiet}");
}

/// A pointer that fetches a bootstrap config in plain text is warned of: that config holds every
/// key of the cluster. Over https, or for a config without secrets, nothing is said.
#[test]
fn a_pointer_over_plain_http_to_a_config_with_keys_is_warned_of() {
    let dir = tempfile::tempdir().unwrap();
    assert!(generate(dir.path(), &[]).status.success());
    let pointer = |url: &str, target: &Path| {
        let output = bootgen()
            .args(["pointer", "--force", "--url", url])
            .arg(target)
            .arg("-o")
            .arg(dir.path().join("pointer.ign"))
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", stderr(&output));
        stderr(&output)
    };
    let bootstrap = dir.path().join("out/bootstrap.ign");
    let said = pointer("http://192.0.2.1/bootstrap.ign", &bootstrap);
    assert!(
        said.contains("warning: --url: http://192.0.2.1/bootstrap.ign is fetched in plain text")
            && said.contains("secret file(s)")
            && said.contains("https"),
        "{said}"
    );
    assert!(!pointer("https://192.0.2.1/bootstrap.ign", &bootstrap).contains("warning"));
    let plain = bootgen_conformance::repo().join("fixtures/ign/valid/spec-3.4.ign");
    let said = pointer("http://192.0.2.1/plain.ign", &plain);
    assert!(!said.contains("plain text"), "{said}");
    // A URL's credentials stay out of the warning, and make the pointer private.
    let said = pointer("http://user:PointerPw9@192.0.2.1/bootstrap.ign", &bootstrap);
    assert!(
        said.contains("plain text") && !said.contains("PointerPw9"),
        "{said}"
    );
    let mode = |path: &Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&dir.path().join("pointer.ign")), 0o600);
    pointer("https://192.0.2.1/bootstrap.ign", &bootstrap);
    assert_eq!(mode(&dir.path().join("pointer.ign")), 0o644);
    // A pre-signed URL's signature lets anyone holding it read the whole bootstrap config.
    for signed in [
        "https://bucket.s3.example.com/bootstrap.ign?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAEXAMPLE%2F20261128%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Expires=3600&X-Amz-Signature=0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0",
        "https://acct.blob.example.net/ign/bootstrap.ign?sv=2022-11-02&se=2026-12-01&sp=r&sig=Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0Z2FycGx5d2FsZG8%3D",
    ] {
        pointer(signed, &bootstrap);
        assert_eq!(mode(&dir.path().join("pointer.ign")), 0o600, "{signed}");
    }
}

/// `bootgen pointer` writes over no file without --force, and never over the config it points
/// to; a URL a node could never fetch is refused, naming --url.
#[test]
fn a_pointer_replaces_nothing_unasked_and_needs_a_url_that_parses() {
    let dir = tempfile::tempdir().unwrap();
    assert!(generate(dir.path(), &[]).status.success());
    let bootstrap = dir.path().join("out/bootstrap.ign");
    let before = std::fs::read(&bootstrap).unwrap();
    let notes = dir.path().join("notes.txt");
    std::fs::write(&notes, "my notes").unwrap();
    let run = |url: &str, output: &Path, force: bool| {
        let mut cmd = bootgen();
        cmd.args(["pointer", "--url", url]);
        if force {
            cmd.arg("--force");
        }
        cmd.arg(&bootstrap).arg("-o").arg(output).output().unwrap()
    };
    let url = "https://files.example.com/bootstrap.ign";
    let refused = run(url, &notes, false);
    assert_eq!(refused.status.code(), Some(1));
    assert!(stderr(&refused).contains("--force"), "{}", stderr(&refused));
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "my notes");
    for force in [false, true] {
        let refused = run(url, &bootstrap, force);
        assert_eq!(refused.status.code(), Some(1));
        assert!(
            stderr(&refused).contains("points to"),
            "{}",
            stderr(&refused)
        );
    }
    assert_eq!(std::fs::read(&bootstrap).unwrap(), before);
    assert!(run(url, &notes, true).status.success());
    let pointer = dir.path().join("pointer.ign");
    for bad in [
        "https://",
        "https://[::1/bootstrap.ign",
        "https://files%zz.example.com/b.ign",
    ] {
        let refused = run(bad, &pointer, false);
        assert_eq!(refused.status.code(), Some(1), "{bad}");
        assert!(
            stderr(&refused).contains("--url"),
            "{bad}: {}",
            stderr(&refused)
        );
        assert!(!pointer.exists(), "{bad}");
    }
}

/// A proxy URL with a missing or mistyped scheme is refused without its password: the message
/// shows the URL with everything before its `@` hidden.
#[test]
fn a_malformed_proxy_url_is_refused_without_its_password() {
    let dir = tempfile::tempdir().unwrap();
    for (field, url) in [
        ("httpProxy", "user:ProxyPw7@proxy.example.net:3128"),
        ("httpsProxy", "http:/user:ProxyPw7@proxy.example.net:3128"),
    ] {
        let config = write_config(
            dir.path(),
            &format!("{}proxy:\n  {field}: {url}\n", default_config()),
        );
        let output = generate(dir.path(), &["--install-config", config.to_str().unwrap()]);
        let said = stderr(&output);
        assert_eq!(output.status.code(), Some(1), "{said}");
        assert!(said.contains(&format!("proxy.{field}")), "{said}");
        assert!(said.contains("***@proxy.example.net"), "{said}");
        assert!(!said.contains("ProxyPw7"), "{said}");
    }
}

/// A manifest kept elsewhere and linked into --manifests-dir goes into the config under the
/// link's name. What is no manifest (a link to nothing or to a directory, a pipe, a name that is
/// not UTF-8) is refused naming it, where it used to be skipped without a word.
#[test]
fn linked_manifests_are_read_and_what_is_no_manifest_is_named() {
    use std::os::unix::ffi::OsStrExt;
    let scratch = tempfile::tempdir().unwrap();
    let (repo, manifests) = (scratch.path().join("repo"), scratch.path().join("man"));
    std::fs::create_dir_all(&repo).unwrap();
    std::fs::create_dir_all(&manifests).unwrap();
    std::fs::write(
        repo.join("mine.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: mine\n  namespace: default\ndata:\n  a: b\n",
    )
    .unwrap();
    std::os::unix::fs::symlink("../repo/mine.yaml", manifests.join("linked.yaml")).unwrap();
    let dir = manifests.to_str().unwrap();
    let run = generate(scratch.path(), &["--manifests-dir", dir]);
    assert!(run.status.success(), "{}", stderr(&run));
    let view = IgnitionView::load(&scratch.path().join("out/bootstrap.ign")).unwrap();
    assert!(file_text(&view, "/opt/openshift/manifests/linked.yaml").contains("name: mine"));

    let fifo = manifests.join("pipe.yaml");
    let bad_name = manifests.join(std::ffi::OsStr::from_bytes(b"odd\xff.yaml"));
    for (what, target) in [
        ("link to nothing", "../repo/gone.yaml"),
        ("link to a directory", "../repo"),
    ] {
        let path = manifests.join("bad.yaml");
        std::os::unix::fs::symlink(target, &path).unwrap();
        let refused = generate(scratch.path(), &["--manifests-dir", dir, "--force"]);
        let text = stderr(&refused);
        assert_eq!(refused.status.code(), Some(1), "{what}: {text}");
        assert!(
            text.contains("--manifests-dir") && text.contains("bad.yaml"),
            "{what}: {text}"
        );
        std::fs::remove_file(&path).unwrap();
    }
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let refused = generate(scratch.path(), &["--manifests-dir", dir, "--force"]);
    assert!(
        stderr(&refused).contains("pipe.yaml"),
        "{}",
        stderr(&refused)
    );
    std::fs::remove_file(&fifo).unwrap();
    std::fs::write(
        &bad_name,
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: odd\n",
    )
    .unwrap();
    let refused = generate(scratch.path(), &["--manifests-dir", dir, "--force"]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        stderr(&refused).contains("not UTF-8"),
        "{}",
        stderr(&refused)
    );
}

/// An install-config that never ends, or is not UTF-8, is refused naming it (and the line), not
/// read into all the memory there is.
#[test]
fn an_endless_or_binary_install_config_is_refused_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let endless = generate(dir.path(), &["--install-config", "/dev/zero"]);
    assert_eq!(endless.status.code(), Some(1));
    assert!(
        stderr(&endless).contains("/dev/zero"),
        "{}",
        stderr(&endless)
    );
    let binary = dir.path().join("binary.yaml");
    std::fs::write(&binary, b"apiVersion: v1\nmetadata:\n  name: x\xff\n").unwrap();
    let refused = generate(dir.path(), &["--install-config", binary.to_str().unwrap()]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        stderr(&refused).contains("binary.yaml:3"),
        "{}",
        stderr(&refused)
    );
    assert!(!dir.path().join("out").exists());
}

/// Every other input a run reads whole (a hosts file, a keyfile, the mirror's credentials and
/// CAs, a config to inspect) is read up to a bound: `/dev/zero` is refused naming the flag's
/// file, not read into all the memory there is.
#[test]
fn every_input_read_whole_is_bounded() {
    let dir = tempfile::tempdir().unwrap();
    for flags in [
        &["--hosts", "/dev/zero"][..],
        &["--network-keyfile", "/dev/zero"],
        &["--registry-auth", "/dev/zero"],
        &["--trust-bundle", "/dev/zero"],
    ] {
        let refused = generate(dir.path(), flags);
        assert_eq!(refused.status.code(), Some(1), "{flags:?}");
        assert!(
            stderr(&refused).contains("/dev/zero") && stderr(&refused).contains("MiB"),
            "{flags:?}: {}",
            stderr(&refused)
        );
        assert!(!dir.path().join("out").exists());
    }
    // `pointer --ca`, beside a config that is fine.
    let config = dir.path().join("in.ign");
    std::fs::write(&config, r#"{"ignition":{"version":"3.2.0"}}"#).unwrap();
    let pointer = dir.path().join("pointer.ign");
    let output = bootgen()
        .args([
            "pointer",
            "--url",
            "https://h.example/x.ign",
            "--ca",
            "/dev/zero",
            "-o",
        ])
        .arg(&pointer)
        .arg(&config)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("/dev/zero"), "{}", stderr(&output));
    assert!(!pointer.exists());
}

/// A release image under no mirrored source: the warning names the registry the node pulls
/// from, and the flag that would mirror it.
#[test]
fn a_release_under_no_mirror_is_named_with_its_registry() {
    let dir = tempfile::tempdir().unwrap();
    let output = generate(dir.path(), &["--mirror", "quay.io/a=mirror.local:5000/a"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stderr(&output).contains(
            "so the node pulls it from quay.io directly; add --mirror for its repository"
        ),
        "{}",
        stderr(&output)
    );
}

/// A registry written with its `user:password@`, refused, is never quoted with them: neither by
/// bootgen's own message nor by clap's, which quotes a refused value whole.
#[test]
fn a_refused_reference_is_quoted_without_its_credentials() {
    let dir = tempfile::tempdir().unwrap();
    for flags in [
        &["--mirror", "quay.io/a=deploy:Hunter2x@mirror.lab:5000/a"][..],
        &[
            "--mirror",
            "quay.io/a=https://deploy:Hunter2x@mirror.lab:5000/a",
        ],
        &["--release-image", "deploy:Hunter2x@quay.io/x:tag"],
    ] {
        let refused = generate(dir.path(), flags);
        assert_eq!(refused.status.code(), Some(1), "{flags:?}");
        let said = stderr(&refused);
        assert!(said.contains("***@"), "{flags:?}: {said}");
        assert!(
            !said.contains("Hunter2x") && !said.contains("deploy:"),
            "{said}"
        );
    }
}

/// A line break in a value a message quotes never starts a line of its own: clap's quote shows
/// it escaped, and bootgen's own messages indent what follows it, so no quoted text can pass
/// for another `note:` or `error:` line.
#[test]
fn a_line_break_in_a_value_cannot_fake_a_line_of_output() {
    let dir = tempfile::tempdir().unwrap();
    let auth = dir.path().join("auth.json");
    std::fs::write(
        &auth,
        r#"{"auths":{"m.local\nnote: fake":{"auth":"dTpTRUNSRVQ5"}}}"#,
    )
    .unwrap();
    for flags in [
        &["--add-host", "10.0.0.1=a.local\nnote: all good"][..],
        &["--registry-auth", auth.to_str().unwrap()],
    ] {
        let refused = generate(dir.path(), flags);
        assert_eq!(refused.status.code(), Some(1), "{flags:?}");
        let said = stderr(&refused);
        assert!(
            said.lines()
                .all(|l| !l.starts_with("note: all good") && !l.starts_with("note: fake")),
            "{said}"
        );
    }
}

/// An output directory that is a link to nothing, or the `tls/` of another output directory,
/// is refused with what is wrong, and nothing is written.
#[test]
fn an_output_directory_in_the_wrong_place_is_refused_saying_why() {
    let dir = tempfile::tempdir().unwrap();
    let into = |out: &Path| {
        bootgen()
            .args(["ignition", "--key-algorithm", "ecdsa-p256", "--output"])
            .arg(out)
            .output()
            .unwrap()
    };
    let dangling = dir.path().join("dl");
    std::os::unix::fs::symlink(dir.path().join("nowhere/x"), &dangling).unwrap();
    let output = into(&dangling);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("is a link to")
            && stderr(&output).contains("which does not exist"),
        "{}",
        stderr(&output)
    );
    assert!(!dir.path().join("nowhere").exists());

    let first = dir.path().join("first");
    assert!(into(&first).status.success());
    let before = std::fs::read_dir(first.join("tls")).unwrap().count();
    let output = into(&first.join("tls"));
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("is the tls/ directory of the output directory"),
        "{}",
        stderr(&output)
    );
    assert_eq!(
        std::fs::read_dir(first.join("tls")).unwrap().count(),
        before
    );
}

/// A key algorithm bootgen does not take is refused listing every one it takes.
#[test]
fn an_unknown_key_algorithm_is_refused_listing_every_accepted_one() {
    let dir = tempfile::tempdir().unwrap();
    let output = bootgen()
        .args(["ignition", "--key-algorithm", "rsa1024", "-o"])
        .arg(dir.path().join("out"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    for algorithm in bootgen::pki::KeyAlgorithm::ALL {
        assert!(
            stderr(&output).contains(&algorithm.to_string()),
            "{algorithm} is accepted but not listed: {}",
            stderr(&output)
        );
    }
    assert!(!dir.path().join("out").exists());
}

/// `inspect -o FILE` writes only the golden view: with any other view it is refused rather
/// than print to standard output and leave no file.
#[test]
fn inspect_dash_o_is_refused_without_golden() {
    let dir = tempfile::tempdir().unwrap();
    let config = bootgen_conformance::repo().join("fixtures/ign/valid/certificates.ign");
    let file = dir.path().join("f.txt");
    for view in [
        &["--certs"][..],
        &["--budget"],
        &["--objects"],
        &["--json"],
        &[],
    ] {
        let output = bootgen()
            .arg("inspect")
            .args(view)
            .arg(&config)
            .arg("-o")
            .arg(&file)
            .output()
            .unwrap();
        assert_eq!(
            output.status.code(),
            Some(1),
            "{view:?}: {}",
            stderr(&output)
        );
        assert!(
            stderr(&output).contains("--golden"),
            "{view:?}: {}",
            stderr(&output)
        );
        assert!(output.stdout.is_empty(), "{view:?}");
        assert!(!file.exists(), "{view:?}");
    }
}

/// `-o -` is standard output for every single-file output, as for `patch`, and what the
/// command says goes to standard error; `man -o` writes a directory, so `-` is refused. No file
/// or directory named `-` is ever made.
#[test]
fn dash_o_dash_is_standard_output_for_every_single_file_output() {
    let dir = tempfile::tempdir().unwrap();
    assert!(generate(dir.path(), &[]).status.success());
    let run = |args: &[&str]| {
        bootgen()
            .current_dir(dir.path())
            .args(args)
            .output()
            .unwrap()
    };
    let pointer = run(&[
        "pointer",
        "--url",
        "https://a.example/b.ign",
        "out/bootstrap.ign",
        "-o",
        "-",
    ]);
    assert!(pointer.status.success(), "{}", stderr(&pointer));
    let doc: serde_json::Value = serde_json::from_slice(&pointer.stdout).unwrap();
    assert_eq!(
        doc["ignition"]["config"]["replace"]["source"],
        "https://a.example/b.ign"
    );

    let golden = run(&["inspect", "--golden", "out", "-o", "-"]);
    assert!(golden.status.success(), "{}", stderr(&golden));
    assert_eq!(golden.stdout, run(&["inspect", "--golden", "out"]).stdout);

    let streamed = run(&["package", "out", "-o", "-"]);
    assert!(streamed.status.success(), "{}", stderr(&streamed));
    assert!(
        stderr(&streamed).contains("standard output"),
        "{}",
        stderr(&streamed)
    );
    let written = run(&["package", "out", "-o", "out.tar.gz"]);
    assert!(written.status.success(), "{}", stderr(&written));
    assert_eq!(
        streamed.stdout,
        std::fs::read(dir.path().join("out.tar.gz")).unwrap()
    );

    // A tarball is no text for a screen: with standard output a terminal (script(1) gives the
    // command one), it is refused and nothing reaches the terminal but the message.
    let on_terminal = Command::new("script")
        .current_dir(dir.path())
        .args(["-qec"])
        .arg(format!(
            "{} package out -o -",
            env!("CARGO_BIN_EXE_bootgen-under-test")
        ))
        .arg("/dev/null")
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&on_terminal.stdout);
    assert_eq!(on_terminal.status.code(), Some(1), "{shown}");
    assert!(shown.contains("standard output is a terminal"), "{shown}");
    assert!(!on_terminal.stdout.starts_with(&[0x1f, 0x8b]), "{shown}");

    let man = run(&["man", "-o", "-"]);
    assert_eq!(man.status.code(), Some(1), "{}", stderr(&man));
    assert!(stderr(&man).contains("standard output"), "{}", stderr(&man));
    assert!(
        !dir.path().join("-").exists(),
        "a file or directory named - was made"
    );
}

/// Writing into a directory that does not exist names that directory, never the temporary
/// file the write would have gone through.
#[test]
fn writing_into_a_missing_directory_names_the_directory() {
    let dir = tempfile::tempdir().unwrap();
    assert!(generate(dir.path(), &[]).status.success());
    let commands: [&[&str]; 5] = [
        &[
            "ignition",
            "-o",
            "out",
            "--force",
            "--package",
            "nodir/out.tar.gz",
        ],
        &[
            "pointer",
            "--url",
            "https://a.example/b.ign",
            "out/bootstrap.ign",
            "-o",
            "nodir/p.ign",
        ],
        &["patch", "out/master.ign", "-o", "nodir/p.ign"],
        &["inspect", "--golden", "out", "-o", "nodir/golden.txt"],
        &["package", "out", "-o", "nodir/out.tar.gz"],
    ];
    for args in commands {
        let output = bootgen()
            .current_dir(dir.path())
            .args(args)
            .output()
            .unwrap();
        let said = stderr(&output);
        assert_eq!(output.status.code(), Some(1), "{args:?}: {said}");
        assert!(
            said.contains("the directory nodir does not exist"),
            "{args:?}: {said}"
        );
        assert!(!said.contains("bootgen-tmp"), "{args:?}: {said}");
    }
}

/// `ignition --pxe` without `--dest-device` names the flag given, not `--iso` too.
#[test]
fn media_without_a_disk_name_only_the_flag_given() {
    let dir = tempfile::tempdir().unwrap();
    let output = generate(
        dir.path(),
        &[
            "--pxe",
            "rhcos-live.iso",
            "--pxe-base-url",
            "http://192.0.2.10/pxe",
        ],
    );
    let said = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{said}");
    assert!(said.contains("error: --pxe: "), "{said}");
    assert!(said.contains("--dest-device"), "{said}");
    assert!(!said.contains("--iso"), "{said}");
}

/// A patch that leaves the release pulled from a mirror by tag is told how to pin it in a way
/// `patch` can act on: the release is the config's own, `patch` has no `--release-image`.
#[test]
fn patch_advice_on_a_tagged_release_names_what_patch_can_do() {
    let dir = tempfile::tempdir().unwrap();
    assert!(generate(dir.path(), &[]).status.success());
    let output = bootgen()
        .arg("patch")
        .arg(dir.path().join("out/bootstrap.ign"))
        .arg("-o")
        .arg(dir.path().join("patched.ign"))
        .args([
            "--mirror",
            "quay.io/openshift-release-dev/ocp-release=mirror.example.com:5000/ocp/release",
            "--block-source",
            "--add-host",
            "192.0.2.10=mirror.example.com",
        ])
        .output()
        .unwrap();
    let said = stderr(&output);
    assert!(output.status.success(), "{said}");
    let advice = said
        .lines()
        .find(|l| l.contains("pulled from the mirror by tag"))
        .unwrap_or_else(|| panic!("no advice on the tag: {said}"));
    assert!(advice.contains("make the config again"), "{advice}");
    assert!(
        advice.contains("bootgen ignition --release-image"),
        "{advice}"
    );
    assert!(!advice.contains("(--release-image"), "{advice}");
}

/// `releases --commands` is refused where it would change nothing (no release, or one, which
/// prints its commands anyway), and with two releases it adds both releases' commands.
#[test]
fn releases_commands_is_refused_where_it_does_nothing() {
    let run = |args: &[&str]| bootgen().arg("releases").args(args).output().unwrap();
    for args in [&["--commands"][..], &["4.16", "--commands"]] {
        let output = run(args);
        assert_eq!(
            output.status.code(),
            Some(1),
            "{args:?}: {}",
            stderr(&output)
        );
        assert!(
            stderr(&output).contains("--commands"),
            "{}",
            stderr(&output)
        );
        assert!(output.stdout.is_empty(), "{args:?}");
    }
    let plain = run(&["4.16", "4.19"]);
    let with = run(&["4.16", "4.19", "--commands"]);
    assert!(
        plain.status.success() && with.status.success(),
        "{}",
        stderr(&with)
    );
    assert!(with.stdout.len() > plain.stdout.len());
    assert!(with.stdout.starts_with(&plain.stdout));
}

/// The run's summary counts in words: a re-run that puts back one removed file says `1 file
/// written`.
#[test]
fn one_file_written_is_said_in_the_singular() {
    let dir = tempfile::tempdir().unwrap();
    assert!(generate(dir.path(), &[]).status.success());
    std::fs::remove_file(dir.path().join("out/worker.ign")).unwrap();
    let output = generate(dir.path(), &["--force"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("\n1 file written, "), "{stdout}");
}

/// A third party's network plugin (Calico, Cilium) divides the pod network itself: its
/// cluster network needs no `hostPrefix`, as the installer takes it, and the network objects
/// leave the field out. OpenShift's own plugin still needs one.
#[test]
fn a_third_party_plugin_needs_no_host_prefix() {
    let dir = tempfile::tempdir().unwrap();
    let calico = default_config()
        .replacen("networkType: OVNKubernetes", "networkType: Calico", 1)
        .replacen("    hostPrefix: 23\n", "", 1);
    let config = write_config(dir.path(), &calico);
    let output = generate(dir.path(), &["--install-config", config.to_str().unwrap()]);
    assert!(output.status.success(), "{}", stderr(&output));
    let view = IgnitionView::load(&dir.path().join("out/bootstrap.ign")).unwrap();
    let network = file_text(
        &view,
        "/opt/openshift/manifests/cluster-network-02-config.yml",
    );
    assert!(
        network.contains("- cidr: \"10.128.0.0/14\"\n  serviceNetwork:")
            && !network.contains("hostPrefix"),
        "{network}"
    );
    assert!(network.contains("networkType: \"Calico\""), "{network}");
    let stored = file_text(&view, "/opt/openshift/manifests/cluster-config.yaml");
    assert!(!stored.contains("hostPrefix"), "{stored}");

    let ovn = default_config().replacen("    hostPrefix: 23\n", "", 1);
    let config = write_config(dir.path(), &ovn);
    let output = generate(
        dir.path(),
        &["--force", "--install-config", config.to_str().unwrap()],
    );
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("has no hostPrefix"),
        "{}",
        stderr(&output)
    );
}
