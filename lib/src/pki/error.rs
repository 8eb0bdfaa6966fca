//! The PKI's errors. Each names the certificate or file at fault and never quotes key material.

use std::path::PathBuf;

use time::OffsetDateTime;

use super::{rfc3339, KeyAlgorithm};

/// A certificate past its NotAfter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExpiredCertificate {
    /// Table name, e.g. `kube-apiserver-lb-server`.
    pub name: String,
    /// When it expired.
    pub not_after: OffsetDateTime,
}

fn list(expired: &[ExpiredCertificate]) -> String {
    expired
        .iter()
        .map(|e| format!("{} (expired {})", e.name, rfc3339(e.not_after)))
        .collect::<Vec<_>>()
        .join(", ")
}

fn count(n: usize, what: &str) -> String {
    match (n, what.strip_suffix('y')) {
        (1, _) => format!("1 {what}"),
        // authority, authorities
        (_, Some(stem)) => format!("{n} {stem}ies"),
        (_, None) => format!("{n} {what}s"),
    }
}

/// Why the PKI could not be generated or reused.
#[non_exhaustive]
#[derive(thiserror::Error, Debug)]
pub enum PkiError {
    /// `--key-algorithm` got a value we do not know.
    #[error(
        "unknown key algorithm {value:?}: expected {}",
        KeyAlgorithm::accepted()
    )]
    UnknownKeyAlgorithm {
        /// What was given.
        value: String,
    },

    /// A file in the tls directory exists but cannot be read.
    #[error("cannot read {}", path.display())]
    ReadFile {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },

    /// The tls directory, or a file in it, is another user's to control: refused before a key
    /// is read from it.
    #[error("{foreign}: another user could have planted keys they know there (and so hold the cluster's CAs), or read the keys; reuse only a PKI of your own: copy it as this user into a new directory (mode 0700) and reuse that")]
    Foreign {
        /// What is controlled by whom.
        foreign: crate::ownership::Foreign,
    },

    /// A file in the tls directory is not a certificate or key we can use.
    #[error("{}: {reason}", path.display())]
    InvalidFile {
        /// The file.
        path: PathBuf,
        /// What is wrong with it (never its contents).
        reason: String,
    },

    /// A certificate (or public key) exists but its private key does not.
    #[error(
        "{} exists but its private key {} is missing: restore the key, or remove {} so a new pair is made",
        because.display(), key_file.display(), because.display()
    )]
    MissingKey {
        /// The private key file that should exist.
        key_file: PathBuf,
        /// The certificate or public key file that exists.
        because: PathBuf,
    },

    /// A private key is not the one the certificate was issued for.
    #[error("private key {} does not belong to certificate {}", key_file.display(), cert_file.display())]
    KeyMismatch {
        /// The key file.
        key_file: PathBuf,
        /// The certificate file.
        cert_file: PathBuf,
    },

    /// Reused leaf certificates are past their NotAfter.
    #[error(
        "{} expired: {}; set `renew_expired` to re-issue them under their existing CAs",
        count(expired.len(), "certificate"), list(expired)
    )]
    ExpiredCertificates {
        /// Each expired certificate.
        expired: Vec<ExpiredCertificate>,
    },

    /// Reused certificate authorities are past their NotAfter.
    #[error(
        "{} in {} expired: {}; a CA is never replaced in place because everything it signed would \
         stop verifying: generate into a new output directory (or move {} away) to start over with a new PKI",
        count(expired.len(), "certificate authority"), dir.display(), list(expired), dir.display()
    )]
    ExpiredAuthorities {
        /// Each expired CA.
        expired: Vec<ExpiredCertificate>,
        /// The tls directory holding them.
        dir: PathBuf,
    },

    /// The key generator failed.
    #[error("cannot generate a {algorithm} key for {name}")]
    KeyGeneration {
        /// What the key was for.
        name: String,
        /// The algorithm asked for.
        algorithm: KeyAlgorithm,
    },

    /// Building or signing a certificate failed.
    #[error("cannot issue certificate {name}: {reason}")]
    Issue {
        /// The certificate.
        name: String,
        /// rcgen's explanation.
        reason: String,
    },

    /// A host name that cannot go into a certificate (not ASCII).
    #[error(
        "certificate {name}: {value:?} is not a valid DNS name for a subject alternative name"
    )]
    InvalidSubjectAltName {
        /// The certificate.
        name: String,
        /// The offending name.
        value: String,
    },

    /// The clock plus a validity period does not fit in an X.509 time.
    #[error("certificate {name}: its validity from {now} ends after the year 9999")]
    ValidityOutOfRange {
        /// The certificate.
        name: String,
        /// The clock given.
        now: OffsetDateTime,
    },
}

#[cfg(test)]
mod tests {
    #[test]
    fn counts_read_as_english() {
        assert_eq!(
            super::count(1, "certificate authority"),
            "1 certificate authority"
        );
        assert_eq!(
            super::count(3, "certificate authority"),
            "3 certificate authorities"
        );
        assert_eq!(super::count(2, "certificate"), "2 certificates");
    }
}
