//! Unit tests: every generated certificate, parsed with x509-parser, against the installer's
//! certificate table as transcribed here (independently of `table.rs`: issuer, subject, SANs,
//! usages, CA flag, validity, shipped files), plus files, kubeconfigs and context.

use std::collections::BTreeMap;
use std::error::Error;
use std::sync::OnceLock;

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use time::{Duration, OffsetDateTime};
use x509_parser::certificate::X509Certificate;
use x509_parser::extensions::{GeneralName, ParsedExtension};
use x509_parser::prelude::FromDer as _;
use x509_parser::x509::SubjectPublicKeyInfo;

use super::*;

pub(super) type TestResult<T = ()> = Result<T, Box<dyn Error>>;

/// 2026-01-01T00:00:00Z.
pub(super) fn jan_1_2026() -> OffsetDateTime {
    OffsetDateTime::UNIX_EPOCH + Duration::seconds(1_767_225_600)
}

pub(super) fn request(algorithm: KeyAlgorithm) -> PkiRequest {
    PkiRequest {
        cluster_name: "example".into(),
        api_host: "api.example.example.com".into(),
        api_int_host: "api-int.example.example.com".into(),
        service_network_ips: vec![[172, 30, 0, 1].into()],
        machine_config_server_ips: Vec::new(),
        kubelet_client_in_all_service_accounts: true,
        key_algorithm: algorithm,
        signer_key_algorithm: algorithm,
        now: jan_1_2026(),
        lifetimes: Default::default(),
        renew_expired: false,
    }
}

fn shared(algorithm: KeyAlgorithm) -> TestResult<&'static Pki> {
    static RSA: OnceLock<Result<Pki, String>> = OnceLock::new();
    static ECDSA: OnceLock<Result<Pki, String>> = OnceLock::new();
    let cell = match algorithm {
        KeyAlgorithm::EcdsaP256 => &ECDSA,
        _ => &RSA,
    };
    let built = cell.get_or_init(|| {
        Pki::build(&request(algorithm), None)
            .map(|(pki, _)| pki)
            .map_err(|e| e.to_string())
    });
    built.as_ref().map_err(|e| e.clone().into())
}

pub(super) fn files(pki: &Pki) -> BTreeMap<String, TlsFile> {
    pki.store_files()
        .into_iter()
        .map(|f| (f.name.clone(), f))
        .collect()
}

/// (name, subject, validity in days) of each signer.
const SIGNERS: &[(&str, &str, i64)] = &[
    ("root-ca", "OU=openshift, CN=root-ca", 3650),
    (
        "admin-kubeconfig-signer",
        "OU=openshift, CN=admin-kubeconfig-signer",
        3650,
    ),
    ("aggregator-ca", "OU=bootkube, CN=aggregator", 1),
    ("aggregator-signer", "OU=openshift, CN=aggregator-signer", 1),
    (
        "kube-apiserver-to-kubelet-signer",
        "OU=openshift, CN=kube-apiserver-to-kubelet-signer",
        365,
    ),
    (
        "kube-apiserver-localhost-signer",
        "OU=openshift, CN=kube-apiserver-localhost-signer",
        3650,
    ),
    (
        "kube-apiserver-service-network-signer",
        "OU=openshift, CN=kube-apiserver-service-network-signer",
        3650,
    ),
    (
        "kube-apiserver-lb-signer",
        "OU=openshift, CN=kube-apiserver-lb-signer",
        3650,
    ),
    (
        "kube-control-plane-signer",
        "OU=openshift, CN=kube-control-plane-signer",
        365,
    ),
    ("kubelet-signer", "OU=openshift, CN=kubelet-signer", 1),
    (
        "kubelet-bootstrap-kubeconfig-signer",
        "OU=openshift, CN=kubelet-bootstrap-kubeconfig-signer",
        3650,
    ),
];

#[derive(Debug, Clone, Copy, PartialEq)]
enum Eku {
    Client,
    Server,
    Both,
    /// serverAuth and no KeyUsage extension at all.
    ServerNoKu,
}

const SERVICE_SANS: &[&str] = &[
    "DNS:kubernetes",
    "DNS:kubernetes.default",
    "DNS:kubernetes.default.svc",
    "DNS:kubernetes.default.svc.cluster.local",
    "DNS:openshift",
    "DNS:openshift.default",
    "DNS:openshift.default.svc",
    "DNS:openshift.default.svc.cluster.local",
    "IP:172.30.0.1",
];

/// (name, issuer, subject, SANs, usage, validity in days, parent appended).
type LeafRow = (
    &'static str,
    &'static str,
    &'static str,
    &'static [&'static str],
    Eku,
    i64,
    bool,
);
const LEAVES: &[LeafRow] = &[
    ("admin-kubeconfig-client", "admin-kubeconfig-signer", "O=system:masters, CN=system:admin", &[], Eku::Both, 3650, false),
    ("apiserver-proxy", "aggregator-ca", "O=kube-master, CN=system:kube-apiserver-proxy", &[], Eku::Client, 1, false),
    ("aggregator-client", "aggregator-signer", "O=kube-master, CN=system:kube-apiserver-proxy", &[], Eku::Client, 1, false),
    ("kube-apiserver-to-kubelet-client", "kube-apiserver-to-kubelet-signer", "O=kube-master, CN=system:kube-apiserver", &[], Eku::Client, 365, false),
    (
        "kube-apiserver-localhost-server",
        "kube-apiserver-localhost-signer",
        "O=kube-master, CN=system:kube-apiserver",
        &["DNS:localhost", "IP:127.0.0.1", "IP:::1"],
        Eku::Server,
        1,
        true,
    ),
    (
        "kube-apiserver-service-network-server",
        "kube-apiserver-service-network-signer",
        "O=kube-master, CN=system:kube-apiserver",
        SERVICE_SANS,
        Eku::Server,
        1,
        true,
    ),
    ("kube-apiserver-lb-server", "kube-apiserver-lb-signer", "O=kube-master, CN=system:kube-apiserver", &["DNS:api.example.example.com"], Eku::Server, 1, true),
    (
        "kube-apiserver-internal-lb-server",
        "kube-apiserver-lb-signer",
        "O=kube-master, CN=system:kube-apiserver",
        &["DNS:api-int.example.example.com"],
        Eku::Server,
        1,
        true,
    ),
    ("kube-control-plane-kube-controller-manager-client", "kube-control-plane-signer", "O=system:masters, CN=system:admin", &[], Eku::Client, 365, false),
    ("kube-control-plane-kube-scheduler-client", "kube-control-plane-signer", "O=system:masters, CN=system:admin", &[], Eku::Client, 365, false),
    (
        "kubelet-client",
        "kubelet-bootstrap-kubeconfig-signer",
        "O=system:serviceaccounts:openshift-machine-config-operator, O=system:serviceaccounts, CN=system:serviceaccount:openshift-machine-config-operator:node-bootstrapper",
        &[],
        Eku::Client,
        3650,
        false,
    ),
    ("machine-config-server", "root-ca", "CN=system:machine-config-server", &["DNS:api-int.example.example.com"], Eku::ServerNoKu, 3650, false),
    ("journal-gatewayd", "root-ca", "O=OpenShift Bootstrap, CN=journal-gatewayd", &[], Eku::Both, 3650, false),
];

/// The files the installer ships besides each shipped signer's and leaf's `.key`/`.crt`.
const SHIPPED_EXTRA: &[&str] = &[
    "root-ca.crt",
    "admin-kubeconfig-ca-bundle.crt",
    "aggregator-ca-bundle.crt",
    "kube-apiserver-to-kubelet-ca-bundle.crt",
    "kube-apiserver-localhost-ca-bundle.crt",
    "kube-apiserver-service-network-ca-bundle.crt",
    "kube-apiserver-lb-ca-bundle.crt",
    "kube-apiserver-complete-server-ca-bundle.crt",
    "kube-apiserver-complete-client-ca-bundle.crt",
    "kube-control-plane-ca-bundle.crt",
    "kubelet-client-ca-bundle.crt",
    "kubelet-serving-ca-bundle.crt",
    "kubelet-bootstrap-kubeconfig-ca-bundle.crt",
    "service-account.key",
    "service-account.pub",
];
const NOT_SHIPPED: &[&str] = &[
    "root-ca.key",
    "admin-kubeconfig-signer",
    "admin-kubeconfig-client",
    "kubelet-bootstrap-kubeconfig-signer",
    "bootstrap-ssh",
];

fn pem_blocks(bytes: &[u8]) -> TestResult<Vec<::pem::Pem>> {
    Ok(::pem::parse_many(bytes)?)
}

/// The DER of the first certificate of `<name>.crt`.
fn cert_der(files: &BTreeMap<String, TlsFile>, name: &str) -> TestResult<Vec<u8>> {
    let file = files
        .get(&format!("{name}.crt"))
        .ok_or(format!("no {name}.crt"))?;
    let blocks = pem_blocks(&file.contents)?;
    let first = blocks.first().ok_or(format!("{name}.crt is empty"))?;
    Ok(first.contents().to_vec())
}

fn sans_of(cert: &X509Certificate<'_>) -> TestResult<Vec<String>> {
    let mut out = Vec::new();
    if let Some(ext) = cert.subject_alternative_name()? {
        for name in &ext.value.general_names {
            out.push(match name {
                GeneralName::DNSName(d) => format!("DNS:{d}"),
                GeneralName::IPAddress(b) => format!("IP:{}", cert::San::Ip(ip_of(b)?)),
                other => format!("{other:?}"),
            });
        }
    }
    Ok(out)
}

fn ip_of(bytes: &[u8]) -> TestResult<std::net::IpAddr> {
    Ok(match bytes.len() {
        4 => <[u8; 4]>::try_from(bytes)?.into(),
        _ => <[u8; 16]>::try_from(bytes)?.into(),
    })
}

fn ski_of(cert: &X509Certificate<'_>) -> Option<Vec<u8>> {
    cert.extensions()
        .iter()
        .find_map(|e| match e.parsed_extension() {
            ParsedExtension::SubjectKeyIdentifier(id) => Some(id.0.to_vec()),
            _ => None,
        })
}

fn aki_of(cert: &X509Certificate<'_>) -> Option<Vec<u8>> {
    cert.extensions()
        .iter()
        .find_map(|e| match e.parsed_extension() {
            ParsedExtension::AuthorityKeyIdentifier(aki) => {
                aki.key_identifier.as_ref().map(|k| k.0.to_vec())
            }
            _ => None,
        })
}

fn sha1(bytes: &[u8]) -> Vec<u8> {
    aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA1_FOR_LEGACY_USE_ONLY, bytes)
        .as_ref()
        .to_vec()
}

fn check_table(algorithm: KeyAlgorithm) -> TestResult {
    let pki = shared(algorithm)?;
    let files = files(pki);
    let now = jan_1_2026();
    let mut signer_ders = BTreeMap::new();
    for (name, der) in SIGNERS.iter().map(|(n, ..)| (*n, cert_der(&files, n))) {
        signer_ders.insert(name, der?);
    }
    for (name, subject, days) in SIGNERS {
        let der = &signer_ders[name];
        let (_, cert) = X509Certificate::from_der(der)?;
        assert_eq!(cert.subject().to_string(), *subject, "{name} subject");
        assert_eq!(cert.issuer().to_string(), *subject, "{name} is self-signed");
        assert_eq!(
            cert.validity().not_before.to_datetime(),
            now,
            "{name} not before"
        );
        assert_eq!(
            cert.validity().not_after.to_datetime(),
            now + Duration::days(*days),
            "{name} not after"
        );
        let bc = cert
            .basic_constraints()?
            .ok_or(format!("{name}: no basic constraints"))?;
        assert!(
            bc.critical && bc.value.ca && bc.value.path_len_constraint.is_none(),
            "{name} CA flag"
        );
        let ku = cert
            .key_usage()?
            .ok_or(format!("{name}: no key usage"))?
            .value;
        // keyEncipherment only for an RSA key: an ECDSA key cannot encipher (RFC 5480).
        let rsa = algorithm != KeyAlgorithm::EcdsaP256;
        assert!(
            ku.digital_signature() && ku.key_encipherment() == rsa && ku.key_cert_sign(),
            "{name} KU"
        );
        assert_eq!(
            ku.flags.count_ones(),
            2 + u32::from(rsa),
            "{name} has only DS, KE (RSA), certSign"
        );
        assert!(cert.extended_key_usage()?.is_none(), "{name} has no EKU");
        assert!(
            cert.subject_alternative_name()?.is_none(),
            "{name} has no SANs"
        );
        assert!(aki_of(&cert).is_none(), "{name} has no AKI");
        assert_eq!(
            ski_of(&cert),
            Some(sha1(&cert.public_key().subject_public_key.data)),
            "{name} SKI"
        );
        assert!(cert.verify_signature(None).is_ok(), "{name} self-signature");
        check_key(&cert, algorithm, name)?;
    }
    for (name, issuer, subject, sans, eku, days, appended) in LEAVES {
        let der = cert_der(&files, name)?;
        let (_, cert) = X509Certificate::from_der(&der)?;
        let (_, ca) = X509Certificate::from_der(&signer_ders[issuer])?;
        assert_eq!(cert.subject().to_string(), *subject, "{name} subject");
        assert_eq!(
            cert.issuer().as_raw(),
            ca.subject().as_raw(),
            "{name} issuer"
        );
        assert!(
            cert.verify_signature(Some(ca.public_key())).is_ok(),
            "{name} signed by {issuer}"
        );
        assert_eq!(aki_of(&cert), ski_of(&ca), "{name} AKI is the issuer's SKI");
        assert_eq!(
            ski_of(&cert),
            Some(sha1(&cert.public_key().subject_public_key.data)),
            "{name} SKI"
        );
        assert_eq!(sans_of(&cert)?, sans.to_vec(), "{name} SANs");
        assert_eq!(
            cert.validity().not_before,
            ca.validity().not_before,
            "{name} not before = CA's"
        );
        assert_eq!(
            cert.validity().not_after.to_datetime(),
            now + Duration::days(*days),
            "{name} not after"
        );
        let bc = cert
            .basic_constraints()?
            .ok_or(format!("{name}: no basic constraints"))?;
        assert!(!bc.value.ca, "{name} is not a CA");
        let ku = cert.key_usage()?.map(|k| k.value.flags);
        let ext = cert
            .extended_key_usage()?
            .ok_or(format!("{name}: no EKU"))?
            .value;
        // DS (bit 0) + KE (bit 2, RSA keys only)
        let ds_ke = if algorithm == KeyAlgorithm::EcdsaP256 {
            0b001
        } else {
            0b101
        };
        let want_ku = (*eku != Eku::ServerNoKu).then_some(ds_ke);
        assert_eq!(ku, want_ku, "{name} KU");
        let want = match eku {
            Eku::Client => (false, true),
            Eku::Server | Eku::ServerNoKu => (true, false),
            Eku::Both => (true, true),
        };
        assert_eq!((ext.server_auth, ext.client_auth), want, "{name} EKU");
        assert!(ext.other.is_empty() && !ext.any, "{name} has no other EKU");
        check_key(&cert, algorithm, name)?;
        let blocks = pem_blocks(&files[&format!("{name}.crt")].contents)?;
        if *appended {
            assert_eq!(blocks.len(), 2, "{name} has its CA appended");
            assert_eq!(
                blocks[1].contents(),
                signer_ders[issuer].as_slice(),
                "{name} parent"
            );
            let text = String::from_utf8(files[&format!("{name}.crt")].contents.clone())?;
            assert!(text.contains("-----END CERTIFICATE-----\n\n-----BEGIN CERTIFICATE-----\n"));
        } else {
            assert_eq!(blocks.len(), 1, "{name} has one certificate");
        }
    }
    Ok(())
}

/// The certificate's key is the one in `<name>.key`, of the requested algorithm.
fn check_key(cert: &X509Certificate<'_>, algorithm: KeyAlgorithm, name: &str) -> TestResult {
    match (algorithm, cert.public_key().parsed()?) {
        (KeyAlgorithm::EcdsaP256, x509_parser::public_key::PublicKey::EC(point)) => {
            assert_eq!(point.key_size(), 256, "{name} key size");
            assert_eq!(
                cert.signature_algorithm.algorithm.to_id_string(),
                "1.2.840.10045.4.3.2"
            );
        }
        (KeyAlgorithm::Rsa2048, x509_parser::public_key::PublicKey::RSA(rsa)) => {
            assert_eq!(rsa.key_size(), 2048, "{name} key size");
            assert_eq!(
                cert.signature_algorithm.algorithm.to_id_string(),
                "1.2.840.113549.1.1.11"
            );
        }
        (_, other) => return Err(format!("{name}: unexpected key {other:?}").into()),
    }
    Ok(())
}

#[test]
fn rsa_certificates_match_the_table() -> TestResult {
    check_table(KeyAlgorithm::Rsa2048)
}

#[test]
fn ecdsa_certificates_match_the_table() -> TestResult {
    check_table(KeyAlgorithm::EcdsaP256)
}

#[test]
fn files_shipped_and_stored_follow_the_table() -> TestResult {
    let pki = shared(KeyAlgorithm::EcdsaP256)?;
    let shipped: Vec<String> = pki.shipped_files().into_iter().map(|f| f.name).collect();
    let mut want: Vec<String> = SHIPPED_EXTRA.iter().map(|s| s.to_string()).collect();
    for name in SIGNERS
        .iter()
        .map(|s| s.0)
        .chain(LEAVES.iter().map(|l| l.0))
    {
        if !NOT_SHIPPED.contains(&name) && name != "root-ca" {
            want.push(format!("{name}.key"));
            want.push(format!("{name}.crt"));
        }
    }
    want.sort();
    assert_eq!(shipped, want);
    assert_eq!(shipped.len(), 8 * 2 + 12 * 2 + 15);

    let stored = files(pki);
    assert_eq!(
        stored.len(),
        24 * 2 + 12 + 4 + 1,
        "every key, cert, bundle and key pair is stored, and the record of the keys"
    );
    for (name, file) in &stored {
        let want_mode = if name == "root-ca.crt" { 0o644 } else { 0o600 };
        assert_eq!(file.mode, want_mode, "{name} mode");
        assert_eq!(file.shipped, shipped.contains(name), "{name} shipped flag");
    }
    for name in [
        "root-ca.key",
        "admin-kubeconfig-client.key",
        "bootstrap-ssh.key",
        "bootstrap-ssh.pub",
        "verified-keys.sha256",
    ] {
        assert!(
            stored.contains_key(name) && !shipped.contains(&name.to_string()),
            "{name} stored only"
        );
    }
    Ok(())
}

#[test]
fn bundles_hold_the_first_certificate_of_each_member() -> TestResult {
    let pki = shared(KeyAlgorithm::EcdsaP256)?;
    let files = files(pki);
    let bundles: &[(&str, &[&str])] = &[
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
        ("aggregator-ca-bundle", &["aggregator-signer"]),
    ];
    for (bundle, members) in bundles {
        let mut want = String::new();
        for member in *members {
            want.push_str(std::str::from_utf8(
                &files[&format!("{member}.crt")].contents,
            )?);
        }
        assert_eq!(
            std::str::from_utf8(&files[&format!("{bundle}.crt")].contents)?,
            want,
            "{bundle}"
        );
    }
    Ok(())
}

#[test]
fn public_key_files_and_ssh_key() -> TestResult {
    for algorithm in [KeyAlgorithm::Rsa2048, KeyAlgorithm::EcdsaP256] {
        let pki = shared(algorithm)?;
        let files = files(pki);
        let public = pem_blocks(&files["service-account.pub"].contents)?;
        let private = pem_blocks(&files["service-account.key"].contents)?;
        let (label, key_label) = match algorithm {
            KeyAlgorithm::EcdsaP256 => ("PUBLIC KEY", "EC PRIVATE KEY"),
            _ => ("RSA PUBLIC KEY", "RSA PRIVATE KEY"),
        };
        assert_eq!((public[0].tag(), private[0].tag()), (label, key_label));
        // The body is a PKIX SubjectPublicKeyInfo whatever the label says.
        let (rest, spki) = SubjectPublicKeyInfo::from_der(public[0].contents())?;
        assert!(rest.is_empty());
        let from_key = keys::PrivateKey::from_pem(&private[0])?;
        assert_eq!(
            spki.subject_public_key.data.as_ref(),
            from_key.public_key_bytes()
        );

        let line = pki.bootstrap_ssh_public_key();
        let (kind, rest) = line.split_once(' ').ok_or("no space in the SSH key")?;
        assert!(
            rest.ends_with('\n') && !rest.trim_end().contains(' '),
            "one line, no comment"
        );
        let blob = STANDARD.decode(rest.trim_end())?;
        let want_kind = match algorithm {
            KeyAlgorithm::EcdsaP256 => "ecdsa-sha2-nistp256",
            _ => "ssh-rsa",
        };
        assert_eq!(kind, want_kind);
        assert_eq!(&blob[4..4 + want_kind.len()], want_kind.as_bytes());
        assert!(pki
            .bootstrap_ssh_private_key_pem()
            .starts_with(&format!("-----BEGIN {key_label}-----\n")));
    }
    Ok(())
}

#[test]
fn kubeconfigs_follow_client_go_layout() -> TestResult {
    let pki = shared(KeyAlgorithm::EcdsaP256)?;
    let files = files(pki);
    let text = pki.kubeconfig(KubeconfigKind::Loopback, "https://localhost:6443");
    let keys: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with([' ', '-']))
        .collect();
    assert_eq!(
        keys.iter()
            .map(|l| l.split(':').next().unwrap_or_default())
            .collect::<Vec<_>>(),
        [
            "clusters",
            "contexts",
            "current-context",
            "preferences",
            "users"
        ]
    );
    assert!(text.contains("\npreferences: {}\n") && text.contains("current-context: loopback\n"));
    assert!(!text.contains("apiVersion") && !text.contains("kind:"));
    let cases = [
        (
            KubeconfigKind::Admin,
            "admin",
            "kube-apiserver-complete-server-ca-bundle",
            "admin-kubeconfig-client",
        ),
        (
            KubeconfigKind::Kubelet,
            "kubelet",
            "kube-apiserver-complete-server-ca-bundle",
            "kubelet-client",
        ),
        (
            KubeconfigKind::Loopback,
            "loopback",
            "kube-apiserver-localhost-ca-bundle",
            "admin-kubeconfig-client",
        ),
    ];
    for (kind, user, bundle, client) in cases {
        let server = "https://api-int.example.example.com:6443";
        let yaml: serde_yaml_ng::Value = serde_yaml_ng::from_str(&pki.kubeconfig(kind, server))?;
        let data = |path: &[&str]| -> TestResult<Vec<u8>> {
            let mut v = &yaml;
            for p in path {
                v = match p.parse::<usize>() {
                    Ok(i) => &v[i],
                    Err(_) => &v[*p],
                };
            }
            Ok(STANDARD.decode(v.as_str().ok_or(format!("{path:?} missing"))?)?)
        };
        assert_eq!(
            data(&["clusters", "0", "cluster", "certificate-authority-data"])?,
            files[&format!("{bundle}.crt")].contents
        );
        assert_eq!(
            data(&["users", "0", "user", "client-certificate-data"])?,
            files[&format!("{client}.crt")].contents
        );
        assert_eq!(
            data(&["users", "0", "user", "client-key-data"])?,
            files[&format!("{client}.key")].contents
        );
        assert_eq!(yaml["clusters"][0]["name"].as_str(), Some("example"));
        assert_eq!(
            yaml["clusters"][0]["cluster"]["server"].as_str(),
            Some(server)
        );
        assert_eq!(yaml["contexts"][0]["name"].as_str(), Some(user));
        assert_eq!(
            yaml["contexts"][0]["context"]["cluster"].as_str(),
            Some("example")
        );
        assert_eq!(yaml["contexts"][0]["context"]["user"].as_str(), Some(user));
        assert_eq!(yaml["users"][0]["name"].as_str(), Some(user));
        assert_eq!(yaml["current-context"].as_str(), Some(user));
    }
    Ok(())
}

#[test]
fn manifest_context_describes_root_ca_and_mcs() -> TestResult {
    let pki = shared(KeyAlgorithm::EcdsaP256)?;
    let files = files(pki);
    let ctx = pki.manifest_context();
    let text = |k: &str| ctx[k].as_str().map(str::to_string).ok_or(format!("no {k}"));
    assert_eq!(
        text("root_ca_crt")?.as_bytes(),
        files["root-ca.crt"].contents
    );
    assert_eq!(
        text("root_ca_key")?.as_bytes(),
        files["root-ca.key"].contents
    );
    assert_eq!(
        text("mcs_crt")?.as_bytes(),
        files["machine-config-server.crt"].contents
    );
    assert_eq!(
        text("mcs_key")?.as_bytes(),
        files["machine-config-server.key"].contents
    );
    assert_eq!(text("root_ca_issuer")?, "root-ca");
    assert_eq!(text("mcs_issuer")?, "root-ca");
    assert_eq!(text("root_ca_not_before")?, "2026-01-01T00:00:00Z");
    assert_eq!(text("root_ca_not_after")?, "2035-12-30T00:00:00Z");
    assert_eq!(text("mcs_not_before")?, "2026-01-01T00:00:00Z");
    assert_eq!(text("mcs_not_after")?, "2035-12-30T00:00:00Z");
    assert_eq!(text("mcs_hostnames")?, "api-int.example.example.com");
    assert_eq!(pki.root_ca_pem().as_bytes(), files["root-ca.crt"].contents);
    Ok(())
}

#[test]
fn expiry_report_lists_every_certificate() -> TestResult {
    let report = shared(KeyAlgorithm::EcdsaP256)?.expiry_report();
    assert_eq!(report.len(), 24);
    assert_eq!(report.iter().filter(|r| r.is_authority).count(), 11);
    let one_day: Vec<&str> = report
        .iter()
        .filter(|r| r.not_after - r.not_before == Duration::days(1))
        .map(|r| r.name.as_str())
        .collect();
    assert_eq!(
        one_day,
        [
            "aggregator-ca",
            "aggregator-signer",
            "kubelet-signer",
            "apiserver-proxy",
            "aggregator-client",
            "kube-apiserver-localhost-server",
            "kube-apiserver-service-network-server",
            "kube-apiserver-lb-server",
            "kube-apiserver-internal-lb-server",
        ]
    );
    Ok(())
}

#[test]
fn every_service_network_address_is_a_san() -> TestResult {
    let mut req = request(KeyAlgorithm::EcdsaP256);
    req.service_network_ips = vec!["fd02::1".parse()?, [172, 30, 0, 1].into()];
    let (pki, _) = Pki::build(&req, None)?;
    let der = cert_der(&files(&pki), "kube-apiserver-service-network-server")?;
    let (_, cert) = X509Certificate::from_der(&der)?;
    let sans = sans_of(&cert)?;
    assert_eq!(&sans[8..], ["IP:fd02::1", "IP:172.30.0.1"]);
    Ok(())
}

#[test]
fn key_algorithm_names_round_trip() -> TestResult {
    for algorithm in KeyAlgorithm::ALL {
        assert_eq!(algorithm.to_string().parse::<KeyAlgorithm>()?, algorithm);
    }
    assert_eq!(KeyAlgorithm::default(), KeyAlgorithm::Rsa2048);
    let err = "dsa".parse::<KeyAlgorithm>().err().ok_or("dsa parsed")?;
    assert!(err.to_string().contains("\"dsa\""), "{err}");
    Ok(())
}

#[test]
fn key_sizes_follow_the_algorithm() -> TestResult {
    for (algorithm, label) in [
        (KeyAlgorithm::Rsa3072, "RSA 3072"),
        (KeyAlgorithm::Rsa4096, "RSA 4096"),
        (KeyAlgorithm::EcdsaP256, "ECDSA P-256"),
        (KeyAlgorithm::EcdsaP384, "ECDSA P-384"),
        (KeyAlgorithm::EcdsaP521, "ECDSA P-521"),
    ] {
        let key = keys::PrivateKey::generate(algorithm).map_err(|()| "keygen failed")?;
        assert_eq!(key.describe(), label);
        let block = ::pem::parse(key.pem())?;
        let reread = keys::PrivateKey::from_pem(&block)?;
        assert_eq!(reread.public_key_bytes(), key.public_key_bytes());
        assert_eq!(reread.describe(), label);
        // Read back without importing, as a re-run reads a recorded key: the same curve.
        let unchecked =
            keys::PrivateKey::from_pem_unchecked(&block, String::new()).ok_or("no public half")?;
        assert_eq!(unchecked.describe(), label);
        assert_eq!(unchecked.public_key_bytes(), key.public_key_bytes());
    }
    Ok(())
}

/// A P-384 or P-521 signer signs with its curve's hash, as Go's crypto/x509 does, and the
/// signature checks out against its key.
#[test]
fn an_ecdsa_signer_signs_with_its_curves_hash() -> TestResult {
    for (algorithm, oid) in [
        (KeyAlgorithm::EcdsaP384, "1.2.840.10045.4.3.3"),
        (KeyAlgorithm::EcdsaP521, "1.2.840.10045.4.3.4"),
    ] {
        let mut req = request(KeyAlgorithm::Rsa2048);
        req.signer_key_algorithm = algorithm;
        let (pki, _) = Pki::build(&req, None)?;
        for signer in &pki.signers {
            assert_eq!(signer.cert.signature_oid, oid, "{algorithm}");
        }
        for leaf in &pki.leaves {
            assert_eq!(leaf.cert.signature_oid, oid, "{algorithm}");
            assert_eq!(leaf.key.describe(), "RSA 2048");
        }
    }
    Ok(())
}

#[test]
fn debug_output_has_no_key_material() -> TestResult {
    let pki = shared(KeyAlgorithm::EcdsaP256)?;
    let debug = format!("{pki:?}");
    assert!(!debug.contains("PRIVATE") && debug.len() < 200, "{debug}");
    Ok(())
}

#[test]
fn every_stored_file_is_known_by_name_and_nothing_else_is() -> TestResult {
    let pki = shared(KeyAlgorithm::EcdsaP256)?;
    for file in pki.store_files() {
        assert!(super::is_stored_file(&file.name), "{}", file.name);
    }
    for stranger in [
        "shadow",
        "root-ca.pem",
        "root-ca",
        "evil.key",
        "kubelet-client-ca-bundle.key",
    ] {
        assert!(!super::is_stored_file(stranger), "{stranger}");
    }
    Ok(())
}
