//! `bootgen csrs`: which pending certificate requests are the new machines'. The requests are
//! real, made by `openssl req` as a kubelet makes them (an EC key, `O=system:nodes,
//! CN=system:node:NAME`, the serving request's DNS name and addresses), inside
//! `CertificateSigningRequest` objects in the API's JSON, as `oc get csr -o json` prints them.
//! Exactly the new machines' requests are listed, out of a mix with a foreign machine's, a known
//! name with a wrong address, renewals and settled requests; nothing else reaches stdout.

use base64::Engine as _;
use bootgen_conformance::tools_present;
use serde_json::{json, Value};
use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};

const BOOTSTRAPPER: &str =
    "system:serviceaccount:openshift-machine-config-operator:node-bootstrapper";
const CLIENT: &str = "kubernetes.io/kube-apiserver-client-kubelet";
const SERVING: &str = "kubernetes.io/kubelet-serving";

/// The new machines: two with static addresses, one on DHCP.
const NEW_HOSTS: &str = "hosts:
- hostname: worker-3
  role: worker
  interfaces:
  - {name: eno1, macAddress: '52:54:00:00:01:03'}
  networkConfig:
    interfaces:
    - name: eno1
      type: ethernet
      state: up
      ipv4: {enabled: true, address: [{ip: 192.168.111.33, prefix-length: 24}]}
      ipv6: {enabled: true, address: [{ip: 'fd00:111::33', prefix-length: 64}]}
    dns-resolver: {config: {server: [192.168.111.1]}}
- hostname: worker-4
  role: worker
  interfaces:
  - {name: eno1, macAddress: '52:54:00:00:01:04'}
  networkConfig:
    interfaces:
    - name: eno1
      type: ethernet
      state: up
      ipv4: {enabled: true, address: [{ip: 192.168.111.34, prefix-length: 24}]}
    dns-resolver: {config: {server: [192.168.111.1]}}
- hostname: worker-5
  role: worker
";

/// A certificate request as the kubelet makes it, base64 of its PEM (the API's `spec.request`).
fn request(dir: &Path, organization: &str, node: &str, alternative: Option<&str>) -> String {
    let out = dir.join(format!("{node}-{}.csr", alternative.map_or(0, str::len)));
    let mut cmd = Command::new("openssl");
    cmd.args([
        "req",
        "-new",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
    ])
    .args(["-nodes", "-keyout"])
    .arg(dir.join("key.pem"))
    .arg("-subj")
    .arg(format!("/O={organization}/CN=system:node:{node}"))
    .arg("-out")
    .arg(&out)
    .stderr(Stdio::null());
    if let Some(names) = alternative {
        cmd.arg("-addext").arg(format!("subjectAltName={names}"));
    }
    assert!(cmd.status().unwrap().success());
    base64::engine::general_purpose::STANDARD.encode(fs::read(&out).unwrap())
}

fn object(
    name: &str,
    signer: &str,
    username: &str,
    request: String,
    settled: Option<&str>,
) -> Value {
    let usages = if signer == CLIENT {
        json!(["digital signature", "client auth"])
    } else {
        json!(["digital signature", "server auth"])
    };
    let status = match settled {
        Some(kind) => {
            json!({"conditions": [{"type": kind, "status": "True", "reason": "AutoApproved"}]})
        }
        None => json!({}),
    };
    json!({
        "apiVersion": "certificates.k8s.io/v1",
        "kind": "CertificateSigningRequest",
        "metadata": {"name": name, "creationTimestamp": "2026-12-07T10:00:00Z"},
        "spec": {
            "groups": ["system:serviceaccounts", "system:authenticated"],
            "request": request,
            "signerName": signer,
            "usages": usages,
            "username": username,
        },
        "status": status,
    })
}

#[test]
fn exactly_the_new_machines_requests_are_listed() {
    if !tools_present(&["/usr/bin/openssl"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let node = |name: &str| format!("system:node:{name}");
    let w3_serving = "DNS:worker-3,IP:192.168.111.33,IP:fd00:111::33";
    let items = vec![
        object(
            "csr-w3c",
            CLIENT,
            BOOTSTRAPPER,
            request(d, "system:nodes", "worker-3", None),
            None,
        ),
        object(
            "csr-w3s",
            SERVING,
            &node("worker-3"),
            request(d, "system:nodes", "worker-3", Some(w3_serving)),
            None,
        ),
        object(
            "csr-w4c",
            CLIENT,
            BOOTSTRAPPER,
            request(d, "system:nodes", "worker-4", None),
            None,
        ),
        object(
            "csr-w4s",
            SERVING,
            &node("worker-4"),
            request(
                d,
                "system:nodes",
                "worker-4",
                Some("DNS:worker-4,IP:192.168.111.99"),
            ),
            None,
        ),
        object(
            "csr-w3s-short",
            SERVING,
            &node("worker-3"),
            request(
                d,
                "system:nodes",
                "worker-3",
                Some("DNS:worker-3,IP:192.168.111.33"),
            ),
            None,
        ),
        object(
            "csr-w5s",
            SERVING,
            &node("worker-5"),
            request(
                d,
                "system:nodes",
                "worker-5",
                Some("DNS:worker-5,IP:10.0.0.5"),
            ),
            None,
        ),
        object(
            "csr-intruder",
            CLIENT,
            BOOTSTRAPPER,
            request(d, "system:nodes", "intruder", None),
            None,
        ),
        object(
            "csr-m0-renewal",
            CLIENT,
            &node("master-0"),
            request(d, "system:nodes", "master-0", None),
            None,
        ),
        object(
            "csr-w3-renewal",
            CLIENT,
            &node("worker-3"),
            request(d, "system:nodes", "worker-3", None),
            None,
        ),
        object(
            "csr-w4-again",
            CLIENT,
            BOOTSTRAPPER,
            request(d, "system:nodes", "worker-4", None),
            Some("Approved"),
        ),
        object(
            "csr-w4-stolen",
            SERVING,
            &node("worker-3"),
            request(
                d,
                "system:nodes",
                "worker-4",
                Some("DNS:worker-4,IP:192.168.111.34"),
            ),
            None,
        ),
        object(
            "csr-wrong-group",
            CLIENT,
            BOOTSTRAPPER,
            request(d, "system:masters", "worker-4", None),
            None,
        ),
        object(
            "csr-garbage",
            CLIENT,
            BOOTSTRAPPER,
            "bm90IGEgcmVxdWVzdA==".into(),
            None,
        ),
    ];
    let list = json!({"apiVersion": "v1", "kind": "List", "items": items, "metadata": {"resourceVersion": ""}});
    let csrs = d.join("csrs.json");
    fs::write(&csrs, serde_json::to_vec_pretty(&list).unwrap()).unwrap();
    let hosts = d.join("new-hosts.yaml");
    fs::write(&hosts, NEW_HOSTS).unwrap();

    let output = bootgen_conformance::bootgen!()
        .arg("csrs")
        .arg("--hosts")
        .arg(&hosts)
        .arg(&csrs)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "csr-w3c\ncsr-w3s\ncsr-w4c\n",
        "{stderr}"
    );
    for line in [
        "csr-w3s: host worker-3's kubelet serving request",
        "not listed: csr-w4s: it asks for 192.168.111.99, and ",
        "not listed: csr-w3s-short: it asks for 192.168.111.33, and ",
        "not listed: csr-w5s: ",
        "not listed: csr-intruder: intruder is no host of ",
        "not listed: csr-m0-renewal: master-0 is no host of ",
        "not listed: csr-w3-renewal: a renewal by worker-3",
        "not listed: csr-w4-again: approved already",
        "not listed: csr-w4-stolen: a serving request for worker-4 asked by system:node:worker-3",
        "not listed: csr-wrong-group: its subject is O=system:masters",
        "not listed: csr-garbage: its request is no PEM block",
        "3 requests of 13 listed",
    ] {
        assert!(stderr.contains(line), "{line:?} in\n{stderr}");
    }
    assert!(
        stderr.contains("gives worker-5 no static address"),
        "{stderr}"
    );

    // From standard input, as `oc get csr -o json | bootgen csrs --hosts ...` runs it.
    let mut child = bootgen_conformance::bootgen!()
        .args(["csrs", "--hosts"])
        .arg(&hosts)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    use std::io::Write as _;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(&fs::read(&csrs).unwrap())
        .unwrap();
    let piped = child.wait_with_output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&piped.stdout),
        "csr-w3c\ncsr-w3s\ncsr-w4c\n"
    );
}

#[test]
fn what_is_no_csr_list_is_refused_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let hosts = dir.path().join("new-hosts.yaml");
    fs::write(&hosts, NEW_HOSTS).unwrap();
    let bad = dir.path().join("csrs.json");
    fs::write(&bad, "{\"items\": [{\"metadata\": {}}]}").unwrap();
    let output = bootgen_conformance::bootgen!()
        .args(["csrs", "--hosts"])
        .arg(&hosts)
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&bad.display().to_string()) && stderr.contains("oc get csr -o json"),
        "{stderr}"
    );
}
