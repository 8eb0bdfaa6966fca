//! Finding the cause table's fragments in a line in one pass. A bundle holds gigabytes of
//! journal, almost none of it evidence; testing each of the table's ~70 fragments against each
//! line would read every line ~70 times. Instead every position of the line is looked up once
//! in a table of the fragments' first two bytes (ASCII case folded), and only a hit is compared
//! in full. The facts' words (`causes::FACT_WORDS`) are found in the same pass.

use std::sync::OnceLock;

use crate::causes::{Cause, FACT_WORDS, TABLE};

/// Words that make a line an error line worth showing when no cause matches.
const ERROR_WORDS: &[&str] = &["error", "fail", "fatal"];

/// The fragments of every pattern, the error words and the facts' words, indexed by their first
/// two bytes.
struct Index {
    fragments: Vec<&'static str>,
    /// For each two-byte prefix (lower case), the fragments that start with it.
    by_prefix: Vec<Vec<u16>>,
}

fn prefix_key(a: u8, b: u8) -> usize {
    (usize::from(a.to_ascii_lowercase()) << 8) | usize::from(b.to_ascii_lowercase())
}

fn index() -> &'static Index {
    static INDEX: OnceLock<Index> = OnceLock::new();
    INDEX.get_or_init(|| {
        let mut fragments: Vec<&'static str> = ERROR_WORDS.to_vec();
        fragments.extend(FACT_WORDS.iter().filter(|w| !ERROR_WORDS.contains(w)));
        for row in TABLE {
            for pattern in row.patterns {
                for fragment in pattern.all.iter().chain(pattern.but_not) {
                    if !fragments.contains(fragment) {
                        fragments.push(fragment);
                    }
                }
            }
        }
        let mut by_prefix = vec![Vec::new(); 1 << 16];
        for (i, fragment) in fragments.iter().enumerate() {
            let bytes = fragment.as_bytes();
            // Every fragment has at least two bytes (a test below keeps it so).
            if let (Some(&a), Some(&b), Ok(i)) = (bytes.first(), bytes.get(1), u16::try_from(i)) {
                by_prefix[prefix_key(a, b)].push(i);
            }
        }
        Index {
            fragments,
            by_prefix,
        }
    })
}

/// Which fragments a line holds.
pub(crate) struct Found {
    present: Vec<bool>,
    any: bool,
}

impl Found {
    /// Whether the line holds any indexed fragment at all.
    pub(crate) fn any(&self) -> bool {
        self.any
    }

    /// Whether the line holds `fragment`, one of the indexed fragments.
    pub(crate) fn has(&self, fragment: &str) -> bool {
        let index = index();
        index
            .fragments
            .iter()
            .position(|f| *f == fragment)
            .is_some_and(|i| self.present[i])
    }

    /// Whether the line looks like an error (or matched a cause).
    pub(crate) fn is_error_line(&self) -> bool {
        self.any && ERROR_WORDS.iter().any(|w| self.has(w))
    }

    /// The causes the line shows, in the file `lower_path` (its path in lower case).
    pub(crate) fn causes<'a>(&'a self, lower_path: &'a str) -> impl Iterator<Item = Cause> + 'a {
        TABLE
            .iter()
            .filter(move |row| {
                self.any
                    && row.patterns.iter().any(|pattern| {
                        (pattern.only_in.is_empty()
                            || pattern.only_in.iter().any(|n| lower_path.contains(n)))
                            && pattern.all.iter().all(|fragment| self.has(fragment))
                            && !pattern.but_not.iter().any(|fragment| self.has(fragment))
                    })
            })
            .map(|row| row.cause)
    }
}

/// Looks for every fragment in `line`, ignoring ASCII case.
pub(crate) fn scan(line: &str) -> Found {
    let index = index();
    let bytes = line.as_bytes();
    let mut found = Found {
        present: vec![false; index.fragments.len()],
        any: false,
    };
    for start in 0..bytes.len().saturating_sub(1) {
        let candidates = &index.by_prefix[prefix_key(bytes[start], bytes[start + 1])];
        for &i in candidates {
            let i = usize::from(i);
            if found.present[i] {
                continue;
            }
            let fragment = index.fragments[i].as_bytes();
            let end = start + fragment.len();
            if end <= bytes.len() && bytes[start..end].eq_ignore_ascii_case(fragment) {
                found.present[i] = true;
                found.any = true;
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_fragment_is_lower_case_and_two_bytes_or_more() {
        for fragment in &index().fragments {
            assert!(fragment.len() >= 2, "{fragment:?}");
            assert_eq!(*fragment, fragment.to_ascii_lowercase(), "{fragment:?}");
        }
    }

    #[test]
    fn finds_fragments_in_any_case_and_at_the_ends() {
        let found = scan("Error: No space left on device");
        assert!(found.is_error_line());
        assert_eq!(
            found.causes("a.log").collect::<Vec<_>>(),
            vec![Cause::DiskFull]
        );
        let found = scan("all is well");
        assert!(!found.is_error_line());
        assert_eq!(found.causes("a.log").count(), 0);
    }

    fn causes(path: &str, line: &str) -> Vec<Cause> {
        scan(line).causes(&path.to_ascii_lowercase()).collect()
    }

    /// A kube-apiserver that dies of a panic has crashed; one that logs a panic it recovered
    /// from (a handler's) runs on.
    #[test]
    fn a_recovered_panic_is_no_crash() {
        let log = "bootstrap/containers/kube-apiserver-1a2b.log";
        assert_eq!(
            causes(
                log,
                "panic: runtime error: invalid memory address or nil pointer dereference"
            ),
            [Cause::ApiServerCrashed]
        );
        let recovered = "E1128 10:00:00.000000 1 runtime.go:79] Observed a panic: &errors.errorString{s:\"killing connection/stream because serving request timed out\"}";
        assert_eq!(causes(log, recovered), []);
    }

    #[test]
    fn the_x509_time_message_tells_expired_from_not_yet_valid() {
        let expired = "x509: certificate has expired or is not yet valid: current time 2026-01-03T01:00:00Z is after 2026-01-02T01:00:00Z";
        let early = "x509: certificate has expired or is not yet valid: current time 2025-12-31T01:00:00Z is before 2026-01-01T01:00:00Z";
        assert_eq!(causes("a.log", expired), vec![Cause::CertificateExpired]);
        assert_eq!(causes("a.log", early), vec![Cause::CertificateNotYetValid]);
    }

    #[test]
    fn csr_patterns_apply_only_to_csr_files() {
        assert_eq!(
            causes("resources/csr.yaml", "  status: {}"),
            vec![Cause::CsrPending]
        );
        assert!(causes("resources/nodes.yaml", "  status: {}").is_empty());
        // `oc get csr -o json` put on one line (`jq -c`): the list is one line.
        assert_eq!(
            causes(
                "resources/csr.json",
                r#"{"items":[{"metadata":{"name":"csr-a"},"status":{}}],"kind":"List"}"#
            ),
            vec![Cause::CsrPending]
        );
    }

    #[test]
    fn a_kubelet_waiting_for_its_certificate_shows_pending_csrs_in_any_log() {
        let line = "E0101 01:35:00.000000    1900 certificate_manager.go:562] kubernetes.io/kube-apiserver-client-kubelet: Certificate request was not signed: timed out waiting for the condition";
        assert_eq!(
            causes("control-plane/192.0.2.21/journals/kubelet.log", line),
            vec![Cause::CsrPending]
        );
        // Not the request that could not even be made: that is the API, not an approval.
        let refused = "E0101 01:35:00.000000    1900 certificate_manager.go:562] kubernetes.io/kube-apiserver-client-kubelet: Failed while requesting a signed certificate from the control plane: cannot create certificate signing request: Post \"https://api-int.ostest.example.com:6443/apis/certificates.k8s.io/v1/certificatesigningrequests\": dial tcp 192.0.2.10:6443: connect: connection refused";
        assert_eq!(
            causes("control-plane/192.0.2.21/journals/kubelet.log", refused),
            vec![Cause::ApiUnreachable]
        );
        assert_eq!(
            causes("resources/csr.json", "            \"status\": {}"),
            vec![Cause::CsrPending]
        );
    }

    #[test]
    fn a_masked_unit_is_a_held_unit() {
        let line = "Failed to start bootkube.service: Unit bootkube.service is masked.";
        assert_eq!(
            causes("bootstrap/journals/bootkube.log", line),
            vec![Cause::UnitHeld]
        );
    }

    #[test]
    fn an_ordinary_line_matches_nothing() {
        assert!(causes("bootkube.log", "Starting etcd-bootstrap").is_empty());
    }
}
