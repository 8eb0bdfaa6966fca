//! A scripted bootstrap node for the log-bundle tests: a scratch tree standing in for the node's
//! files, stub tools (journalctl, systemctl, crictl, podman, oc, ...) that print what a scenario
//! says, a clock the scenario sets (`date`), service records written by bootgen's real
//! `bootstrap-service-record.sh`, and bootgen's real `installer-gather.sh` run against it to make
//! a log bundle. Control-plane hosts stand behind stub `ssh` and `scp`: each runs what it is sent
//! (bootgen's real `installer-masters-gather.sh`) with its own journals and containers, or does
//! not answer.
//!
//! ```no_run
//! use bootgen_conformance::failing_node::FailingNode;
//!
//! # fn demo() -> bootgen_conformance::Result<()> {
//! let node = FailingNode::new(None)?
//!     .journal("release-image.service", "2026-01-01T01:00:00+0000 bootstrap podman[10]: Error: ...\n")?
//!     .service("release-image", "record_service_stage_start pull-release-image\nexit 1\n")?;
//! let bundle = node.gather("20260101010000")?;
//! # Ok(())
//! # }
//! ```

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::{write_file, HarnessError, Result};

pub mod scenes;

/// The node's Infrastructure manifest, which names api-int.
const INFRASTRUCTURE: &str = "/opt/openshift/manifests/cluster-infrastructure-02-config.yml";

/// The scripts a node runs, by their name in `/usr/local/bin`.
const SCRIPTS: &[&str] = &[
    "installer-gather.sh",
    "installer-masters-gather.sh",
    "bootstrap-service-record.sh",
];

/// journalctl: `--unit=U` prints the scenario's journal of U; `_SYSTEMD_INVOCATION_ID=U` (the
/// record script's query; the driver sets the invocation ID to the unit's name) its last lines;
/// no unit, every journal.
const STUB_JOURNALCTL: &str = r##"#!/usr/bin/env bash
dir="${STUB_DIR:?}/journal"
unit="" lines=""
for arg in "$@"; do
    case "$arg" in
        --unit=*) unit="${arg#--unit=}" ;;
        _SYSTEMD_INVOCATION_ID=*) unit="${arg#_SYSTEMD_INVOCATION_ID=}" ;;
        --lines=*) lines="${arg#--lines=}" ;;
    esac
done
if [ -z "$unit" ]; then
    cat "$dir"/* 2>/dev/null
    exit 0
fi
case "$unit" in *.*) ;; *) unit="$unit.service" ;; esac
[ -f "$dir/$unit" ] || { echo "-- No entries --"; exit 0; }
if [ -n "$lines" ]; then tail -n "$lines" "$dir/$unit"; else cat "$dir/$unit"; fi |
    if [[ " $* " == *" --output=json "* ]]; then
        jq -cR '{__REALTIME_TIMESTAMP: "1767229500000000", _HOSTNAME: "bootstrap", SYSLOG_IDENTIFIER: "stub", MESSAGE: .}'
    else
        cat
    fi
"##;

/// systemctl: the failed units the scenario names, in systemd's table.
const STUB_SYSTEMCTL: &str = r##"#!/usr/bin/env bash
failed="${STUB_DIR:?}/failed-units"
case "$*" in
    *list-units*--state=failed*)
        echo "  UNIT LOAD ACTIVE SUB DESCRIPTION"
        [ -f "$failed" ] && sed 's/^\(.*\)$/● \1 loaded failed failed \1/' "$failed"
        ;;
    *list-units*) echo "  UNIT LOAD ACTIVE SUB DESCRIPTION" ;;
    *status*) echo "× ${*: -1} - stub"; echo "     Active: failed (Result: exit-code)"; exit 3 ;;
esac
exit 0
"##;

/// crictl and podman: the scenario's containers (`crio/NAME-ID.log` for CRI-O,
/// `podman/NAME-ID.log` for podman), listed as JSON in each tool's own shape, or as the IDs of
/// one name (`ps -q --name NAME`).
const STUB_RUNTIME: &str = r##"#!/usr/bin/env bash
tool=$(basename "$0")
if [ "$tool" = crictl ]; then dir="${STUB_DIR:?}/crio"; else dir="${STUB_DIR:?}/podman"; fi
case "$1 ${2:-} ${3:-}" in
    "ps --all --output=json" | "ps --all --format=json")
        items=""
        for f in "$dir"/*.log; do
            [ -e "$f" ] || continue
            base=$(basename "$f" .log)
            if [ "$tool" = crictl ]; then
                item=$(printf '{"id":"%s","metadata":{"name":"%s"}}' "${base##*-}" "${base%-*}")
            else
                item=$(printf '{"Id":"%s","Names":["%s"]}' "${base##*-}" "${base%-*}")
            fi
            items="${items:+$items,}$item"
        done
        if [ "$tool" = crictl ]; then echo "{\"containers\":[$items]}"; else echo "[$items]"; fi
        ;;
    "ps -q --name")
        for f in "$dir/${4:-}"-*.log; do
            [ -e "$f" ] && { base=$(basename "$f" .log); echo "${base##*-}"; }
        done
        ;;
    logs*) cat "$dir"/*-"${*: -1}".log ;;
    inspect*) echo '{"State":{"Status":"exited"}}' ;;
    *) echo "CONTAINER IMAGE CREATED STATE NAME" ;;
esac
"##;

/// date: the system's, at the scenario's clock (`now`, seconds since the epoch) once it is set.
const STUB_DATE: &str = r##"#!/usr/bin/env bash
for real in /usr/bin/date /bin/date; do
    [ -x "$real" ] && break
done
if [ -f "${STUB_DIR:?}/now" ]; then
    exec "$real" --date="@$(cat "$STUB_DIR/now")" "$@"
fi
exec "$real" "$@"
"##;

/// sudo: runs the command as it is (the scratch trees need no root).
const STUB_SUDO: &str = r##"#!/usr/bin/env bash
while [ $# -gt 0 ]; do
    case "$1" in
        -*) shift ;;
        *) break ;;
    esac
done
exec "$@"
"##;

/// ssh: a control-plane host of the scenario (`hosts/HOST`) runs the command in its home
/// directory, with its own stub data, files and scratch directory; any other host does not answer.
const STUB_SSH: &str = r##"#!/usr/bin/env bash
target="" command=()
while [ $# -gt 0 ]; do
    case "$1" in
        -o | -i | -p | -l | -F) shift 2 ;;
        -*) shift ;;
        *)
            if [ -z "$target" ]; then target="$1"; else command+=("$1"); fi
            shift
            ;;
    esac
done
host="${target#*@}"
dir="${STUB_DIR:?}/hosts/$host"
if [ ! -d "$dir/home" ]; then
    echo "ssh: connect to host $host port 22: No route to host" >&2
    exit 255
fi
cd "$dir/home" || exit 255
STUB_DIR="$dir/stub" GATHER_NODE_ROOT="$dir/node" GATHER_WORK_DIR="$dir/work" \
    exec bash -c "${command[*]}"
"##;

/// scp: copies files into a control-plane host's home directory (`core@HOST:`, `core@[HOST]:`).
const STUB_SCP: &str = r##"#!/usr/bin/env bash
paths=()
while [ $# -gt 0 ]; do
    case "$1" in
        -o | -i | -P | -F) shift 2 ;;
        -*) shift ;;
        *) paths+=("$1"); shift ;;
    esac
done
target="${paths[${#paths[@]}-1]}"
host="${target#*@}"
host="${host%:*}"
host="${host#[}"
host="${host%]}"
dir="${STUB_DIR:?}/hosts/$host"
if [ ! -d "$dir/home" ]; then
    echo "ssh: connect to host $host port 22: No route to host" >&2
    exit 1
fi
cp "${paths[@]:0:${#paths[@]}-1}" "$dir/home/"
"##;

/// Any other tool: prints `out/TOOL` when the scenario wrote one, else nothing.
const STUB_OUTPUT: &str = r##"#!/usr/bin/env bash
cat "${STUB_DIR:?}/out/$(basename "$0")" 2>/dev/null
exit 0
"##;

/// The API: it does not answer, unless the scenario gave it resources
/// ([`FailingNode::api_resource`]); then `get --raw=/readyz` says ok and `get RESOURCE` prints
/// `api/RESOURCE.yaml`, or with `--output=json` `api/RESOURCE.json` where the scenario gave one
/// (an empty list for any other resource); `/readyz` fails after [`FailingNode::api_not_ready`].
const STUB_OC: &str = r##"#!/usr/bin/env bash
api="${STUB_DIR:?}/api"
if [ ! -d "$api" ]; then
    echo "The connection to the server localhost:6443 was refused - did you specify the right host or port?" >&2
    exit 1
fi
args=() format=yaml
for arg in "$@"; do
    case "$arg" in
        --output=*) format="${arg#--output=}" ;;
        --kubeconfig=* | --request-timeout=* | --all-namespaces | --sort-by=*) ;;
        *) args+=("$arg") ;;
    esac
done
case "${args[0]} ${args[1]:-}" in
    "get --raw=/readyz")
        if [ -f "$api/not-ready" ]; then
            echo "Error from server (InternalError): an error on the server (\"[-]etcd failed: reason withheld\") has prevented the request from succeeding" >&2
            exit 1
        fi
        echo ok
        ;;
    get\ *)
        if [ "$format" = json ] && [ -f "$api/${args[1]}.json" ]; then
            cat "$api/${args[1]}.json"
        elif [ -f "$api/${args[1]}.yaml" ]; then
            cat "$api/${args[1]}.yaml"
        elif [ "$format" = json ]; then
            printf '{"apiVersion": "v1", "items": [], "kind": "List"}\n'
        else
            printf 'apiVersion: v1\nitems: []\nkind: List\n'
        fi
        ;;
    *) echo "stub oc: $*" >&2; exit 1 ;;
esac
"##;

/// A scratch bootstrap node: build it with a scenario, then [`FailingNode::gather`].
pub struct FailingNode {
    dir: tempfile::TempDir,
    /// The cluster's api-int name, as bootgen's model makes it.
    api_int_host: String,
}

impl FailingNode {
    /// A node with bootgen's scripts for `release` (`None`: the default release).
    pub fn new(release: Option<&str>) -> Result<FailingNode> {
        let dir = tempfile::tempdir()?;
        let loaded = bootgen::config::load_default()
            .map_err(|err| HarnessError(format!("default install-config: {err}")))?;
        let options = crate::quick_options(release);
        let generated = bootgen::generate(&loaded, &options)
            .map_err(|err| HarnessError(format!("generate: {err}")))?;
        let node = FailingNode {
            dir,
            api_int_host: generated.model.api_int_host(),
        };
        let decoded = bootgen::ignition::decode(&generated.bootstrap)
            .map_err(|err| HarnessError(format!("decode: {err}")))?;
        // The scripts, and the manifest that names api-int, as bootstrap.ign writes them.
        let files = SCRIPTS
            .iter()
            .map(|name| (format!("/usr/local/bin/{name}"), 0o755))
            .chain([(INFRASTRUCTURE.to_string(), 0o644)]);
        for (path, mode) in files {
            let file = decoded
                .files
                .iter()
                .find(|f| f.path == path)
                .ok_or_else(|| HarnessError(format!("bootstrap.ign has no {path}")))?;
            let contents = file.contents.clone().unwrap_or_default();
            write_file(&node.node_path(&path), contents, mode)?;
        }
        for (name, text) in [
            ("journalctl", STUB_JOURNALCTL),
            ("systemctl", STUB_SYSTEMCTL),
            ("crictl", STUB_RUNTIME),
            ("podman", STUB_RUNTIME),
            ("oc", STUB_OC),
            ("date", STUB_DATE),
            ("sudo", STUB_SUDO),
            ("ssh", STUB_SSH),
            ("scp", STUB_SCP),
        ] {
            write_file(&node.stub_bin().join(name), text, 0o755)?;
        }
        for name in ["ip", "ss", "hostname", "rpm-ostree", "df", "findmnt"] {
            write_file(&node.stub_bin().join(name), STUB_OUTPUT, 0o755)?;
        }
        fs::create_dir_all(node.node_path("/opt/openshift"))?;
        fs::create_dir_all(node.node_path("/var/log/openshift"))?;
        write_file(
            &node.node_path("/etc/resolv.conf"),
            "nameserver 192.0.2.53\n",
            0o644,
        )?;
        Ok(node)
    }

    /// A node of the default release whose release-image.service pulled the image: the start
    /// of most scenarios.
    pub fn release_pulled() -> Result<FailingNode> {
        FailingNode::new(None)?.service(
            "release-image",
            "record_service_stage_start pull-release-image\nrecord_service_stage_success",
        )
    }

    /// A node whose clock says `time` (RFC 3339) from now on, for its records, its gather and
    /// `diagnose --node` (as `SOURCE_DATE_EPOCH`).
    pub fn at(self, time: &str) -> Result<FailingNode> {
        let seconds =
            time::OffsetDateTime::parse(time, &time::format_description::well_known::Rfc3339)
                .map_err(|err| HarnessError(format!("{time}: {err}")))?
                .unix_timestamp();
        write_file(&self.stub_dir().join("now"), seconds.to_string(), 0o644)?;
        Ok(self)
    }

    /// The cluster's api-int host name, as bootgen's model makes it.
    pub fn api_int_host(&self) -> &str {
        &self.api_int_host
    }

    /// A control-plane host `host` that answers SSH, with bootgen's real
    /// `installer-masters-gather.sh` to run; `text` (journal lines, `short-iso`) is appended to
    /// the journal of its `unit`.
    pub fn control_plane_journal(self, host: &str, unit: &str, text: &str) -> Result<FailingNode> {
        let dir = self.stub_dir().join("hosts").join(host);
        for sub in ["home", "node", "work", "stub/journal"] {
            fs::create_dir_all(dir.join(sub))?;
        }
        let path = dir.join("stub/journal").join(unit);
        let mut all = fs::read_to_string(&path).unwrap_or_default();
        all.push_str(text);
        write_file(&path, all, 0o644)?;
        Ok(self)
    }

    /// The scratch root: the node's `/` and the stubs' data live below it.
    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    /// Where the node's file `path` (absolute on the node) is in the scratch tree.
    pub fn node_path(&self, path: &str) -> PathBuf {
        self.root().join("node").join(path.trim_start_matches('/'))
    }

    fn stub_bin(&self) -> PathBuf {
        self.root().join("bin")
    }

    fn stub_dir(&self) -> PathBuf {
        self.root().join("stub")
    }

    /// Appends `text` (journal lines, `short-iso` format) to the journal of `unit`.
    pub fn journal(self, unit: &str, text: &str) -> Result<FailingNode> {
        let path = self.stub_dir().join("journal").join(unit);
        let mut all = fs::read_to_string(&path).unwrap_or_default();
        all.push_str(text);
        write_file(&path, all, 0o644)?;
        Ok(self)
    }

    /// Runs `body` as the service `service` (bash, after sourcing bootgen's real
    /// `bootstrap-service-record.sh`), so its records are what that script writes; a failure's
    /// message is the last lines of the unit's journal, as under systemd.
    pub fn service(self, service: &str, body: &str) -> Result<FailingNode> {
        let script = format!(". \"$RECORD_SCRIPT\"\n{body}\n",);
        let output = Command::new("bash")
            .arg("-c")
            .arg(script)
            .env_clear()
            .env("PATH", self.path_var())
            .env("STUB_DIR", self.stub_dir())
            .env(
                "RECORD_SCRIPT",
                self.node_path("/usr/local/bin/bootstrap-service-record.sh"),
            )
            .env("SERVICE_RECORD_NAME", service)
            .env(
                "SERVICE_RECORDS_DIR",
                format!("{}/", self.node_path("/var/log/openshift").display()),
            )
            .env("INVOCATION_ID", service)
            .output()?;
        let records = self
            .node_path("/var/log/openshift")
            .join(format!("{service}.json"));
        if !records.exists() {
            return Err(HarnessError(format!(
                "{service} wrote no records: {}",
                String::from_utf8_lossy(&output.stderr)
            )));
        }
        Ok(self)
    }

    /// Writes the node's file `path` (a `.done` marker, a config).
    pub fn file(self, path: &str, contents: &str) -> Result<FailingNode> {
        write_file(&self.node_path(path), contents, 0o644)?;
        Ok(self)
    }

    /// A CRI-O container `name` whose log is `log`.
    pub fn crio_container(self, name: &str, id: &str, log: &str) -> Result<FailingNode> {
        write_file(
            &self
                .stub_dir()
                .join("crio")
                .join(format!("{name}-{id}.log")),
            log,
            0o644,
        )?;
        Ok(self)
    }

    /// A podman container `name` whose log is `log`.
    pub fn podman_container(self, name: &str, id: &str, log: &str) -> Result<FailingNode> {
        write_file(
            &self
                .stub_dir()
                .join("podman")
                .join(format!("{name}-{id}.log")),
            log,
            0o644,
        )?;
        Ok(self)
    }

    /// `unit` is listed as failed by systemctl.
    pub fn failed_unit(self, unit: &str) -> Result<FailingNode> {
        let path = self.stub_dir().join("failed-units");
        let mut all = fs::read_to_string(&path).unwrap_or_default();
        all.push_str(unit);
        all.push('\n');
        write_file(&path, all, 0o644)?;
        Ok(self)
    }

    /// The API answers, and `oc get RESOURCE` prints `yaml`; the bootstrap's admin kubeconfig
    /// is in its place, as bootstrap.ign puts it.
    pub fn api_resource(self, resource: &str, yaml: &str) -> Result<FailingNode> {
        write_file(
            &self.stub_dir().join("api").join(format!("{resource}.yaml")),
            yaml,
            0o644,
        )?;
        write_file(
            &self.node_path("/opt/openshift/auth/kubeconfig"),
            "apiVersion: v1\nkind: Config\n",
            0o600,
        )?;
        Ok(self)
    }

    /// The API answers, and `oc get RESOURCE --output=json` prints `json` (what `oc` prints
    /// for [`FailingNode::api_resource`]'s `yaml`, which the other formats print).
    pub fn api_resource_json(self, resource: &str, json: &str) -> Result<FailingNode> {
        write_file(
            &self.stub_dir().join("api").join(format!("{resource}.json")),
            json,
            0o644,
        )?;
        Ok(self)
    }

    /// The API lists what it holds but `/readyz` fails, so the gather skips the cluster's state.
    pub fn api_not_ready(self) -> Result<FailingNode> {
        write_file(&self.stub_dir().join("api").join("not-ready"), "", 0o644)?;
        Ok(self)
    }

    /// What `tool` (ip, ss, df, hostname, rpm-ostree, findmnt) prints.
    pub fn tool_output(self, tool: &str, text: &str) -> Result<FailingNode> {
        write_file(&self.stub_dir().join("out").join(tool), text, 0o644)?;
        Ok(self)
    }

    /// The environment under which `bootgen diagnose --node` sees this node: its files under
    /// `BOOTGEN_NODE_ROOT`, its stub tools first on `PATH`.
    pub fn node_env(&self) -> Vec<(&'static str, String)> {
        let mut env = vec![
            (
                "BOOTGEN_NODE_ROOT",
                self.root().join("node").display().to_string(),
            ),
            ("PATH", self.path_var()),
            ("STUB_DIR", self.stub_dir().display().to_string()),
        ];
        if let Ok(seconds) = fs::read_to_string(self.stub_dir().join("now")) {
            env.push(("SOURCE_DATE_EPOCH", seconds));
        }
        env
    }

    fn path_var(&self) -> String {
        format!("{}:/usr/bin:/bin", self.stub_bin().display())
    }

    /// Runs bootgen's real `installer-gather.sh --id ID` against the node and returns the
    /// bundle it wrote. Its scratch directory must be empty again afterwards.
    pub fn gather(&self, id: &str) -> Result<PathBuf> {
        self.gather_from(id, &[])
    }

    /// As [`FailingNode::gather`], naming the control-plane hosts `hosts` to gather from over
    /// SSH (hosts of [`FailingNode::control_plane_journal`] answer, any other does not). Their
    /// scratch directories must be empty again afterwards too.
    pub fn gather_from(&self, id: &str, hosts: &[&str]) -> Result<PathBuf> {
        let work = self.root().join("work");
        let out = self.root().join("out");
        fs::create_dir_all(&work)?;
        fs::create_dir_all(&out)?;
        let bundle = out.join(format!("log-bundle-{id}.tar.gz"));
        let output = Command::new("bash")
            .arg(self.node_path("/usr/local/bin/installer-gather.sh"))
            .args(["--id", id])
            .args(hosts)
            .env_clear()
            .env("PATH", self.path_var())
            .env("HOME", self.root())
            .env("STUB_DIR", self.stub_dir())
            .env("GATHER_NODE_ROOT", self.root().join("node"))
            .env("GATHER_WORK_DIR", &work)
            .env("GATHER_NO_SUDO", "1")
            .env("TAR_FILE", &bundle)
            .current_dir(&out)
            .output()?;
        if !output.status.success() || !bundle.exists() {
            return Err(HarnessError(format!(
                "installer-gather.sh failed ({}): {}{}",
                output.status,
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            )));
        }
        let hosts_dir = self.stub_dir().join("hosts");
        let host_works = fs::read_dir(&hosts_dir)
            .into_iter()
            .flatten()
            .flatten()
            .map(|host| host.path().join("work"));
        for dir in std::iter::once(work).chain(host_works) {
            let left: Vec<_> = fs::read_dir(&dir)?.collect();
            if !left.is_empty() {
                return Err(HarnessError(format!(
                    "the gather left {} entries in {}",
                    left.len(),
                    dir.display()
                )));
            }
        }
        Ok(bundle)
    }
}
