//! The digest a `verification.hash` names, computed over what the files stage writes (after
//! decompression, as Ignition hashes it).

use sha2::Digest as _;

/// A running SHA-256 or SHA-512.
pub(super) enum Hashing {
    Sha256(sha2::Sha256),
    Sha512(sha2::Sha512),
}

impl Hashing {
    /// For a well-formed `sha256-...` or `sha512-...` hash.
    pub(super) fn of(hash: &str) -> Hashing {
        if hash.starts_with("sha256-") {
            Hashing::Sha256(sha2::Sha256::new())
        } else {
            Hashing::Sha512(sha2::Sha512::new())
        }
    }

    pub(super) fn update(&mut self, bytes: &[u8]) {
        match self {
            Hashing::Sha256(h) => h.update(bytes),
            Hashing::Sha512(h) => h.update(bytes),
        }
    }

    /// The hash as the config writes it: `sha512-HEX`.
    pub(super) fn hash(self) -> String {
        let (function, sum) = match self {
            Hashing::Sha256(h) => ("sha256", h.finalize().to_vec()),
            Hashing::Sha512(h) => ("sha512", h.finalize().to_vec()),
        };
        let hex: String = sum.iter().map(|b| format!("{b:02x}")).collect();
        format!("{function}-{hex}")
    }
}

impl std::io::Write for Hashing {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.update(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
