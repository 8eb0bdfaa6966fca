//! What no single line shows, gathered over the whole bundle: whether the bootstrap
//! machine-config server started and whether it ever served a config, whether cluster-bootstrap
//! was waiting for control-plane pods, whether any control-plane machine showed up (a node, a pod
//! running on one, a kubelet asking for its certificate), when the bundle was gathered and the
//! cluster's `api-int` name. Together they prove a cause no component prints: control-plane
//! machines that never reached port 22623.
//!
//! The proof, and why each part is needed:
//! - the bootstrap machine-config server logged that it serves: it was up, so a silence is not
//!   the bootstrap's own fault;
//! - it logged no request for a config (`Pool master requested by address: ...`): a machine that
//!   reached it, however it failed later, leaves that line;
//! - cluster-bootstrap was still waiting for control-plane pods that did not exist or could not be
//!   scheduled, and no control-plane machine showed up anywhere: nothing joined;
//! - [`SILENCE_MINUTES`] or more passed between the server's start and the gather (or now, on the
//!   node): Ignition on a booted machine asks within a minute or two and retries every few
//!   seconds, so this is no slow start.

use time::OffsetDateTime;

use crate::evidence::Evidence;
use crate::klog::{klog_time, KlogTime};
use crate::matcher::Found;

/// Pods whose state is kept (cluster-bootstrap waits for four).
const MAX_PODS: usize = 8;

/// Minutes without a request after which the machine-config server's silence counts.
pub(crate) const SILENCE_MINUTES: i64 = 10;

/// What kind of file a line comes from, as far as the facts care.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum FactFile {
    /// The bootstrap node's machine-config server container log.
    BootstrapMcs,
    /// A machine-config server's log on another host.
    OtherMcs,
    /// The API's nodes (`resources/nodes.*`).
    Nodes,
    /// The installer's `resources/masters.list`: a control-plane node's name a line.
    MastersList,
    /// The API's certificate signing requests.
    Csrs,
    /// `bootstrap/host/date.txt`: when the bundle was gathered (or, on the node, now).
    GatherDate,
    /// The Infrastructure manifest, which names `api-int`.
    Infrastructure,
    /// Anything else.
    Other,
}

impl FactFile {
    /// The kind of `lower_path` (a bundle path in lower case).
    pub(crate) fn of(lower_path: &str) -> FactFile {
        let inner = lower_path
            .strip_prefix(crate::layout::PRE_REBOOT)
            .unwrap_or(lower_path);
        let file = inner.rsplit('/').next().unwrap_or(inner);
        if file.starts_with("machine-config-server") && file.ends_with(".log") {
            return if inner.starts_with("bootstrap/") {
                FactFile::BootstrapMcs
            } else {
                FactFile::OtherMcs
            };
        }
        // `check-watch/`: what `check --watch` saw of the API itself (`check::seen`).
        if inner.starts_with("resources/") || inner.starts_with("check-watch/") {
            if file.starts_with("nodes") {
                return FactFile::Nodes;
            }
            if file == "masters.list" {
                return FactFile::MastersList;
            }
            if file.starts_with("csr") || file.starts_with("certificatesigningrequests") {
                return FactFile::Csrs;
            }
        }
        if inner == "bootstrap/host/date.txt" {
            return FactFile::GatherDate;
        }
        if file == "cluster-infrastructure-02-config.yml" {
            return FactFile::Infrastructure;
        }
        FactFile::Other
    }
}

/// The facts kept so far; a few lines each, whatever the bundle's size.
#[derive(Default)]
pub(crate) struct Facts {
    /// The bootstrap machine-config server saying it serves, and the time its log line gives.
    launched: Option<(Evidence, Option<KlogTime>)>,
    /// The archive or file time of the bootstrap machine-config server's log: when it was read.
    mcs_log_time: Option<i64>,
    /// The first config a machine-config server served.
    served: Option<Evidence>,
    /// The last line of cluster-bootstrap waiting for a control-plane pod.
    awaited: Option<Evidence>,
    /// cluster-bootstrap giving up that wait.
    gave_up: Option<Evidence>,
    /// A sign that a control-plane machine joined.
    joined: Option<Evidence>,
    /// The last `Pod Status` line of each pod cluster-bootstrap waited for (a few pods).
    pod_states: Vec<(String, Evidence)>,
    /// When the bundle was gathered.
    gathered: Option<OffsetDateTime>,
    /// The `api-int` host name.
    api_int_host: Option<String>,
}

/// The proof that the control-plane machines never reached the machine-config server.
pub(crate) struct Silence {
    /// The lines it rests on.
    pub(crate) evidence: Vec<Evidence>,
    /// Minutes from the server's start to the gather.
    pub(crate) minutes: i64,
}

impl Facts {
    /// Notes the time of a file as the archive or directory gives it.
    pub(crate) fn file_time(&mut self, lower_path: &str, mtime: Option<i64>) {
        if FactFile::of(lower_path) == FactFile::BootstrapMcs {
            self.mcs_log_time = self.mcs_log_time.max(mtime);
        }
    }

    /// Looks at one line of a file of kind `file`; `found` is the matcher's result for it.
    pub(crate) fn observe(
        &mut self,
        file: FactFile,
        line: &str,
        found: &Found,
        evidence: impl Fn() -> Evidence,
    ) {
        let lower = || line.to_ascii_lowercase();
        match file {
            FactFile::BootstrapMcs | FactFile::OtherMcs => {
                let lower = lower();
                // A request from the bootstrap node itself (a curl on it) proves nothing of the
                // control-plane machines.
                let loopback =
                    lower.contains("address:\"127.") || lower.contains("address:\"[::1]");
                if lower.contains("requested by address") && !loopback && self.served.is_none() {
                    self.served = Some(evidence());
                }
                // The line of port 22623 (the one machines fetch from) if there is one.
                let better = match &self.launched {
                    None => true,
                    Some((kept, _)) => !kept.text.contains(":22623") && line.contains(":22623"),
                };
                if file == FactFile::BootstrapMcs && lower.contains("launching server") && better {
                    self.launched = Some((evidence(), klog_time(line)));
                }
            }
            FactFile::Nodes => {
                let lower = lower();
                let role = lower.contains("node-role.kubernetes.io/master")
                    || lower.contains("node-role.kubernetes.io/control-plane");
                if self.joined.is_none() && role {
                    self.joined = Some(evidence());
                }
            }
            FactFile::MastersList => {
                let name = line.trim();
                if self.joined.is_none() && !name.is_empty() && !name.contains(' ') {
                    self.joined = Some(evidence());
                }
            }
            FactFile::Csrs => {
                // Only a kubelet that got its bootstrap credentials, from the machine-config
                // server, asks this signer.
                if self.joined.is_none() && lower().contains("kube-apiserver-client-kubelet") {
                    self.joined = Some(evidence());
                }
            }
            FactFile::GatherDate => {
                if self.gathered.is_none() {
                    self.gathered = OffsetDateTime::parse(
                        line.trim(),
                        &time::format_description::well_known::Rfc3339,
                    )
                    .ok();
                }
            }
            FactFile::Infrastructure => {
                if let Some(host) = api_int_host(line) {
                    self.api_int_host.get_or_insert(host);
                }
            }
            FactFile::Other => {}
        }
        if !found.any() {
            return;
        }
        if found.has("pod status:") {
            // cluster-bootstrap: `Pod Status:<namespace>/<name>  <DoesNotExist|Pending|...>`.
            let pod = pod_of(line);
            self.note_pod_state(&pod, evidence());
            // The cluster-version operator runs on the bootstrap node itself before a
            // control-plane machine exists: its being ready proves no machine joined.
            let on_a_master = !pod.starts_with("openshift-cluster-version/");
            match line.split_whitespace().last() {
                Some("DoesNotExist" | "Pending") => {
                    // The latest, but from a unit's own journal rather than the whole one.
                    let seen = evidence();
                    let whole = |e: &Evidence| e.file.ends_with("journal.log.gz");
                    if self
                        .awaited
                        .as_ref()
                        .is_none_or(|kept| whole(kept) || !whole(&seen))
                    {
                        self.awaited = Some(seen);
                    }
                }
                Some("Ready" | "RunningNotReady") if self.joined.is_none() && on_a_master => {
                    self.joined = Some(evidence());
                }
                _ => {}
            }
        }
        if found.has("master status:") && self.joined.is_none() {
            self.joined = Some(evidence());
        }
        if found.has("error while checking pod status") && self.gave_up.is_none() {
            self.gave_up = Some(evidence());
        }
    }

    /// Keeps `seen` as the latest state of `pod`, preferring a unit's own journal to the whole.
    fn note_pod_state(&mut self, pod: &str, seen: Evidence) {
        let whole = |e: &Evidence| e.file.ends_with("journal.log.gz");
        let room = self.pod_states.len() < MAX_PODS;
        match self.pod_states.iter_mut().find(|(name, _)| name == pod) {
            Some((_, kept)) if whole(kept) || !whole(&seen) => *kept = seen,
            Some(_) => {}
            None if room => self.pod_states.push((pod.to_string(), seen)),
            None => {}
        }
    }

    /// The last line cluster-bootstrap printed for each pod it waited for: what shows the state
    /// of a bootstrap stuck there when no line is an error.
    pub(crate) fn pod_states(&self) -> Vec<Evidence> {
        self.pod_states.iter().map(|(_, e)| e.clone()).collect()
    }

    /// The `api-int` host name of the cluster, if the bundle names it.
    pub(crate) fn api_int_host(&self) -> Option<&str> {
        self.api_int_host.as_deref()
    }

    /// Minutes from the bootstrap machine-config server's start to the gather, when both are
    /// known.
    fn minutes_serving(&self) -> Option<i64> {
        let (_, Some(started)) = self.launched.as_ref()? else {
            return None;
        };
        let end = self.gathered.or_else(|| {
            self.mcs_log_time
                .and_then(|t| OffsetDateTime::from_unix_timestamp(t).ok())
        })?;
        let start = started.in_year_before(end)?;
        Some((end - start).whole_minutes())
    }

    /// The proof of [`Silence`], if the facts make it.
    pub(crate) fn silence(&self) -> Option<Silence> {
        let (launched, _) = self.launched.as_ref()?;
        if self.served.is_some() || self.joined.is_some() {
            return None;
        }
        let waiting = self.awaited.as_ref().or(self.gave_up.as_ref())?;
        let minutes = self.minutes_serving()?;
        if minutes < SILENCE_MINUTES {
            return None;
        }
        let mut evidence = vec![launched.clone(), waiting.clone()];
        if let Some(gave_up) = &self.gave_up {
            if gave_up.text != waiting.text {
                evidence.push(gave_up.clone());
            }
        }
        Some(Silence { evidence, minutes })
    }

    /// A note when the server is up and has served nothing yet, but not for long enough to count.
    pub(crate) fn early_silence_note(&self) -> Option<String> {
        if self.served.is_some() || self.joined.is_some() {
            return None;
        }
        let minutes = self.minutes_serving()?;
        (minutes < SILENCE_MINUTES).then(|| {
            format!(
                "the bootstrap machine-config server has served no config yet, {minutes} minutes after it started"
            )
        })
    }
}

/// The pod a `Pod Status:<namespace>/<name>` line names.
fn pod_of(line: &str) -> String {
    let lower = line.to_ascii_lowercase();
    let after = lower
        .find("pod status:")
        .map_or("", |at| &lower[at + "pod status:".len()..]);
    after
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .to_string()
}

/// The host of `apiServerInternalURI: https://HOST:6443` in the Infrastructure manifest.
fn api_int_host(line: &str) -> Option<String> {
    let (key, value) = line.trim().split_once(':')?;
    if key != "apiServerInternalURI" {
        return None;
    }
    let url = value.trim().trim_matches(|c| c == '"' || c == '\'');
    let rest = url.strip_prefix("https://")?;
    let host: String = rest
        .chars()
        .take_while(|c| *c != ':' && *c != '/')
        .collect();
    let valid = !host.is_empty()
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-');
    valid.then_some(host)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn evidence(text: &str) -> Evidence {
        Evidence {
            file: "f".into(),
            line: 1,
            text: text.into(),
        }
    }

    fn observe(facts: &mut Facts, path: &str, line: &str) {
        let found = crate::matcher::scan(line);
        facts.observe(FactFile::of(path), line, &found, || evidence(line));
    }

    /// A bootstrap whose machine-config server started at 01:00:40 and whose cluster-bootstrap
    /// waits for the API server pod.
    fn waiting(gathered: &str) -> Facts {
        let mut facts = Facts::default();
        observe(
            &mut facts,
            "bootstrap/containers/machine-config-server-1.log",
            "I0101 01:00:40.000000       1 api.go:66] Launching server on :22623",
        );
        observe(
            &mut facts,
            "bootstrap/journals/bootkube.log",
            "2026-01-01T01:20:00+0000 bootstrap bootkube.sh[2001]: \tPod Status:openshift-kube-apiserver/kube-apiserver\tDoesNotExist",
        );
        observe(&mut facts, "bootstrap/host/date.txt", gathered);
        facts
    }

    #[test]
    fn silence_needs_time() {
        let silence = waiting("2026-01-01T01:40:40Z").silence().unwrap();
        assert_eq!(silence.minutes, 40);
        assert_eq!(silence.evidence.len(), 2);
        let early = waiting("2026-01-01T01:05:40Z");
        assert!(early.silence().is_none());
        assert!(early.early_silence_note().unwrap().contains("5 minutes"));
    }

    #[test]
    fn a_served_request_or_a_joined_machine_is_no_silence() {
        let mut served = waiting("2026-01-01T01:40:40Z");
        observe(
            &mut served,
            "bootstrap/containers/machine-config-server-1.log",
            "I0101 01:03:00.000000       1 api.go:117] Pool master requested by address:\"192.0.2.21:51234\" User-Agent:\"Ignition/2.17.0\" Accept-Header: \"application/vnd.coreos.ignition+json;version=3.4.0\" TokenPresent: false",
        );
        assert!(served.silence().is_none());
        assert!(served.early_silence_note().is_none());
        let mut joined = waiting("2026-01-01T01:40:40Z");
        observe(
            &mut joined,
            "resources/nodes.yaml",
            "      node-role.kubernetes.io/master: \"\"",
        );
        assert!(joined.silence().is_none());
        let mut ready = waiting("2026-01-01T01:40:40Z");
        observe(
            &mut ready,
            "bootstrap/journals/bootkube.log",
            "\tPod Status:openshift-kube-scheduler/openshift-kube-scheduler\tRunningNotReady",
        );
        assert!(ready.silence().is_none());
    }

    #[test]
    fn a_ready_cluster_version_operator_is_no_joined_machine() {
        let mut facts = waiting("2026-01-01T01:40:40Z");
        observe(
            &mut facts,
            "bootstrap/journals/bootkube.log",
            "\tPod Status:openshift-cluster-version/cluster-version-operator\tReady",
        );
        assert!(facts.silence().is_some());
        assert_eq!(facts.pod_states().len(), 2);
    }

    #[test]
    fn without_a_waiting_cluster_bootstrap_there_is_no_silence() {
        let mut facts = Facts::default();
        observe(
            &mut facts,
            "bootstrap/containers/machine-config-server-1.log",
            "I0101 01:00:40.000000       1 api.go:66] Launching server on :22623",
        );
        observe(
            &mut facts,
            "bootstrap/host/date.txt",
            "2026-01-01T02:00:00Z",
        );
        assert!(facts.silence().is_none());
    }

    #[test]
    fn the_api_int_name_comes_from_the_infrastructure_manifest() {
        assert_eq!(
            api_int_host("  apiServerInternalURI: \"https://api-int.ostest.example.com:6443\""),
            Some("api-int.ostest.example.com".into())
        );
        assert_eq!(
            api_int_host("  apiServerInternalURI: https://api-int.a.b:6443"),
            Some("api-int.a.b".into())
        );
        assert_eq!(api_int_host("  apiServerURL: https://api.a.b:6443"), None);
    }
}
