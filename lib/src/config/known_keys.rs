//! The keys bootgen reads at each level of an install-config, so a mistyped one (`controlplane`)
//! is answered with the key that was meant. The test below checks that every key listed is one
//! the install-config types read.

/// (parent path with `*` for list indexes, the keys read there).
const KNOWN: &[(&str, &[&str])] = &[
    (
        "",
        &[
            "apiVersion",
            "metadata",
            "baseDomain",
            "controlPlane",
            "compute",
            "networking",
            "platform",
            "fips",
            "pullSecret",
            "sshKey",
            "additionalTrustBundle",
            "additionalTrustBundlePolicy",
            "proxy",
            "imageContentSources",
            "imageDigestSources",
            "capabilities",
            "featureSet",
            "publish",
            "featureGates",
            "osImageStream",
            "bootstrapInPlace",
            "cpuPartitioningMode",
            "pki",
        ],
    ),
    ("pki", &["signerCertificates"]),
    ("pki.signerCertificates", &["key"]),
    ("pki.signerCertificates.key", &["algorithm", "rsa", "ecdsa"]),
    ("pki.signerCertificates.key.rsa", &["keySize"]),
    ("pki.signerCertificates.key.ecdsa", &["curve"]),
    (
        "metadata",
        &[
            "name",
            "labels",
            "annotations",
            "generateName",
            "namespace",
            "selfLink",
            "uid",
            "resourceVersion",
            "generation",
            "creationTimestamp",
            "deletionTimestamp",
            "deletionGracePeriodSeconds",
            "finalizers",
        ],
    ),
    (
        "controlPlane",
        &[
            "name",
            "replicas",
            "architecture",
            "hyperthreading",
            "platform",
        ],
    ),
    (
        "compute.*",
        &[
            "name",
            "replicas",
            "architecture",
            "hyperthreading",
            "platform",
        ],
    ),
    (
        "networking",
        &[
            "networkType",
            "clusterNetwork",
            "serviceNetwork",
            "machineNetwork",
            "machineCIDR",
            "serviceCIDR",
            "clusterNetworks",
            "type",
            "ovnKubernetesConfig",
        ],
    ),
    ("networking.ovnKubernetesConfig", &["ipv4"]),
    (
        "networking.ovnKubernetesConfig.ipv4",
        &["internalJoinSubnet"],
    ),
    (
        "networking.clusterNetwork.*",
        &["cidr", "hostPrefix", "hostSubnetLength"],
    ),
    (
        "networking.clusterNetworks.*",
        &["cidr", "hostPrefix", "hostSubnetLength"],
    ),
    ("networking.machineNetwork.*", &["cidr"]),
    ("proxy", &["httpProxy", "httpsProxy", "noProxy"]),
    (
        "imageContentSources.*",
        &["source", "mirrors", "sourcePolicy"],
    ),
    (
        "imageDigestSources.*",
        &["source", "mirrors", "sourcePolicy"],
    ),
    (
        "capabilities",
        &["baselineCapabilitySet", "additionalEnabledCapabilities"],
    ),
    ("bootstrapInPlace", &["installationDisk"]),
];

/// Installer settings bootgen does not carry out, with what they are for: refused with that
/// reason rather than as unknown keys.
const NOT_SUPPORTED: &[(&str, &str)] = &[
    (
        "credentialsMode",
        "the cloud credentials of AWS, Azure, GCP and other clouds, which platforms none, \
         vSphere and external have not",
    ),
    (
        "networking.clusterNetworkMTU",
        "a cloud platform's network MTU",
    ),
    (
        "controlPlane.fencing",
        "two-node clusters with fencing, which the installer makes on platforms baremetal, \
         external and none, and bootgen does not make",
    ),
    (
        "arbiter",
        "arbiter nodes, which the installer makes on platform baremetal (in its later releases \
         also on external and none), and bootgen does not make",
    ),
    ("operatorPublishingStrategy", "a cloud's mixed publishing"),
    (
        "controlPlane.diskSetup",
        "disks (etcd, swap, user-defined) set up by machine configs on the machines the \
         installer makes with data disks (a Tech Preview of later releases)",
    ),
    (
        "compute.*.diskSetup",
        "disks (swap, user-defined) set up by machine configs on the machines the installer \
         makes with data disks (a Tech Preview of later releases)",
    ),
    (
        "controlPlane.management",
        "the API that manages a cloud's machines (Cluster API or the Machine API, on AWS)",
    ),
    (
        "compute.*.management",
        "the API that manages a cloud's machines (Cluster API or the Machine API, on AWS)",
    ),
    // vSphere's, read by `model::vsphere` (the platform's section is read there).
    (
        "platform.vsphere.hosts",
        "static addresses of the VMs openshift-install makes itself; for nodes you boot, give \
         their addresses in the hosts file (`hosts`)",
    ),
    (
        "platform.vsphere.nodeNetworking",
        "the networks the nodes' addresses are taken from when a failure domain has several",
    ),
    (
        "platform.vsphere.dnsRecordsType",
        "where the cluster's DNS records for the VIPs are served",
    ),
    (
        "platform.vsphere.failureDomains.*.topology.hostGroup",
        "failure domains of host groups",
    ),
    (
        "platform.vsphere.failureDomains.*.topology.tagIDs",
        "vSphere tags attached to the machines the cluster makes",
    ),
];

/// The refusal of an installer setting bootgen does not carry out, when `dotted` is one.
pub fn unsupported_refusal(dotted: &str) -> Option<String> {
    not_supported(dotted).map(|what| {
        format!(
            "an installer setting for {what}: bootgen does not support it, so the cluster would not get it; remove it"
        )
    })
}

/// What an installer setting bootgen does not carry out is for, when `dotted` is one.
fn not_supported(dotted: &str) -> Option<&'static str> {
    // A list's index as `*`: `compute.0.management` is `compute.*.management`.
    let pattern: Vec<&str> = dotted
        .split('.')
        .map(|p| if p.parse::<usize>().is_ok() { "*" } else { p })
        .collect();
    let pattern = pattern.join(".");
    NOT_SUPPORTED
        .iter()
        .find(|(key, _)| pattern == *key || pattern.starts_with(&format!("{key}.")))
        .map(|(_, what)| *what)
}

/// The key at the same level as the unknown `dotted` path (`networking.netwrokType`) that was
/// most likely meant: the same letters in another case, or at most two edits away (one for
/// short keys).
pub fn suggestion(dotted: &str) -> Option<&'static str> {
    let (parent, key) = dotted.rsplit_once('.').unwrap_or(("", dotted));
    let parent: Vec<&str> = parent
        .split('.')
        .filter(|p| !p.is_empty())
        .map(|p| if p.parse::<usize>().is_ok() { "*" } else { p })
        .collect();
    let parent = parent.join(".");
    let (_, keys) = KNOWN.iter().find(|(p, _)| *p == parent)?;
    if let Some(same) = keys.iter().find(|k| k.eq_ignore_ascii_case(key)) {
        return Some(same);
    }
    nearest(key, keys.iter().copied())
}

/// The candidate most likely meant by the mistyped `word`: the same letters in another case, or
/// at most two edits away (one for words of four letters or fewer). `None` when none is that
/// near, or when `word` is itself a candidate.
pub fn nearest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = if word.len() <= 4 { 1 } else { 2 };
    let word = word.to_ascii_lowercase();
    let mut best: Option<(usize, &'a str)> = None;
    for candidate in candidates {
        let d = distance(&candidate.to_ascii_lowercase(), &word);
        if d <= limit && best.is_none_or(|(kept, _)| d < kept) {
            best = Some((d, candidate));
        }
    }
    best.map(|(_, candidate)| candidate)
}

/// Edit distance (insertions, deletions, substitutions, and swaps of neighbours).
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut rows = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in rows.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in rows[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (rows[i - 1][j] + 1)
                .min(rows[i][j - 1] + 1)
                .min(rows[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(rows[i - 2][j - 2] + 1);
            }
            rows[i][j] = best;
        }
    }
    rows[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mistyped_values_get_the_value_meant() {
        let plugins = ["OVNKubernetes", "OpenShiftSDN"];
        assert_eq!(nearest("OVNKubernates", plugins), Some("OVNKubernetes"));
        assert_eq!(nearest("ovnkubernetes", plugins), Some("OVNKubernetes"));
        assert_eq!(nearest("Calico", plugins), None);
    }

    #[test]
    fn mistyped_keys_get_the_key_meant() {
        assert_eq!(suggestion("controlplane"), Some("controlPlane"));
        assert_eq!(suggestion("basedomain"), Some("baseDomain"));
        assert_eq!(suggestion("networking.netwrokType"), Some("networkType"));
        assert_eq!(suggestion("compute.1.replcias"), Some("replicas"));
        assert_eq!(suggestion("pubish"), Some("publish"));
        assert_eq!(suggestion("colour"), None);
        assert_eq!(suggestion("networking.colour"), None);
    }

    /// Every key listed is one the install-config types read: set at its place to a value of
    /// a shape it takes, it is not reported as unknown.
    #[test]
    fn every_listed_key_is_read() {
        for (parent, keys) in KNOWN {
            for key in *keys {
                let mut read = false;
                for value in ["null", "[]", "{}", "x", "1"] {
                    let mut yaml = format!("{key}: {value}\n");
                    for part in parent.split('.').filter(|p| !p.is_empty()).rev() {
                        let indented: String = yaml.lines().map(|l| format!("  {l}\n")).collect();
                        yaml = if part == "*" {
                            format!("-{}", &indented[1..])
                        } else {
                            format!("{part}:\n{indented}")
                        };
                    }
                    if let Ok(loaded) = super::super::parse(&yaml, "keys.yaml") {
                        // A deprecated field is read, and said so.
                        assert!(
                            loaded
                                .warnings
                                .iter()
                                .all(|w| w.message.starts_with("deprecated:")),
                            "{parent} {key}:\n{yaml}\n{:?}",
                            loaded.warnings
                        );
                        read = true;
                    }
                }
                assert!(read, "{parent} {key}: no value of any shape parses");
            }
        }
        assert!(super::super::parse("networking:\n  zzz: 1\n", "keys.yaml").is_err());
    }
}
