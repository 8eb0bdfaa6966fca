//! What a file in a config is (script, unit, manifest, certificate, key, kubeconfig, ...), from
//! its path and decoded contents. Secrets (keys, kubeconfigs, pull secrets, Secret manifests)
//! are flagged so that `inspect`, `diff` and the lints treat them with care.

use serde::Serialize;
use std::fmt;

/// The kind of a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FileKind {
    /// Contents are fetched from a remote URL when the node boots.
    Remote,
    /// No contents.
    Empty,
    /// A PEM private key.
    PrivateKey,
    /// A kubeconfig (it carries a client key).
    Kubeconfig,
    /// A registry pull secret (`auths`).
    PullSecret,
    /// A Kubernetes Secret manifest.
    SecretManifest,
    /// PEM certificates (one or a bundle).
    Certificate,
    /// A PEM or OpenSSH public key.
    PublicKey,
    /// A systemd unit file written as a file.
    UnitFile,
    /// A systemd drop-in written as a file.
    DropIn,
    /// An executable script (`#!`).
    Script,
    /// A Kubernetes manifest (`apiVersion` and `kind`).
    Manifest,
    /// Other JSON.
    Json,
    /// Other YAML.
    Yaml,
    /// Other text.
    Text,
    /// Not UTF-8.
    Binary,
}

impl FileKind {
    /// True for files that must never be readable by group or others.
    pub fn is_secret(self) -> bool {
        matches!(
            self,
            FileKind::PrivateKey
                | FileKind::Kubeconfig
                | FileKind::PullSecret
                | FileKind::SecretManifest
        )
    }

    /// The name `inspect` prints.
    pub fn name(self) -> &'static str {
        match self {
            FileKind::Remote => "remote",
            FileKind::Empty => "empty",
            FileKind::PrivateKey => "private key",
            FileKind::Kubeconfig => "kubeconfig",
            FileKind::PullSecret => "pull secret",
            FileKind::SecretManifest => "secret manifest",
            FileKind::Certificate => "certificate",
            FileKind::PublicKey => "public key",
            FileKind::UnitFile => "unit file",
            FileKind::DropIn => "drop-in",
            FileKind::Script => "script",
            FileKind::Manifest => "manifest",
            FileKind::Json => "json",
            FileKind::Yaml => "yaml",
            FileKind::Text => "text",
            FileKind::Binary => "binary",
        }
    }
}

impl fmt::Display for FileKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

const UNIT_SUFFIXES: &[&str] = &[
    ".service",
    ".socket",
    ".device",
    ".mount",
    ".automount",
    ".swap",
    ".target",
    ".path",
    ".timer",
    ".snapshot",
    ".slice",
    ".scope",
];

/// True when `name` ends in a systemd unit type suffix (what Ignition requires of unit names).
pub fn has_unit_suffix(name: &str) -> bool {
    UNIT_SUFFIXES.iter().any(|s| name.ends_with(s))
}

fn is_systemd_dir(path: &str) -> bool {
    ["/etc/systemd/", "/usr/lib/systemd/", "/lib/systemd/"]
        .iter()
        .any(|p| path.starts_with(p))
}

/// Classifies a file. `contents` is None when the contents are remote.
pub fn classify(path: &str, contents: Option<&[u8]>) -> FileKind {
    let Some(bytes) = contents else {
        return FileKind::Remote;
    };
    if bytes.is_empty() {
        return FileKind::Empty;
    }
    let Ok(text) = std::str::from_utf8(bytes) else {
        return FileKind::Binary;
    };
    let file_name = path.rsplit('/').next().unwrap_or(path);
    if text.contains("PRIVATE KEY-----") {
        return FileKind::PrivateKey;
    }
    let pem_only = is_pem_certificates(text);
    // `admin-kubeconfig-ca-bundle.crt` is named for a kubeconfig but holds its CA certificates.
    if (file_name.contains("kubeconfig") && !pem_only)
        || (text.contains("kind: Config") && text.contains("clusters:"))
    {
        return FileKind::Kubeconfig;
    }
    if is_pull_secret(path, text) {
        return FileKind::PullSecret;
    }
    let top_kind = top_level_kind(text);
    if top_kind.as_deref() == Some("Secret") {
        return FileKind::SecretManifest;
    }
    // A manifest or a script that quotes a certificate (cluster-config.yaml holds the
    // install-config's trust bundle) is a manifest or a script.
    let quotes_certificate = text.contains(BEGIN_CERTIFICATE);
    if pem_only || (quotes_certificate && top_kind.is_none() && !text.starts_with("#!")) {
        return FileKind::Certificate;
    }
    if text.contains("PUBLIC KEY-----")
        || ["ssh-rsa ", "ssh-ed25519 ", "ecdsa-sha2-"]
            .iter()
            .any(|p| text.starts_with(p))
    {
        return FileKind::PublicKey;
    }
    if is_systemd_dir(path) {
        if path.contains(".d/") && file_name.ends_with(".conf") {
            return FileKind::DropIn;
        }
        if has_unit_suffix(file_name) {
            return FileKind::UnitFile;
        }
    }
    if text.starts_with("#!") {
        return FileKind::Script;
    }
    if top_kind.is_some() {
        return FileKind::Manifest;
    }
    if file_name.ends_with(".json") || serde_json::from_str::<serde_json::Value>(text).is_ok() {
        return FileKind::Json;
    }
    if file_name.ends_with(".yaml") || file_name.ends_with(".yml") {
        return FileKind::Yaml;
    }
    FileKind::Text
}

const BEGIN_CERTIFICATE: &str = "-----BEGIN CERTIFICATE-----";

/// True when `text` is PEM certificates and nothing else but blank and `#` comment lines.
fn is_pem_certificates(text: &str) -> bool {
    let mut inside = false;
    let mut blocks = 0;
    for line in text.lines().map(str::trim) {
        if inside {
            inside = !line.starts_with("-----END ");
        } else if line == BEGIN_CERTIFICATE {
            inside = true;
            blocks += 1;
        } else if !line.is_empty() && !line.starts_with('#') {
            return false;
        }
    }
    blocks > 0
}

/// The `kind` of a Kubernetes manifest (YAML or JSON with a top-level `apiVersion`).
fn top_level_kind(text: &str) -> Option<String> {
    if text.trim_start().starts_with('{') {
        let value: serde_json::Value = serde_json::from_str(text).ok()?;
        value.get("apiVersion")?;
        return value.get("kind")?.as_str().map(str::to_string);
    }
    // Only unindented keys: `kind:` inside a list belongs to something else.
    let mut kind = None;
    let mut api_version = false;
    for line in text.lines() {
        if let Some(value) = line.strip_prefix("kind:") {
            kind = Some(value.trim().trim_matches(['"', '\'']).to_string());
        }
        api_version |= line.starts_with("apiVersion:");
    }
    kind.filter(|_| api_version)
}

fn is_pull_secret(path: &str, text: &str) -> bool {
    let named = path.ends_with("/.docker/config.json")
        || path.ends_with("/config.json") && path.contains("kubelet")
        || path.ends_with("/auth.json");
    named
        || serde_json::from_str::<serde_json::Value>(text)
            .ok()
            .is_some_and(|v| v.get("auths").is_some_and(|a| a.is_object()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_what_a_bootstrap_node_gets() {
        let c = |path: &str, text: &str| classify(path, Some(text.as_bytes()));
        assert_eq!(
            c("/x/a.key", "-----BEGIN RSA PRIVATE KEY-----\n"),
            FileKind::PrivateKey
        );
        assert_eq!(
            c("/opt/openshift/auth/kubeconfig", "apiVersion: v1\n"),
            FileKind::Kubeconfig
        );
        assert_eq!(
            c("/root/.docker/config.json", "{\"auths\":{}}"),
            FileKind::PullSecret
        );
        assert_eq!(c("/tmp/ps.json", "{\"auths\":{}}"), FileKind::PullSecret);
        assert_eq!(
            c("/m/s.yaml", "apiVersion: v1\nkind: Secret\ndata: {}\n"),
            FileKind::SecretManifest
        );
        assert_eq!(
            c("/m/cm.yaml", "apiVersion: v1\nkind: ConfigMap\n"),
            FileKind::Manifest
        );
        assert_eq!(
            c(
                "/m/cv.yaml",
                "apiVersion: v1\nkind: ClusterVersion\nspec:\n  - kind: Secret\n"
            ),
            FileKind::Manifest
        );
        assert_eq!(
            c("/m/s.json", "{\"apiVersion\":\"v1\",\"kind\":\"Secret\"}"),
            FileKind::SecretManifest
        );
        assert_eq!(
            c("/t/ca.crt", "-----BEGIN CERTIFICATE-----\n"),
            FileKind::Certificate
        );
        assert_eq!(c("/usr/local/bin/a.sh", "#!/bin/bash\n"), FileKind::Script);
        assert_eq!(
            c("/etc/systemd/system/a.service", "[Unit]\n"),
            FileKind::UnitFile
        );
        assert_eq!(
            c("/etc/systemd/system/a.service.d/10-x.conf", "[Unit]\n"),
            FileKind::DropIn
        );
        assert_eq!(c("/etc/motd", "hello\n"), FileKind::Text);
        assert_eq!(c("/etc/x.yaml", "a: 1\n"), FileKind::Yaml);
        // Named for a kubeconfig, but CA certificates.
        let bundle = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
        assert_eq!(
            c("/opt/openshift/tls/admin-kubeconfig-ca-bundle.crt", bundle),
            FileKind::Certificate
        );
        // A ConfigMap quoting the install-config's trust bundle is a manifest.
        let config_map = format!(
            "apiVersion: v1\nkind: ConfigMap\ndata:\n  install-config: |\n    additionalTrustBundle: |\n      {bundle}"
        );
        assert_eq!(
            c("/opt/openshift/manifests/cluster-config.yaml", &config_map),
            FileKind::Manifest
        );
        assert_eq!(classify("/a", None), FileKind::Remote);
        assert_eq!(classify("/a", Some(&[0xff, 0])), FileKind::Binary);
        assert_eq!(classify("/a", Some(b"")), FileKind::Empty);
        assert!(FileKind::Kubeconfig.is_secret() && !FileKind::Certificate.is_secret());
    }
}
