//! The four certificate-bearing manifest templates, rendered by the library's own renderer with
//! `pki` = [`Pki::manifest_context`], parse as YAML and carry the right values.

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use serde_yaml_ng::Value;

use super::tests::{files, request, TestResult};
use super::*;
use crate::render::{files_under, Renderer};

fn render(pki: &Pki, name: &str) -> TestResult<Value> {
    let path = format!("node/opt/openshift/manifests/{name}.yaml.j2");
    let file = files_under("node/opt/openshift/manifests")
        .into_iter()
        .find(|f| f.name == path)
        .ok_or(format!("{path} is not embedded"))?;
    // The newest shapes (4.19 on: the MCS CA exists, the MCS secret is kubernetes.io/tls).
    let release = serde_json::json!({ "switches": { "mcs_ca": true, "mcs_tls_owner": true } });
    let renderer =
        Renderer::new(&serde_json::json!({ "pki": pki.manifest_context(), "release": release }));
    let text = String::from_utf8(renderer.render(&file)?)?;
    Ok(serde_yaml_ng::from_str(&text)?)
}

fn text<'a>(value: &'a Value, path: &[&str]) -> TestResult<&'a str> {
    let mut v = value;
    for key in path {
        v = &v[*key];
    }
    v.as_str()
        .ok_or_else(|| format!("{path:?} is not a string").into())
}

fn decoded(value: &Value, path: &[&str]) -> TestResult<Vec<u8>> {
    Ok(STANDARD.decode(text(value, path)?)?)
}

#[test]
fn certificate_manifests_carry_the_root_ca_and_mcs_material() -> TestResult {
    let (pki, _) = Pki::build(&request(KeyAlgorithm::EcdsaP256), None)?;
    let files = files(&pki);
    let root_ca = String::from_utf8(files["root-ca.crt"].contents.clone())?;

    let root = render(&pki, "kube-system-configmap-root-ca")?;
    assert_eq!(text(&root, &["kind"])?, "ConfigMap");
    assert_eq!(text(&root, &["metadata", "namespace"])?, "kube-system");
    assert_eq!(text(&root, &["metadata", "name"])?, "root-ca");
    assert_eq!(text(&root, &["data", "ca.crt"])?, root_ca);

    let bundle = render(&pki, "machine-config-server-ca-configmap")?;
    assert_eq!(
        text(&bundle, &["metadata", "namespace"])?,
        "openshift-machine-config-operator"
    );
    assert_eq!(
        text(&bundle, &["metadata", "name"])?,
        "machine-config-server-ca"
    );
    assert_eq!(text(&bundle, &["data", "ca-bundle.crt"])?, root_ca);
    let label = [
        "metadata",
        "labels",
        "auth.openshift.io/managed-certificate-type",
    ];
    assert_eq!(text(&bundle, &label)?, "ca-bundle");

    let ca = render(&pki, "machine-config-server-ca-secret")?;
    assert_eq!(text(&ca, &["type"])?, "kubernetes.io/tls");
    assert_eq!(
        text(&ca, &["metadata", "name"])?,
        "machine-config-server-ca"
    );
    assert_eq!(text(&ca, &label)?, "signer");
    assert_eq!(
        decoded(&ca, &["data", "tls.crt"])?,
        files["root-ca.crt"].contents
    );
    assert_eq!(
        decoded(&ca, &["data", "tls.key"])?,
        files["root-ca.key"].contents
    );
    let annotation = |v: &Value, key: &str| -> TestResult<String> {
        Ok(text(
            v,
            &[
                "metadata",
                "annotations",
                &format!("auth.openshift.io/{key}"),
            ],
        )?
        .to_string())
    };
    assert_eq!(annotation(&ca, "certificate-issuer")?, "root-ca");
    assert_eq!(
        annotation(&ca, "certificate-not-before")?,
        "2026-01-01T00:00:00Z"
    );
    assert_eq!(
        annotation(&ca, "certificate-not-after")?,
        "2035-12-30T00:00:00Z"
    );

    let tls = render(&pki, "machine-config-server-tls-secret")?;
    assert_eq!(
        text(&tls, &["metadata", "name"])?,
        "machine-config-server-tls"
    );
    assert_eq!(
        text(&tls, &["metadata", "namespace"])?,
        "openshift-machine-config-operator"
    );
    assert_eq!(text(&tls, &label)?, "target");
    assert_eq!(
        decoded(&tls, &["data", "tls.crt"])?,
        files["machine-config-server.crt"].contents
    );
    assert_eq!(
        decoded(&tls, &["data", "tls.key"])?,
        files["machine-config-server.key"].contents
    );
    assert_eq!(
        annotation(&tls, "certificate-hostnames")?,
        "api-int.example.example.com"
    );
    assert_eq!(annotation(&tls, "certificate-issuer")?, "root-ca");
    assert_eq!(
        annotation(&tls, "certificate-not-after")?,
        "2035-12-30T00:00:00Z"
    );
    Ok(())
}

/// A VIP the machine-config server's certificate names twice (as an IP address and as a DNS
/// name) is one host name in the Secret's annotation, as in the installer's.
#[test]
fn the_mcs_annotation_names_each_vip_once() -> TestResult {
    let mut req = request(KeyAlgorithm::EcdsaP256);
    req.machine_config_server_ips = vec!["192.0.2.5".parse()?];
    let (pki, _) = Pki::build(&req, None)?;
    let tls = render(&pki, "machine-config-server-tls-secret")?;
    let hostnames = &tls["metadata"]["annotations"]["auth.openshift.io/certificate-hostnames"];
    assert_eq!(
        hostnames.as_str(),
        Some("192.0.2.5,api-int.example.example.com")
    );
    Ok(())
}
