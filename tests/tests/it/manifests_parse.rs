//! Renders the Kubernetes manifest templates under `templates/node/opt/openshift` with the
//! library's own renderer, parses each result as YAML and checks the values a user would look
//! for. Two contexts: the library's own for a plain cluster (a real generation, see
//! `bootgen_conformance::templates`), and the same with every string a user controls replaced
//! by one that breaks naive YAML (`: #'"`), to show the templates quote what they insert.

use std::collections::BTreeSet;
use std::error::Error as StdError;

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use serde_json::{json, Value as Json};

type TestResult = Result<(), Box<dyn StdError>>;

const MANIFESTS_DIR: &str = "node/opt/openshift/manifests";
const OPENSHIFT_DIR: &str = "node/opt/openshift/openshift";

/// Every YAML template owned by this test, relative to `templates/`.
const YAML_TEMPLATES: &[&str] = &[
    "node/opt/openshift/manifests/cluster-config.yaml.j2",
    "node/opt/openshift/manifests/cvo-overrides.yaml.j2",
    "node/opt/openshift/manifests/kube-cloud-config.yaml.j2",
    "node/opt/openshift/manifests/openshift-config-secret-pull-secret.yaml.j2",
    "node/opt/openshift/manifests/cluster-ingress-02-config.yml.j2",
    "node/opt/openshift/manifests/cluster-dns-02-config.yml.j2",
    "node/opt/openshift/manifests/cluster-network-02-config.yml.j2",
    "node/opt/openshift/manifests/cluster-infrastructure-02-config.yml.j2",
    "node/opt/openshift/manifests/cluster-proxy-01-config.yaml.j2",
    "node/opt/openshift/manifests/cluster-scheduler-02-config.yml.j2",
    "node/opt/openshift/manifests/image-content-source-policy.yaml.j2",
    "node/opt/openshift/manifests/image-digest-mirror-set.yaml.j2",
    "node/opt/openshift/manifests/user-ca-bundle-config.yaml.j2",
    "node/opt/openshift/openshift/99_kubeadmin-password-secret.yaml.j2",
    "node/opt/openshift/openshift/99_feature-gate.yaml.j2",
    "node/opt/openshift/openshift/openshift-install-manifests.yaml.j2",
    "node/opt/openshift/openshift/99_openshift-machineconfig_99-master-ssh.yaml.j2",
    "node/opt/openshift/openshift/99_openshift-machineconfig_99-worker-ssh.yaml.j2",
    "node/opt/openshift/openshift/99_openshift-cluster-api_master-user-data-secret.yaml.j2",
    "node/opt/openshift/openshift/99_openshift-cluster-api_worker-user-data-secret.yaml.j2",
];

const CVO_PATCH: &str = "node/opt/openshift/original_cvo_overrides.patch.j2";

// ---------------------------------------------------------------------------------------------
// Rendering and helpers

fn render(name: &str, ctx: &Json) -> Result<String, Box<dyn StdError>> {
    // The library renders the ClusterVersion last, with the objects of every other manifest
    // (see cvo_overrides_cover_exactly_the_manifests_objects); alone it lists none.
    let mut ctx = ctx.clone();
    if name.ends_with("/cvo-overrides.yaml.j2") && ctx.get("unmanaged_objects").is_none() {
        ctx["unmanaged_objects"] = json!([]);
    }
    // The library renders each mirror manifest with its own variables (its entries and, as
    // `mirror_name`, its name); here both kinds get the entries of the context's first mirror
    // manifest, and its name when it is of the template's kind.
    let mirror_templates = [
        ("/image-digest-mirror-set.yaml.j2", "ImageDigestMirrorSet"),
        (
            "/image-content-source-policy.yaml.j2",
            "ImageContentSourcePolicy",
        ),
    ];
    let kind = mirror_templates.iter().find(|(t, _)| name.ends_with(t));
    if let (Some((_, kind)), None) = (kind, ctx.get("entries")) {
        let first = ctx["mirror_manifests"].get(0).cloned();
        ctx["entries"] = first.as_ref().map_or(json!([]), |m| m["entries"].clone());
        if let Some(manifest) = first.filter(|m| m["kind"] == *kind) {
            ctx["mirror_name"] = manifest["name"].clone();
        }
    }
    let text = bootgen_conformance::templates::render(name, &ctx)?;
    if !text.ends_with('\n') {
        return Err(format!("{name}: output does not end with a newline").into());
    }
    Ok(text)
}

/// Parses one YAML document into JSON values, so JSON pointers can address it.
fn parse_yaml(name: &str, text: &str) -> Result<Json, Box<dyn StdError>> {
    let yaml: serde_yaml_ng::Value = serde_yaml_ng::from_str(text)
        .map_err(|err| format!("{name} is not valid YAML: {err}\n---\n{text}---"))?;
    Ok(serde_json::to_value(yaml)?)
}

fn render_yaml(name: &str, ctx: &Json) -> Result<Json, Box<dyn StdError>> {
    let text = render(name, ctx)?;
    parse_yaml(name, &text)
}

fn manifest(file: &str) -> String {
    format!("{MANIFESTS_DIR}/{file}.j2")
}

fn openshift(file: &str) -> String {
    format!("{OPENSHIFT_DIR}/{file}.j2")
}

/// The value at a JSON pointer, or an error naming the document and the pointer.
fn at<'a>(doc: &'a Json, pointer: &str) -> Result<&'a Json, Box<dyn StdError>> {
    doc.pointer(pointer)
        .ok_or_else(|| format!("{pointer} missing in {doc}").into())
}

fn text_at<'a>(doc: &'a Json, pointer: &str) -> Result<&'a str, Box<dyn StdError>> {
    at(doc, pointer)?
        .as_str()
        .ok_or_else(|| format!("{pointer} is not a string in {doc}").into())
}

fn decode_at(doc: &Json, pointer: &str) -> Result<String, Box<dyn StdError>> {
    let bytes = STANDARD.decode(text_at(doc, pointer)?)?;
    Ok(String::from_utf8(bytes)?)
}

fn str_of<'a>(ctx: &'a Json, pointer: &str) -> &'a str {
    ctx.pointer(pointer)
        .and_then(Json::as_str)
        .unwrap_or_default()
}

fn assert_object(
    doc: &Json,
    api_version: &str,
    kind: &str,
    namespace: Option<&str>,
    name: &str,
) -> TestResult {
    assert_eq!(
        text_at(doc, "/apiVersion")?,
        api_version,
        "apiVersion of {doc}"
    );
    assert_eq!(text_at(doc, "/kind")?, kind, "kind of {doc}");
    assert_eq!(text_at(doc, "/metadata/name")?, name, "name of {doc}");
    assert_eq!(
        doc.pointer("/metadata/namespace").and_then(Json::as_str),
        namespace,
        "namespace of {doc}"
    );
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Test contexts

fn install_config_yaml(
    name: &str,
    base_domain: &str,
    no_proxy: &str,
) -> Result<String, Box<dyn StdError>> {
    let config = json!({
        "apiVersion": "v1",
        "baseDomain": base_domain,
        "metadata": { "name": name },
        "controlPlane": { "name": "master", "replicas": 3 },
        "compute": [ { "name": "worker", "replicas": 2 } ],
        "networking": {
            "networkType": "OVNKubernetes",
            "clusterNetwork": [ { "cidr": "10.128.0.0/14", "hostPrefix": 23 } ],
            "serviceNetwork": [ "172.30.0.0/16" ],
        },
        "platform": { "none": {} },
        "proxy": { "noProxy": no_proxy },
        "pullSecret": "",
    });
    Ok(serde_yaml_ng::to_string(&config)?)
}

/// A plain three-master, two-worker cluster: no proxy, no mirrors, no trust bundle, no SSH key.
const MINIMAL_INSTALL_CONFIG: &str = r#"apiVersion: v1
metadata:
  name: demo
baseDomain: example.com
controlPlane:
  name: master
  replicas: 3
compute:
- name: worker
  replicas: 2
networking:
  networkType: OVNKubernetes
  clusterNetwork:
  - cidr: 10.128.0.0/14
    hostPrefix: 23
  serviceNetwork:
  - 172.30.0.0/16
platform:
  none: {}
pullSecret: '{"auths":{"quay.io":{"auth":"dXNlcjpwYXNz"}}}'
"#;

/// The library's context for the minimal cluster of 4.22.
fn minimal() -> Result<Json, Box<dyn StdError>> {
    Ok(bootgen_conformance::templates::context_of(
        MINIMAL_INSTALL_CONFIG,
        "4.22.0",
    )?)
}

/// Everything switched on, with strings that break naive YAML: `: #'"`, a proxy password,
/// IPv6-first networks, a blocked mirrored source, capabilities, a single control-plane node.
fn awkward() -> Result<Json, Box<dyn StdError>> {
    let name = "odd: #'\"name";
    let base_domain = "ex: #'\"ample.com";
    let domain = format!("{name}.{base_domain}");
    let user_no_proxy = ".corp: #'\"x,10.0.0.0/8, *.internal";
    let no_proxy = format!(
        "{user_no_proxy},.cluster.local,.svc,127.0.0.1,api-int.{domain},fd00::/64,fd01::/48,fd02::/112,localhost"
    );
    let trust_bundle = "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUQ2Fub25pY2Fs: #'\"\n-----END CERTIFICATE-----\n\
                        -----BEGIN CERTIFICATE-----\nMIIBtDCCAVqgAwIBAgIUU2Vjb25k\n-----END CERTIFICATE-----";
    let awkward = json!({
        "cluster": {
            "name": name,
            "base_domain": base_domain,
            "domain": domain,
            "api_host": format!("api.{domain}"),
            "api_int_host": format!("api-int.{domain}"),
            "api_url": format!("https://api.{domain}:6443"),
            "api_int_url": format!("https://api-int.{domain}:6443"),
            "id": "e2f1c0de-4a4b-4c5d-8e9f-a0b1c2d3e4f5",
            "infra_id": "odd-#'\": x",
        },
        "release_image": "mirror.example.com:5000/ocp/release@sha256:1111111111111111111111111111111111111111111111111111111111111111",
        "arch": { "go": "arm64", "kernel": "aarch64" },
        "cluster_arch": { "go": "arm64", "kernel": "aarch64" },
        "payload_multi": true,
        "fips": true,
        "pull_secret": "{\"auths\":{\"mirror.example.com:5000\":{\"auth\":\"b2RkOiAjJyI=\",\"email\":\"a: #'\\\"b@example.com\"}}}\n",
        "ssh_key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHt5 ops: #'\"key",
        "trust_bundle": trust_bundle,
        "user_ca_bundle": trust_bundle,
        "trust_bundle_policy": "Always",
        "proxy": {
            "enabled": true,
            "http_proxy": "http://user:p#ss'w\"d: x@proxy.example.com:3128",
            "https_proxy": "http://user:p%40ss@proxy.example.com:3129",
            "no_proxy": no_proxy,
            "user_no_proxy": user_no_proxy,
        },
        "registries": [
            {
                "location": "quay.io/openshift-release-dev/ocp-release",
                "insecure": false,
                "blocked": true,
                "mirror_by_digest_only": true,
                "mirrors": [
                    { "location": "mirror.example.com:5000/ocp/release", "insecure": false },
                    { "location": "mirror2.example.com/ocp: #'\"release", "insecure": true },
                ],
            },
            {
                "location": "quay.io/openshift-release-dev/ocp-v4.0-art-dev",
                "insecure": false,
                "blocked": false,
                "mirror_by_digest_only": true,
                "mirrors": [ { "location": "mirror.example.com:5000/ocp/art", "insecure": false } ],
            },
        ],
        "mirror_kind": "ImageDigestMirrorSet",
        "node_ip": { "use_ipv6": true, "bootstrap_ip": "fd00::5" },
        "cluster_profile": "",
        "kubelet_verbosity": 4,
        "networking": {
            "network_type": "OVNKubernetes",
            "cluster_networks": [
                { "cidr": "fd01::/48", "host_prefix": 64 },
                { "cidr": "10.128.0.0/14", "host_prefix": 23 },
            ],
            "service_networks": [ "fd02::/112", "172.30.0.0/16" ],
            "machine_networks": [ "fd00::/64" ],
        },
        "control_plane": { "replicas": 1, "hyperthreading": "Enabled" },
        "compute": [ { "name": "worker", "replicas": 0, "hyperthreading": "Enabled", "architecture": "arm64" } ],
        "feature_set": "TechPreviewNoUpgrade",
        "capabilities": { "baseline": "None", "additional": [ "baremetal", "MachineAPI" ] },
        "install_config_yaml": install_config_yaml(name, base_domain, user_no_proxy)?,
        "kubeadmin_hash": "$2y$10$/kKO: #'\"BSIYW8ZO0ZsMRLu.dlvvjvlWiUb8vlHIPyqPUc0U8RzS",
        "release_channel": "stable-4.22",
        // The library's own release entry: the manifests of 4.22.
        "release": bootgen::templates::release_context(&bootgen::release::select(Some("4.22.0"), None).unwrap()),
        "user_data": {"master": "eyJpZ25pdGlvbiI6e319", "worker": "eyJpZ25pdGlvbiI6e319"},
        "installer_version": "0.1.0-dev+g1234: #'\"",
    });
    // Everything the overlay does not name stays the library's.
    let mut ctx = minimal()?;
    for (key, value) in awkward.as_object().into_iter().flatten() {
        ctx[key] = value.clone();
    }
    Ok(with_mirror_manifests(ctx))
}

/// The context's `mirror_manifests` as the library makes it for 4.22: one manifest of
/// `mirror_kind` holding the install-config's entries as written (a source twice, a mirror
/// twice, both policies, an entry without mirrors).
fn with_mirror_manifests(mut ctx: Json) -> Json {
    let (path, group, name) = match str_of(&ctx, "/mirror_kind") {
        "ImageDigestMirrorSet" => (
            "image-digest-mirror-set.yaml",
            "config.openshift.io",
            "image-digest-mirror",
        ),
        "ImageContentSourcePolicy" => (
            "image-content-source-policy.yaml",
            "operator.openshift.io",
            "image-policy",
        ),
        _ => {
            ctx["mirror_manifests"] = json!([]);
            return ctx;
        }
    };
    let release = "quay.io/openshift-release-dev/ocp-release";
    let art = "quay.io/openshift-release-dev/ocp-v4.0-art-dev";
    let entries = json!([
        {
            "source": release,
            "mirrors": ["mirror.example.com:5000/ocp/release", "mirror.example.com:5000/ocp/release"],
            "source_policy": "NeverContactSource",
        },
        {
            "source": art,
            "mirrors": ["mirror.example.com:5000/ocp/art"],
            "source_policy": "AllowContactingSource",
        },
        {
            "source": release,
            "mirrors": ["mirror2.example.com/ocp: #'\"release"],
            "source_policy": "NeverContactSource",
        },
        { "source": "registry.example.com/odd: #'\"tools", "mirrors": [], "source_policy": null },
    ]);
    ctx["mirror_manifests"] = json!([{
        "path": format!("/opt/openshift/manifests/{path}"),
        "kind": str_of(&ctx, "/mirror_kind"),
        "group": group,
        "name": name,
        "entries": entries,
    }]);
    ctx
}

fn contexts() -> Result<Vec<(&'static str, Json)>, Box<dyn StdError>> {
    Ok(vec![("minimal", minimal()?), ("awkward", awkward()?)])
}

fn with(mut ctx: Json, pointer: &str, value: Json) -> Result<Json, Box<dyn StdError>> {
    let slot = ctx
        .pointer_mut(pointer)
        .ok_or_else(|| format!("{pointer} missing in test context"))?;
    *slot = value;
    Ok(ctx)
}

// ---------------------------------------------------------------------------------------------
// Every template: renders, parses, and names an object

#[test]
fn every_manifest_renders_to_one_yaml_object() -> TestResult {
    {
        for (label, ctx) in contexts()? {
            for name in YAML_TEMPLATES {
                let doc = render_yaml(name, &ctx).map_err(|err| format!("[{label}] {err}"))?;
                for pointer in ["/apiVersion", "/kind", "/metadata/name"] {
                    let value =
                        text_at(&doc, pointer).map_err(|err| format!("[{label}] {name}: {err}"))?;
                    assert!(!value.is_empty(), "[{label}] {name}: {pointer} is empty");
                }
            }
        }
    }
    Ok(())
}

#[test]
fn cvo_patch_is_exact_json() -> TestResult {
    {
        for (_, ctx) in contexts()? {
            let text = render(CVO_PATCH, &ctx)?;
            let patch: Json = serde_json::from_str(&text)?;
            assert_eq!(patch, json!({ "spec": { "overrides": null } }));
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Per manifest: the values a user checks

#[test]
fn cluster_config_carries_the_install_config() -> TestResult {
    {
        for (label, ctx) in contexts()? {
            let doc = render_yaml(&manifest("cluster-config.yaml"), &ctx)?;
            assert_object(
                &doc,
                "v1",
                "ConfigMap",
                Some("kube-system"),
                "cluster-config-v1",
            )?;
            let stored = text_at(&doc, "/data/install-config")?;
            assert_eq!(
                stored,
                str_of(&ctx, "/install_config_yaml"),
                "[{label}] install-config text"
            );
            let config = parse_yaml("install-config", stored)?;
            assert_eq!(
                text_at(&config, "/metadata/name")?,
                str_of(&ctx, "/cluster/name"),
                "[{label}]"
            );
            assert_eq!(
                text_at(&config, "/baseDomain")?,
                str_of(&ctx, "/cluster/base_domain"),
                "[{label}]"
            );
        }
    }
    Ok(())
}

/// The stored install-config carries the OS stream as the release's installer defaults it
/// (from 4.22 on); an older installer does not know the key and stores nothing of it.
#[test]
fn stored_install_config_records_the_os_image_stream() -> TestResult {
    for (version, extra, want) in [
        ("4.21.0", "osImageStream: rhel-10\n", None),
        ("4.22.0", "", Some("rhel-9")),
        (
            "4.22.0",
            "featureSet: TechPreviewNoUpgrade\nosImageStream: rhel-10\n",
            Some("rhel-10"),
        ),
        ("5.0.0", "", Some("rhel-10")),
    ] {
        let text = format!("{MINIMAL_INSTALL_CONFIG}{extra}");
        let ctx = bootgen_conformance::templates::context_of(&text, version)?;
        let doc = render_yaml(&manifest("cluster-config.yaml"), &ctx)?;
        let stored = parse_yaml("install-config", text_at(&doc, "/data/install-config")?)?;
        assert_eq!(
            stored.get("osImageStream").and_then(Json::as_str),
            want,
            "{version} {extra:?}"
        );
    }
    Ok(())
}

#[test]
fn pull_secret_decodes_to_the_input() -> TestResult {
    {
        for (label, ctx) in contexts()? {
            let doc = render_yaml(&manifest("openshift-config-secret-pull-secret.yaml"), &ctx)?;
            assert_object(
                &doc,
                "v1",
                "Secret",
                Some("openshift-config"),
                "pull-secret",
            )?;
            assert_eq!(text_at(&doc, "/type")?, "kubernetes.io/dockerconfigjson");
            assert_eq!(
                decode_at(&doc, "/data/.dockerconfigjson")?,
                str_of(&ctx, "/pull_secret"),
                "[{label}]"
            );
        }
    }
    Ok(())
}

#[test]
fn kube_cloud_config_is_empty() -> TestResult {
    for (_, ctx) in contexts()? {
        let doc = render_yaml(&manifest("kube-cloud-config.yaml"), &ctx)?;
        assert_object(&doc, "v1", "Secret", Some("kube-system"), "kube-cloud-cfg")?;
        assert_eq!(text_at(&doc, "/data/config")?, "");
    }
    Ok(())
}

#[test]
fn ingress_and_dns_use_the_cluster_domain() -> TestResult {
    {
        for (label, ctx) in contexts()? {
            let domain = str_of(&ctx, "/cluster/domain");
            let ingress = render_yaml(&manifest("cluster-ingress-02-config.yml"), &ctx)?;
            assert_object(
                &ingress,
                "config.openshift.io/v1",
                "Ingress",
                None,
                "cluster",
            )?;
            assert_eq!(
                text_at(&ingress, "/spec/domain")?,
                format!("apps.{domain}"),
                "[{label}]"
            );
            let dns = render_yaml(&manifest("cluster-dns-02-config.yml"), &ctx)?;
            assert_object(&dns, "config.openshift.io/v1", "DNS", None, "cluster")?;
            assert_eq!(text_at(&dns, "/spec/baseDomain")?, domain, "[{label}]");
        }
    }
    Ok(())
}

#[test]
fn network_config_lists_every_network() -> TestResult {
    {
        for (label, ctx) in contexts()? {
            let doc = render_yaml(&manifest("cluster-network-02-config.yml"), &ctx)?;
            assert_object(&doc, "config.openshift.io/v1", "Network", None, "cluster")?;
            let expected_cluster: Vec<Json> = at(&ctx, "/networking/cluster_networks")?
                .as_array()
                .into_iter()
                .flatten()
                .map(|net| json!({ "cidr": net["cidr"], "hostPrefix": net["host_prefix"] }))
                .collect();
            assert_eq!(
                at(&doc, "/spec/clusterNetwork")?,
                &Json::Array(expected_cluster),
                "[{label}]"
            );
            assert_eq!(
                at(&doc, "/spec/serviceNetwork")?,
                at(&ctx, "/networking/service_networks")?,
                "[{label}]"
            );
            assert_eq!(
                text_at(&doc, "/spec/networkType")?,
                str_of(&ctx, "/networking/network_type")
            );
        }
    }
    Ok(())
}

#[test]
fn infrastructure_names_the_cluster_and_its_topology() -> TestResult {
    let name = manifest("cluster-infrastructure-02-config.yml");
    for (label, ctx) in contexts()? {
        let doc = render_yaml(&name, &ctx)?;
        assert_object(
            &doc,
            "config.openshift.io/v1",
            "Infrastructure",
            None,
            "cluster",
        )?;
        assert_eq!(
            text_at(&doc, "/status/infrastructureName")?,
            str_of(&ctx, "/cluster/infra_id"),
            "[{label}]"
        );
        let api = format!("https://{}:6443", str_of(&ctx, "/cluster/api_host"));
        let api_int = format!("https://{}:6443", str_of(&ctx, "/cluster/api_int_host"));
        assert_eq!(text_at(&doc, "/status/apiServerURL")?, api, "[{label}]");
        assert_eq!(
            text_at(&doc, "/status/apiServerInternalURI")?,
            api_int,
            "[{label}]"
        );
        assert_eq!(text_at(&doc, "/status/platform")?, "None");
        assert_eq!(text_at(&doc, "/status/platformStatus/type")?, "None");
        assert_eq!(text_at(&doc, "/spec/platformSpec/type")?, "None");
        assert_eq!(text_at(&doc, "/status/cpuPartitioning")?, "None");
    }

    // (control-plane replicas, worker replicas) -> (controlPlaneTopology, infrastructureTopology)
    let cases = [
        (3, 2, "HighlyAvailable", "HighlyAvailable"),
        (3, 0, "HighlyAvailable", "HighlyAvailable"),
        (3, 1, "HighlyAvailable", "SingleReplica"),
        (5, 3, "HighlyAvailable", "HighlyAvailable"),
        (1, 0, "SingleReplica", "SingleReplica"),
        (1, 2, "SingleReplica", "HighlyAvailable"),
    ];
    for (masters, workers, control_plane, infrastructure) in cases {
        let ctx = with(minimal()?, "/control_plane/replicas", json!(masters))?;
        let ctx = with(ctx, "/compute/0/replicas", json!(workers))?;
        let doc = render_yaml(&name, &ctx)?;
        let case = format!("{masters} masters, {workers} workers");
        assert_eq!(
            text_at(&doc, "/status/controlPlaneTopology")?,
            control_plane,
            "{case}"
        );
        assert_eq!(
            text_at(&doc, "/status/infrastructureTopology")?,
            infrastructure,
            "{case}"
        );
    }
    Ok(())
}

#[test]
fn proxy_spec_status_and_trusted_ca() -> TestResult {
    let name = manifest("cluster-proxy-01-config.yaml");
    {
        let doc = render_yaml(&name, &minimal()?)?;
        assert_object(&doc, "config.openshift.io/v1", "Proxy", None, "cluster")?;
        assert_eq!(at(&doc, "/spec")?, &json!({ "trustedCA": { "name": "" } }));
        assert_eq!(at(&doc, "/status")?, &json!({}));

        let ctx = awkward()?;
        let doc = render_yaml(&name, &ctx)?;
        for (field, spec_key, status_key) in [
            ("http_proxy", "/spec/httpProxy", "/status/httpProxy"),
            ("https_proxy", "/spec/httpsProxy", "/status/httpsProxy"),
        ] {
            let value = str_of(&ctx, &format!("/proxy/{field}"));
            assert_eq!(text_at(&doc, spec_key)?, value);
            assert_eq!(text_at(&doc, status_key)?, value);
        }
        assert_eq!(
            text_at(&doc, "/spec/noProxy")?,
            str_of(&ctx, "/proxy/user_no_proxy")
        );
        assert_eq!(
            text_at(&doc, "/status/noProxy")?,
            str_of(&ctx, "/proxy/no_proxy")
        );
        assert_eq!(text_at(&doc, "/spec/trustedCA/name")?, "user-ca-bundle");
    }

    // (proxy enabled, trust bundle set, policy) -> trustedCA name
    let cases = [
        (true, true, "Proxyonly", "user-ca-bundle"),
        (true, false, "Proxyonly", ""),
        (false, true, "Proxyonly", ""),
        (false, true, "Always", "user-ca-bundle"),
        (false, false, "Always", ""),
    ];
    for (enabled, bundle, policy, expected) in cases {
        let ctx = with(awkward()?, "/proxy/enabled", json!(enabled))?;
        let ctx = with(ctx, "/trust_bundle_policy", json!(policy))?;
        let ctx = if bundle {
            ctx
        } else {
            with(ctx, "/trust_bundle", json!(""))?
        };
        let doc = render_yaml(&name, &ctx)?;
        let case = format!("proxy {enabled}, bundle {bundle}, policy {policy}");
        assert_eq!(text_at(&doc, "/spec/trustedCA/name")?, expected, "{case}");
        assert_eq!(doc.pointer("/status/noProxy").is_some(), enabled, "{case}");
    }
    Ok(())
}

#[test]
fn masters_schedulable_only_without_workers() -> TestResult {
    let name = manifest("cluster-scheduler-02-config.yml");
    for (label, ctx, expected) in [
        ("minimal", minimal()?, false),
        ("awkward", awkward()?, true),
    ] {
        let doc = render_yaml(&name, &ctx)?;
        assert_object(&doc, "config.openshift.io/v1", "Scheduler", None, "cluster")?;
        assert_eq!(
            at(&doc, "/spec/mastersSchedulable")?,
            &json!(expected),
            "[{label}]"
        );
    }
    // Several compute pools that add up to zero still leave only the masters.
    let ctx = with(
        minimal()?,
        "/compute",
        json!([
            { "name": "worker", "replicas": 0, "hyperthreading": "Enabled", "architecture": "amd64" },
            { "name": "edge", "replicas": 0, "hyperthreading": "Enabled", "architecture": "amd64" },
        ]),
    )?;
    let doc = render_yaml(&name, &ctx)?;
    assert_eq!(at(&doc, "/spec/mastersSchedulable")?, &json!(true));
    Ok(())
}

#[test]
fn mirror_manifests_list_sources_and_mirrors() -> TestResult {
    {
        let ctx = awkward()?;
        let icsp = render_yaml(&manifest("image-content-source-policy.yaml"), &ctx)?;
        assert_object(
            &icsp,
            "operator.openshift.io/v1alpha1",
            "ImageContentSourcePolicy",
            None,
            "image-policy",
        )?;
        let idms = render_yaml(&manifest("image-digest-mirror-set.yaml"), &ctx)?;
        assert_object(
            &idms,
            "config.openshift.io/v1",
            "ImageDigestMirrorSet",
            None,
            "image-digest-mirror",
        )?;

        // Every entry as written: the same source twice, a mirror twice, an explicit
        // AllowContactingSource (IDMS only), an entry without mirrors (no `mirrors` in the IDMS,
        // whose field the installer omits when empty).
        let entries = at(&ctx, "/mirror_manifests/0/entries")?
            .as_array()
            .cloned()
            .unwrap_or_default();
        let icsp_entries = at(&icsp, "/spec/repositoryDigestMirrors")?
            .as_array()
            .cloned()
            .unwrap_or_default();
        let idms_entries = at(&idms, "/spec/imageDigestMirrors")?
            .as_array()
            .cloned()
            .unwrap_or_default();
        assert_eq!(icsp_entries.len(), entries.len());
        assert_eq!(idms_entries.len(), entries.len());
        for ((entry, icsp_entry), idms_entry) in
            entries.iter().zip(&icsp_entries).zip(&idms_entries)
        {
            for written in [icsp_entry, idms_entry] {
                assert_eq!(written["source"], entry["source"]);
            }
            assert_eq!(icsp_entry["mirrors"], entry["mirrors"]);
            let listed = entry["mirrors"].as_array().is_some_and(|m| !m.is_empty());
            assert_eq!(
                idms_entry.get("mirrors"),
                listed.then_some(&entry["mirrors"])
            );
            assert!(icsp_entry.get("mirrorSourcePolicy").is_none());
            let policy = idms_entry.get("mirrorSourcePolicy").and_then(Json::as_str);
            assert_eq!(
                policy,
                entry["source_policy"].as_str(),
                "mirrorSourcePolicy of {}",
                entry["source"]
            );
        }

        // Without mirrors both still parse, with an empty list.
        let ctx = minimal()?;
        let icsp = render_yaml(&manifest("image-content-source-policy.yaml"), &ctx)?;
        assert_eq!(at(&icsp, "/spec/repositoryDigestMirrors")?, &json!([]));
        let idms = render_yaml(&manifest("image-digest-mirror-set.yaml"), &ctx)?;
        assert_eq!(at(&idms, "/spec/imageDigestMirrors")?, &json!([]));
    }
    Ok(())
}

#[test]
fn user_ca_bundle_keeps_the_pem_exactly() -> TestResult {
    {
        let ctx = awkward()?;
        let doc = render_yaml(&manifest("user-ca-bundle-config.yaml"), &ctx)?;
        assert_object(
            &doc,
            "v1",
            "ConfigMap",
            Some("openshift-config"),
            "user-ca-bundle",
        )?;
        assert_eq!(
            text_at(&doc, "/data/ca-bundle.crt")?,
            str_of(&ctx, "/user_ca_bundle")
        );
    }
    Ok(())
}

#[test]
fn cluster_version_has_channel_id_and_capabilities() -> TestResult {
    let name = manifest("cvo-overrides.yaml");
    {
        for (label, ctx) in contexts()? {
            let doc = render_yaml(&name, &ctx)?;
            assert_object(
                &doc,
                "config.openshift.io/v1",
                "ClusterVersion",
                Some("openshift-cluster-version"),
                "version",
            )?;
            assert_eq!(
                text_at(&doc, "/spec/channel")?,
                str_of(&ctx, "/release_channel"),
                "[{label}]"
            );
            assert_eq!(
                text_at(&doc, "/spec/clusterID")?,
                str_of(&ctx, "/cluster/id"),
                "[{label}]"
            );
        }
        let doc = render_yaml(&name, &minimal()?)?;
        assert!(
            doc.pointer("/spec/capabilities").is_none(),
            "no capabilities unless set"
        );
        let doc = render_yaml(&name, &awkward()?)?;
        assert_eq!(
            at(&doc, "/spec/capabilities")?,
            &json!({ "baselineCapabilitySet": "None", "additionalEnabledCapabilities": ["baremetal", "MachineAPI"] })
        );
        let only_additional = with(minimal()?, "/capabilities/additional", json!(["Console"]))?;
        let doc = render_yaml(&name, &only_additional)?;
        assert_eq!(
            at(&doc, "/spec/capabilities")?,
            &json!({ "additionalEnabledCapabilities": ["Console"] })
        );
    }
    Ok(())
}

type ObjectRef = (String, String, String, String);

fn object_ref(doc: &Json) -> Result<ObjectRef, Box<dyn StdError>> {
    let api_version = text_at(doc, "/apiVersion")?;
    let group = api_version
        .rsplit_once('/')
        .map(|(group, _)| group)
        .unwrap_or_default();
    let namespace = doc
        .pointer("/metadata/namespace")
        .and_then(Json::as_str)
        .unwrap_or_default();
    Ok((
        text_at(doc, "/kind")?.to_owned(),
        group.to_owned(),
        namespace.to_owned(),
        text_at(doc, "/metadata/name")?.to_owned(),
    ))
}

/// The objects of a generated config's manifests (first document of each), except the
/// ClusterVersion and the machine manifests the installer writes from other assets.
fn manifest_objects(files: &[(String, Vec<u8>)]) -> Result<BTreeSet<ObjectRef>, Box<dyn StdError>> {
    let machine = |name: &str| {
        name.starts_with("99_openshift-machineconfig_") || name.ends_with("-user-data-secret.yaml")
    };
    let mut objects = BTreeSet::new();
    for (path, contents) in files {
        let Some((dir, name)) = path.rsplit_once('/') else {
            continue;
        };
        let overridden = match dir {
            "/opt/openshift/manifests" => name != "cvo-overrides.yaml",
            "/opt/openshift/openshift" => !machine(name),
            _ => false,
        };
        if overridden {
            let text = std::str::from_utf8(contents)?;
            let first = text.split("\n---").next().unwrap_or_default();
            objects.insert(object_ref(&parse_yaml(path, first)?)?);
        }
    }
    Ok(objects)
}

/// For every release with CVO overrides: the ClusterVersion of a real generation, with the
/// user's own manifests and mirrors, lists as unmanaged exactly the objects of its manifests
/// (the user's included), never the SSH machine configs or the user-data secrets.
#[test]
fn cvo_overrides_cover_exactly_the_manifests_objects() -> TestResult {
    let extra = tempfile::tempdir()?;
    std::fs::write(
        extra.path().join("50-extra.yaml"),
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: user-extra\n",
    )?;
    let loaded = bootgen::config::load_default()?;
    let mut checked = 0;
    for profile in bootgen::release::PROFILES.iter() {
        let mut options = bootgen_conformance::quick_options(Some(&format!("{}.0", profile.minor)));
        options.manifests_dir = Some(extra.path().to_path_buf());
        let generated = bootgen::generate(&loaded, &options)?;
        let decoded = bootgen::ignition::decode(&generated.bootstrap)?;
        let files: Vec<(String, Vec<u8>)> = decoded
            .files
            .into_iter()
            .map(|f| (f.path, f.contents.unwrap_or_default()))
            .collect();
        let Some((_, cvo)) = files
            .iter()
            .find(|(p, _)| p == "/opt/openshift/manifests/cvo-overrides.yaml")
        else {
            continue;
        };
        let cvo = parse_yaml("cvo-overrides.yaml", std::str::from_utf8(cvo)?)?;
        let overrides = cvo
            .pointer("/spec/overrides")
            .and_then(Json::as_array)
            .cloned()
            .unwrap_or_default();
        let label = profile.minor.to_string();
        if !profile
            .switches(Default::default())
            .has(bootgen::release::Switch::CvoOverrides)
        {
            assert!(
                overrides.is_empty(),
                "[{label}] overrides before the release had them"
            );
            continue;
        }
        let mut listed = BTreeSet::new();
        for entry in &overrides {
            assert_eq!(entry["unmanaged"], json!(true), "[{label}] {entry}");
            let key = (
                text_at(entry, "/kind")?.to_owned(),
                text_at(entry, "/group")?.to_owned(),
                text_at(entry, "/namespace")?.to_owned(),
                text_at(entry, "/name")?.to_owned(),
            );
            assert!(listed.insert(key), "[{label}] duplicate override {entry}");
        }
        assert!(
            listed.contains(&(
                "Namespace".into(),
                String::new(),
                String::new(),
                "user-extra".into()
            )),
            "[{label}] the user's manifest is not unmanaged"
        );
        assert!(
            !listed
                .iter()
                .any(|(kind, _, _, name)| kind == "MachineConfig" || name.ends_with("user-data")),
            "[{label}] machine manifests are not the manifests' objects"
        );
        assert_eq!(
            listed,
            manifest_objects(&files)?,
            "[{label}] overrides vs manifests"
        );
        checked += 1;
    }
    assert!(checked > 5, "only {checked} releases had CVO overrides");
    Ok(())
}

#[test]
fn openshift_objects_carry_the_inputs() -> TestResult {
    {
        for (label, ctx) in contexts()? {
            let doc = render_yaml(&openshift("99_kubeadmin-password-secret.yaml"), &ctx)?;
            assert_object(&doc, "v1", "Secret", Some("kube-system"), "kubeadmin")?;
            assert_eq!(
                decode_at(&doc, "/data/kubeadmin")?,
                str_of(&ctx, "/kubeadmin_hash"),
                "[{label}]"
            );

            let doc = render_yaml(&openshift("99_feature-gate.yaml"), &ctx)?;
            assert_object(
                &doc,
                "config.openshift.io/v1",
                "FeatureGate",
                None,
                "cluster",
            )?;
            assert_eq!(
                text_at(&doc, "/spec/featureSet")?,
                str_of(&ctx, "/feature_set"),
                "[{label}]"
            );

            let doc = render_yaml(&openshift("openshift-install-manifests.yaml"), &ctx)?;
            assert_object(
                &doc,
                "v1",
                "ConfigMap",
                Some("openshift-config"),
                "openshift-install-manifests",
            )?;
            assert_eq!(text_at(&doc, "/data/invoker")?, "bootgen");
            assert_eq!(
                text_at(&doc, "/data/version")?,
                str_of(&ctx, "/installer_version"),
                "[{label}]"
            );
        }
    }
    Ok(())
}

#[test]
fn ssh_machine_configs_give_core_the_key() -> TestResult {
    {
        let ctx = awkward()?;
        for role in ["master", "worker"] {
            let name = openshift(&format!("99_openshift-machineconfig_99-{role}-ssh.yaml"));
            let doc = render_yaml(&name, &ctx)?;
            let object = format!("99-{role}-ssh");
            assert_object(
                &doc,
                "machineconfiguration.openshift.io/v1",
                "MachineConfig",
                None,
                &object,
            )?;
            assert_eq!(
                text_at(
                    &doc,
                    "/metadata/labels/machineconfiguration.openshift.io~1role"
                )?,
                role
            );
            assert_eq!(text_at(&doc, "/spec/config/ignition/version")?, "3.2.0");
            assert_eq!(
                at(&doc, "/spec/config/passwd/users")?,
                &json!([{ "name": "core", "sshAuthorizedKeys": [str_of(&ctx, "/ssh_key")] }])
            );
        }
    }
    Ok(())
}

/// Every manifest inside the configs bootgen generates (each fixture, user manifests included)
/// parses as YAML, every document has apiVersion, kind and metadata.name, and Secrets are 0600.
#[test]
fn every_manifest_in_generated_configs_parses() -> TestResult {
    let repo = bootgen_conformance::repo();
    let valid = repo.join("fixtures/install-configs/valid");
    let mut names: Vec<_> = std::fs::read_dir(&valid)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    names.sort();
    for config in names {
        let loaded = bootgen::config::load(&config)?;
        let mut options = bootgen::Options::new(time::macros::datetime!(2026-01-01 01:00 UTC));
        options.tls_dir = Some(repo.join("fixtures/pki"));
        options.manifests_dir = Some(repo.join("fixtures/manifests/extra"));
        let generated = bootgen::generate(&loaded, &options)?;
        let decoded = bootgen::ignition::decode(&generated.bootstrap)?;
        let mut seen = 0;
        for file in &decoded.files {
            let in_manifests = file.path.starts_with("/opt/openshift/manifests/")
                || file.path.starts_with("/opt/openshift/openshift/");
            if !in_manifests {
                continue;
            }
            let text = std::str::from_utf8(file.contents.as_deref().unwrap_or_default())?;
            for document in serde_yaml_ng::Deserializer::from_str(text) {
                use serde::Deserialize as _;
                let value = serde_yaml_ng::Value::deserialize(document)
                    .map_err(|e| format!("{} in {}: {e}", file.path, config.display()))?;
                let field = |k: &str| value.get(k).is_some();
                assert!(
                    field("apiVersion") && field("kind"),
                    "{}: {value:?}",
                    file.path
                );
                assert!(
                    value.get("metadata").and_then(|m| m.get("name")).is_some(),
                    "{}",
                    file.path
                );
                if value.get("kind").and_then(|k| k.as_str()) == Some("Secret") {
                    assert_eq!(file.mode, Some(0o600), "{} is a Secret", file.path);
                }
                seen += 1;
            }
        }
        assert!(seen >= 15, "{}: only {seen} manifests", config.display());
    }
    Ok(())
}
