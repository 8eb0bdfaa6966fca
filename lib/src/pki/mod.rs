//! The bootstrap PKI the installer makes: 11 self-signed signers, 13 leaf certificates, the CA
//! bundles, the service-account key pair and the bootstrap SSH key pair, generated or reused
//! from a tls directory, plus the admin, kubelet and loopback kubeconfigs.
//!
//! The table lives in `table.rs` as data. Keys come from aws-lc-rs (RSA 2048 by default, as the
//! installer; RSA 3072/4096/8192 or ECDSA P-256/P-384/P-521 on request, or for the signers as
//! the install-config's `pki` says) and are generated in parallel on all
//! cores, because key generation is nearly all of the run time. rcgen builds and signs the
//! certificates through our own [`rcgen::SigningKey`] implementation.
//!
//! Reuse ([`Pki::build`] with a tls directory): a CA that exists is never rotated; anything
//! missing is generated; a leaf whose SANs no longer match the request, or that its CA did not
//! sign, is re-issued under the existing CA with a [`PkiNotice`]; expired leaves are an error
//! unless `renew_expired`; an expired CA is always an error. With the same directory and the same
//! clock the output is byte-identical: serial numbers are derived from the certificate contents
//! and nothing but key generation (and ECDSA signing of new certificates) draws randomness.
//!
//! A tls directory bootgen wrote holds a record of its key files' digests
//! (`verified-keys.sha256`, `record.rs`): a re-run reads the keys it vouches for without
//! importing them, and imports a key with every check only when it signs or gets a certificate.
//!
//! Encodings: RSA private keys are PKCS#1 PEM (`RSA PRIVATE KEY`), ECDSA keys SEC1 PEM
//! (`EC PRIVATE KEY`); certificates are PEM; `.pub` files follow the installer's quirk described
//! on `keys::PrivateKey::public_pem` (PKIX DER under an `RSA PUBLIC KEY` label for RSA).

mod build;
mod cert;
mod der;
mod error;
mod issue;
mod keys;
mod output;
mod record;
pub(crate) use record::VERIFIED_KEYS_FILE;
mod store;
mod table;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_manifests;
#[cfg(test)]
mod tests_record;
#[cfg(test)]
mod tests_reuse;
mod wanted;

use std::fmt;
use std::path::Path;
use std::str::FromStr;

use time::OffsetDateTime;

pub use error::{ExpiredCertificate, PkiError};

use build::Certified;
pub(crate) use der::{integer_bits, private_key_kind, rsa_public_components};
pub(crate) use keys::PrivateKey;
pub(crate) use table::is_stored_file;

/// The key type for newly generated keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum KeyAlgorithm {
    /// RSA 2048, what the installer uses.
    #[default]
    Rsa2048,
    /// RSA 3072.
    Rsa3072,
    /// RSA 4096.
    Rsa4096,
    /// RSA 8192 (slow to generate: seconds a key).
    Rsa8192,
    /// ECDSA on NIST P-256 (fast to generate).
    EcdsaP256,
    /// ECDSA on NIST P-384.
    EcdsaP384,
    /// ECDSA on NIST P-521.
    EcdsaP521,
}

impl KeyAlgorithm {
    /// Every algorithm, in the order `--help` lists them.
    pub const ALL: [KeyAlgorithm; 7] = [
        KeyAlgorithm::Rsa2048,
        KeyAlgorithm::Rsa3072,
        KeyAlgorithm::Rsa4096,
        KeyAlgorithm::Rsa8192,
        KeyAlgorithm::EcdsaP256,
        KeyAlgorithm::EcdsaP384,
        KeyAlgorithm::EcdsaP521,
    ];

    /// Every name [`FromStr`] takes, for a message: `a, b or c`.
    pub(crate) fn accepted() -> String {
        let names = KeyAlgorithm::ALL.map(KeyAlgorithm::name);
        match names.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
            _ => names.join(""),
        }
    }

    fn name(self) -> &'static str {
        match self {
            KeyAlgorithm::Rsa2048 => "rsa2048",
            KeyAlgorithm::Rsa3072 => "rsa3072",
            KeyAlgorithm::Rsa4096 => "rsa4096",
            KeyAlgorithm::Rsa8192 => "rsa8192",
            KeyAlgorithm::EcdsaP256 => "ecdsa-p256",
            KeyAlgorithm::EcdsaP384 => "ecdsa-p384",
            KeyAlgorithm::EcdsaP521 => "ecdsa-p521",
        }
    }
}

impl fmt::Display for KeyAlgorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for KeyAlgorithm {
    type Err = PkiError;

    fn from_str(value: &str) -> Result<Self, Self::Err> {
        KeyAlgorithm::ALL
            .into_iter()
            .find(|a| a.name() == value)
            .ok_or_else(|| PkiError::UnknownKeyAlgorithm {
                value: value.to_string(),
            })
    }
}

/// The signers' key in the default PKI profile of the releases that have one (the installer's
/// signers, when the ConfigurablePKI feature gate is on and the install-config names no `pki`).
pub const PROFILE_SIGNER_KEY: KeyAlgorithm = KeyAlgorithm::Rsa4096;

/// How long the installer's one-day and one-year certificates live (its ten-year ones never
/// change). The ShortCertRotation feature gate, which exists to test rotation and only
/// CustomNoUpgrade turns on, shortens both to hours.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CertificateLifetimes {
    /// A one-day certificate's: 24 hours, unless shortened.
    pub one_day: time::Duration,
    /// A one-year certificate's: 365 days, unless shortened.
    pub one_year: time::Duration,
}

impl Default for CertificateLifetimes {
    fn default() -> Self {
        CertificateLifetimes {
            one_day: time::Duration::days(1),
            one_year: time::Duration::days(365),
        }
    }
}

impl CertificateLifetimes {
    /// ShortCertRotation's lifetimes: `one_day_hours` for a one-day certificate, twice that for
    /// a one-year one (the installer's 1 and 2 hours in 4.19, 2 and 4 from 4.20).
    pub fn shortened(one_day_hours: u8) -> Self {
        let one_day = time::Duration::hours(i64::from(one_day_hours));
        CertificateLifetimes {
            one_day,
            one_year: one_day * 2,
        }
    }
}

/// What the PKI is for: names and addresses from the validated model, the key type, the clock.
#[derive(Debug, Clone)]
pub struct PkiRequest {
    /// Kubeconfig cluster entry name (`metadata.name`).
    pub cluster_name: String,
    /// `api.<cluster>.<domain>`.
    pub api_host: String,
    /// `api-int.<cluster>.<domain>`.
    pub api_int_host: String,
    /// The addresses the service-network serving certificate names: the installer's, the first
    /// host (index 1) of the primary serviceNetwork CIDR, alone.
    pub service_network_ips: Vec<std::net::IpAddr>,
    /// The addresses the machine-config server's certificate names beside `api_int_host`, each
    /// as an IP address and as a DNS name (as the installer does): the API VIPs of a platform
    /// that has them.
    pub machine_config_server_ips: Vec<std::net::IpAddr>,
    /// Whether the kubelet's bootstrap client certificate names the `system:serviceaccounts`
    /// group beside the machine-config operator's (the installer's from 4.13).
    pub kubelet_client_in_all_service_accounts: bool,
    /// Key type for keys generated now (reused keys keep theirs).
    pub key_algorithm: KeyAlgorithm,
    /// Key type for the signers' keys generated now: `key_algorithm`, unless the cluster's
    /// certificates follow the release's default PKI profile ([`PROFILE_SIGNER_KEY`]).
    pub signer_key_algorithm: KeyAlgorithm,
    /// The clock: validity starts here.
    pub now: OffsetDateTime,
    /// How long the one-day and one-year certificates issued now live.
    pub lifetimes: CertificateLifetimes,
    /// Re-issue expired leaf certificates under their CAs instead of failing.
    pub renew_expired: bool,
}

/// Something the PKI step did that the user should know about when reusing a tls directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PkiNotice {
    /// E.g. `re-issued kube-apiserver-lb-server: SANs changed (api.old → api.new)`.
    pub message: String,
}

impl fmt::Display for PkiNotice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// One file of the PKI. Its `Debug` shows the contents' length only (they may be a key).
#[derive(Clone, PartialEq, Eq)]
pub struct TlsFile {
    /// File name, e.g. `kube-apiserver-lb-server.crt`.
    pub name: String,
    /// File contents.
    pub contents: Vec<u8>,
    /// 0o644 for `root-ca.crt`, 0o600 for everything else.
    pub mode: u32,
    /// Whether it goes into `bootstrap.ign` under `/opt/openshift/tls/`.
    pub shipped: bool,
}

impl std::fmt::Debug for TlsFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TlsFile")
            .field("name", &self.name)
            .field("contents", &format_args!("<{} bytes>", self.contents.len()))
            .field("mode", &format_args!("{:04o}", self.mode))
            .field("shipped", &self.shipped)
            .finish()
    }
}

/// Which kubeconfig to render.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KubeconfigKind {
    /// `admin`: admin client certificate, trusting the complete server CA bundle. The caller
    /// picks the api or api-int server URL.
    Admin,
    /// `kubelet`: the node-bootstrapper client certificate, trusting the complete server bundle.
    Kubelet,
    /// `loopback`: admin client certificate, trusting the localhost CA bundle.
    Loopback,
}

/// Validity of one certificate, for inspection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CertExpiry {
    /// Table name, e.g. `aggregator-signer`.
    pub name: String,
    /// Whether it is a CA.
    pub is_authority: bool,
    /// Start of validity.
    pub not_before: OffsetDateTime,
    /// End of validity.
    pub not_after: OffsetDateTime,
}

/// How many keys a build generates when it reuses nothing (signers, leaves, service account,
/// bootstrap SSH key). With [`generate_key_pairs`] this gives a benchmark its floor.
pub const FRESH_KEY_COUNT: usize = table::FRESH_KEY_COUNT;

/// Generates `count` key pairs of `algorithm` exactly as [`Pki::build`] does (in parallel on all
/// cores) and throws them away: the key-generation floor a benchmark compares a build with.
pub fn generate_key_pairs(algorithm: KeyAlgorithm, count: usize) -> Result<(), PkiError> {
    build::generate_keys(algorithm, count).map(drop)
}

/// The generated or reused PKI.
pub struct Pki {
    cluster_name: String,
    /// In `table::SIGNERS` order.
    signers: Vec<Certified>,
    /// In `table::LEAVES` order.
    leaves: Vec<Certified>,
    service_account: PrivateKey,
    ssh: PrivateKey,
    root_ca_pem: String,
    /// Every file of the tls directory, made once: the shipped files and the stored ones are
    /// the same texts, and the record in them hashes every key.
    files: std::sync::OnceLock<Vec<TlsFile>>,
}

impl fmt::Debug for Pki {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Names only: never key material.
        f.debug_struct("Pki")
            .field("cluster_name", &self.cluster_name)
            .field("certificates", &(self.signers.len() + self.leaves.len()))
            .finish_non_exhaustive()
    }
}

impl Pki {
    /// Generates everything, or reuses what exists in `tls_dir` (a directory of
    /// `<name>.key`/`.crt`/`.pub` files as written by [`Pki::store_files`]). The notices say what
    /// was re-issued, renewed or filled in.
    pub fn build(
        req: &PkiRequest,
        tls_dir: Option<&Path>,
    ) -> Result<(Pki, Vec<PkiNotice>), PkiError> {
        let built = build::build(req, tls_dir)?;
        let root_ca_pem = built
            .signers
            .first()
            .map(|root| root.cert.pem())
            .unwrap_or_default();
        let pki = Pki {
            cluster_name: req.cluster_name.clone(),
            signers: built.signers,
            leaves: built.leaves,
            service_account: built.service_account,
            ssh: built.ssh,
            root_ca_pem,
            files: std::sync::OnceLock::new(),
        };
        Ok((pki, built.notices))
    }

    /// The root CA certificate (PEM), which `master.ign`/`worker.ign` trust.
    pub fn root_ca_pem(&self) -> &str {
        &self.root_ca_pem
    }

    /// The bootstrap SSH public key: one OpenSSH `authorized_keys` line (`ssh-rsa AAAA…`, or
    /// `ecdsa-sha2-nistp256 …` with `ecdsa-p256`) with a trailing newline.
    pub fn bootstrap_ssh_public_key(&self) -> String {
        self.ssh.ssh_public_line()
    }

    /// The bootstrap SSH private key as PEM that OpenSSH loads (PKCS#1 `RSA PRIVATE KEY`, or
    /// SEC1 `EC PRIVATE KEY`).
    pub fn bootstrap_ssh_private_key_pem(&self) -> String {
        self.ssh.pem()
    }

    fn signer(&self, name: &str) -> Option<&Certified> {
        table::SIGNERS
            .iter()
            .position(|s| s.name == name)
            .and_then(|i| self.signers.get(i))
    }

    fn leaf(&self, name: &str) -> Option<&Certified> {
        table::LEAVES
            .iter()
            .position(|s| s.name == name)
            .and_then(|i| self.leaves.get(i))
    }
}

/// PEM text with LF line endings, 64 columns.
pub(crate) fn pem_text(label: &str, der: &[u8]) -> String {
    pem::encode_config(
        &pem::Pem::new(label, der),
        pem::EncodeConfig::new().set_line_ending(pem::LineEnding::LF),
    )
}

/// `2026-01-01T00:00:00Z`; written by hand so it does not depend on `time`'s formatting feature.
pub(crate) fn rfc3339(t: OffsetDateTime) -> String {
    let t = t.to_offset(time::UtcOffset::UTC);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute(),
        t.second()
    )
}
