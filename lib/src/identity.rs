//! The cluster's identity: cluster ID, infrastructure name and kubeadmin password.
//!
//! They are derived from the root CA (key and certificate) rather than drawn from an RNG, so
//! that reusing a PKI reproduces them exactly, and a new PKI gives new ones. The root CA key
//! is secret, so values derived from it are as unguessable as random ones.

use sha2::{Digest, Sha256};

/// The derived identity.
#[derive(Clone, PartialEq, Eq)]
pub struct Identity {
    /// Cluster UUID (the CVO's `clusterID`).
    pub cluster_id: String,
    /// Infrastructure name: `<name prefix>-<5 chars>`.
    pub infra_id: String,
    /// The kubeadmin password (`xxxxx-xxxxx-xxxxx-xxxxx`).
    pub kubeadmin_password: String,
    /// Its bcrypt hash.
    pub kubeadmin_hash: String,
}

impl std::fmt::Debug for Identity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Identity")
            .field("cluster_id", &self.cluster_id)
            .field("infra_id", &self.infra_id)
            .field("kubeadmin_password", &"<redacted>")
            .finish()
    }
}

/// bcrypt cost of the kubeadmin hash, as the installer uses.
const BCRYPT_COST: u32 = 10;

fn derive(secret: &[u8], label: &str) -> [u8; 32] {
    let mut hasher = Sha256::new();
    hasher.update(label.as_bytes());
    hasher.update([0u8]);
    hasher.update(secret);
    hasher.finalize().into()
}

/// File in `tls/` that keeps the kubeadmin bcrypt hash, so a run that reuses the PKI does not
/// spend ~70 ms hashing again. Its first word ties it to the root CA key it was derived from.
pub const HASH_CACHE_FILE: &str = "kubeadmin-password.bcrypt";

fn cache_tag(root_ca_key: &[u8]) -> String {
    base16ct::lower::encode_string(&derive(root_ca_key, "bootgen kubeadmin cache tag")[..8])
}

/// The contents of [`HASH_CACHE_FILE`] for this identity.
pub fn hash_cache(identity: &Identity, root_ca_key: &[u8]) -> String {
    format!("{} {}\n", cache_tag(root_ca_key), identity.kubeadmin_hash)
}

/// The hash from a cache file's text, when it belongs to this root CA key.
fn cached_hash(cache: Option<&str>, root_ca_key: &[u8]) -> Option<String> {
    let (tag, hash) = cache?.trim().split_once(' ')?;
    (tag == cache_tag(root_ca_key) && hash.starts_with("$2")).then(|| hash.to_string())
}

/// Derives the identity from the root CA key and certificate PEM; `cache` is the text of a
/// [`HASH_CACHE_FILE`] from an earlier run, if any.
pub fn derive_identity(
    cluster_name: &str,
    root_ca_key: &[u8],
    root_ca_cert: &[u8],
    cache: Option<&str>,
) -> Identity {
    let mut id_seed = root_ca_cert.to_vec();
    id_seed.extend_from_slice(cluster_name.as_bytes());
    let id_bytes = derive(&id_seed, "bootgen cluster id");
    let mut uuid_bytes = [0u8; 16];
    uuid_bytes.copy_from_slice(&id_bytes[..16]);
    let cluster_id = uuid::Builder::from_random_bytes(uuid_bytes)
        .into_uuid()
        .to_string();

    const LOWER: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
    let suffix: String = id_bytes[16..21]
        .iter()
        .map(|b| LOWER[usize::from(*b) % LOWER.len()] as char)
        .collect();
    let prefix: String = cluster_name.chars().take(21).collect();
    let infra_id = format!("{}-{suffix}", prefix.trim_end_matches('-'));

    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    let password_bytes = derive(root_ca_key, "bootgen kubeadmin password");
    let mut kubeadmin_password = String::new();
    for (i, b) in password_bytes.iter().take(20).enumerate() {
        if i > 0 && i % 5 == 0 {
            kubeadmin_password.push('-');
        }
        kubeadmin_password.push(ALPHABET[usize::from(*b) % ALPHABET.len()] as char);
    }
    let kubeadmin_hash = cached_hash(cache, root_ca_key).unwrap_or_else(|| {
        let salt_bytes = derive(root_ca_key, "bootgen kubeadmin salt");
        let mut salt = [0u8; 16];
        salt.copy_from_slice(&salt_bytes[..16]);
        bcrypt::hash_with_salt(&kubeadmin_password, BCRYPT_COST, salt)
            .map(|parts| parts.format_for_version(bcrypt::Version::TwoA))
            .unwrap_or_default()
    });
    Identity {
        cluster_id,
        infra_id,
        kubeadmin_password,
        kubeadmin_hash,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_pki_same_identity_other_pki_other_identity() {
        let a = derive_identity("example", b"key-a", b"cert-a", None);
        let b = derive_identity("example", b"key-a", b"cert-a", None);
        let c = derive_identity("example", b"key-b", b"cert-b", None);
        assert_eq!(a, b);
        assert_ne!(a.cluster_id, c.cluster_id);
        assert_ne!(a.kubeadmin_password, c.kubeadmin_password);
        assert!(a.infra_id.starts_with("example-"));
        assert_eq!(a.kubeadmin_password.len(), 23);
        assert!(bcrypt::verify(&a.kubeadmin_password, &a.kubeadmin_hash).unwrap());
        assert!(!format!("{a:?}").contains(&a.kubeadmin_password));
    }

    #[test]
    fn the_hash_cache_is_used_only_for_its_own_root_key() {
        let a = derive_identity("example", b"key-a", b"cert-a", None);
        let cache = hash_cache(&a, b"key-a");
        assert_eq!(
            derive_identity("example", b"key-a", b"cert-a", Some(&cache)),
            a
        );
        let c = derive_identity("example", b"key-b", b"cert-b", Some(&cache));
        assert_ne!(
            c.kubeadmin_hash, a.kubeadmin_hash,
            "another root key must not reuse it"
        );
        assert!(bcrypt::verify(&c.kubeadmin_password, &c.kubeadmin_hash).unwrap());
        let junk = derive_identity("example", b"key-a", b"cert-a", Some("garbage"));
        assert_eq!(junk, a);
    }
}
