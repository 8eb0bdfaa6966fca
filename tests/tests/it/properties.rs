//! Property test: any install-config the model accepts yields a bootstrap config that the real
//! `ignition-validate` accepts with no warnings, with unique file paths and unit names, every
//! file decodable, and the pointer configs valid too.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use bootgen::{config, generate, ignition, Options};
use bootgen_conformance::ignition_validate;
use proptest::prelude::*;
use std::collections::BTreeSet;

#[derive(Debug, Clone)]
struct Cluster {
    name: String,
    domain: String,
    arch: &'static str,
    replicas: u32,
    workers: u32,
    ipv6: bool,
    proxy: bool,
    mirror: bool,
    ssh: bool,
    fips: bool,
}

fn cluster() -> impl Strategy<Value = Cluster> {
    (
        "[a-z][a-z0-9-]{0,14}[a-z0-9]",
        "[a-z]{1,10}\\.(com|org|example)",
        prop::sample::select(vec!["amd64", "arm64", "ppc64le", "s390x"]),
        prop::sample::select(vec![1u32, 3, 5]),
        0u32..4,
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(
            |(name, domain, arch, replicas, workers, ipv6, proxy, mirror, ssh, fips)| Cluster {
                name,
                domain,
                arch,
                replicas,
                workers,
                ipv6,
                proxy,
                mirror,
                ssh,
                fips,
            },
        )
}

const SSH_KEY: &str =
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIB9oWwSA3F4bSWnSO73/fRkrcMa1nA36lXcH0hEY2QCm prop@test";
/// A FIPS node's sshd takes RSA and ECDSA keys only.
const FIPS_SSH_KEY: &str = "ecdsa-sha2-nistp384 AAAAE2VjZHNhLXNoYTItbmlzdHAzODQAAAAIbmlzdHAzODQAAABhBETCkz+efNk534rJnqgIyGX0g578lvHNyJ+tWoYffd90r1yaG99z7Q0R7imfVe/wa5CmXG27ET2JUxHctbyzgshsxzdFL30TPK8YtmIAs6bXEj8T543nVlhQBELP9f+Xqw== prop@test";

fn install_config(c: &Cluster) -> String {
    let mut text = format!(
        "apiVersion: v1\nmetadata:\n  name: {}\nbaseDomain: {}\ncontrolPlane:\n  name: master\n  replicas: {}\n  architecture: {}\ncompute:\n- name: worker\n  replicas: {}\n  architecture: {}\nplatform:\n  none: {{}}\nfips: {}\npullSecret: '{{\"auths\":{{\"r.example\":{{\"auth\":\"eDp5\"}}}}}}'\n",
        c.name, c.domain, c.replicas, c.arch, c.workers, c.arch, c.fips
    );
    if c.ipv6 {
        text.push_str("networking:\n  clusterNetwork:\n  - cidr: fd01::/48\n    hostPrefix: 64\n  serviceNetwork:\n  - fd02::/112\n  machineNetwork:\n  - cidr: fd00::/64\n");
    }
    if c.proxy {
        text.push_str("proxy:\n  httpProxy: http://proxy.example:3128\n  noProxy: .internal\n");
    }
    if c.mirror {
        text.push_str("imageDigestSources:\n- source: quay.io/openshift-release-dev/ocp-release\n  mirrors:\n  - mirror.example:5000/ocp/release\n");
    }
    if c.ssh {
        let key = if c.fips { FIPS_SSH_KEY } else { SSH_KEY };
        text.push_str(&format!("sshKey: {key}\n"));
    }
    text
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn every_accepted_cluster_gives_a_valid_config(c in cluster()) {
        let loaded = config::parse(&install_config(&c), "prop.yaml").unwrap();
        let mut options = Options::new(time::macros::datetime!(2026-01-01 01:00 UTC));
        // The fixture PKI is reused (leaves re-issued for the new names): no key generation per case.
        options.tls_dir = Some(bootgen_conformance::repo().join("fixtures/pki"));
        let generated = generate(&loaded, &options).unwrap();

        let decoded = ignition::decode(&generated.bootstrap).unwrap();
        let paths: BTreeSet<_> = decoded.files.iter().map(|f| &f.path).collect();
        prop_assert_eq!(paths.len(), decoded.files.len(), "duplicate file paths");
        let units: BTreeSet<_> = decoded.units.iter().map(|u| &u.name).collect();
        prop_assert_eq!(units.len(), decoded.units.len(), "duplicate units");
        prop_assert!(decoded.files.iter().all(|f| f.contents.is_some() || !f.append.is_empty()));

        let dir = tempfile::tempdir().unwrap();
        for (name, doc) in [("bootstrap.ign", &generated.bootstrap), ("master.ign", &generated.master), ("worker.ign", &generated.worker)] {
            let path = dir.path().join(name);
            std::fs::write(&path, doc.to_bytes()).unwrap();
            let (clean, report) = ignition_validate(&path);
            prop_assert!(clean, "{} for {:?}: {}", name, c, report);
        }
    }
}
