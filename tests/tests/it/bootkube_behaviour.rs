//! Behaviour of `bootkube.sh`, its libraries and `bootkube-reset.sh`.
//!
//! The scripts run for real, with bash and jq, in a scratch directory that stands in for the node
//! (`BOOTKUBE_ASSET_DIR`, `BOOTKUBE_KUBE_DIR`, ... point into it). The payload's tools are stubs put
//! first on `PATH`: they log their arguments, and the stub `podman` writes the outputs the real render
//! commands would write, remembers its containers, and fails the stage named by `STUB_FAIL_STAGE`.
//!
//! The scripts are the ones `bootgen::generate` puts in `bootstrap.ign` for a release (the default
//! one unless a test names another), decoded from the config.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

/// Every stage in run order, with the marker that says it is done (`None`: it has none).
const STAGES: &[(&str, Option<&str>)] = &[
    ("openshift-manifests", Some("openshift-manifests.done")),
    ("api-bootstrap", Some("api-bootstrap.done")),
    ("auth-api-bootstrap", Some("auth-api-bootstrap.done")),
    ("config-bootstrap", Some("config-bootstrap.done")),
    ("cvo-bootstrap", Some("cvo-bootstrap.done")),
    ("etcd-bootstrap", Some("etcd-bootstrap.done")),
    (
        "kube-apiserver-bootstrap",
        Some("kube-apiserver-bootstrap.done"),
    ),
    (
        "kube-controller-manager-bootstrap",
        Some("kube-controller-manager-bootstrap.done"),
    ),
    (
        "kube-scheduler-bootstrap",
        Some("kube-scheduler-bootstrap.done"),
    ),
    (
        "ingress-operator-bootstrap",
        Some("ingress-operator-bootstrap.done"),
    ),
    ("node-tuning-bootstrap", Some("node-tuning-bootstrap.done")),
    ("mco-bootstrap", Some("mco-bootstrap.done")),
    ("resolve-api-url", Some("api-dns-resolved.done")),
    ("resolve-api-int-url", Some("api-int-dns-resolved.done")),
    ("cco-bootstrap", Some("cco-bootstrap.done")),
    ("wait-for-etcd", None),
    ("cb-bootstrap", Some("cb-bootstrap.done")),
    ("cvo-overrides", Some("cvo-overrides.done")),
    ("wait-for-ceo", None),
    ("check-api-url", Some("api-dns-check.done")),
    ("check-api-int-url", Some("api-int-dns-check.done")),
];

/// The stages that run payload containers, in order.
const CONTAINER_STAGES: &[&str] = &[
    "api-bootstrap",
    "auth-api-bootstrap",
    "config-bootstrap",
    "cvo-bootstrap",
    "etcd-bootstrap",
    "kube-apiserver-bootstrap",
    "kube-controller-manager-bootstrap",
    "kube-scheduler-bootstrap",
    "ingress-operator-bootstrap",
    "node-tuning-bootstrap",
    "mco-bootstrap",
    "cco-bootstrap",
    "wait-for-etcd",
    "cb-bootstrap",
    "wait-for-ceo",
];

/// The scripts under test, by their name in `/usr/local/bin` (a release may lack some).
const SCRIPTS: &[&str] = &[
    "bootkube.sh",
    "bootkube-stages.sh",
    "bootkube-reset.sh",
    "bootstrap-service-record.sh",
    "bootstrap-cluster-gather.sh",
    "bootstrap-verify-api-server-urls.sh",
    "konnectivity.sh",
    "konnectivity-certs.sh",
];

/// What the stub journalctl prints; failures quote it as their errorMessage.
const JOURNAL: &str = "journal line 1\njournal line 2\njournal line 3";

// ---------------------------------------------------------------------------------------------
// The scripts, from a real generation

/// Generates the default cluster for `release` (`None`: bootgen's default) and returns every
/// script under test: (name on the node, contents). A cluster profile, which only the
/// installer's environment sets, is written into bootkube.sh's assignment.
pub fn scripts_of(release: Option<&str>, cluster_profile: &str) -> Vec<(String, String)> {
    let loaded = bootgen::config::load_default().unwrap();
    let options = bootgen_conformance::quick_options(release);
    let generated = bootgen::generate(&loaded, &options).unwrap();
    let decoded = bootgen::ignition::decode(&generated.bootstrap).unwrap();
    // Older releases lack some helpers (bootstrap-verify-api-server-urls.sh before 4.12).
    SCRIPTS
        .iter()
        .filter_map(|name| {
            let path = format!("/usr/local/bin/{name}");
            let file = decoded.files.iter().find(|f| f.path == path)?;
            let mut text = String::from_utf8(file.contents.clone().unwrap()).unwrap();
            if *name == "bootkube.sh" && !cluster_profile.is_empty() {
                assert!(text.contains("CLUSTER_PROFILE=''\n"));
                text = text.replace(
                    "CLUSTER_PROFILE=''\n",
                    &format!("CLUSTER_PROFILE='{cluster_profile}'\n"),
                );
            }
            Some((name.to_string(), text))
        })
        .collect()
}

/// The scripts of a single node (bootstrap in place) of `release`, installing to `/dev/vda`:
/// those of [`scripts_of`] plus the in-place stages and the install to disk.
fn single_node_scripts(release: &str) -> Vec<(String, String)> {
    let loaded = bootgen::config::load_default_single_node().unwrap();
    let mut options = bootgen_conformance::quick_options(Some(release));
    options.model.installation_disk = Some("/dev/vda".into());
    let generated = bootgen::generate(&loaded, &options).unwrap();
    let decoded = bootgen::ignition::decode(&generated.bootstrap).unwrap();
    SCRIPTS
        .iter()
        .chain(&["bootstrap-in-place.sh", "install-to-disk.sh"])
        .filter_map(|name| {
            let path = format!("/usr/local/bin/{name}");
            let file = decoded.files.iter().find(|f| f.path == path)?;
            Some((
                name.to_string(),
                String::from_utf8(file.contents.clone().unwrap()).unwrap(),
            ))
        })
        .collect()
}

fn scripts(cluster_profile: &str) -> Vec<(String, String)> {
    scripts_of(None, cluster_profile)
}

// ---------------------------------------------------------------------------------------------
// Stub tools

const STUB_PODMAN: &str = r##"#!/usr/bin/env bash
# Stub podman. Keeps containers in $STUB_STATE/containers (one file of labels each), logs every
# call to $STUB_LOG, and plays the payload's tools: a run writes the outputs its arguments name,
# into the host directories its --volume options map, as the real commands would.
set -euo pipefail
state=${STUB_STATE:?}/containers
mkdir -p "$state"
log() { printf '%s\n' "$*" >>"${STUB_LOG:?}"; }

case "${1:-}" in
ps)
	filter=
	for arg in "$@"; do case "$arg" in label=*) filter=${arg#label=} ;; esac; done
	log "podman ps $filter"
	for c in "$state"/*; do
		[ -e "$c" ] || continue
		if [ -z "$filter" ] || grep -qxF "$filter" "$c"; then basename "$c"; fi
	done
	exit 0
	;;
rm)
	shift
	ids=()
	for arg in "$@"; do case "$arg" in -*) ;; *) ids+=("$arg") ;; esac; done
	log "podman rm ${ids[*]}"
	for id in "${ids[@]}"; do rm -f "$state/$id"; done
	exit 0
	;;
run) shift ;;
*)
	log "podman $*"
	exit 0
	;;
esac

argv="$*"
labels=() volumes=() rm_after=no entrypoint=
while [ $# -gt 0 ]; do
	case "$1" in
	--label=*) labels+=("${1#--label=}") ;;
	--label) labels+=("$2"); shift ;;
	--volume=*) volumes+=("${1#--volume=}") ;;
	--volume | -v) volumes+=("$2"); shift ;;
	--entrypoint=*) entrypoint=${1#--entrypoint=} ;;
	--entrypoint) entrypoint=$2; shift ;;
	--env | -e | --name | --network) shift ;;
	--rm) rm_after=yes ;;
	-*) ;;
	*) break ;;
	esac
	shift
done
stage=
for l in "${labels[@]}"; do case "$l" in io.bootgen.stage=*) stage=${l#io.bootgen.stage=} ;; esac; done
log "podman run stage=$stage $argv"
# The image and what runs in it, for the per-release comparison with the installer's commands.
log "command stage=$stage $*"
shift # the image

id=$(( $(cat "$STUB_STATE/next-id" 2>/dev/null || echo 0) + 1 ))
echo "$id" >"$STUB_STATE/next-id"
id="stub$id"
printf '%s\n' "${labels[@]}" >"$state/$id"

# Container path -> host path through the --volume mappings.
host_path() {
	local v src dst
	for v in "${volumes[@]}"; do
		src=${v%%:*}; dst=${v#*:}; dst=${dst%%:*}
		case "$1" in "$dst" | "$dst"/*) echo "$src${1#"$dst"}"; return 0 ;; esac
	done
	echo "stub podman: $1 is not in a mounted volume" >&2
	return 1
}

write() { mkdir -p "$(dirname "$1")"; printf '%s\n' "$2" >"$1"; }

produce() {
	local arg out m kube
	# Output directories first: like some real renders, refuse one that is not empty.
	for arg in "$@"; do
		case "$arg" in
		--asset-output-dir=* | --output-dir=* | --dest-dir=*)
			out=$(host_path "${arg#*=}")
			if [ -d "$out" ] && [ -n "$(ls -A "$out")" ]; then
				echo "stub: refusing to render into non-empty $out" >&2
				return 1
			fi
			case "$stage" in
			auth-api-bootstrap | ingress-operator-bootstrap | node-tuning-bootstrap | cmdbootline-nto-bootstrap) write "$out/$stage-rendered.yaml" "kind: Stub # $stage" ;;
			*) write "$out/manifests/$stage-rendered.yaml" "kind: Stub # $stage" ;;
			esac
			;;
		esac
	done
	for arg in "$@"; do
		case "$arg" in
		--config-output-file=* | --cpc-config-output-file=* | --cloud-provider-config-output-file=*)
			write "$(host_path "${arg#*=}")" "config of $stage ${arg%%=*}"
			;;
		esac
	done
	case "$stage" in
	cvo-bootstrap) write "$(host_path /assets/cvo-bootstrap)/bootstrap/bootstrap-pod.yaml" "kind: Pod # cvo" ;;
	etcd-bootstrap)
		out=$(host_path /assets/etcd-bootstrap)
		write "$out/etc-kubernetes/manifests/etcd-member-pod.yaml" "kind: Pod # etcd"
		write "$out/etc-kubernetes/static-pod-resources/etcd-member/ca.crt" "etcd ca"
		write "$out/tls/etcd-ca-bundle.crt" "etcd ca bundle"
		write "$out/tls/etcd-client.crt" "etcd client cert"
		write "$out/tls/etcd-client.key" "etcd client key"
		;;
	kube-apiserver-bootstrap | kube-controller-manager-bootstrap | kube-scheduler-bootstrap)
		write "$(host_path "/assets/$stage")/bootstrap-manifests/$stage-pod.yaml" "kind: Pod # $stage"
		;;
	mco-bootstrap)
		if [ "$entrypoint" != cat ]; then
			out=$(host_path /assets/mco-bootstrap)
			write "$out/bootstrap/manifests/machineconfigpool-master.yaml" "kind: MachineConfigPool"
			write "$out/bootstrap/machineconfigoperator-bootstrap-pod.yaml" "kind: Pod # mco"
			write "$out/vsphere/manifests/keepalived.yaml" "kind: Pod # keepalived"
		fi
		;;
	cco-bootstrap)
		# Overwrites an installer manifest, so the tests see an undo put the original back.
		write "$(host_path /assets/cco-bootstrap)/manifests/cluster-config.yaml" "overwritten by cco"
		;;
	master-ignition)
		# cluster-bootstrap bootstrap-in-place translates the Butane config into master.ign.
		write "$(host_path /assets)/master.ign" '{"ignition":{"version":"3.1.0"}}'
		;;
	cb-bootstrap)
		# cluster-bootstrap starts the control plane from the bootstrap manifests.
		kube=$(host_path /etc/kubernetes)
		for m in "$(host_path /assets/bootstrap-manifests)"/*; do cp "$m" "$kube/manifests/"; done
		write "$kube/bootstrap-secrets/kubeconfig" "bootstrap secrets"
		;;
	esac
	[ "$entrypoint" != cat ] || echo '{"kind":"ImageStream"}'
	[ "$entrypoint" != etcdctl ] || echo "https://localhost:2379 is healthy"
	return 0
}

if [ "${STUB_FAIL_STAGE:-}" = "$stage" ]; then
	# A failing tool may leave partial output; its container stays, as after a killed run.
	[ "${STUB_FAIL_AFTER_OUTPUT:-}" != 1 ] || produce "$@" || true
	echo "stub podman: $stage failed as asked" >&2
	exit 1
fi
produce "$@" || exit 1
[ "$rm_after" != yes ] || rm -f "$state/$id"
exit 0
"##;

const STUB_OC: &str = r##"#!/usr/bin/env bash
printf 'oc %s %s\n' "${BOOTKUBE_STAGE:--}" "$*" >>"${STUB_LOG:?}"
case "$*" in
*displayVersions*) printf '1.32.5' ;;
*"adm release info"*) printf '4.19.0' ;;
*" get "*) echo "stub oc get" ;;
esac
if [ "$1" = patch ] && [ "${STUB_FAIL_STAGE:-}" = "${BOOTKUBE_STAGE:-}" ]; then exit 1; fi
exit 0
"##;

const STUB_DIG: &str = r##"#!/usr/bin/env bash
printf 'dig %s %s\n' "${BOOTKUBE_STAGE:--}" "$*" >>"${STUB_LOG:?}"
# No answer is not an error for dig: it just prints nothing.
[ "${STUB_FAIL_STAGE:-}" = "${BOOTKUBE_STAGE:-}" ] || echo "192.0.2.10"
"##;

const STUB_CURL: &str = r##"#!/usr/bin/env bash
printf 'curl %s %s\n' "${BOOTKUBE_STAGE:--}" "$*" >>"${STUB_LOG:?}"
if [ "${STUB_FAIL_STAGE:-}" = "${BOOTKUBE_STAGE:-}" ]; then echo "curl: (7) Failed to connect" >&2; exit 7; fi
out=
while [ $# -gt 0 ]; do
	case "$1" in --output | -o) out=$2; shift ;; esac
	shift
done
if [ -n "$out" ]; then printf '{"ignition":{"version":"3.2.0"}}\n' >"$out"; else printf ok; fi
"##;

/// A single node's tools: crictl (no etcd container left running), coreos-installer and shutdown
/// (both only log).
const STUB_CRICTL: &str = r##"#!/usr/bin/env bash
printf 'crictl %s %s\n' "${BOOTKUBE_STAGE:--}" "$*" >>"${STUB_LOG:?}"
echo '{"containers":[]}'
"##;

const STUB_LOGGER: &str = r##"#!/usr/bin/env bash
printf '%s %s\n' "$(basename "$0")" "$*" >>"${STUB_LOG:?}"
"##;

const STUB_JOURNALCTL: &str = r##"#!/usr/bin/env bash
printf 'journalctl %s\n' "$*" >>"${STUB_LOG:?}"
printf 'journal line 1\njournal line 2\njournal line 3\n'
"##;

const STUB_SYSTEMCTL: &str = r##"#!/usr/bin/env bash
printf 'systemctl %s\n' "$*" >>"${STUB_LOG:?}"
"##;

/// The installer-provided part of `/opt/openshift` the stages read.
const ASSET_FILES: &[&str] = &[
    "openshift/99_feature-gate.yaml",
    "openshift/99_kubeadmin-password-secret.yaml",
    "manifests/cluster-config.yaml",
    "manifests/cluster-infrastructure-02-config.yml",
    "manifests/cluster-network-02-config.yml",
    "manifests/openshift-config-secret-pull-secret.yaml",
    "manifests/cvo-overrides.yaml",
    "tls/root-ca.crt",
    "tls/machine-config-server.crt",
    "tls/machine-config-server.key",
    "tls/kube-apiserver-complete-client-ca-bundle.crt",
    "auth/kubeconfig",
    "auth/kubeconfig-loopback",
    "auth/kubeconfig-kubelet",
    "original_cvo_overrides.patch",
];

// ---------------------------------------------------------------------------------------------
// The scratch node

struct Node {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

fn write_file(path: &Path, contents: &str, mode: u32) {
    bootgen_conformance::write_file(path, contents, mode).unwrap();
}

impl Node {
    fn new() -> Node {
        Node::with_profile("")
    }

    fn with_profile(cluster_profile: &str) -> Node {
        Node::with_scripts(scripts(cluster_profile))
    }

    /// A node with the scripts bootgen makes for `release` (e.g. `4.16.0`).
    fn for_release(release: &str) -> Node {
        Node::with_scripts(scripts_of(Some(release), ""))
    }

    fn with_scripts(scripts: Vec<(String, String)>) -> Node {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        let node = Node { _dir: dir, root };
        for (name, text) in scripts {
            write_file(&node.lib().join(name), &text, 0o555);
        }
        // release-image.sh belongs to another part of bootgen; this stands in for its interface.
        write_file(
            &node.lib().join("release-image.sh"),
            "RELEASE_IMAGE_DIGEST=quay.example/ocp-release@sha256:1111\n\
             image_for() { printf 'image_for %s\\n' \"$1\" >>\"$STUB_LOG\"; echo \"quay.example/payload/$1@sha256:2222\"; }\n",
            0o555,
        );
        for (name, text) in [
            ("podman", STUB_PODMAN),
            ("oc", STUB_OC),
            ("dig", STUB_DIG),
            ("curl", STUB_CURL),
            ("journalctl", STUB_JOURNALCTL),
            ("systemctl", STUB_SYSTEMCTL),
            ("crictl", STUB_CRICTL),
            ("coreos-installer", STUB_LOGGER),
            ("shutdown", STUB_LOGGER),
        ] {
            write_file(&node.root.join("bin").join(name), text, 0o755);
        }
        for file in ASSET_FILES {
            write_file(
                &node.asset().join(file),
                &format!("installer's {file}\n"),
                0o644,
            );
        }
        // On a node these exist before bootkube: the kubelet's file, and /etc/ssl.
        fs::create_dir_all(node.root.join("etc/ssl")).unwrap();
        write_file(
            &node.kube().join("kubelet-pause-image-override"),
            "MACHINE_CONFIG_INFRA_IMAGE=x\n",
            0o644,
        );
        fs::create_dir_all(node.root.join("state")).unwrap();
        fs::write(node.stub_log_path(), "").unwrap();
        node
    }

    fn lib(&self) -> PathBuf {
        self.root.join("usr/local/bin")
    }
    fn asset(&self) -> PathBuf {
        self.root.join("opt/openshift")
    }
    fn kube(&self) -> PathBuf {
        self.root.join("etc/kubernetes")
    }
    fn records_path(&self) -> PathBuf {
        self.root.join("var/log/openshift/bootkube.json")
    }
    fn stub_log_path(&self) -> PathBuf {
        self.root.join("stub.log")
    }
    fn gather_dir(&self) -> PathBuf {
        self.root.join("tmp/artifacts")
    }

    /// A command with a clean environment: only the node's directories, the stubs and `extra`.
    fn command(&self, script: &str, args: &[&str], extra: &[(&str, &str)]) -> Command {
        let mut cmd = Command::new("bash");
        cmd.arg(self.lib().join(script))
            .args(args)
            .env_clear()
            .current_dir(self.asset());
        let dirs = [
            (
                "PATH",
                format!("{}:/usr/bin:/bin", self.root.join("bin").display()),
            ),
            ("HOME", self.root.display().to_string()),
            ("BOOTKUBE_LIB_DIR", self.lib().display().to_string()),
            ("BOOTKUBE_ASSET_DIR", self.asset().display().to_string()),
            ("BOOTKUBE_KUBE_DIR", self.kube().display().to_string()),
            (
                "BOOTKUBE_MCC_DIR",
                self.root.join("etc/mcc").display().to_string(),
            ),
            (
                "BOOTKUBE_MCS_DIR",
                self.root.join("etc/mcs").display().to_string(),
            ),
            (
                "BOOTKUBE_MCS_TLS_DIR",
                self.root.join("etc/ssl/mcs").display().to_string(),
            ),
            (
                "SERVICE_RECORDS_DIR",
                format!("{}/", self.root.join("var/log/openshift").display()),
            ),
            // A single node's install-to-disk.sh reads the live system's network here, not the
            // test machine's.
            ("BOOTGEN_NETWORK_ROOT", self.root.display().to_string()),
            (
                "BOOTSTRAP_GATHER_DIR",
                self.gather_dir().display().to_string(),
            ),
            ("STUB_STATE", self.root.join("state").display().to_string()),
            ("STUB_LOG", self.stub_log_path().display().to_string()),
            ("BOOTKUBE_RETRY_DELAY", "0".to_string()),
            // As under systemd: failures then quote the (stub) journal.
            ("INVOCATION_ID", "0123456789abcdef".to_string()),
        ];
        for (key, value) in dirs {
            cmd.env(key, value);
        }
        for (key, value) in extra {
            cmd.env(key, value);
        }
        cmd
    }

    fn bootkube(&self, extra: &[(&str, &str)]) -> Output {
        self.command("bootkube.sh", &[], extra).output().unwrap()
    }

    fn reset(&self, args: &[&str]) -> Output {
        self.command(
            "bootkube-reset.sh",
            args,
            &[("BOOTKUBE_RESET_NO_SYSTEMCTL", "1")],
        )
        .output()
        .unwrap()
    }

    fn records(&self) -> Vec<Value> {
        let text = fs::read_to_string(self.records_path()).unwrap_or_else(|_| "[]".into());
        match serde_json::from_str::<Value>(&text).unwrap() {
            Value::Array(entries) => entries,
            other => panic!("records are not an array: {other}"),
        }
    }

    /// The records split into runs, each starting at its "service start".
    fn runs(&self) -> Vec<Vec<Value>> {
        let mut runs: Vec<Vec<Value>> = Vec::new();
        for entry in self.records() {
            if field(&entry, "phase") == "service start" {
                runs.push(Vec::new());
            }
            runs.last_mut()
                .expect("records start with a service start")
                .push(entry);
        }
        runs
    }

    fn stub_log(&self) -> Vec<String> {
        fs::read_to_string(self.stub_log_path())
            .unwrap()
            .lines()
            .map(String::from)
            .collect()
    }

    /// Labels of the containers the stub podman still has.
    fn containers(&self) -> Vec<String> {
        let dir = self.root.join("state/containers");
        let mut labels: Vec<String> = match fs::read_dir(&dir) {
            Ok(entries) => entries
                .map(|e| {
                    fs::read_to_string(e.unwrap().path())
                        .unwrap()
                        .trim()
                        .to_string()
                })
                .collect(),
            Err(_) => Vec::new(),
        };
        labels.sort();
        labels
    }

    fn marker(&self, name: &str) -> bool {
        self.asset().join(name).exists()
    }

    /// Every path under the directories bootkube writes to (minus its undo bookkeeping), with the
    /// contents of files.
    fn tree(&self) -> BTreeMap<String, Option<String>> {
        let mut tree = BTreeMap::new();
        for top in ["opt", "etc"] {
            collect_tree(&self.root, &self.root.join(top), &mut tree);
        }
        tree
    }
}

fn collect_tree(root: &Path, path: &Path, tree: &mut BTreeMap<String, Option<String>>) {
    let Ok(meta) = fs::symlink_metadata(path) else {
        return;
    };
    let name = path.strip_prefix(root).unwrap().display().to_string();
    if name.ends_with(".bootkube-undo") {
        return;
    }
    if meta.is_dir() {
        tree.insert(format!("{name}/"), None);
        for entry in fs::read_dir(path).unwrap() {
            collect_tree(root, &entry.unwrap().path(), tree);
        }
    } else {
        tree.insert(name, Some(fs::read_to_string(path).unwrap()));
    }
}

fn field<'a>(entry: &'a Value, key: &str) -> &'a str {
    entry.get(key).and_then(Value::as_str).unwrap_or("")
}

/// The stages a run started, in order.
fn started(run: &[Value]) -> Vec<String> {
    run.iter()
        .filter(|e| field(e, "phase") == "stage start")
        .map(|e| field(e, "stage").to_string())
        .collect()
}

/// The "stage end" entry of STAGE in a run.
fn stage_end<'a>(run: &'a [Value], stage: &str) -> &'a Value {
    run.iter()
        .find(|e| field(e, "phase") == "stage end" && field(e, "stage") == stage)
        .unwrap_or_else(|| panic!("no stage end for {stage} in {run:#?}"))
}

/// The stage labels of the containers the stub podman ran, in order.
fn container_stages(log: &[String]) -> Vec<String> {
    let mut stages: Vec<String> = Vec::new();
    for line in log {
        let Some(rest) = line.strip_prefix("podman run stage=") else {
            continue;
        };
        let stage = rest.split(' ').next().unwrap().to_string();
        if stages.last() != Some(&stage) {
            stages.push(stage);
        }
    }
    stages
}

fn names_from(stage: &str) -> Vec<String> {
    let at = STAGES.iter().position(|(name, _)| *name == stage).unwrap();
    STAGES[at..]
        .iter()
        .map(|(name, _)| name.to_string())
        .collect()
}

fn all_names() -> Vec<String> {
    names_from(STAGES[0].0)
}

#[track_caller]
fn assert_status(output: &Output, success: bool) {
    assert_eq!(
        output.status.success(),
        success,
        "exit status {:?}\nstdout:\n{}\nstderr:\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Markers of the stages before `stage` exist; those of `stage` and later do not.
#[track_caller]
fn assert_markers_up_to(node: &Node, stage: &str) {
    let at = STAGES.iter().position(|(name, _)| *name == stage).unwrap();
    for (i, (name, marker)) in STAGES.iter().enumerate() {
        if let Some(marker) = marker {
            assert_eq!(node.marker(marker), i < at, "marker {marker} of {name}");
        }
    }
    assert!(!node.marker(".bootkube.done"));
}

// ---------------------------------------------------------------------------------------------
// Tests

#[test]
fn full_run_runs_every_stage_in_order_and_marks_it_done() {
    let node = Node::new();
    let output = node.bootkube(&[]);
    assert_status(&output, true);
    assert!(String::from_utf8_lossy(&output.stdout).contains("bootkube.service complete"));

    let runs = node.runs();
    assert_eq!(runs.len(), 1);
    let run = &runs[0];
    assert_eq!(started(run), all_names());
    let last = run.last().unwrap();
    assert_eq!(
        (field(last, "phase"), field(last, "result")),
        ("service end", "success")
    );
    // Every stage start is followed by its own end, with success, before the next start.
    let stages: Vec<&Value> = run
        .iter()
        .filter(|e| !field(e, "stage").is_empty())
        .collect();
    for pair in stages.chunks(2) {
        assert_eq!(field(pair[0], "phase"), "stage start");
        assert_eq!(field(pair[1], "phase"), "stage end");
        assert_eq!(field(pair[0], "stage"), field(pair[1], "stage"));
        assert_eq!(field(pair[1], "result"), "success");
    }
    for entry in run {
        let keys: Vec<&String> = entry.as_object().unwrap().keys().collect();
        for key in &keys {
            assert!(
                [
                    "timestamp",
                    "preCommand",
                    "postCommand",
                    "stage",
                    "phase",
                    "result",
                    "errorLine",
                    "errorMessage"
                ]
                .contains(&key.as_str()),
                "unexpected key {key}"
            );
            assert_ne!(entry[key.as_str()], "", "empty {key} kept in {entry}");
        }
        let ts = field(entry, "timestamp");
        assert!(
            ts.len() == 20 && ts.ends_with('Z') && ts.as_bytes()[10] == b'T',
            "timestamp {ts}"
        );
    }

    for (_, marker) in STAGES {
        if let Some(marker) = marker {
            assert!(node.marker(marker), "{marker}");
        }
    }
    assert!(node.marker(".bootkube.done"));
    assert_eq!(container_stages(&node.stub_log()), CONTAINER_STAGES);

    // What the stages placed on the node.
    let kube = node.kube();
    for pod in [
        "etcd-member-pod.yaml",
        "keepalived.yaml",
        "kube-apiserver-bootstrap-pod.yaml",
        "bootstrap-pod.yaml",
    ] {
        assert!(
            kube.join("manifests").join(pod).exists(),
            "static pod {pod}"
        );
    }
    assert!(
        !kube
            .join("manifests/machineconfigoperator-bootstrap-pod.yaml")
            .exists(),
        "the bootstrap MCO pod is removed once the cluster's own takes over"
    );
    for config in [
        "kube-apiserver-config.yaml",
        "kube-controller-manager-config.yaml",
        "cluster-policy-controller-config.yaml",
        "kube-scheduler-config.yaml",
    ] {
        assert!(
            kube.join("bootstrap-configs").join(config).exists(),
            "{config}"
        );
    }
    assert!(kube
        .join("static-pod-resources/etcd-member/ca.crt")
        .exists());
    assert_eq!(
        fs::read_to_string(kube.join("kubeconfig")).unwrap(),
        fs::read_to_string(node.asset().join("auth/kubeconfig-loopback")).unwrap()
    );
    assert!(node.root.join("etc/mcs/kubeconfig").exists());
    assert!(node.root.join("etc/ssl/mcs/tls.key").exists());
    assert!(node
        .root
        .join("etc/mcc/bootstrap/99_feature-gate.yaml")
        .exists());
    assert!(node
        .asset()
        .join("manifests/99_kubeadmin-password-secret.yaml")
        .exists());
    assert!(node.asset().join("tls/etcd-client.crt").exists());

    let log = node.stub_log();
    let cb = log
        .iter()
        .find(|l| l.starts_with("podman run stage=cb-bootstrap"))
        .unwrap();
    assert!(cb.contains("--tear-down-early=false"), "{cb}");
    assert!(cb.contains(
        "--required-pods=openshift-kube-apiserver/kube-apiserver,openshift-kube-scheduler/openshift-kube-scheduler,openshift-kube-controller-manager/kube-controller-manager,openshift-cluster-version/cluster-version-operator"
    ));
    assert!(log.iter().any(
        |l| l.starts_with("oc cvo-overrides patch clusterversion.config.openshift.io version")
    ));
    assert!(log.iter().any(|l| l.contains("curl check-api-int-url")
        && l.contains("https://api-int.example.example.com:6443/readyz")));
    assert!(
        node.containers().is_empty(),
        "containers left: {:?}",
        node.containers()
    );

    // Once complete, another run does nothing at all.
    let output = node.bootkube(&[]);
    assert_status(&output, true);
    assert_eq!(node.runs().len(), 1);
    assert_eq!(node.stub_log(), log);
}

#[test]
fn failed_stage_is_recorded_and_the_next_run_resumes_there() {
    let node = Node::new();
    let failing = "kube-apiserver-bootstrap";
    let output = node.bootkube(&[
        ("STUB_FAIL_STAGE", failing),
        ("STUB_FAIL_AFTER_OUTPUT", "1"),
    ]);
    assert_status(&output, false);

    let run = &node.runs()[0];
    assert_eq!(started(run).last().unwrap(), failing);
    let end = stage_end(run, failing);
    assert_eq!(field(end, "result"), "failure");
    assert_eq!(field(end, "errorMessage"), JOURNAL);
    // errorLine is "LINE FUNCTION FILE" and points at the container run of that stage.
    let error_line = field(end, "errorLine");
    let mut parts = error_line.split(' ');
    let line: usize = parts.next().unwrap().parse().unwrap();
    assert_eq!(
        parts.next(),
        Some("stage_kube_apiserver_bootstrap"),
        "{error_line}"
    );
    let script = fs::read_to_string(node.lib().join("bootkube.sh")).unwrap();
    let text = script.lines().nth(line - 1).unwrap();
    assert!(
        text.contains("run_container") && text.contains("cluster-kube-apiserver-operator"),
        "line {line}: {text}"
    );
    let last = run.last().unwrap();
    assert_eq!(
        (field(last, "phase"), field(last, "result")),
        ("service end", "failure")
    );
    assert_markers_up_to(&node, failing);
    assert!(
        node.asset().join(failing).exists(),
        "the stub left partial output"
    );

    // Fixed: the next run starts at the failed stage (undoing its partial output, or the stub's
    // render would refuse the non-empty directory) and finishes.
    let log_before = node.stub_log().len();
    let output = node.bootkube(&[]);
    assert_status(&output, true);
    let runs = node.runs();
    assert_eq!(runs.len(), 2);
    assert_eq!(started(&runs[1]), names_from(failing));
    let rerun = container_stages(&node.stub_log()[log_before..]);
    assert_eq!(rerun.first().map(String::as_str), Some(failing));
    assert!(
        !rerun
            .iter()
            .any(|s| s == "etcd-bootstrap" || s == "api-bootstrap"),
        "{rerun:?}"
    );
    assert!(node.marker(".bootkube.done"));
    assert!(
        node.containers().is_empty(),
        "the failed attempt's container is removed: {:?}",
        node.containers()
    );
}

#[test]
fn probe_failures_are_recorded_but_do_not_stop_bootkube() {
    let node = Node::new();
    let output = node.bootkube(&[("STUB_FAIL_STAGE", "resolve-api-int-url")]);
    assert_status(&output, true);
    let run = &node.runs()[0];
    assert_eq!(started(run), all_names());
    let end = stage_end(run, "resolve-api-int-url");
    assert_eq!(field(end, "result"), "failure");
    assert!(
        field(end, "errorMessage").contains("api-int.example.example.com"),
        "{end}"
    );
    assert!(field(end, "errorLine").contains("resolve_url"), "{end}");
    assert!(!node.marker("api-int-dns-resolved.done"));
    assert!(node.marker("api-dns-resolved.done"));
    assert!(node.marker(".bootkube.done"));
}

#[test]
fn reset_undoes_a_stage_and_everything_after_it() {
    let node = Node::new();
    // Stop just before etcd-bootstrap: what the node looks like when that stage starts.
    let output = node.bootkube(&[("STUB_FAIL_STAGE", "etcd-bootstrap")]);
    assert_status(&output, false);
    let before_etcd = node.tree();

    // Go on until cluster-bootstrap fails with the control plane half started.
    let output = node.bootkube(&[
        ("STUB_FAIL_STAGE", "cb-bootstrap"),
        ("STUB_FAIL_AFTER_OUTPUT", "1"),
    ]);
    assert_status(&output, false);
    assert_eq!(
        field(stage_end(&node.runs()[1], "cb-bootstrap"), "result"),
        "failure"
    );
    assert!(
        node.gather_dir().join("pods.yaml").exists(),
        "cluster_bootstrap_gather ran"
    );
    assert!(node
        .stub_log()
        .iter()
        .any(|l| l.starts_with("oc cb-bootstrap --kubeconfig=") && l.contains(" get pods")));
    assert_eq!(node.containers(), ["io.bootgen.stage=cb-bootstrap"]);
    assert!(node
        .kube()
        .join("manifests/kube-apiserver-bootstrap-pod.yaml")
        .exists());

    let output = node.reset(&["etcd-bootstrap"]);
    assert_status(&output, true);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("systemctl start bootkube.service"),
        "{stdout}"
    );
    assert!(stdout.contains("bash -x"), "{stdout}");
    assert!(!node.stub_log().iter().any(|l| l.starts_with("systemctl")));

    // Nothing of the undone stages is left: markers, render dirs, static pods, configs, copies.
    assert_markers_up_to(&node, "etcd-bootstrap");
    assert!(node.containers().is_empty(), "{:?}", node.containers());
    assert!(!node.asset().join("etcd-bootstrap").exists());
    assert!(!node.kube().join("static-pod-resources").exists());
    assert_eq!(
        fs::read_dir(node.kube().join("manifests")).unwrap().count(),
        0
    );
    assert_eq!(node.tree(), before_etcd);

    // The next run starts at etcd-bootstrap; earlier stages stay done.
    let log_before = node.stub_log().len();
    let output = node.bootkube(&[]);
    assert_status(&output, true);
    let runs = node.runs();
    assert_eq!(started(runs.last().unwrap()), names_from("etcd-bootstrap"));
    assert_eq!(
        container_stages(&node.stub_log()[log_before..]),
        CONTAINER_STAGES[CONTAINER_STAGES
            .iter()
            .position(|s| *s == "etcd-bootstrap")
            .unwrap()..]
    );
    assert!(node.marker(".bootkube.done"));
}

#[test]
fn reset_all_returns_the_node_to_its_installed_state() {
    let node = Node::new();
    // bootkube creates these working directories before any stage; they are not a stage's output.
    for dir in ["manifests", "bootstrap-configs", "bootstrap-manifests"] {
        fs::create_dir_all(node.kube().join(dir)).unwrap();
    }
    fs::create_dir_all(node.asset().join("bootstrap-manifests")).unwrap();
    let installed = node.tree();

    assert_status(&node.bootkube(&[]), true);
    assert_eq!(
        fs::read_to_string(node.asset().join("manifests/cluster-config.yaml")).unwrap(),
        "overwritten by cco\n"
    );
    let output = node
        .command("bootkube-reset.sh", &["all"], &[])
        .output()
        .unwrap();
    assert_status(&output, true);
    assert!(node
        .stub_log()
        .iter()
        .any(|l| l == "systemctl stop bootkube.service"));
    // Including the installer manifest a stage had overwritten.
    assert_eq!(node.tree(), installed);

    let log_before = node.stub_log().len();
    assert_status(&node.bootkube(&[]), true);
    assert_eq!(started(node.runs().last().unwrap()), all_names());
    assert_eq!(
        container_stages(&node.stub_log()[log_before..]),
        CONTAINER_STAGES
    );
}

/// bootkube held by bootgen skips `systemctl start` while its hold file exists, so the reset
/// tells a held node to release it instead; an unheld node is told to start it.
#[test]
fn reset_names_the_command_that_really_starts_bootkube() {
    let node = Node::new();
    let holds = node.root.join("etc/bootgen/hold");
    fs::create_dir_all(&holds).unwrap();
    let hold_dir = holds.display().to_string();
    let run = |node: &Node| {
        let output = node
            .command(
                "bootkube-reset.sh",
                &["all"],
                &[
                    ("BOOTKUBE_RESET_NO_SYSTEMCTL", "1"),
                    ("BOOTGEN_HOLD_DIR", &hold_dir),
                ],
            )
            .output()
            .unwrap();
        assert_status(&output, true);
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    let unheld = run(&node);
    assert!(
        unheld.contains("sudo systemctl start bootkube.service && journalctl"),
        "{unheld}"
    );
    assert!(!unheld.contains("bootgen-release"), "{unheld}");

    fs::write(holds.join("bootkube.service"), "held\n").unwrap();
    let held = run(&node);
    assert!(
        held.contains(
            "sudo /usr/local/bin/bootgen-release bootkube.service && journalctl -f -u bootkube.service"
        ),
        "{held}"
    );
    assert!(!held.contains("systemctl start bootkube.service"), "{held}");

    // After a finished run approve-csr and progress have ended: they start again with it.
    fs::remove_file(holds.join("bootkube.service")).unwrap();
    fs::write(node.asset().join(".bootkube.done"), "").unwrap();
    let finished = run(&node);
    assert!(
        finished.contains(
            "sudo systemctl start bootkube.service && sudo systemctl start approve-csr.service progress.service && journalctl"
        ) && finished.contains(
            "sudo systemctl start --job-mode=ignore-dependencies approve-csr.service progress.service && cd "
        ),
        "{finished}"
    );
}

#[test]
fn reset_refuses_an_unknown_stage_and_lists_the_known_ones() {
    let node = Node::new();
    let output = node.reset(&["no-such-stage"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("unknown stage 'no-such-stage'"), "{stderr}");
    for (name, _) in STAGES {
        assert!(
            stderr.lines().any(|l| l.trim() == *name),
            "{name} not listed:\n{stderr}"
        );
    }
    assert_eq!(node.reset(&[]).status.code(), Some(2));

    let output = node.reset(&["--list"]);
    assert_status(&output, true);
    let listed: Vec<String> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|l| l.split_whitespace().next().unwrap().to_string())
        .collect();
    assert_eq!(listed, all_names());
}

#[test]
fn cluster_profile_reaches_the_cvo_render() {
    let node = Node::with_profile("ibm-cloud-managed");
    assert_status(&node.bootkube(&[]), true);
    let log = node.stub_log();
    let cvo = log
        .iter()
        .find(|l| l.starts_with("podman run stage=cvo-bootstrap"))
        .unwrap();
    assert!(
        cvo.contains("--env=CLUSTER_PROFILE=ibm-cloud-managed"),
        "{cvo}"
    );
    assert!(
        cvo.contains("--release-image=quay.example/ocp-release@sha256:1111"),
        "{cvo}"
    );

    let plain = Node::new();
    assert_status(&plain.bootkube(&[]), true);
    assert!(!plain
        .stub_log()
        .iter()
        .any(|l| l.contains("CLUSTER_PROFILE")));
}

/// A cloud provider's config (vSphere's, as its bootstrap.ign places it) reaches the config
/// render as input and the machine-config render as the config it generated, as the installer's
/// bootkube.sh passes them; without one, neither render is told of any.
#[test]
fn a_cloud_provider_config_reaches_the_config_and_machine_config_renders() {
    let node = Node::new();
    write_file(
        &node.asset().join("manifests/cloud-provider-config.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cloud-provider-config\n  namespace: openshift-config\n",
        0o644,
    );
    assert_status(&node.bootkube(&[]), true);
    let log = node.stub_log();
    // The stage's render: its last run (the MCO's stage first reads the payload's image list).
    let run = |stage: &str| {
        log.iter()
            .rev()
            .find(|l| l.starts_with(&format!("podman run stage={stage}")))
            .cloned()
            .unwrap_or_else(|| panic!("no {stage} run in {log:?}"))
    };
    assert!(
        run("config-bootstrap").contains(
            "--cloud-provider-config-input-file=/assets/manifests/cloud-provider-config.yaml"
        ),
        "{}",
        run("config-bootstrap")
    );
    assert!(
        run("mco-bootstrap").contains(
            "--cloud-config-file=/assets/config-bootstrap/cloud-provider-config-generated.yaml"
        ),
        "{}",
        run("mco-bootstrap")
    );
    // The config render wrote the generated config where the machine-config render reads it.
    assert!(node
        .asset()
        .join("config-bootstrap/cloud-provider-config-generated.yaml")
        .exists());

    let plain = Node::new();
    assert_status(&plain.bootkube(&[]), true);
    assert!(!plain
        .stub_log()
        .iter()
        .any(|l| l.contains("--cloud-provider-config-input-file")
            || l.contains("--cloud-config-file")));
}

/// Runs a bash snippet that sources the record library; returns its output and the records of
/// service `t`.
fn record_snippet(snippet: &str, extra: &[(&str, &str)]) -> (Output, Vec<Value>) {
    let node = Node::new();
    let script = format!(
        "set -euoE pipefail\n. \"$BOOTKUBE_LIB_DIR/bootstrap-service-record.sh\"\n{snippet}\n"
    );
    write_file(&node.lib().join("snippet.sh"), &script, 0o555);
    let mut env = vec![("SERVICE_RECORD_NAME", "t")];
    env.extend_from_slice(extra);
    let output = node.command("snippet.sh", &[], &env).output().unwrap();
    let text = fs::read_to_string(node.root.join("var/log/openshift/t.json")).unwrap();
    (output, serde_json::from_str::<Vec<Value>>(&text).unwrap())
}

fn phases(records: &[Value]) -> Vec<String> {
    records
        .iter()
        .map(|e| {
            format!(
                "{} {} {}",
                field(e, "phase"),
                field(e, "stage"),
                field(e, "result")
            )
            .trim()
            .to_string()
        })
        .collect()
}

#[test]
fn record_library_refuses_nested_stages_and_closes_open_ones_on_exit() {
    let (output, records) = record_snippet(
        "record_service_stage_start outer\nrecord_service_stage_start inner || echo refused\nfalse\n",
        &[("INVOCATION_ID", "")],
    );
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stdout).contains("refused"));
    assert!(String::from_utf8_lossy(&output.stderr).contains("inside open stage 'outer'"));
    assert_eq!(
        phases(&records),
        [
            "service start",
            "stage start outer",
            "stage end outer failure",
            "service end  failure"
        ]
    );
    // Outside systemd there is no journal to quote: the exit status is the message.
    assert_eq!(field(&records[2], "errorMessage"), "exit status 1");
    assert!(
        field(&records[2], "errorLine").starts_with("5 main "),
        "{}",
        records[2]
    );
}

#[test]
fn record_library_records_explicit_results_and_pre_commands() {
    let (output, records) = record_snippet(
        "record_service_stage_start one\nrecord_service_stage_success\n\
         record_service_stage_start two\nrecord_service_stage_failure 'it broke'\n\
         record_service_stage_start three\nrecord_service_stage_end success\n",
        &[("PRE_COMMAND", "kubelet-pause-image")],
    );
    assert_status(&output, true);
    assert_eq!(
        phases(&records),
        [
            "pre-command start",
            "stage start one",
            "stage end one success",
            "stage start two",
            "stage end two failure",
            "stage start three",
            "stage end three success",
            "pre-command end  success",
        ]
    );
    assert!(records
        .iter()
        .all(|e| field(e, "preCommand") == "kubelet-pause-image"));
    assert_eq!(field(&records[4], "errorMessage"), "it broke");
    assert!(
        field(&records[4], "errorLine").starts_with("6 main "),
        "{}",
        records[4]
    );
    assert!(records[1].get("errorLine").is_none() && records[1].get("result").is_none());
}

/// Runs shellcheck on `scripts` (name, text) together, so sourced libraries are followed.
fn shellcheck(scripts: &[(String, String)]) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let mut paths = Vec::new();
    for (name, text) in scripts {
        let path = dir.path().join(name);
        fs::write(&path, text).unwrap();
        paths.push(path);
    }
    Command::new("shellcheck")
        .arg("--external-sources")
        .args(&paths)
        .output()
        .expect("shellcheck must be installed (.ci/run installs it)")
}

#[test]
fn scripts_pass_shellcheck() {
    assert_status(&shellcheck(&scripts("")), true);
}

// ---------------------------------------------------------------------------------------------
// Every release against the installer's own commands

/// `tests/expectations/releases/<minor>.toml`: what that release's openshift-install runs on the
/// bootstrap node, written from the installer's source (not from bootgen's release table).
#[derive(serde::Deserialize)]
struct Expectation {
    minor: String,
    /// The Ignition spec version of bootstrap.ign.
    ignition_spec: String,
    images: Vec<String>,
    stages: Vec<String>,
    commands: BTreeMap<String, Vec<String>>,
    images_of: BTreeMap<String, String>,
}

/// The stub values bootkube sees, for `${...}` in the expectations.
fn expand(word: &str) -> String {
    let mut out = word
        .replace("${VERSION}", "4.19.0")
        .replace("${KUBERNETES_VERSION}", "1.32.5")
        .replace("${RELEASE_IMAGE_DIGEST}", "quay.example/ocp-release@sha256:1111")
        .replace("${ETCD_ENDPOINTS}", "https://localhost:2379")
        .replace(
            "${REQUIRED_PODS}",
            "openshift-kube-apiserver/kube-apiserver,openshift-kube-scheduler/openshift-kube-scheduler,openshift-kube-controller-manager/kube-controller-manager,openshift-cluster-version/cluster-version-operator",
        );
    while let Some(start) = out.find("${image:") {
        let end = start + out[start..].find('}').unwrap();
        let name = out[start + 8..end].to_string();
        out.replace_range(
            start..=end,
            &format!("quay.example/payload/{name}@sha256:2222"),
        );
    }
    out
}

fn image_ref(name: &str) -> String {
    if name == "release" {
        "quay.example/ocp-release@sha256:1111".into()
    } else {
        format!("quay.example/payload/{name}@sha256:2222")
    }
}

/// For every supported release: bootkube.sh as bootgen makes it, run with stub tools, looks up
/// the installer's images, runs its stages in its order, and runs exactly its commands with
/// exactly its arguments; shellcheck accepts every script.
#[test]
fn every_release_runs_the_installers_commands() {
    let dir = bootgen_conformance::repo().join("tests/expectations/releases");
    let mut checked = Vec::new();
    for minor in bootgen::release::PROFILES
        .iter()
        .map(|p| p.minor.to_string())
    {
        let path = dir.join(format!("{minor}.toml"));
        let text = fs::read_to_string(&path).unwrap_or_else(|e| {
            panic!(
                "{}: {e} (every supported release needs one)",
                path.display()
            )
        });
        let expected: Expectation = toml::from_str(&text).unwrap();
        assert_eq!(expected.minor, minor);
        let node = Node::for_release(&format!("{minor}.0"));
        let output = node.bootkube(&[]);
        assert_status(&output, true);
        let log = node.stub_log();

        let looked_up: Vec<String> = log
            .iter()
            .filter_map(|l| l.strip_prefix("image_for "))
            .map(String::from)
            .collect();
        assert_eq!(looked_up, expected.images, "{minor}: image_for lookups");

        let run = &node.runs()[0];
        // 4.12's installer records each URL check twice in a row (its DNS and its HTTP half);
        // bootgen's helper records both halves as one stage.
        let mut stages = expected.stages.clone();
        stages.dedup();
        assert_eq!(started(run), stages, "{minor}: stages");

        let mut commands: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for line in &log {
            let Some(rest) = line.strip_prefix("command stage=") else {
                continue;
            };
            let mut words = rest.split(' ').map(String::from);
            let stage = words.next().unwrap();
            let image = words.next().unwrap();
            // mco-bootstrap also reads image-references out of the release image.
            if words.clone().next().as_deref() == Some("/release-manifests/image-references") {
                continue;
            }
            if let Some(name) = expected.images_of.get(&stage) {
                assert_eq!(image, image_ref(name), "{minor}: image of {stage}");
            }
            commands.entry(stage).or_insert_with(|| words.collect());
        }
        for (stage, words) in &expected.commands {
            let want: Vec<String> = words.iter().map(|w| expand(w)).collect();
            assert_eq!(
                commands.get(stage),
                Some(&want),
                "{minor}: the command of {stage}"
            );
        }
        let extra: Vec<&String> = commands
            .keys()
            .filter(|k| !expected.commands.contains_key(*k))
            .collect();
        assert!(
            extra.is_empty(),
            "{minor}: containers the installer does not run: {extra:?}"
        );

        // shellcheck on this release's scripts.
        assert_status(
            &shellcheck(&scripts_of(Some(&format!("{minor}.0")), "")),
            true,
        );
        checked.push(minor);
    }
    assert!(checked.len() >= 15, "{checked:?}");
}

// ---------------------------------------------------------------------------------------------
// A single node: bootkube in place, then the install to disk

#[derive(serde::Deserialize)]
struct SingleNodeExpectation {
    in_place_after_cb_bootstrap: Vec<String>,
    not_in_place: Vec<String>,
    master_ignition: Vec<String>,
    cmdbootline: Vec<String>,
    release: Vec<SingleNodeRelease>,
}

#[derive(serde::Deserialize)]
struct SingleNodeRelease {
    minor: String,
    installer: Vec<String>,
    cmdbootline: bool,
}

/// The in-place stages of `minor`: the bootstrap machine's (tests/expectations/releases) with the
/// single node's changes (tests/expectations/single-node.toml) applied.
fn in_place_stages(minor: &str, rules: &SingleNodeExpectation) -> Vec<String> {
    let path =
        bootgen_conformance::repo().join(format!("tests/expectations/releases/{minor}.toml"));
    let cluster: Expectation = toml::from_str(&fs::read_to_string(path).unwrap()).unwrap();
    let row = rules.release.iter().find(|r| r.minor == minor).unwrap();
    let mut stages = cluster.stages.clone();
    stages.dedup();
    let mut out = Vec::new();
    for stage in stages {
        if rules.not_in_place.contains(&stage) {
            continue;
        }
        out.push(stage.clone());
        if stage == "node-tuning-bootstrap" && row.cmdbootline {
            out.push("cmdbootline-nto-bootstrap".into());
        }
        if stage == "cb-bootstrap" {
            out.extend(rules.in_place_after_cb_bootstrap.iter().cloned());
        }
    }
    out
}

fn single_node_rules() -> SingleNodeExpectation {
    let path = bootgen_conformance::repo().join("tests/expectations/single-node.toml");
    toml::from_str(&fs::read_to_string(path).unwrap()).unwrap()
}

/// The words after the image of the container a stage ran, from the stub log.
fn command_of(log: &[String], stage: &str) -> Option<Vec<String>> {
    log.iter()
        .find_map(|l| l.strip_prefix(&format!("command stage={stage} ")))
        .map(|rest| rest.split(' ').skip(1).map(String::from).collect())
}

/// For every release: bootkube runs in place (cluster-bootstrap waits for no pods, the
/// continuation's stages follow it, the bootstrap machine's hand-over does not run), then
/// install-to-disk.sh runs coreos-installer with that release's flags, the disk and master.ign,
/// and schedules the reboot.
#[test]
fn single_node_bootstraps_in_place_then_installs_to_disk() {
    let rules = single_node_rules();
    for row in &rules.release {
        let minor = &row.minor;
        let scripts = single_node_scripts(&format!("{minor}.0"));
        let node = Node::with_scripts(scripts);
        write_file(
            &node.asset().join("bootstrap-in-place/master-update.fcc"),
            "variant: fcos\n",
            0o600,
        );
        let output = node.bootkube(&[]);
        assert_status(&output, true);
        let run = &node.runs()[0];
        assert_eq!(
            started(run),
            in_place_stages(minor, &rules),
            "{minor}: stages"
        );
        let log = node.stub_log();
        let cb = command_of(&log, "cb-bootstrap").unwrap();
        assert_eq!(
            cb.last().map(String::as_str),
            Some("--required-pods="),
            "{minor}: {cb:?}"
        );
        assert_eq!(
            command_of(&log, "master-ignition"),
            Some(rules.master_ignition.clone()),
            "{minor}"
        );
        assert_eq!(
            command_of(&log, "cmdbootline-nto-bootstrap"),
            row.cmdbootline.then(|| rules.cmdbootline.clone()),
            "{minor}"
        );
        // etcd was stopped by taking its static pod away, and master.ign was made.
        assert!(node.kube().join("etcd-member-pod.yaml").exists(), "{minor}");
        assert!(
            !node.kube().join("manifests/etcd-member-pod.yaml").exists(),
            "{minor}"
        );
        assert!(node.asset().join("master.ign").exists(), "{minor}");
        assert!(
            node.asset().join("log-bundle-bootstrap.tar.gz").exists(),
            "{minor}"
        );
        assert!(node.asset().join("original-master.ign").exists(), "{minor}");

        let output = node
            .command(
                "install-to-disk.sh",
                &[],
                &[("INSTALL_TO_DISK_RETRY_DELAY", "0")],
            )
            .output()
            .unwrap();
        assert_status(&output, true);
        let master = node.asset().join("master.ign").display().to_string();
        let mut want = row.installer.clone();
        *want
            .iter_mut()
            .find(|w| *w == "/opt/openshift/master.ign")
            .unwrap() = master;
        want.push("/dev/vda".into());
        let installs: Vec<String> = node
            .stub_log()
            .into_iter()
            .filter(|l| l.starts_with("coreos-installer "))
            .collect();
        assert_eq!(
            installs,
            [format!("coreos-installer {}", want.join(" "))],
            "{minor}"
        );
        assert!(
            node.stub_log()
                .iter()
                .any(|l| l.starts_with("shutdown -r +1 ")),
            "{minor}"
        );
        assert!(node.asset().join(".install-to-disk.done").exists());
        let records: Value = serde_json::from_str(
            &fs::read_to_string(node.root.join("var/log/openshift/install-to-disk.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(
            started(records.as_array().unwrap()),
            ["wait-for-bootkube", "coreos-installer", "reboot"],
            "{minor}"
        );

        // (shellcheck of every release's single-node scripts: templates_lint.rs.)
    }
}

/// The debugging loop works in place: a reset of stop-etcd gives etcd its static pod back and
/// takes master.ign away; the next run redoes only those stages.
#[test]
fn single_node_reset_reruns_the_in_place_stages() {
    let node = Node::with_scripts(single_node_scripts("4.22.0"));
    write_file(
        &node.asset().join("bootstrap-in-place/master-update.fcc"),
        "variant: fcos\n",
        0o600,
    );
    assert_status(&node.bootkube(&[]), true);
    let output = node.reset(&["stop-etcd"]);
    assert_status(&output, true);
    assert!(node.kube().join("manifests/etcd-member-pod.yaml").exists());
    assert!(!node.kube().join("etcd-member-pod.yaml").exists());
    assert!(!node.asset().join("master.ign").exists());
    for marker in ["stop-etcd.done", "master-ignition.done", ".bootkube.done"] {
        assert!(!node.asset().join(marker).exists(), "{marker}");
    }
    assert!(node.asset().join("cb-bootstrap.done").exists());
    assert_status(&node.bootkube(&[]), true);
    let runs = node.runs();
    let second: Vec<String> = started(&runs[1])
        .into_iter()
        .filter(|s| !s.contains("api"))
        .collect();
    // etcd is back, so bootkube waits for it again before stopping it.
    assert_eq!(second, ["wait-for-etcd", "stop-etcd", "master-ignition"]);
    assert!(node.asset().join("master.ign").exists());
}

// ---------------------------------------------------------------------------------------------
// Every release's Ignition spec

/// For every supported release: bootstrap.ign of the default cluster has the Ignition spec that
/// release's installer writes. (Its files with their modes and its units with their enablement
/// are compared with the installer's own configs, case by case, in installer_objects.rs.)
#[test]
fn every_release_writes_the_installers_ignition_spec() {
    let dir = bootgen_conformance::repo().join("tests/expectations/releases");
    let loaded = bootgen::config::load_default().unwrap();
    let mut problems = Vec::new();
    for profile in bootgen::release::PROFILES.iter() {
        let minor = profile.minor.to_string();
        let text = fs::read_to_string(dir.join(format!("{minor}.toml"))).unwrap();
        let expected: Expectation = toml::from_str(&text).unwrap();
        let options = bootgen_conformance::quick_options(Some(&format!("{minor}.0")));
        let generated = bootgen::generate(&loaded, &options).unwrap();
        let doc: Value = serde_json::from_slice(&generated.bootstrap.to_bytes()).unwrap();
        let spec = doc["ignition"]["version"].as_str().unwrap_or_default();
        if spec != expected.ignition_spec {
            problems.push(format!(
                "{minor}: Ignition spec {spec}, expected {}",
                expected.ignition_spec
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

// ---------------------------------------------------------------------------------------------
// Every flag of bootkube is declared

/// Flags of the tools bootkube.sh drives itself (podman, oc, curl, ...), as opposed to the
/// payload's operators, whose flags the release table declares per release.
const TOOL_FLAGS: &[&str] = &[
    // podman: bootkube_podman_run's own options, and finding/removing a stage's containers.
    "--quiet",
    "--net",
    "--rm",
    "--label",
    "--log-driver",
    "--all",
    "--filter",
    "--force",
    // oc: reading the payload's version, and giving the user's CVO overrides back.
    "--registry-config",
    "--output",
    "--icsp-file",
    "--idms-file",
    "--type",
    "--patch-file",
    // bootkube-reset.sh's own options, named in bootkube-stages.sh's comments and messages.
    "--list",
    "--help",
    // systemctl: bootkube-reset.sh's hint starting approve-csr without the bootkube it wants.
    "--job-mode",
];

/// The `--flag` words in `text` (the part before any `=`).
fn flags_in(text: &str) -> BTreeSet<String> {
    let mut flags = BTreeSet::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while let Some(at) = text[i..].find("--") {
        let start = i + at;
        let boundary = start == 0 || {
            let c = bytes[start - 1];
            !(c.is_ascii_alphanumeric() || c == b'-' || c == b'_')
        };
        let mut end = start + 2;
        while end < bytes.len() && (bytes[end].is_ascii_alphanumeric() || bytes[end] == b'-') {
            end += 1;
        }
        if boundary && end > start + 2 && bytes[start + 2].is_ascii_lowercase() {
            flags.insert(text[start..end].to_string());
        }
        i = end.max(start + 2);
    }
    flags
}

/// For every supported release, every `--flag` in bootkube.sh and bootkube-stages.sh as bootgen
/// renders them is either declared by that release's table rows (a stage's podman options,
/// command words or optional flags) or a flag of a tool bootkube drives itself: a template
/// cannot hand an operator a flag that no release declares.
#[test]
fn every_bootkube_flag_is_declared_by_the_release() {
    let mut problems = Vec::new();
    for profile in bootgen::release::PROFILES.iter() {
        let minor = profile.minor.to_string();
        let declared: BTreeSet<String> = profile
            .stages
            .iter()
            .flat_map(|s| s.options.iter().chain(&s.command).chain(&s.optional_flags))
            .flat_map(|w| flags_in(w))
            .collect();
        for (name, text) in scripts_of(Some(&format!("{minor}.0")), "") {
            if !name.starts_with("bootkube") {
                continue;
            }
            for flag in flags_in(&text) {
                if !declared.contains(&flag) && !TOOL_FLAGS.contains(&flag.as_str()) {
                    problems.push(format!("{minor}: {name} uses {flag}"));
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "flags no release row declares:\n{}",
        problems.join("\n")
    );
}

// ---------------------------------------------------------------------------------------------
// Konnectivity (5.0, behind the konnectivity gate)

/// The scripts and `/opt/openshift` konnectivity files bootgen makes for `release` with
/// `feature_set` (a cluster with a bootstrap machine unless `single_node`), by node path.
fn node_files_with(
    release: &str,
    feature_set: &str,
    single_node: bool,
) -> BTreeMap<String, String> {
    node_files_with_gates(release, feature_set, &[], single_node)
}

/// [`node_files_with`], with the install-config's `featureGates` (for CustomNoUpgrade).
fn node_files_with_gates(
    release: &str,
    feature_set: &str,
    feature_gates: &[&str],
    single_node: bool,
) -> BTreeMap<String, String> {
    node_files_where(release, single_node, |config| {
        config.feature_set = Some(feature_set.to_string());
        config.feature_gates = feature_gates.iter().map(|g| g.to_string()).collect();
    })
}

/// The node files for `release` from the embedded install-config as `edit` changes it.
fn node_files_where(
    release: &str,
    single_node: bool,
    edit: impl FnOnce(&mut bootgen::config::InstallConfig),
) -> BTreeMap<String, String> {
    let mut loaded = if single_node {
        bootgen::config::load_default_single_node().unwrap()
    } else {
        bootgen::config::load_default().unwrap()
    };
    edit(&mut loaded.config);
    let mut options = bootgen_conformance::quick_options(Some(release));
    if single_node {
        options.model.installation_disk = Some("/dev/vda".into());
    }
    let generated = bootgen::generate(&loaded, &options).unwrap();
    let decoded = bootgen::ignition::decode(&generated.bootstrap).unwrap();
    decoded
        .files
        .iter()
        .filter(|f| f.path.starts_with("/usr/local/bin/") || f.path.starts_with("/opt/openshift/"))
        .filter_map(|f| {
            let text = String::from_utf8(f.contents.clone()?).ok()?;
            Some((f.path.clone(), text))
        })
        .collect()
}

/// The stage names of a bootkube-stages.sh.
fn stage_table(stages_script: &str) -> Vec<String> {
    let table = stages_script
        .split("<<'EOF'\n")
        .nth(1)
        .and_then(|t| t.split("\nEOF").next())
        .unwrap();
    table
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| l.split_whitespace().next().unwrap().to_string())
        .collect()
}

/// A node with the 5.0 TechPreviewNoUpgrade scripts, the installer-provided konnectivity files
/// in `/opt/openshift`, and a stub `ip` whose default route leaves from 192.0.2.15.
fn konnectivity_node() -> (Node, BTreeMap<String, String>) {
    let files = node_files_with("5.0.0", "TechPreviewNoUpgrade", false);
    let scripts: Vec<(String, String)> = SCRIPTS
        .iter()
        .map(|name| {
            let text = files[&format!("/usr/local/bin/{name}")].clone();
            (name.to_string(), text)
        })
        .collect();
    let node = Node::with_scripts(scripts);
    for (path, text) in &files {
        if let Some(name) = path.strip_prefix("/opt/openshift/") {
            if name.starts_with("konnectivity-") || name == "egress-selector-config.yaml" {
                write_file(&node.asset().join(name), text, 0o600);
            }
        }
    }
    write_file(
        &node.root.join("bin/ip"),
        "#!/usr/bin/env bash\nprintf 'ip %s\\n' \"$*\" >>\"$STUB_LOG\"\n\
         echo '[{\"dst\":\"1.1.1.1\",\"gateway\":\"192.0.2.1\",\"dev\":\"eth0\",\"prefsrc\":\"192.0.2.15\"}]'\n",
        0o755,
    );
    (node, files)
}

fn yaml_file(path: &Path) -> serde_json::Value {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    // Placeholders are __NAME__ words outside comments; the text may hold a key, so only the
    // offending lines are shown.
    let unfilled: Vec<&str> = text
        .lines()
        .filter(|l| !l.trim_start().starts_with('#') && l.contains("__"))
        .collect();
    assert!(
        unfilled.is_empty(),
        "{} still has placeholders: {unfilled:?}",
        path.display()
    );
    serde_yaml_ng::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `openssl` on the konnectivity certificates, as a user checking them by hand would.
fn openssl(args: &[&str], dir: &Path) -> Output {
    Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("openssl must be installed")
}

/// A real mutual-TLS handshake between `openssl s_server` with the konnectivity server's
/// certificate (requiring a client certificate from the konnectivity CA) and `openssl s_client`
/// with the agents' certificate, which checks the server certificate names `expect_ip`.
fn konnectivity_handshake(dir: &Path, expect_ip: &str) -> bool {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut server = Command::new("openssl")
        .args(["s_server", "-accept", &format!("127.0.0.1:{port}")])
        .args([
            "-cert",
            "server.crt",
            "-key",
            "server.key",
            "-CAfile",
            "ca.crt",
        ])
        .args([
            "-Verify",
            "1",
            "-verify_return_error",
            "-naccept",
            "1",
            "-quiet",
        ])
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // The client retries while the server is not listening yet (connection refused).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let client = loop {
        let client = Command::new("openssl")
            .args(["s_client", "-connect", &format!("127.0.0.1:{port}")])
            .args([
                "-CAfile",
                "ca.crt",
                "-cert",
                "agent.crt",
                "-key",
                "agent.key",
            ])
            .args(["-verify_ip", expect_ip, "-verify_return_error", "-brief"])
            .current_dir(dir)
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        let refused = String::from_utf8_lossy(&client.stderr).contains("onnection refused");
        if !refused || std::time::Instant::now() > deadline {
            break client;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    let _ = server.kill();
    let _ = server.wait();
    client.status.success()
}

/// 5.0 with a preview feature set opens the konnectivity gate: bootkube makes the konnectivity
/// certificates for the node's address, starts the server's static pod before the API server,
/// gives the API server the egress selector configuration, hands the agents to cluster-bootstrap
/// and cleans up at the end, in the installer's order. The certificates pass a real mutual-TLS
/// handshake; the manifests parse and carry the image, address and certificates.
#[test]
fn konnectivity_stages_run_when_a_preview_feature_set_opens_the_gate() {
    let (node, files) = konnectivity_node();
    let scripts: Vec<(String, String)> = files
        .iter()
        .filter(|(p, _)| {
            p.starts_with("/usr/local/bin/konnectivity") || p.ends_with("/bootkube.sh")
        })
        .map(|(p, t)| (p.rsplit('/').next().unwrap().to_string(), t.clone()))
        .collect();
    assert_status(&shellcheck(&scripts), true);

    let output = node.bootkube(&[]);
    assert_status(&output, true);

    // The installer's stage order, with konnectivity's stages where its bootkube.sh runs them.
    let text = fs::read_to_string(
        bootgen_conformance::repo().join("tests/expectations/releases/5.0.toml"),
    )
    .unwrap();
    let expected: Expectation = toml::from_str(&text).unwrap();
    let mut want = Vec::new();
    for stage in &expected.stages {
        match stage.as_str() {
            "kube-apiserver-bootstrap" => want
                .extend(["konnectivity-certs", "konnectivity-server-bootstrap"].map(String::from)),
            "cb-bootstrap" => want.push("konnectivity-agent-manifest".to_string()),
            _ => {}
        }
        want.push(stage.clone());
    }
    want.push("konnectivity-cleanup".to_string());
    let runs = node.runs();
    assert_eq!(started(&runs[0]), want);

    // The API server's render takes the override; its egress configuration is where it reads it.
    let log = node.stub_log();
    let render = command_of(&log, "kube-apiserver-bootstrap").unwrap();
    assert!(
        render.contains(
            &"--config-override-files=/assets/konnectivity-config-override.yaml".to_string()
        ),
        "{render:?}"
    );
    assert_eq!(
        fs::read_to_string(
            node.kube()
                .join("bootstrap-configs/egress-selector-config.yaml")
        )
        .unwrap(),
        files["/opt/openshift/egress-selector-config.yaml"]
    );

    // The certificates: one CA, a server certificate for the node's address, an agent client
    // certificate; they work together in a real handshake, and not for another address.
    let certs = node.asset().join("tls/konnectivity");
    assert_eq!(
        fs::read_to_string(certs.join("node-ip")).unwrap().trim(),
        "192.0.2.15"
    );
    let verify = openssl(
        &[
            "verify",
            "-CAfile",
            "ca.crt",
            "-purpose",
            "sslserver",
            "server.crt",
        ],
        &certs,
    );
    assert_status(&verify, true);
    let verify = openssl(
        &[
            "verify",
            "-CAfile",
            "ca.crt",
            "-purpose",
            "sslclient",
            "agent.crt",
        ],
        &certs,
    );
    assert_status(&verify, true);
    let wrong = openssl(
        &[
            "verify",
            "-CAfile",
            "ca.crt",
            "-purpose",
            "sslserver",
            "agent.crt",
        ],
        &certs,
    );
    assert_status(&wrong, false);
    assert!(konnectivity_handshake(&certs, "192.0.2.15"));
    assert!(!konnectivity_handshake(&certs, "192.0.2.16"));
    let key_mode = fs::metadata(certs.join("agent.key"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(key_mode & 0o077, 0, "agent.key is readable by others");

    // The server's static pod, as placed (the cleanup took it out of the manifests again).
    let image = "quay.example/payload/apiserver-network-proxy@sha256:2222";
    let pod = yaml_file(
        &node
            .asset()
            .join("konnectivity-bootstrap/konnectivity-server-pod.yaml"),
    );
    assert_eq!(pod["spec"]["containers"][0]["image"], image);
    assert!(!node
        .kube()
        .join("manifests/konnectivity-server-pod.yaml")
        .exists());

    // The agents' manifests, for cluster-bootstrap.
    let manifests = node.asset().join("manifests");
    let namespace = yaml_file(&manifests.join("konnectivity-namespace.yaml"));
    assert_eq!(
        namespace["metadata"]["name"],
        "openshift-bootstrap-konnectivity"
    );
    let secret = yaml_file(&manifests.join("konnectivity-agent-certs.yaml"));
    use base64::Engine;
    for (key, file) in [
        ("ca.crt", "ca.crt"),
        ("tls.crt", "agent.crt"),
        ("tls.key", "agent.key"),
    ] {
        let data = base64::engine::general_purpose::STANDARD
            .decode(secret["data"][key].as_str().unwrap())
            .unwrap();
        assert_eq!(data, fs::read(certs.join(file)).unwrap(), "secret's {key}");
    }
    let daemonset = yaml_file(&manifests.join("konnectivity-agent-daemonset.yaml"));
    let agent = &daemonset["spec"]["template"]["spec"]["containers"][0];
    assert_eq!(agent["image"], image);
    assert!(agent["args"]
        .as_array()
        .unwrap()
        .contains(&Value::from("--proxy-server-host=192.0.2.15")));

    // The cleanup: the agents' namespace is deleted without waiting.
    assert!(
        log.iter().any(|l| l.starts_with(
            "oc konnectivity-cleanup delete namespace openshift-bootstrap-konnectivity"
        ) && l.contains("--wait=false")),
        "{log:#?}"
    );
}

/// A konnectivity stage can be reset like any other: its certificates and the server's static
/// pod go, and the next run makes them again (for the address the node has then).
#[test]
fn konnectivity_stages_reset_and_rerun() {
    let (node, _) = konnectivity_node();
    let output = node.bootkube(&[("STUB_FAIL_STAGE", "kube-apiserver-bootstrap")]);
    assert_status(&output, false);
    assert!(node
        .kube()
        .join("manifests/konnectivity-server-pod.yaml")
        .exists());
    assert!(node.asset().join("tls/konnectivity/server.crt").exists());

    let output = node.reset(&["konnectivity-certs"]);
    assert_status(&output, true);
    assert!(!node
        .kube()
        .join("manifests/konnectivity-server-pod.yaml")
        .exists());
    assert!(!node
        .asset()
        .join("tls/konnectivity")
        .join("server.crt")
        .exists());
    assert!(!node.marker("konnectivity-certs.done"));

    let output = node.bootkube(&[]);
    assert_status(&output, true);
    let last = node.runs().pop().unwrap();
    assert_eq!(
        started(&last)[..2],
        ["konnectivity-certs", "konnectivity-server-bootstrap"]
    );
    assert!(node.asset().join("tls/konnectivity/server.crt").exists());
}

/// The gate stays closed without a preview feature set, before 5.0, and on a single node; the
/// files are on every 5.0 node all the same, as the installer writes them.
#[test]
fn konnectivity_gate_opens_only_for_a_preview_feature_set_on_50_clusters() {
    let konnectivity_stages = |files: &BTreeMap<String, String>| {
        stage_table(&files["/usr/local/bin/bootkube-stages.sh"])
            .into_iter()
            .filter(|s| s.starts_with("konnectivity"))
            .collect::<Vec<_>>()
    };
    let all = [
        "konnectivity-certs",
        "konnectivity-server-bootstrap",
        "konnectivity-agent-manifest",
        "konnectivity-cleanup",
    ];
    for feature_set in ["TechPreviewNoUpgrade", "DevPreviewNoUpgrade"] {
        let files = node_files_with("5.0.0", feature_set, false);
        assert_eq!(konnectivity_stages(&files), all, "{feature_set}");
    }
    // CustomNoUpgrade opens it with either feature gate the installer asks about, and not
    // with that gate turned off or another one on.
    for gates in [
        &["ClusterAPIMachineManagement=true"][..],
        &["OSStreams=true", "CRDCompatibilityRequirementOperator=True"],
    ] {
        let files = node_files_with_gates("5.0.0", "CustomNoUpgrade", gates, false);
        assert_eq!(konnectivity_stages(&files), all, "{gates:?}");
    }
    for gates in [
        &["ClusterAPIMachineManagement=false"][..],
        &["OSStreams=true"],
    ] {
        let files = node_files_with_gates("5.0.0", "CustomNoUpgrade", gates, false);
        assert!(konnectivity_stages(&files).is_empty(), "{gates:?}");
    }
    let single = node_files_with_gates(
        "5.0.0",
        "CustomNoUpgrade",
        &["ClusterAPIMachineManagement=true"],
        true,
    );
    assert!(
        konnectivity_stages(&single).is_empty(),
        "never on a single node"
    );
    for (release, feature_set, single_node) in [
        ("5.0.0", "", false),
        ("5.0.0", "CustomNoUpgrade", false),
        ("5.0.0", "TechPreviewNoUpgrade", true),
        ("4.22.0", "TechPreviewNoUpgrade", false),
    ] {
        let files = node_files_with(release, feature_set, single_node);
        assert!(
            konnectivity_stages(&files).is_empty(),
            "{release} {feature_set:?} single node {single_node}"
        );
        let bootkube = &files["/usr/local/bin/bootkube.sh"];
        assert!(
            !bootkube.contains("--config-override-files"),
            "{release} {feature_set:?}"
        );
        let has_files = files.contains_key("/usr/local/bin/konnectivity.sh");
        assert_eq!(has_files, release == "5.0.0", "{release}: konnectivity.sh");
    }
}

/// The OSImageStream manifest, as the installer writes it: whenever the OSStreams feature gate
/// is on: from 5.0 by default (rhel-10), in 4.22 with a preview feature set (rhel-9), and with
/// CustomNoUpgrade only when `featureGates` turns it on; never before 4.22.
#[test]
fn os_image_stream_manifest_follows_the_release_and_feature_set() {
    const PATH: &str = "/opt/openshift/openshift/99_osimagestream.yaml";
    for (release, feature_set, gates, want) in [
        ("5.0.0", "", &[][..], Some("rhel-10")),
        ("5.0.0", "TechPreviewNoUpgrade", &[], Some("rhel-10")),
        // CustomNoUpgrade turns on only the gates it lists, OSStreams included.
        ("5.0.0", "CustomNoUpgrade", &[], None),
        (
            "5.0.0",
            "CustomNoUpgrade",
            &["OSStreams=true"],
            Some("rhel-10"),
        ),
        ("5.0.0", "CustomNoUpgrade", &["OSStreams=false"], None),
        ("4.22.0", "TechPreviewNoUpgrade", &[], Some("rhel-9")),
        ("4.22.0", "DevPreviewNoUpgrade", &[], Some("rhel-9")),
        ("4.22.0", "", &[], None),
        ("4.22.0", "CustomNoUpgrade", &[], None),
        (
            "4.22.0",
            "CustomNoUpgrade",
            &["OSStreams=t"],
            Some("rhel-9"),
        ),
        ("4.21.0", "TechPreviewNoUpgrade", &[], None),
        ("4.21.0", "CustomNoUpgrade", &["OSStreams=true"], None),
    ] {
        let files = node_files_with_gates(release, feature_set, gates, false);
        let stream = files.get(PATH).map(|text| {
            let doc: Value = serde_yaml_ng::from_str(text).unwrap();
            assert_eq!(doc["kind"], "OSImageStream");
            assert_eq!(doc["metadata"]["name"], "cluster");
            doc["spec"]["defaultStream"].as_str().unwrap().to_string()
        });
        assert_eq!(
            stream.as_deref(),
            want,
            "{release} {feature_set:?} {gates:?}"
        );
        // Every manifest the installer writes is unmanaged in the CVO overrides.
        let cvo: Value =
            serde_yaml_ng::from_str(&files["/opt/openshift/manifests/cvo-overrides.yaml"]).unwrap();
        let overridden = cvo["spec"]["overrides"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|o| o["kind"] == "OSImageStream" && o["name"] == "cluster");
        assert_eq!(
            overridden,
            want.is_some(),
            "{release} {feature_set:?} {gates:?}"
        );
    }
}

/// A machine-config-osimagestream that records its arguments and names a node image.
const STUB_OSIMAGESTREAM: &str = r##"#!/usr/bin/env bash
printf 'machine-config-osimagestream %s\n' "$*" >>"${STUB_LOG:?}"
echo quay.example/payload/rhel-coreos-for-stream@sha256:3333
"##;

/// A podman that can create a container from an image and copy the osimagestream tool out of
/// it, as node-image-pull.sh does.
const STUB_PODMAN_TOOL_COPY: &str = r##"#!/usr/bin/env bash
printf 'podman %s\n' "$*" >>"${STUB_LOG:?}"
case "$1" in
    create) echo container-1 ;;
    cp) cp "${STUB_TOOL:?}" "$3/machine-config-osimagestream" ;;
esac
"##;

/// The node image is looked up for the cluster's OS stream: the install-config's
/// `osImageStream` when the OSStreams feature lets it choose, else the release's default; the
/// OSImageStream manifest names the same stream. Runs node-image-pull.sh's lookup with a stub
/// podman and a stub machine-config-osimagestream.
#[test]
fn node_image_pull_asks_for_the_clusters_os_image_stream() {
    const MANIFEST: &str = "/opt/openshift/openshift/99_osimagestream.yaml";
    for (release, feature_set, asked, want) in [
        ("4.22.0", "", None, "rhel-9"),
        ("4.22.0", "TechPreviewNoUpgrade", Some("rhel-10"), "rhel-10"),
        ("4.22.0", "DevPreviewNoUpgrade", Some("rhel-9"), "rhel-9"),
        ("5.0.0", "", None, "rhel-10"),
        ("5.0.0", "", Some("rhel-9"), "rhel-9"),
    ] {
        let files = node_files_where(release, false, |config| {
            config.feature_set = Some(feature_set.to_string());
            config.os_image_stream = asked.map(String::from);
        });
        let script = &files["/usr/local/bin/node-image-pull.sh"];
        let start = script.find("resolve_node_image() {").unwrap();
        let end = start + script[start..].find("\n}\n").unwrap() + 3;
        let function = &script[start..end];

        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("bin");
        write_file(&bin.join("podman"), STUB_PODMAN_TOOL_COPY, 0o755);
        let tool = dir.path().join("tool");
        write_file(&tool, STUB_OSIMAGESTREAM, 0o755);
        let log = dir.path().join("stub.log");
        let program = format!(
            "set -euo pipefail\n\
             RELEASE_IMAGE_DIGEST=quay.example/ocp-release@sha256:1111\n\
             AUTH_FILE=/root/.docker/config.json\n\
             image_for() {{ echo \"quay.example/payload/$1@sha256:2222\"; }}\n\
             {function}\n\
             resolve_node_image\n"
        );
        let output = Command::new("bash")
            .args(["-c", &program])
            .env_clear()
            .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
            .env("STUB_LOG", &log)
            .env("STUB_TOOL", &tool)
            .output()
            .unwrap();
        let case = format!("{release} {feature_set:?} {asked:?}");
        assert_status(&output, true);
        assert_eq!(
            String::from_utf8_lossy(&output.stdout).trim(),
            "quay.example/payload/rhel-coreos-for-stream@sha256:3333",
            "{case}"
        );
        let calls = fs::read_to_string(&log).unwrap();
        let tool_call = calls
            .lines()
            .find(|l| l.starts_with("machine-config-osimagestream "))
            .unwrap_or_else(|| panic!("{case}: the tool never ran: {calls}"));
        let args: Vec<&str> = tool_call.split_whitespace().collect();
        let stream_arg = args
            .windows(2)
            .find(|w| w[0] == "--osimagestream-name")
            .map(|w| w[1]);
        assert_eq!(stream_arg, Some(want), "{case}: {tool_call}");
        assert!(
            calls.contains(
                "podman create --quiet quay.example/payload/machine-config-operator@sha256:2222"
            ),
            "{case}: {calls}"
        );
        // The cluster's OSImageStream says the same, when the release writes one.
        if let Some(text) = files.get(MANIFEST) {
            let doc: Value = serde_yaml_ng::from_str(text).unwrap();
            assert_eq!(doc["spec"]["defaultStream"], want, "{case}");
        } else {
            assert_eq!(
                (release, feature_set),
                ("4.22.0", ""),
                "{case}: no manifest"
            );
        }
    }
}

/// The feature gates of a CustomNoUpgrade install-config reach the cluster's FeatureGate
/// manifest, turned on and off as listed, as the installer writes them; other feature sets
/// carry no custom lists.
#[test]
fn custom_feature_gates_reach_the_feature_gate_manifest() {
    const PATH: &str = "/opt/openshift/openshift/99_feature-gate.yaml";
    let files = node_files_with_gates(
        "4.22.0",
        "CustomNoUpgrade",
        &["OSStreams=true", "GatewayAPI=False", "NewOLM=1"],
        false,
    );
    let doc: Value = serde_yaml_ng::from_str(&files[PATH]).unwrap();
    assert_eq!(doc["kind"], "FeatureGate");
    assert_eq!(doc["spec"]["featureSet"], "CustomNoUpgrade");
    assert_eq!(
        doc["spec"]["customNoUpgrade"]["enabled"],
        serde_json::json!(["OSStreams", "NewOLM"])
    );
    assert_eq!(
        doc["spec"]["customNoUpgrade"]["disabled"],
        serde_json::json!(["GatewayAPI"])
    );
    let only_on = node_files_with_gates("5.0.0", "CustomNoUpgrade", &["OSStreams=true"], false);
    let doc: Value = serde_yaml_ng::from_str(&only_on[PATH]).unwrap();
    assert_eq!(
        doc["spec"]["customNoUpgrade"]["enabled"],
        serde_json::json!(["OSStreams"])
    );
    assert!(
        doc["spec"]["customNoUpgrade"].get("disabled").is_none(),
        "{doc}"
    );
    let preview = node_files_with("4.22.0", "TechPreviewNoUpgrade", false);
    let doc: Value = serde_yaml_ng::from_str(&preview[PATH]).unwrap();
    assert!(doc["spec"].get("customNoUpgrade").is_none(), "{doc}");
}
