//! Secrets never reach the terminal: generate with known secrets, then run every command on the
//! result and search everything they print (and the golden file, meant to be committed) for
//! every secret in every form: the pull secret, the vCenter and proxy passwords, the kubeadmin
//! password and its hash, any private key.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use bootgen_conformance::repo;
use std::path::Path;

const PULL_SECRET_MARKER: &str = "c2VjcmV0LW1hcmtlci1kby1ub3QtcHJpbnQ";

fn bootgen(args: &[&str], paths: &[&Path]) -> String {
    let output = bootgen_conformance::bootgen!()
        .args(args)
        .args(paths)
        .output()
        .unwrap();
    // The command line as the header, without a URL's credentials (they are searched for).
    let shown: Vec<&str> = args
        .iter()
        .map(|a| if a.contains('@') { "URL" } else { a })
        .collect();
    format!(
        "$ bootgen {shown:?}\n{}{}(exit {:?})\n",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
        output.status.code()
    )
}

#[test]
fn no_command_prints_a_secret() {
    let scratch = tempfile::tempdir().unwrap();
    let config = scratch.path().join("install-config.yaml");
    let text = std::fs::read_to_string(
        repo().join("fixtures/install-configs/valid/proxy-trust-bundle.yaml"),
    )
    .unwrap()
    .replace("Zml4dHVyZTpmaXh0dXJl", PULL_SECRET_MARKER);
    std::fs::write(&config, text).unwrap();
    let out = scratch.path().join("out");
    let ign = out.join("bootstrap.ign");
    let patched = scratch.path().join("patched.ign");

    let mut printed = String::new();
    printed += &bootgen(
        &[
            "ignition",
            "--key-algorithm",
            "ecdsa-p256",
            "--install-config",
        ],
        &[&config, Path::new("--output"), &out],
    );
    assert!(ign.exists(), "{printed}");
    printed += &bootgen(
        &[
            "patch",
            "--debug",
            "--disable-unit",
            "approve-csr.service",
            "-o",
        ],
        &[&patched, &ign],
    );
    printed += &bootgen(&["inspect"], &[&ign]);
    printed += &bootgen(&["inspect", "--json"], &[&ign]);
    printed += &bootgen(&["inspect", "--certs"], &[&ign]);
    printed += &bootgen(&["inspect", "--certs"], &[&out]);
    printed += &bootgen(&["validate"], &[&ign, &patched]);
    printed += &bootgen(&["diff"], &[&ign, &patched]);
    printed += &bootgen(
        &["extract", "-o"],
        &[&scratch.path().join("extracted"), &ign],
    );
    // A broken copy of the config: its parse error must not echo the content around it.
    let truncated = scratch.path().join("truncated.ign");
    let bytes = std::fs::read(&ign).unwrap();
    std::fs::write(&truncated, &bytes[..bytes.len() / 2]).unwrap();
    printed += &bootgen(&["validate"], &[&truncated]);
    printed += &bootgen(&["inspect"], &[&truncated]);
    printed += &bootgen(
        &["patch", "--debug", "-o"],
        &[&scratch.path().join("x.ign"), &truncated],
    );

    let password = std::fs::read_to_string(out.join("auth/kubeadmin-password")).unwrap();
    assert!(!password.is_empty());
    for (what, needle) in [
        ("pull secret", PULL_SECRET_MARKER),
        ("kubeadmin password", password.trim()),
        ("private key", "PRIVATE KEY"),
    ] {
        assert!(!printed.contains(needle), "{what} printed:\n{printed}");
    }
    // The commands did run and say something useful.
    assert!(printed.contains("bootstrap.ign"), "{printed}");
}

/// The secrets of one cluster of [`two_clusters_that_differ_in_secrets_only`].
struct ClusterSecrets {
    name: &'static str,
    vcenter_password: &'static str,
    proxy_user: &'static str,
    proxy_password: &'static str,
    registry_user: &'static str,
    registry_password: &'static str,
    email: &'static str,
}

const CLUSTERS: [ClusterSecrets; 2] = [
    ClusterSecrets {
        name: "a",
        vcenter_password: "VcenterPwAlpha1",
        proxy_user: "proxyuser1",
        proxy_password: "ProxyPwAlpha1",
        registry_user: "reguser1",
        registry_password: "RegistryPwAlpha1",
        email: "alpha-owner@example.com",
    },
    ClusterSecrets {
        name: "b",
        vcenter_password: "VcenterPwBravo2",
        proxy_user: "proxyuser2",
        proxy_password: "ProxyPwBravo2",
        registry_user: "reguser2",
        registry_password: "RegistryPwBravo2",
        email: "bravo-owner@example.com",
    },
];

/// A pointer config's URL, with credentials (`pointer --url`).
const POINTER_URL: &str = "https://pointeruser:PointerPwDelta4@config.lab.example.org/b.ign";

/// The credentials `patch --registry-auth` merges in.
const MIRROR_USER_PASSWORD: &str = "mirroruser:MirrorPwCharlie3";
const MIRROR_EMAIL: &str = "mirror-owner@example.com";

fn b64(bytes: impl AsRef<[u8]>) -> String {
    base64::Engine::encode(&base64::engine::general_purpose::STANDARD, bytes)
}

/// The vSphere fixture with a proxy whose URL carries credentials, and these secrets.
fn install_config(secrets: &ClusterSecrets) -> String {
    let auth = b64(format!(
        "{}:{}",
        secrets.registry_user, secrets.registry_password
    ));
    let proxy = format!(
        "http://{}:{}@proxy.lab.example.org:3128",
        secrets.proxy_user, secrets.proxy_password
    );
    let text = std::fs::read_to_string(repo().join("fixtures/install-configs/valid/vsphere.yaml"))
        .unwrap();
    let pull_secret = format!(
        "pullSecret: '{{\"auths\":{{\"registry.example.org\":{{\"auth\":\"{auth}\",\"email\":\"{}\"}}}}}}'",
        secrets.email
    );
    let replaced = text
        .replace("fixture-vcenter-password", secrets.vcenter_password)
        .lines()
        .map(|line| {
            if line.starts_with("pullSecret:") {
                format!(
                    "proxy:\n  httpProxy: {proxy}\n  httpsProxy: {proxy}\n  noProxy: .lab.example.org\n{pull_secret}"
                )
            } else {
                line.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    assert!(replaced.contains(secrets.vcenter_password), "{replaced}");
    replaced + "\n"
}

/// Every form a secret of `out` (made from `secrets`) can take in what bootgen prints.
fn needles(secrets: &ClusterSecrets, out: &Path) -> Vec<(String, String)> {
    let user_password = format!("{}:{}", secrets.registry_user, secrets.registry_password);
    let proxy_userinfo = format!("{}:{}", secrets.proxy_user, secrets.proxy_password);
    let kubeadmin = std::fs::read_to_string(out.join("auth/kubeadmin-password")).unwrap();
    let kubeadmin = kubeadmin.trim().to_string();
    assert!(!kubeadmin.is_empty());
    let mut plain = vec![
        ("vCenter password", secrets.vcenter_password.to_string()),
        ("proxy password", secrets.proxy_password.to_string()),
        ("proxy credentials", proxy_userinfo),
        ("registry user:password", user_password.clone()),
        ("registry password", secrets.registry_password.to_string()),
        ("pull secret auth", b64(&user_password)),
        ("pull secret e-mail", secrets.email.to_string()),
        ("kubeadmin password", kubeadmin),
        ("kubeadmin password hash", kubeadmin_hash(out)),
    ];
    // Every private key's PEM body, any line of it.
    let mut keys: Vec<std::path::PathBuf> = std::fs::read_dir(out.join("tls"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "key"))
        .collect();
    keys.push(out.join("auth/bootstrap-ssh-key"));
    assert!(keys.len() > 10, "{keys:?}");
    for key in keys {
        let pem = std::fs::read_to_string(&key).unwrap();
        assert!(pem.contains("PRIVATE KEY"), "{}", key.display());
        for line in pem
            .lines()
            .filter(|l| !l.starts_with("-----") && l.len() >= 16)
        {
            plain.push(("private key line", line.to_string()));
        }
    }
    let mut all = Vec::new();
    for (what, value) in plain {
        // Base64 at each of the three alignments a value can have inside a longer run.
        for (i, prefix) in ["", "x", "xy"].iter().enumerate() {
            let encoded = b64(format!("{prefix}{value}"));
            let skip = [0, 2, 3][i];
            let stable = encoded.trim_end_matches('=');
            let stable = &stable[skip..stable.len().saturating_sub(3)];
            if stable.len() >= 8 {
                all.push((format!("{what} (base64)"), stable.to_string()));
            }
        }
        all.push((what.to_string(), value));
    }
    all
}

/// The kubeadmin password's bcrypt hash, as the cluster's kubeadmin Secret holds it.
fn kubeadmin_hash(out: &Path) -> String {
    let view = bootgen_conformance::IgnitionView::load(&out.join("bootstrap.ign")).unwrap();
    let secret = view
        .files
        .get("/opt/openshift/openshift/99_kubeadmin-password-secret.yaml")
        .and_then(|f| f.contents.clone())
        .unwrap();
    let secret = String::from_utf8(secret).unwrap();
    let encoded = secret
        .lines()
        .find_map(|l| l.trim().strip_prefix("kubeadmin: "))
        .unwrap()
        .trim_matches('"');
    let hash = base64::Engine::decode(&base64::engine::general_purpose::STANDARD, encoded).unwrap();
    let hash = String::from_utf8(hash).unwrap();
    assert!(hash.starts_with("$2"), "{hash}");
    hash
}

/// The printed text, and the decoded form of every base64 run in it.
fn with_decoded_base64(printed: &str) -> String {
    let mut all = printed.to_string();
    let is_b64 = |c: char| c.is_ascii_alphanumeric() || "+/=".contains(c);
    for run in printed
        .split(|c: char| !is_b64(c))
        .filter(|r| r.len() >= 12)
    {
        let padded = format!("{}{}", run, "=".repeat((4 - run.len() % 4) % 4));
        if let Ok(bytes) =
            base64::Engine::decode(&base64::engine::general_purpose::STANDARD, padded)
        {
            all.push('\n');
            all.push_str(&String::from_utf8_lossy(&bytes));
        }
    }
    all
}

/// Two clusters that differ only in their secrets (pull secret, vCenter password, proxy
/// credentials, and with their own PKI every private key and the kubeadmin password), one of
/// them patched with `--registry-auth`: no command prints any of those secrets, in any form,
/// and the golden file written with `-o` holds none.
#[test]
fn two_clusters_that_differ_in_secrets_only() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path();
    let mut printed = String::new();
    let mut outs = Vec::new();
    for secrets in &CLUSTERS {
        let config = dir.join(format!("{}.yaml", secrets.name));
        std::fs::write(&config, install_config(secrets)).unwrap();
        let out = dir.join(format!("out-{}", secrets.name));
        // The second one packaged too, for what `ignition --package` says.
        let package = dir.join(format!("{}.tar.gz", secrets.name));
        let packaged: &[&Path] = if secrets.name == "b" {
            &[Path::new("--package"), &package]
        } else {
            &[]
        };
        printed += &bootgen(
            &[
                "ignition",
                "--key-algorithm",
                "ecdsa-p256",
                "--install-config",
            ],
            &[&[&config as &Path, Path::new("--output"), &out], packaged].concat(),
        );
        assert!(out.join("bootstrap.ign").exists(), "{printed}");
        outs.push(out);
    }
    let (a, b) = (&outs[0], &outs[1]);
    let (a_ign, b_ign) = (a.join("bootstrap.ign"), b.join("bootstrap.ign"));
    let auth = dir.join("registry-auth.json");
    std::fs::write(
        &auth,
        format!(
            "{{\"auths\":{{\"mirror.lab.example.org:5000\":{{\"auth\":\"{}\",\"email\":\"{MIRROR_EMAIL}\"}}}}}}\n",
            b64(MIRROR_USER_PASSWORD)
        ),
    )
    .unwrap();
    let patched = dir.join("patched.ign");
    let golden = dir.join("golden.txt");
    printed += &bootgen(
        &["patch", "--debug", "--registry-auth"],
        &[&auth, Path::new("-o"), &patched, &a_ign],
    );
    assert!(patched.exists(), "{printed}");
    let (pointer, package) = (dir.join("pointer.ign"), dir.join("a-again.tar.gz"));
    let extracted = dir.join("extracted");
    let b_master = b.join("master.ign");
    let compressed = dir.join("compressed.ign");
    let runs: Vec<(Vec<&str>, Vec<&Path>)> = vec![
        (vec!["inspect"], vec![&a_ign]),
        (vec!["inspect", "--json"], vec![&patched]),
        (vec!["inspect"], vec![&patched]),
        (vec!["inspect", "--budget"], vec![&a_ign]),
        (vec!["inspect", "--objects"], vec![&patched]),
        (vec!["inspect", "--certs"], vec![a]),
        (vec!["inspect", "--certs", "--json"], vec![&b_ign]),
        (vec!["inspect", "--golden"], vec![a]),
        (vec!["inspect", "--golden", "-o"], vec![&golden, b]),
        (vec!["diff"], vec![a, b]),
        (vec!["diff", "--json"], vec![a, b]),
        (vec!["diff"], vec![&a_ign, &b_ign]),
        (vec!["diff", "--json"], vec![&a_ign, &b_ign]),
        (vec!["diff"], vec![&a_ign, &patched]),
        (vec!["diff"], vec![&patched, &b_ign]),
        (vec!["diff", "--objects"], vec![a, b]),
        (vec!["diff", "--objects", "--json"], vec![a, b]),
        (vec!["diff", "--objects"], vec![&patched, &b_ign]),
        (vec!["validate"], vec![&a_ign, &patched, &b_master]),
        (vec!["validate", "--json"], vec![&b_ign, &patched]),
        (
            vec!["pointer", "--url", POINTER_URL, "-o"],
            vec![&pointer, &a_ign],
        ),
        (vec!["inspect"], vec![&pointer]),
        (vec!["inspect", "--json"], vec![&pointer]),
        (vec!["diff", "--json"], vec![&a_ign, &pointer]),
        (vec!["package", "-o"], vec![&package, a]),
        (vec!["extract", "-o"], vec![&extracted, &patched]),
        (vec!["releases"], vec![]),
        (vec!["releases", "4.18", "4.19"], vec![]),
        (
            vec!["patch", "--debug", "--compress", "-o"],
            vec![&compressed, &b_ign],
        ),
        (vec!["inspect"], vec![&compressed]),
        (vec!["diff"], vec![&compressed, &patched]),
    ];
    for (args, paths) in &runs {
        printed += &bootgen(args, paths);
    }
    if let Some(path) = std::env::var_os("BOOTGEN_SECRETS_DUMP") {
        std::fs::write(path, &printed).unwrap();
    }
    let written = std::fs::read_to_string(&golden).unwrap();
    assert!(written.contains("######## metadata.json"), "{written}");
    let searched = with_decoded_base64(&format!("{printed}\n$ cat golden.txt\n{written}"));

    let mut leaks = Vec::new();
    for (secrets, out) in CLUSTERS.iter().zip(&outs) {
        for (what, needle) in needles(secrets, out) {
            if searched.contains(&needle) {
                leaks.push(format!("{what} of cluster {}: {needle}", secrets.name));
            }
        }
    }
    for (what, needle) in [
        ("mirror user:password", MIRROR_USER_PASSWORD.to_string()),
        ("mirror auth", b64(MIRROR_USER_PASSWORD)),
        ("mirror e-mail", MIRROR_EMAIL.to_string()),
        ("pointer URL password", "PointerPwDelta4".to_string()),
        ("a PEM private key", "PRIVATE KEY-----".to_string()),
        ("a bcrypt hash", "$2a$".to_string()),
    ] {
        if searched.contains(&needle) {
            leaks.push(format!("{what}: {needle}"));
        }
    }
    let context = |needle: &str| {
        searched
            .find(needle)
            .map(|at| {
                let start = searched[..at].rfind("$ bootgen").unwrap_or(0);
                searched[start..]
                    .lines()
                    .next()
                    .unwrap_or_default()
                    .to_string()
            })
            .unwrap_or_default()
    };
    assert!(
        leaks.is_empty(),
        "secrets printed:\n{}",
        leaks
            .iter()
            .map(|l| format!(
                "{l} (after {})",
                context(l.rsplit(": ").next().unwrap_or(l))
            ))
            .collect::<Vec<_>>()
            .join("\n")
    );
    // The commands ran (none failed to read its input) and said what they are for: the diff
    // sees the secrets changed.
    assert!(!printed.contains("(exit Some(2))"), "{printed}");
    assert!(printed.contains("~ file metadata.json"), "{printed}");
    assert!(printed.contains("<redacted hmac:"), "{printed}");
    assert!(printed.contains("mirror.lab.example.org:5000"), "{printed}");
}

/// A config of its own with a secret in an environment file and in a unit's `Environment=`.
fn config_with_environment(token: &str, password: &str) -> String {
    let env_file = format!("LOG_LEVEL=2\nAPI_TOKEN={token}\nTOKEN_FILE=/run/token\n");
    let unit = format!(
        "[Service]\nEnvironment=\"DB_PASSWORD={password}\" \"REGION=eu\"\nExecStart=/usr/bin/app\n"
    );
    let mut config = config_with_file("/etc/sysconfig/app", 0o644, &env_file);
    config["systemd"] =
        serde_json::json!({"units": [{"name": "app.service", "enabled": true, "contents": unit}]});
    config.to_string()
}

/// A config of its own with one file holding `text`.
fn config_with_file(path: &str, mode: u32, text: &str) -> serde_json::Value {
    serde_json::json!({
        "ignition": {"version": "3.2.0"},
        "storage": {"files": [{
            "path": path,
            "mode": mode,
            "contents": {"source": format!("data:,{}", bootgen_conformance::percent_encode(text))},
        }]},
    })
}

/// The values of secret environment variables (`API_TOKEN=`, `Environment="DB_PASSWORD=..."`)
/// are hidden by `diff`, `inspect` and `extract`'s report; the other variables are shown.
#[test]
fn secret_environment_variables_are_hidden() {
    let scratch = tempfile::tempdir().unwrap();
    let old = scratch.path().join("old.ign");
    let new = scratch.path().join("new.ign");
    let secrets = [
        "EnvTokenEcho5",
        "EnvPwFoxtrot6",
        "EnvTokenGolf7",
        "EnvPwHotel8",
    ];
    std::fs::write(&old, config_with_environment(secrets[0], secrets[1])).unwrap();
    std::fs::write(&new, config_with_environment(secrets[2], secrets[3])).unwrap();
    let mut printed = String::new();
    printed += &bootgen(&["diff"], &[&old, &new]);
    printed += &bootgen(&["diff", "--objects"], &[&old, &new]);
    printed += &bootgen(&["inspect"], &[&new]);
    printed += &bootgen(&["inspect", "--json"], &[&new]);
    printed += &bootgen(&["inspect", "--objects"], &[&new]);
    for secret in secrets {
        assert!(!printed.contains(secret), "{secret} printed:\n{printed}");
    }
    // The diff still says both changed, and shows what is no secret.
    assert!(printed.contains("+API_TOKEN=<redacted hmac:"), "{printed}");
    assert!(printed.contains("DB_PASSWORD=<redacted hmac:"), "{printed}");
    assert!(printed.contains("TOKEN_FILE=/run/token"), "{printed}");
    assert!(printed.contains("\\\"REGION=eu\\\"") || printed.contains("\"REGION=eu\""));
}

/// A password in an INI or TOML file (`password = x`, blanks around the `=`) is hidden as
/// `password=x` is: the spacing does not decide whether `diff` shows a secret.
#[test]
fn passwords_in_ini_and_toml_files_are_hidden() {
    let scratch = tempfile::tempdir().unwrap();
    let config = |password: &str| {
        let ini = format!(
            "PASSWORD={password}\npassword = {password}\npassword: {password}\n[auth]\npassword = \"{password}\"\ndb_password\t=\t{password}\nuser = admin\n"
        );
        config_with_file("/etc/app.ini", 0o600, &ini).to_string()
    };
    let (old, new) = (scratch.path().join("p1.ign"), scratch.path().join("p2.ign"));
    std::fs::write(&old, config("PwOne111")).unwrap();
    std::fs::write(&new, config("PwTwo222")).unwrap();
    let mut printed = bootgen(&["diff"], &[&old, &new]);
    printed += &bootgen(&["inspect", "--json"], &[&new]);
    for secret in ["PwOne111", "PwTwo222"] {
        assert!(!printed.contains(secret), "{secret} printed:\n{printed}");
    }
    assert!(printed.contains("+password = <redacted hmac:"), "{printed}");
    assert!(
        printed.contains("+password = \"<redacted hmac:"),
        "{printed}"
    );
    assert!(printed.contains("user = admin"), "{printed}");
}

/// A user's Secret manifest however its `kind` is written (a comment after it, a `List` of
/// Secrets) and a user's keyfiles (Wi-Fi with `[connection]` not first, WireGuard): written
/// into two clusters with different values, none of the values reaches `inspect --golden`,
/// `diff` of the configs or of the directories, or `diff --objects`.
#[test]
fn user_secrets_in_manifests_and_keyfiles_stay_hidden() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path();
    let secrets = |n: u8| {
        [
            format!("U2VjcmV0T25lQUFB{n}"),
            format!("PlainTextSecret{n}"),
            format!("ListItemSecret{n}"),
            format!("GoldenWifiPsk7{n}"),
            format!("yAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBm{n}="),
            format!("PeerPresharedKey{n}"),
        ]
    };
    let mut outs = Vec::new();
    for n in [1u8, 2] {
        let [data, plain, item, psk, wg_key, peer] = secrets(n);
        let manifests = dir.join(format!("manifests-{n}"));
        std::fs::create_dir(&manifests).unwrap();
        std::fs::write(
            manifests.join("creds.yaml"),
            format!("apiVersion: v1\nkind: Secret  # registry creds\nmetadata:\n  name: creds\n  namespace: default\ntype: Opaque\ndata:\n  creds: {data}\nstringData:\n  plain: {plain}\n"),
        )
        .unwrap();
        std::fs::write(
            manifests.join("list.yaml"),
            format!("apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind:  Secret\n  metadata:\n    name: listed\n    namespace: default\n  stringData:\n    token: {item}\n"),
        )
        .unwrap();
        let wifi = dir.join(format!("wifi-{n}.nmconnection"));
        std::fs::write(
            &wifi,
            format!("[wifi-security]\nkey-mgmt=wpa-psk\npsk={psk}\n\n[connection]\nid=lab\ntype=wifi\n\n[wifi]\nssid=lab\n"),
        )
        .unwrap();
        let wireguard = dir.join(format!("wg0-{n}.nmconnection"));
        std::fs::write(
            &wireguard,
            format!("[connection]\nid=wg0\ntype=wireguard\ninterface-name=wg0\n\n[wireguard]\nprivate-key={wg_key}\n\n[wireguard-peer.xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg=]\npreshared-key={peer}\nendpoint=192.0.2.9:51820\nallowed-ips=10.0.0.0/8;\n"),
        )
        .unwrap();
        let out = dir.join(format!("out-{n}"));
        let said = bootgen(
            &["ignition", "--key-algorithm", "ecdsa-p256"],
            &[
                Path::new("--manifests-dir"),
                &manifests,
                Path::new("--network-keyfile"),
                &wifi,
                Path::new("--network-keyfile"),
                &wireguard,
                Path::new("-o"),
                &out,
            ],
        );
        assert!(out.join("bootstrap.ign").exists(), "{said}");
        outs.push(out);
    }
    let (a, b) = (&outs[0], &outs[1]);
    let (a_ign, b_ign) = (a.join("bootstrap.ign"), b.join("bootstrap.ign"));
    let mut printed = String::new();
    for (args, paths) in [
        (vec!["inspect", "--golden"], vec![a]),
        (vec!["diff"], vec![&a_ign, &b_ign]),
        (vec!["diff"], vec![a, b]),
        (vec!["diff", "--objects"], vec![a, b]),
    ] {
        let paths: Vec<&Path> = paths.iter().map(|p| p.as_path()).collect();
        printed += &bootgen(&args, &paths);
    }
    // The commands read their inputs, and the diff saw the values change.
    assert!(!printed.contains("(exit Some(2))"), "{printed}");
    assert!(printed.contains("<redacted hmac:"), "{printed}");
    let searched = with_decoded_base64(&printed);
    for needle in secrets(1).iter().chain(&secrets(2)) {
        assert!(
            !searched.contains(needle.as_str()),
            "{needle} printed:\n{printed}"
        );
    }
}
