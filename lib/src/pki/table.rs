//! The installer's certificate table, as data: every signer, leaf certificate, CA
//! bundle and bare key pair the bootstrap node gets, with its subject, SANs, usages, validity
//! and which of its files go into `bootstrap.ign`.

use super::CertificateLifetimes;
use time::Duration;

/// How long a certificate is valid, counted from the moment it is issued (the installer's
/// one day, one year and ten years; the first two as [`CertificateLifetimes`] says).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Validity {
    /// 24 hours (or ShortCertRotation's hours).
    OneDay,
    /// 365 days (or ShortCertRotation's hours).
    OneYear,
    /// 3650 days.
    TenYears,
}

impl Validity {
    pub(crate) fn duration(self, lifetimes: &CertificateLifetimes) -> Duration {
        match self {
            Validity::OneDay => lifetimes.one_day,
            Validity::OneYear => lifetimes.one_year,
            Validity::TenYears => Duration::days(3650),
        }
    }
}

/// Which of a key pair's files are shipped in `bootstrap.ign` (all of them are stored).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ships {
    /// `<name>.key` and `<name>.crt`.
    KeyAndCert,
    /// Only `<name>.crt` (the root CA, whose key travels inside a manifest instead).
    CertOnly,
    /// Neither: the material reaches the node only through bundles or kubeconfigs.
    Nothing,
}

/// A self-signed certificate authority.
#[derive(Debug)]
pub(crate) struct SignerSpec {
    pub name: &'static str,
    pub common_name: &'static str,
    pub organizational_unit: &'static str,
    pub validity: Validity,
    pub ships: Ships,
}

/// The subject alternative names a leaf certificate carries; resolved against the request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sans {
    None,
    /// `localhost`, `127.0.0.1`, `::1`.
    Localhost,
    /// The in-cluster `kubernetes`/`openshift` service names and the first address of every
    /// service network.
    ServiceNetwork,
    /// `api.<cluster>.<domain>`.
    Api,
    /// `api-int.<cluster>.<domain>`.
    ApiInt,
    /// `api-int.<cluster>.<domain>` and the API VIPs the machine-config server answers on.
    MachineConfigServer,
}

/// Key usage and extended key usage of a leaf certificate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Usage {
    /// digitalSignature + keyEncipherment / clientAuth.
    Client,
    /// digitalSignature + keyEncipherment / serverAuth.
    Server,
    /// digitalSignature + keyEncipherment / serverAuth + clientAuth.
    ServerAndClient,
    /// No KeyUsage extension at all / serverAuth (the machine-config-server certificate).
    ServerWithoutKu,
}

/// A certificate signed by one of the signers.
#[derive(Debug)]
pub(crate) struct LeafSpec {
    pub name: &'static str,
    pub issuer: &'static str,
    pub common_name: &'static str,
    pub organizations: &'static [&'static str],
    pub sans: Sans,
    pub usage: Usage,
    pub validity: Validity,
    pub ships: Ships,
    /// The `.crt` file holds the leaf, an empty line, then the issuing CA (as the installer
    /// writes serving certificates, so clients get the chain).
    pub append_parent: bool,
}

/// A CA bundle: the first certificate of each member, concatenated.
#[derive(Debug)]
pub(crate) struct BundleSpec {
    pub name: &'static str,
    pub members: &'static [&'static str],
}

const fn signer(
    name: &'static str,
    common_name: &'static str,
    organizational_unit: &'static str,
    validity: Validity,
    ships: Ships,
) -> SignerSpec {
    SignerSpec {
        name,
        common_name,
        organizational_unit,
        validity,
        ships,
    }
}

/// The 11 signers. Order matters only for output stability.
pub(crate) const SIGNERS: &[SignerSpec] = &[
    signer(
        "root-ca",
        "root-ca",
        "openshift",
        Validity::TenYears,
        Ships::CertOnly,
    ),
    signer(
        "admin-kubeconfig-signer",
        "admin-kubeconfig-signer",
        "openshift",
        Validity::TenYears,
        Ships::Nothing,
    ),
    signer(
        "aggregator-ca",
        "aggregator",
        "bootkube",
        Validity::OneDay,
        Ships::KeyAndCert,
    ),
    signer(
        "aggregator-signer",
        "aggregator-signer",
        "openshift",
        Validity::OneDay,
        Ships::KeyAndCert,
    ),
    signer(
        "kube-apiserver-to-kubelet-signer",
        "kube-apiserver-to-kubelet-signer",
        "openshift",
        Validity::OneYear,
        Ships::KeyAndCert,
    ),
    signer(
        "kube-apiserver-localhost-signer",
        "kube-apiserver-localhost-signer",
        "openshift",
        Validity::TenYears,
        Ships::KeyAndCert,
    ),
    signer(
        "kube-apiserver-service-network-signer",
        "kube-apiserver-service-network-signer",
        "openshift",
        Validity::TenYears,
        Ships::KeyAndCert,
    ),
    signer(
        "kube-apiserver-lb-signer",
        "kube-apiserver-lb-signer",
        "openshift",
        Validity::TenYears,
        Ships::KeyAndCert,
    ),
    signer(
        "kube-control-plane-signer",
        "kube-control-plane-signer",
        "openshift",
        Validity::OneYear,
        Ships::KeyAndCert,
    ),
    signer(
        "kubelet-signer",
        "kubelet-signer",
        "openshift",
        Validity::OneDay,
        Ships::KeyAndCert,
    ),
    signer(
        "kubelet-bootstrap-kubeconfig-signer",
        "kubelet-bootstrap-kubeconfig-signer",
        "openshift",
        Validity::TenYears,
        Ships::Nothing,
    ),
];

const KUBE_MASTER: &[&str] = &["kube-master"];
const SYSTEM_MASTERS: &[&str] = &["system:masters"];

/// The 13 leaf certificates.
pub(crate) const LEAVES: &[LeafSpec] = &[
    LeafSpec {
        name: "admin-kubeconfig-client",
        issuer: "admin-kubeconfig-signer",
        common_name: "system:admin",
        organizations: SYSTEM_MASTERS,
        sans: Sans::None,
        usage: Usage::ServerAndClient,
        validity: Validity::TenYears,
        ships: Ships::Nothing,
        append_parent: false,
    },
    LeafSpec {
        name: "apiserver-proxy",
        issuer: "aggregator-ca",
        common_name: "system:kube-apiserver-proxy",
        organizations: KUBE_MASTER,
        sans: Sans::None,
        usage: Usage::Client,
        validity: Validity::OneDay,
        ships: Ships::KeyAndCert,
        append_parent: false,
    },
    LeafSpec {
        name: "aggregator-client",
        issuer: "aggregator-signer",
        common_name: "system:kube-apiserver-proxy",
        organizations: KUBE_MASTER,
        sans: Sans::None,
        usage: Usage::Client,
        validity: Validity::OneDay,
        ships: Ships::KeyAndCert,
        append_parent: false,
    },
    LeafSpec {
        name: "kube-apiserver-to-kubelet-client",
        issuer: "kube-apiserver-to-kubelet-signer",
        common_name: "system:kube-apiserver",
        organizations: KUBE_MASTER,
        sans: Sans::None,
        usage: Usage::Client,
        validity: Validity::OneYear,
        ships: Ships::KeyAndCert,
        append_parent: false,
    },
    LeafSpec {
        name: "kube-apiserver-localhost-server",
        issuer: "kube-apiserver-localhost-signer",
        common_name: "system:kube-apiserver",
        organizations: KUBE_MASTER,
        sans: Sans::Localhost,
        usage: Usage::Server,
        validity: Validity::OneDay,
        ships: Ships::KeyAndCert,
        append_parent: true,
    },
    LeafSpec {
        name: "kube-apiserver-service-network-server",
        issuer: "kube-apiserver-service-network-signer",
        common_name: "system:kube-apiserver",
        organizations: KUBE_MASTER,
        sans: Sans::ServiceNetwork,
        usage: Usage::Server,
        validity: Validity::OneDay,
        ships: Ships::KeyAndCert,
        append_parent: true,
    },
    LeafSpec {
        name: "kube-apiserver-lb-server",
        issuer: "kube-apiserver-lb-signer",
        common_name: "system:kube-apiserver",
        organizations: KUBE_MASTER,
        sans: Sans::Api,
        usage: Usage::Server,
        validity: Validity::OneDay,
        ships: Ships::KeyAndCert,
        append_parent: true,
    },
    LeafSpec {
        name: "kube-apiserver-internal-lb-server",
        issuer: "kube-apiserver-lb-signer",
        common_name: "system:kube-apiserver",
        organizations: KUBE_MASTER,
        sans: Sans::ApiInt,
        usage: Usage::Server,
        validity: Validity::OneDay,
        ships: Ships::KeyAndCert,
        append_parent: true,
    },
    LeafSpec {
        name: "kube-control-plane-kube-controller-manager-client",
        issuer: "kube-control-plane-signer",
        common_name: "system:admin",
        organizations: SYSTEM_MASTERS,
        sans: Sans::None,
        usage: Usage::Client,
        validity: Validity::OneYear,
        ships: Ships::KeyAndCert,
        append_parent: false,
    },
    LeafSpec {
        name: "kube-control-plane-kube-scheduler-client",
        issuer: "kube-control-plane-signer",
        common_name: "system:admin",
        organizations: SYSTEM_MASTERS,
        sans: Sans::None,
        usage: Usage::Client,
        validity: Validity::OneYear,
        ships: Ships::KeyAndCert,
        append_parent: false,
    },
    LeafSpec {
        name: "kubelet-client",
        issuer: "kubelet-bootstrap-kubeconfig-signer",
        common_name: "system:serviceaccount:openshift-machine-config-operator:node-bootstrapper",
        // And `ALL_SERVICE_ACCOUNTS` where the release's installer names it.
        organizations: &["system:serviceaccounts:openshift-machine-config-operator"],
        sans: Sans::None,
        usage: Usage::Client,
        validity: Validity::TenYears,
        ships: Ships::KeyAndCert,
        append_parent: false,
    },
    LeafSpec {
        name: "machine-config-server",
        issuer: "root-ca",
        common_name: "system:machine-config-server",
        organizations: &[],
        sans: Sans::MachineConfigServer,
        usage: Usage::ServerWithoutKu,
        validity: Validity::TenYears,
        ships: Ships::KeyAndCert,
        append_parent: false,
    },
    LeafSpec {
        name: "journal-gatewayd",
        issuer: "root-ca",
        common_name: "journal-gatewayd",
        organizations: &["OpenShift Bootstrap"],
        sans: Sans::None,
        usage: Usage::ServerAndClient,
        validity: Validity::TenYears,
        ships: Ships::KeyAndCert,
        append_parent: false,
    },
];

/// The leaf whose Organizations depend on the release: the kubelet's bootstrap client.
pub(crate) const KUBELET_CLIENT: &str = "kubelet-client";

/// The group of every service account, which the kubelet's bootstrap client certificate names
/// second from the installer of 4.13 on (`PkiRequest::kubelet_client_in_all_service_accounts`).
pub(crate) const ALL_SERVICE_ACCOUNTS: &str = "system:serviceaccounts";

/// The CA bundles; every one is shipped.
pub(crate) const BUNDLES: &[BundleSpec] = &[
    BundleSpec {
        name: "admin-kubeconfig-ca-bundle",
        members: &["admin-kubeconfig-signer"],
    },
    BundleSpec {
        name: "aggregator-ca-bundle",
        members: &["aggregator-signer"],
    },
    BundleSpec {
        name: "kube-apiserver-to-kubelet-ca-bundle",
        members: &["kube-apiserver-to-kubelet-signer"],
    },
    BundleSpec {
        name: "kube-apiserver-localhost-ca-bundle",
        members: &["kube-apiserver-localhost-signer"],
    },
    BundleSpec {
        name: "kube-apiserver-service-network-ca-bundle",
        members: &["kube-apiserver-service-network-signer"],
    },
    BundleSpec {
        name: "kube-apiserver-lb-ca-bundle",
        members: &["kube-apiserver-lb-signer"],
    },
    BundleSpec {
        name: "kube-apiserver-complete-server-ca-bundle",
        members: &[
            "kube-apiserver-localhost-signer",
            "kube-apiserver-service-network-signer",
            "kube-apiserver-lb-signer",
        ],
    },
    BundleSpec {
        name: "kube-apiserver-complete-client-ca-bundle",
        members: &[
            "admin-kubeconfig-signer",
            "kubelet-signer",
            "kube-control-plane-signer",
            "kube-apiserver-to-kubelet-signer",
            "kubelet-bootstrap-kubeconfig-signer",
        ],
    },
    BundleSpec {
        name: "kube-control-plane-ca-bundle",
        members: &[
            "kube-control-plane-signer",
            "kube-apiserver-lb-signer",
            "kube-apiserver-localhost-signer",
            "kube-apiserver-service-network-signer",
        ],
    },
    BundleSpec {
        name: "kubelet-client-ca-bundle",
        members: &["kubelet-signer"],
    },
    BundleSpec {
        name: "kubelet-serving-ca-bundle",
        members: &["kubelet-signer"],
    },
    BundleSpec {
        name: "kubelet-bootstrap-kubeconfig-ca-bundle",
        members: &["kubelet-bootstrap-kubeconfig-signer"],
    },
];

/// The service-account token signing key pair (`service-account.{key,pub}`), shipped.
pub(crate) const SERVICE_ACCOUNT: &str = "service-account";

/// The bootstrap SSH key pair, stored (never shipped: its public half goes to the `core` user).
pub(crate) const BOOTSTRAP_SSH: &str = "bootstrap-ssh";

/// The in-cluster DNS names of the API service (service-network serving certificate).
pub(crate) const SERVICE_NETWORK_DNS_NAMES: &[&str] = &[
    "kubernetes",
    "kubernetes.default",
    "kubernetes.default.svc",
    "kubernetes.default.svc.cluster.local",
    "openshift",
    "openshift.default",
    "openshift.default.svc",
    "openshift.default.svc.cluster.local",
];

/// True for a file name [`super::Pki::store_files`] writes into a tls directory: a key or
/// certificate of a row of the tables, a bundle, the service-account and SSH key pairs, or the
/// record of the keys' digests.
pub(crate) fn is_stored_file(name: &str) -> bool {
    if name == super::record::VERIFIED_KEYS_FILE {
        return true;
    }
    let Some((stem, extension)) = name.rsplit_once('.') else {
        return false;
    };
    let row = SIGNERS.iter().any(|s| s.name == stem) || LEAVES.iter().any(|l| l.name == stem);
    let bundle = BUNDLES.iter().any(|b| b.name == stem);
    let key_pair = stem == SERVICE_ACCOUNT || stem == BOOTSTRAP_SSH;
    match extension {
        "key" => row || key_pair,
        "crt" => row || bundle,
        "pub" => key_pair,
        _ => false,
    }
}

/// How many keys a build that reuses nothing generates: every signer and leaf, the service
/// account and the bootstrap SSH key.
pub(crate) const FRESH_KEY_COUNT: usize = SIGNERS.len() + LEAVES.len() + 2;
