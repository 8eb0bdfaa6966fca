//! The baseline of benchmark 1: the bootstrap PKI made the way hand-written bootstrap scripts
//! make it, one `openssl` process per step, one step after another. The certificates mirror
//! bootgen's table (`lib/src/pki/table.rs`: 11 signers, 13 leaves, the service-account key and
//! a bootstrap SSH key): same names, subjects, SANs, usages, validity and key type (RSA 2048).
//! Extension files and CA bundles are written by this process, not by extra `cat` processes,
//! which flatters the baseline slightly.

use std::path::Path;
use std::process::{Command, Stdio};

use crate::measure::run_child;
use crate::Result;

/// name, common name, organizational unit, days.
const SIGNERS: &[(&str, &str, &str, u32)] = &[
    ("root-ca", "root-ca", "openshift", 3650),
    (
        "admin-kubeconfig-signer",
        "admin-kubeconfig-signer",
        "openshift",
        3650,
    ),
    ("aggregator-ca", "aggregator", "bootkube", 1),
    ("aggregator-signer", "aggregator-signer", "openshift", 1),
    (
        "kube-apiserver-to-kubelet-signer",
        "kube-apiserver-to-kubelet-signer",
        "openshift",
        365,
    ),
    (
        "kube-apiserver-localhost-signer",
        "kube-apiserver-localhost-signer",
        "openshift",
        3650,
    ),
    (
        "kube-apiserver-service-network-signer",
        "kube-apiserver-service-network-signer",
        "openshift",
        3650,
    ),
    (
        "kube-apiserver-lb-signer",
        "kube-apiserver-lb-signer",
        "openshift",
        3650,
    ),
    (
        "kube-control-plane-signer",
        "kube-control-plane-signer",
        "openshift",
        365,
    ),
    ("kubelet-signer", "kubelet-signer", "openshift", 1),
    (
        "kubelet-bootstrap-kubeconfig-signer",
        "kubelet-bootstrap-kubeconfig-signer",
        "openshift",
        3650,
    ),
];

const API: &str = "DNS:api.example.example.com";
const API_INT: &str = "DNS:api-int.example.example.com";
const LOCALHOST: &str = "DNS:localhost,IP:127.0.0.1,IP:::1";
const SERVICE_NETWORK: &str = "DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,\
DNS:kubernetes.default.svc.cluster.local,DNS:openshift,DNS:openshift.default,\
DNS:openshift.default.svc,DNS:openshift.default.svc.cluster.local,IP:172.30.0.1";
const CLIENT: &str = "clientAuth";
const SERVER: &str = "serverAuth";
const BOTH: &str = "serverAuth,clientAuth";

/// One leaf certificate.
struct Leaf {
    name: &'static str,
    issuer: &'static str,
    /// `/O=.../CN=...`
    subject: &'static str,
    /// `subjectAltName` value, or empty.
    sans: &'static str,
    eku: &'static str,
    /// Whether the certificate has a keyUsage extension (the machine-config server's has none).
    key_usage: bool,
    days: u32,
}

const fn leaf(
    name: &'static str,
    issuer: &'static str,
    subject: &'static str,
    sans: &'static str,
    eku: &'static str,
    days: u32,
) -> Leaf {
    Leaf {
        name,
        issuer,
        subject,
        sans,
        eku,
        key_usage: true,
        days,
    }
}

const MASTER: &str = "/O=kube-master/CN=system:kube-apiserver";
const ADMIN: &str = "/O=system:masters/CN=system:admin";

const LEAVES: &[Leaf] = &[
    leaf(
        "admin-kubeconfig-client",
        "admin-kubeconfig-signer",
        ADMIN,
        "",
        BOTH,
        3650,
    ),
    leaf(
        "apiserver-proxy",
        "aggregator-ca",
        "/O=kube-master/CN=system:kube-apiserver-proxy",
        "",
        CLIENT,
        1,
    ),
    leaf(
        "aggregator-client",
        "aggregator-signer",
        "/O=kube-master/CN=system:kube-apiserver-proxy",
        "",
        CLIENT,
        1,
    ),
    leaf(
        "kube-apiserver-to-kubelet-client",
        "kube-apiserver-to-kubelet-signer",
        MASTER,
        "",
        CLIENT,
        365,
    ),
    leaf(
        "kube-apiserver-localhost-server",
        "kube-apiserver-localhost-signer",
        MASTER,
        LOCALHOST,
        SERVER,
        1,
    ),
    leaf(
        "kube-apiserver-service-network-server",
        "kube-apiserver-service-network-signer",
        MASTER,
        SERVICE_NETWORK,
        SERVER,
        1,
    ),
    leaf(
        "kube-apiserver-lb-server",
        "kube-apiserver-lb-signer",
        MASTER,
        API,
        SERVER,
        1,
    ),
    leaf(
        "kube-apiserver-internal-lb-server",
        "kube-apiserver-lb-signer",
        MASTER,
        API_INT,
        SERVER,
        1,
    ),
    leaf(
        "kube-control-plane-kube-controller-manager-client",
        "kube-control-plane-signer",
        ADMIN,
        "",
        CLIENT,
        365,
    ),
    leaf(
        "kube-control-plane-kube-scheduler-client",
        "kube-control-plane-signer",
        ADMIN,
        "",
        CLIENT,
        365,
    ),
    leaf(
        "kubelet-client",
        "kubelet-bootstrap-kubeconfig-signer",
        // openssl refuses a common name over 64 characters (bootgen, like the installer, writes
        // `system:serviceaccount:openshift-machine-config-operator:node-bootstrapper`).
        "/O=system:serviceaccounts:openshift-machine-config-operator/O=system:serviceaccounts\
/CN=system:serviceaccount:openshift-machine-config-operator:node",
        "",
        CLIENT,
        3650,
    ),
    Leaf {
        name: "machine-config-server",
        issuer: "root-ca",
        subject: "/CN=system:machine-config-server",
        sans: API_INT,
        eku: SERVER,
        key_usage: false,
        days: 3650,
    },
    leaf(
        "journal-gatewayd",
        "root-ca",
        "/O=OpenShift Bootstrap/CN=journal-gatewayd",
        "",
        BOTH,
        3650,
    ),
];

/// Bare key pairs: the service-account signing key and the bootstrap SSH key.
const KEY_PAIRS: &[&str] = &["service-account", "bootstrap-ssh"];

/// name and members of each CA bundle.
const BUNDLES: &[(&str, &[&str])] = &[
    ("admin-kubeconfig-ca-bundle", &["admin-kubeconfig-signer"]),
    ("aggregator-ca-bundle", &["aggregator-signer"]),
    (
        "kube-apiserver-to-kubelet-ca-bundle",
        &["kube-apiserver-to-kubelet-signer"],
    ),
    (
        "kube-apiserver-localhost-ca-bundle",
        &["kube-apiserver-localhost-signer"],
    ),
    (
        "kube-apiserver-service-network-ca-bundle",
        &["kube-apiserver-service-network-signer"],
    ),
    ("kube-apiserver-lb-ca-bundle", &["kube-apiserver-lb-signer"]),
    (
        "kube-apiserver-complete-server-ca-bundle",
        &[
            "kube-apiserver-localhost-signer",
            "kube-apiserver-service-network-signer",
            "kube-apiserver-lb-signer",
        ],
    ),
    (
        "kube-apiserver-complete-client-ca-bundle",
        &[
            "admin-kubeconfig-signer",
            "kubelet-signer",
            "kube-control-plane-signer",
            "kube-apiserver-to-kubelet-signer",
            "kubelet-bootstrap-kubeconfig-signer",
        ],
    ),
    (
        "kube-control-plane-ca-bundle",
        &[
            "kube-control-plane-signer",
            "kube-apiserver-lb-signer",
            "kube-apiserver-localhost-signer",
            "kube-apiserver-service-network-signer",
        ],
    ),
    ("kubelet-client-ca-bundle", &["kubelet-signer"]),
    ("kubelet-serving-ca-bundle", &["kubelet-signer"]),
    (
        "kubelet-bootstrap-kubeconfig-ca-bundle",
        &["kubelet-bootstrap-kubeconfig-signer"],
    ),
];

/// `openssl req` needs a configuration; the CA extensions live in it too.
const REQ_CONFIG: &str = "[req]
distinguished_name = dn
prompt = no
[dn]
[ca]
basicConstraints = critical,CA:TRUE
keyUsage = critical,digitalSignature,keyEncipherment,keyCertSign
subjectKeyIdentifier = hash
";

/// How many `openssl` processes [`make_pki`] runs.
pub fn process_count() -> usize {
    SIGNERS.len() * 2 + LEAVES.len() * 3 + KEY_PAIRS.len() * 2
}

/// Fails early, with a clear message, when `openssl` is not installed.
pub fn check_available() -> Result<()> {
    let mut cmd = Command::new("openssl");
    cmd.arg("version");
    run_child(&mut cmd, Stdio::null(), "openssl version").map(drop)
}

fn openssl(dir: &Path, args: &[&str]) -> Result<()> {
    let mut cmd = Command::new("openssl");
    cmd.current_dir(dir).args(args);
    run_child(
        &mut cmd,
        Stdio::null(),
        &format!("openssl {}", args.join(" ")),
    )
    .map(drop)
}

fn genrsa(dir: &Path, name: &str) -> Result<()> {
    openssl(dir, &["genrsa", "-out", &format!("{name}.key"), "2048"])
}

/// Makes the whole PKI in `dir`; returns the number of `openssl` processes run.
pub fn make_pki(dir: &Path) -> Result<usize> {
    std::fs::create_dir_all(dir)?;
    std::fs::write(dir.join("req.cnf"), REQ_CONFIG)?;
    for (name, cn, ou, days) in SIGNERS {
        genrsa(dir, name)?;
        openssl(
            dir,
            &[
                "req",
                "-x509",
                "-new",
                "-sha256",
                "-key",
                &format!("{name}.key"),
                "-subj",
                &format!("/OU={ou}/CN={cn}"),
                "-days",
                &days.to_string(),
                "-config",
                "req.cnf",
                "-extensions",
                "ca",
                "-out",
                &format!("{name}.crt"),
            ],
        )?;
    }
    for (serial, leaf) in LEAVES.iter().enumerate() {
        let name = leaf.name;
        genrsa(dir, name)?;
        openssl(
            dir,
            &[
                "req",
                "-new",
                "-key",
                &format!("{name}.key"),
                "-subj",
                leaf.subject,
                "-config",
                "req.cnf",
                "-out",
                &format!("{name}.csr"),
            ],
        )?;
        let mut ext = String::from("basicConstraints = critical,CA:FALSE\n");
        if leaf.key_usage {
            ext.push_str("keyUsage = critical,digitalSignature,keyEncipherment\n");
        }
        ext.push_str(&format!("extendedKeyUsage = {}\n", leaf.eku));
        if !leaf.sans.is_empty() {
            ext.push_str(&format!("subjectAltName = {}\n", leaf.sans));
        }
        ext.push_str("authorityKeyIdentifier = keyid\n");
        std::fs::write(dir.join(format!("{name}.ext")), ext)?;
        openssl(
            dir,
            &[
                "x509",
                "-req",
                "-sha256",
                "-in",
                &format!("{name}.csr"),
                "-CA",
                &format!("{}.crt", leaf.issuer),
                "-CAkey",
                &format!("{}.key", leaf.issuer),
                "-set_serial",
                &(serial + 2).to_string(),
                "-days",
                &leaf.days.to_string(),
                "-extfile",
                &format!("{name}.ext"),
                "-out",
                &format!("{name}.crt"),
            ],
        )?;
    }
    for name in KEY_PAIRS {
        genrsa(dir, name)?;
        openssl(
            dir,
            &[
                "rsa",
                "-in",
                &format!("{name}.key"),
                "-pubout",
                "-out",
                &format!("{name}.pub"),
            ],
        )?;
    }
    for (bundle, members) in BUNDLES {
        let mut text = Vec::new();
        for member in *members {
            text.extend(std::fs::read(dir.join(format!("{member}.crt")))?);
        }
        std::fs::write(dir.join(format!("{bundle}.crt")), text)?;
    }
    Ok(process_count())
}
