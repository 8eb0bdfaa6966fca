//! The view's certificate and key facts: what a client checks, wherever the PEM sits, and
//! nothing that changes from run to run.

use super::*;
use crate::ignition::dataurl;
use base64::Engine as _;
use serde_json::json;

const CA: &str = include_str!("../../../../fixtures/pem/ca.crt");
const LEAF: &str = include_str!("../../../../fixtures/pem/leaf.crt");
const LEAF_KEY: &str = include_str!("../../../../fixtures/pem/leaf.key");
const RSA_KEY: &str = include_str!("../../../../fixtures/pem/rsa.key");
const RSA_PUB: &str = include_str!("../../../../fixtures/pem/rsa.pub");

fn b64(text: &str) -> String {
    base64::engine::general_purpose::STANDARD.encode(text)
}

fn doc(files: &[(&str, &str)], authorities: &[&str]) -> IgnitionDoc {
    let files: Vec<Value> = files
        .iter()
        .map(|(path, text)| {
            json!({"path": path, "mode": 0o600,
                   "contents": {"source": dataurl::encode(text.as_bytes())}})
        })
        .collect();
    let cas: Vec<Value> = authorities
        .iter()
        .map(|ca| json!({"source": dataurl::encode(ca.as_bytes())}))
        .collect();
    IgnitionDoc {
        value: json!({"ignition": {"version": "3.2.0", "security": {"tls": {"certificateAuthorities": cas}}},
                      "storage": {"files": files}}),
    }
}

fn certificate(facts: &PemFacts) -> &CertificateFacts {
    match facts {
        PemFacts::Certificate(c) => c,
        other => panic!("not a certificate: {other:?}"),
    }
}

#[test]
fn a_pem_file_gives_each_certificates_facts_and_each_keys_type() {
    let chain = format!("{LEAF}\n{CA}");
    let view = object_view(&doc(
        &[
            ("/opt/openshift/tls/leaf.crt", &chain),
            ("/opt/openshift/tls/leaf.key", LEAF_KEY),
            ("/opt/openshift/tls/rsa.key", RSA_KEY),
            ("/opt/openshift/tls/rsa.pub", RSA_PUB),
        ],
        &[],
    ))
    .unwrap();
    let blocks = &view.files["/opt/openshift/tls/leaf.crt"].pem["file"];
    assert_eq!(blocks.len(), 2);
    let leaf = certificate(&blocks[0]);
    // One RDN of two Organizations, then the common name.
    assert_eq!(leaf.subject, ["O=group-a+O=group-b", "CN=client"]);
    assert_eq!(leaf.issuer, ["OU=test", "CN=test-ca"]);
    assert_eq!(leaf.dns_names, ["a.example.com", "b.example.com"]);
    assert_eq!(leaf.ip_addresses, ["192.0.2.5"]);
    assert_eq!(leaf.key_usage, ["digitalSignature"]);
    assert_eq!(leaf.extended_key_usage, ["clientAuth"]);
    assert_eq!(
        leaf.basic_constraints,
        Some(BasicConstraintsFacts {
            ca: false,
            path_length: None
        })
    );
    assert_eq!(leaf.lifetime, "1d");
    assert_eq!(leaf.key, "EC P-256");
    let ca = certificate(&blocks[1]);
    assert_eq!(ca.subject, ca.issuer);
    assert_eq!(ca.key_usage, ["digitalSignature", "keyCertSign"]);
    assert!(ca.extended_key_usage.is_empty());
    assert_eq!(
        ca.basic_constraints,
        Some(BasicConstraintsFacts {
            ca: true,
            path_length: Some(1)
        })
    );
    assert_eq!(ca.lifetime, "3650d");
    let key = |path: &str| view.files[path].pem["file"].clone();
    assert_eq!(
        key("/opt/openshift/tls/leaf.key"),
        [PemFacts::PrivateKey {
            key: "EC P-256".into()
        }]
    );
    assert_eq!(
        key("/opt/openshift/tls/rsa.key"),
        [PemFacts::PrivateKey {
            key: "RSA 1024".into()
        }]
    );
    assert_eq!(
        key("/opt/openshift/tls/rsa.pub"),
        [PemFacts::PublicKey {
            key: "RSA 1024".into()
        }]
    );
}

#[test]
fn certificates_inside_kubeconfigs_secrets_and_the_configs_cas_are_described_where_they_are() {
    let kubeconfig = format!(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    certificate-authority-data: {}\n    server: https://api:6443\nusers:\n- name: u\n  user:\n    client-certificate-data: {}\n    client-key-data: {}\n",
        b64(CA),
        b64(LEAF),
        b64(LEAF_KEY)
    );
    let secret = format!(
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n  namespace: n\ndata:\n  tls.crt: {}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: m\ndata:\n  ca-bundle.crt: |\n{}",
        b64(LEAF),
        CA.lines().map(|l| format!("    {l}\n")).collect::<String>()
    );
    let view = object_view(&doc(
        &[
            ("/opt/openshift/auth/kubeconfig", &kubeconfig),
            ("/opt/openshift/manifests/s.yaml", &secret),
        ],
        &[CA],
    ))
    .unwrap();
    let pem = &view.files["/opt/openshift/auth/kubeconfig"].pem;
    let places: Vec<&str> = pem.keys().map(String::as_str).collect();
    assert_eq!(
        places,
        [
            "clusters[c].cluster.certificate-authority-data",
            "users[u].user.client-certificate-data",
            "users[u].user.client-key-data",
        ]
    );
    assert_eq!(
        certificate(&pem["users[u].user.client-certificate-data"][0]).subject,
        ["O=group-a+O=group-b", "CN=client"]
    );
    // The key stays a secret in the object; its type is no secret.
    let object = view.files["/opt/openshift/auth/kubeconfig"]
        .object
        .clone()
        .unwrap();
    assert_eq!(object["users"][0]["user"]["client-key-data"], "<secret>");
    assert_eq!(
        pem["users[u].user.client-key-data"],
        [PemFacts::PrivateKey {
            key: "EC P-256".into()
        }]
    );
    let manifests = &view.files["/opt/openshift/manifests/s.yaml"].pem;
    assert_eq!(
        certificate(&manifests["[Secret/n/s].data.tls.crt"][0]).lifetime,
        "1d"
    );
    assert_eq!(
        certificate(&manifests["[ConfigMap//m].data.ca-bundle.crt"][0]).subject,
        ["OU=test", "CN=test-ca"]
    );
    assert_eq!(
        certificate(&view.authorities["[0]"][0]).subject,
        ["OU=test", "CN=test-ca"]
    );
}

#[test]
fn the_view_holds_no_bytes_serial_or_dates_of_a_certificate() {
    let view = object_view(&doc(&[("/opt/openshift/tls/leaf.crt", LEAF)], &[])).unwrap();
    let text = serde_json::to_string(&view).unwrap();
    let body: String = LEAF.lines().nth(1).unwrap_or_default().into();
    for per_run in [&body[..20], "55E195C8", "55e195c8", "2026", "2025"] {
        assert!(!text.contains(per_run), "{per_run} in {text}");
    }
}

#[test]
fn a_differing_certificate_fact_is_a_difference_and_views_without_facts_compare_without_them() {
    let view = object_view(&doc(&[("/opt/openshift/tls/leaf.crt", LEAF)], &[CA])).unwrap();
    let mut changed = view.clone();
    let file = changed
        .files
        .get_mut("/opt/openshift/tls/leaf.crt")
        .unwrap();
    if let Some(PemFacts::Certificate(c)) = file.pem.get_mut("file").and_then(|b| b.first_mut()) {
        c.subject = vec!["O=group-a".into(), "O=group-b".into(), "CN=client".into()];
    }
    let diff = diff_objects(&view, &changed, "a", "b");
    let fields: Vec<&str> = diff.changes.iter().map(|c| c.field.as_str()).collect();
    assert_eq!(fields, ["pem.file[0].subject"], "{diff}");
    assert!(view.has_pem_facts());
    let stripped = view.clone().without_pem_facts();
    assert!(!stripped.has_pem_facts());
    assert!(diff_objects(&stripped, &changed.without_pem_facts(), "a", "b").is_empty());
}

#[test]
fn pem_blocks_past_the_bound_are_not_read() {
    let block = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n";
    let text = block.repeat(pem::MAX_VIEW_PEM_BLOCKS + 50);
    let view = object_view(&doc(&[("/opt/a.crt", &text)], &[])).unwrap();
    let blocks = &view.files["/opt/a.crt"].pem["file"];
    assert_eq!(blocks.len(), pem::MAX_VIEW_PEM_BLOCKS + 1);
    assert!(matches!(
        blocks.last(),
        Some(PemFacts::Unreadable { reason, .. }) if reason.contains("beyond")
    ));
    assert!(matches!(&blocks[0], PemFacts::Unreadable { label, .. } if label == "CERTIFICATE"));
}
