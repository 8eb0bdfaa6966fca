//! CPU architectures: one table of facts, so no template or check branches on names.

use serde::Serialize;
use std::fmt;
use std::str::FromStr;

/// A target CPU architecture.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(into = "ArchFacts")]
pub enum Arch {
    /// x86_64.
    Amd64,
    /// aarch64.
    Arm64,
    /// 64-bit little-endian POWER.
    Ppc64le,
    /// IBM Z.
    S390x,
}

/// The facts that differ between architectures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ArchFacts {
    /// Go / install-config / container image name (`arm64`).
    pub go: &'static str,
    /// Kernel (`uname -m`) and RPM name (`aarch64`).
    pub kernel: &'static str,
    /// Suffix of OCP release tags (`4.19.0-aarch64`).
    pub release_suffix: &'static str,
}

const TABLE: [(Arch, ArchFacts); 4] = [
    (
        Arch::Amd64,
        ArchFacts {
            go: "amd64",
            kernel: "x86_64",
            release_suffix: "x86_64",
        },
    ),
    (
        Arch::Arm64,
        ArchFacts {
            go: "arm64",
            kernel: "aarch64",
            release_suffix: "aarch64",
        },
    ),
    (
        Arch::Ppc64le,
        ArchFacts {
            go: "ppc64le",
            kernel: "ppc64le",
            release_suffix: "ppc64le",
        },
    ),
    (
        Arch::S390x,
        ArchFacts {
            go: "s390x",
            kernel: "s390x",
            release_suffix: "s390x",
        },
    ),
];

/// Release tag suffix of a multi-architecture (manifest list) payload.
pub const MULTI_SUFFIX: &str = "multi";

impl Arch {
    /// Every architecture, in table order.
    pub fn all() -> impl Iterator<Item = Arch> {
        TABLE.iter().map(|(arch, _)| *arch)
    }

    /// This architecture's facts.
    pub fn facts(self) -> ArchFacts {
        TABLE
            .iter()
            .find(|(arch, _)| *arch == self)
            .map(|(_, facts)| *facts)
            .unwrap_or(TABLE[0].1)
    }

    /// The Go name (`arm64`).
    pub fn go(self) -> &'static str {
        self.facts().go
    }

    /// The accepted spellings, for error messages.
    pub fn accepted_names() -> String {
        let mut names: Vec<&str> = Vec::new();
        for (_, facts) in TABLE {
            names.push(facts.go);
            if facts.kernel != facts.go {
                names.push(facts.kernel);
            }
        }
        names.join(", ")
    }
}

impl From<Arch> for ArchFacts {
    fn from(arch: Arch) -> Self {
        arch.facts()
    }
}

impl fmt::Display for Arch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.go())
    }
}

/// The error for a name that is no architecture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownArch(pub String);

impl fmt::Display for UnknownArch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown architecture `{}`; accepted: {}",
            self.0,
            Arch::accepted_names()
        )
    }
}

impl std::error::Error for UnknownArch {}

impl FromStr for Arch {
    type Err = UnknownArch;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        TABLE
            .iter()
            .find(|(_, facts)| facts.go == s || facts.kernel == s)
            .map(|(arch, _)| *arch)
            .ok_or_else(|| UnknownArch(s.to_string()))
    }
}

/// A release tag without its architecture suffix: `4.16.3-x86_64` and `4.16.3-multi` give
/// `4.16.3`; a tag without one is returned as it is.
pub fn strip_arch_suffix(tag: &str) -> &str {
    let suffixes = TABLE
        .iter()
        .flat_map(|(_, facts)| [facts.release_suffix, facts.go, facts.kernel])
        .chain([MULTI_SUFFIX]);
    for suffix in suffixes {
        if let Some(rest) = tag.strip_suffix(suffix).and_then(|t| t.strip_suffix('-')) {
            return rest;
        }
    }
    tag
}

/// What a release payload holds, as far as its reference tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PayloadArch {
    /// A single-architecture payload.
    Single(Arch),
    /// A manifest list covering every architecture.
    Multi,
    /// The reference does not say (a digest, or a tag without a suffix).
    Unknown,
}

impl PayloadArch {
    /// Reads the architecture from a release tag such as `4.19.0-aarch64` or `4.19.0-multi`.
    pub fn from_reference(reference: &str) -> PayloadArch {
        if reference.contains('@') {
            return PayloadArch::Unknown;
        }
        let last = reference.rsplit('/').next().unwrap_or(reference);
        let Some((_, tag)) = last.split_once(':') else {
            return PayloadArch::Unknown;
        };
        let tag = tag.to_ascii_lowercase();
        if tag == MULTI_SUFFIX || tag.ends_with(&format!("-{MULTI_SUFFIX}")) {
            return PayloadArch::Multi;
        }
        for (arch, facts) in TABLE {
            for name in [facts.release_suffix, facts.go, facts.kernel] {
                if tag == name || tag.ends_with(&format!("-{name}")) {
                    return PayloadArch::Single(arch);
                }
            }
        }
        PayloadArch::Unknown
    }

    /// True when a host of `arch` can run this payload (unknown counts as yes).
    pub fn runs_on(self, arch: Arch) -> bool {
        match self {
            PayloadArch::Single(payload) => payload == arch,
            PayloadArch::Multi | PayloadArch::Unknown => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_go_and_kernel_names() {
        assert_eq!("arm64".parse::<Arch>(), Ok(Arch::Arm64));
        assert_eq!("aarch64".parse::<Arch>(), Ok(Arch::Arm64));
        assert_eq!("x86_64".parse::<Arch>(), Ok(Arch::Amd64));
        let err = "mips".parse::<Arch>().unwrap_err().to_string();
        assert!(err.contains("mips") && err.contains("ppc64le") && err.contains("aarch64"));
    }

    #[test]
    fn reads_payload_arch_from_tags() {
        use PayloadArch::*;
        let r = |s| PayloadArch::from_reference(s);
        assert_eq!(
            r("quay.io/x/ocp-release:4.19.0-aarch64"),
            Single(Arch::Arm64)
        );
        assert_eq!(
            r("quay.io/x/ocp-release:4.19.0-x86_64"),
            Single(Arch::Amd64)
        );
        assert_eq!(r("quay.io/x/ocp-release:4.19.0-multi"), Multi);
        assert_eq!(r("registry:5000/x/release:4.19"), Unknown);
        assert_eq!(r("quay.io/x/ocp-release@sha256:abc"), Unknown);
        assert!(Multi.runs_on(Arch::S390x));
        assert!(!Single(Arch::Amd64).runs_on(Arch::Arm64));
    }
}
