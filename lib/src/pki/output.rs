//! What the PKI hands to the rest of bootgen: files (shipped and stored), kubeconfigs, the
//! template values of the certificate-bearing manifests, and an expiry report.

use std::collections::BTreeMap;

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use serde::Serialize;

use super::keys::PrivateKey;
use super::record::{record_text, KeyFile, VERIFIED_KEYS_FILE};
use super::table::{Ships, BOOTSTRAP_SSH, BUNDLES, LEAVES, SERVICE_ACCOUNT, SIGNERS};
use super::{rfc3339, CertExpiry, KubeconfigKind, Pki, TlsFile};

const ROOT_CA: &str = "root-ca";
const MCS: &str = "machine-config-server";

fn tls_file(name: String, contents: String, shipped: bool) -> TlsFile {
    let mode = if name == "root-ca.crt" { 0o644 } else { 0o600 };
    TlsFile {
        name,
        contents: contents.into_bytes(),
        mode,
        shipped,
    }
}

impl Pki {
    /// What goes into `bootstrap.ign` under `/opt/openshift/tls/` (the files the installer ships
    /// for each row of the certificate table), sorted by name: `root-ca.crt` 0644, everything
    /// else 0600.
    pub fn shipped_files(&self) -> Vec<TlsFile> {
        self.files().iter().filter(|f| f.shipped).cloned().collect()
    }

    /// Everything to keep in `<out>/tls/` so a later run can reuse it, sorted by name: the
    /// shipped files plus the keys and certificates that are not shipped (root CA key, admin and
    /// kubelet-bootstrap signers, admin client), the bootstrap SSH key pair
    /// (`bootstrap-ssh.key`, `bootstrap-ssh.pub`), and `verified-keys.sha256`, the SHA-256 of
    /// each key file, which lets a later run skip importing keys whose files are unchanged.
    pub fn store_files(&self) -> Vec<TlsFile> {
        self.files().to_vec()
    }

    fn files(&self) -> &[TlsFile] {
        self.files.get_or_init(|| self.all_files())
    }

    /// The root CA private key (PEM): the secret the cluster's identity is derived from.
    pub fn root_ca_key_pem(&self) -> String {
        self.signer(ROOT_CA)
            .map(|s| s.key.pem())
            .unwrap_or_default()
    }

    fn all_files(&self) -> Vec<TlsFile> {
        let mut files = Vec::new();
        for (spec, signer) in SIGNERS.iter().zip(&self.signers) {
            let key_shipped = spec.ships == Ships::KeyAndCert;
            let cert_shipped = spec.ships != Ships::Nothing;
            files.push(tls_file(
                format!("{}.key", spec.name),
                signer.key.pem(),
                key_shipped,
            ));
            files.push(tls_file(
                format!("{}.crt", spec.name),
                signer.cert.pem(),
                cert_shipped,
            ));
        }
        for (spec, leaf) in LEAVES.iter().zip(&self.leaves) {
            let shipped = spec.ships == Ships::KeyAndCert;
            let mut cert = leaf.cert.pem();
            if spec.append_parent {
                if let Some(issuer) = self.signer(spec.issuer) {
                    cert.push('\n');
                    cert.push_str(&issuer.cert.pem());
                }
            }
            files.push(tls_file(
                format!("{}.key", spec.name),
                leaf.key.pem(),
                shipped,
            ));
            files.push(tls_file(format!("{}.crt", spec.name), cert, shipped));
        }
        for bundle in BUNDLES {
            files.push(tls_file(
                format!("{}.crt", bundle.name),
                self.bundle(bundle.members),
                true,
            ));
        }
        let sa = &self.service_account;
        files.push(tls_file(format!("{SERVICE_ACCOUNT}.key"), sa.pem(), true));
        files.push(tls_file(
            format!("{SERVICE_ACCOUNT}.pub"),
            sa.public_pem(),
            true,
        ));
        files.push(tls_file(
            format!("{BOOTSTRAP_SSH}.key"),
            self.ssh.pem(),
            false,
        ));
        files.push(tls_file(
            format!("{BOOTSTRAP_SSH}.pub"),
            self.ssh.ssh_public_line(),
            false,
        ));
        let record = record_text(files.iter().filter(|f| f.name.ends_with(".key")).map(|f| {
            KeyFile {
                name: &f.name,
                contents: &f.contents,
                sha256: self
                    .key_of_file(&f.name)
                    .and_then(PrivateKey::recorded_sha256),
            }
        }));
        files.push(tls_file(VERIFIED_KEYS_FILE.to_string(), record, false));
        files.sort_by(|a, b| a.name.cmp(&b.name));
        files
    }

    /// The key written to the file `name` (`<row>.key`, or a bare key pair's).
    fn key_of_file(&self, name: &str) -> Option<&PrivateKey> {
        match name.strip_suffix(".key")? {
            SERVICE_ACCOUNT => Some(&self.service_account),
            BOOTSTRAP_SSH => Some(&self.ssh),
            row => self.signer(row).or_else(|| self.leaf(row)).map(|c| &c.key),
        }
    }

    /// The first certificate of each member, concatenated.
    fn bundle(&self, members: &[&str]) -> String {
        members
            .iter()
            .filter_map(|name| self.signer(name))
            .map(|signer| signer.cert.pem())
            .collect()
    }

    fn bundle_named(&self, name: &str) -> String {
        BUNDLES
            .iter()
            .find(|b| b.name == name)
            .map(|b| self.bundle(b.members))
            .unwrap_or_default()
    }

    /// A kubeconfig as client-go writes it: keys sorted, no apiVersion/kind,
    /// `preferences: {}`, base64 PEM data; the cluster entry is named after the cluster and the
    /// user and context are `admin`, `kubelet` or `loopback`.
    pub fn kubeconfig(&self, kind: KubeconfigKind, server_url: &str) -> String {
        let (user, bundle, client) = match kind {
            KubeconfigKind::Admin => (
                "admin",
                "kube-apiserver-complete-server-ca-bundle",
                "admin-kubeconfig-client",
            ),
            KubeconfigKind::Kubelet => (
                "kubelet",
                "kube-apiserver-complete-server-ca-bundle",
                "kubelet-client",
            ),
            KubeconfigKind::Loopback => (
                "loopback",
                "kube-apiserver-localhost-ca-bundle",
                "admin-kubeconfig-client",
            ),
        };
        let (cert, key) = self
            .leaf(client)
            .map(|c| (c.cert.pem(), c.key.pem()))
            .unwrap_or_default();
        let config = Kubeconfig {
            clusters: [NamedCluster {
                cluster: Cluster {
                    certificate_authority_data: STANDARD.encode(self.bundle_named(bundle)),
                    server: server_url,
                },
                name: &self.cluster_name,
            }],
            contexts: [NamedContext {
                context: Context {
                    cluster: &self.cluster_name,
                    user,
                },
                name: user,
            }],
            current_context: user,
            preferences: BTreeMap::new(),
            users: [NamedUser {
                name: user,
                user: User {
                    client_certificate_data: STANDARD.encode(cert),
                    client_key_data: STANDARD.encode(key),
                },
            }],
        };
        // Serializing plain strings and maps cannot fail.
        serde_yaml_ng::to_string(&config).unwrap_or_default()
    }

    /// The values the certificate-bearing manifest templates use, exposed to templates as `pki`:
    ///
    /// | key | value |
    /// | --- | --- |
    /// | `root_ca_crt` / `root_ca_key` | root CA certificate / private key, PEM |
    /// | `root_ca_issuer` | the root CA's issuer common name (`root-ca`: it is self-signed) |
    /// | `root_ca_not_before` / `root_ca_not_after` | its validity, RFC 3339 UTC (`2026-01-01T00:00:00Z`) |
    /// | `mcs_crt` / `mcs_key` | machine-config-server certificate / private key, PEM |
    /// | `mcs_issuer` | its issuer common name (`root-ca`) |
    /// | `mcs_not_before` / `mcs_not_after` | its validity, RFC 3339 UTC |
    /// | `mcs_hostnames` | its SANs (IP addresses and DNS names), sorted, each once, comma-joined |
    pub fn manifest_context(&self) -> serde_json::Value {
        let mut context = serde_json::Map::new();
        for (prefix, material) in [("root_ca", self.signer(ROOT_CA)), ("mcs", self.leaf(MCS))] {
            let Some(material) = material else { continue };
            let cert = &material.cert;
            let entries = [
                ("crt", cert.pem()),
                ("key", material.key.pem()),
                ("issuer", cert.issuer_common_name.clone()),
                ("not_before", rfc3339(cert.not_before)),
                ("not_after", rfc3339(cert.not_after)),
            ];
            for (suffix, value) in entries {
                context.insert(format!("{prefix}_{suffix}"), value.into());
            }
        }
        if let Some(mcs) = self.leaf(MCS) {
            let mut hostnames: Vec<String> =
                mcs.cert.sans.iter().map(ToString::to_string).collect();
            hostnames.sort();
            // A VIP is named both as an IP address and as a DNS name; the annotation, a set of
            // names, says it once (as the installer's does).
            hostnames.dedup();
            context.insert("mcs_hostnames".into(), hostnames.join(",").into());
        }
        serde_json::Value::Object(context)
    }

    /// Validity of every certificate: the signers, then the leaves, in table order.
    pub fn expiry_report(&self) -> Vec<CertExpiry> {
        let signers = SIGNERS
            .iter()
            .zip(&self.signers)
            .map(|(spec, c)| (spec.name, true, c));
        let leaves = LEAVES
            .iter()
            .zip(&self.leaves)
            .map(|(spec, c)| (spec.name, false, c));
        signers
            .chain(leaves)
            .map(|(name, is_authority, c)| CertExpiry {
                name: name.to_string(),
                is_authority,
                not_before: c.cert.not_before,
                not_after: c.cert.not_after,
            })
            .collect()
    }
}

// client-go's v1.Config, fields in the sorted order its YAML serializer writes them.

#[derive(Serialize)]
struct Kubeconfig<'a> {
    clusters: [NamedCluster<'a>; 1],
    contexts: [NamedContext<'a>; 1],
    #[serde(rename = "current-context")]
    current_context: &'a str,
    preferences: BTreeMap<String, String>,
    users: [NamedUser<'a>; 1],
}

#[derive(Serialize)]
struct NamedCluster<'a> {
    cluster: Cluster<'a>,
    name: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
struct Cluster<'a> {
    certificate_authority_data: String,
    server: &'a str,
}

#[derive(Serialize)]
struct NamedContext<'a> {
    context: Context<'a>,
    name: &'a str,
}

#[derive(Serialize)]
struct Context<'a> {
    cluster: &'a str,
    user: &'a str,
}

#[derive(Serialize)]
struct NamedUser<'a> {
    name: &'a str,
    user: User,
}

#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
struct User {
    client_certificate_data: String,
    client_key_data: String,
}
