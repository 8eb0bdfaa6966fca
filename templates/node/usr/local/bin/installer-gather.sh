#!/bin/bash
# Collects what is needed to tell why a bootstrap failed, from this bootstrap node and, over
# SSH, from the control-plane hosts. `openshift-install gather bootstrap` runs it through SSH
# (as core, so it re-runs itself under sudo) and copies the tarball back; it can also be run by hand:
#
#   sudo installer-gather.sh [--id ID] [CONTROL_PLANE_HOST...]
#
# Writes log-bundle-ID.tar.gz into the current directory (or $TAR_FILE) in the installer's
# layout, so `openshift-install gather bootstrap` and its analysis read it. Private
# keys, kubeconfigs and secrets are left out. A failing collector never stops the others.
set -uo pipefail

GATHER_ID=""
CONTROL_PLANE_HOSTS=()
while [ $# -gt 0 ]; do
    case "$1" in
        --id)
            GATHER_ID="${2:?--id needs a value}"
            shift 2
            ;;
        --id=*)
            GATHER_ID="${1#--id=}"
            shift
            ;;
        -h | --help)
            sed -n '2,10p' "$0"
            exit 0
            ;;
        *)
            CONTROL_PLANE_HOSTS+=("$1")
            shift
            ;;
    esac
done
GATHER_ID="${GATHER_ID:-$(date +%Y%m%d%H%M%S)}"

# The installer runs this as core; journals of other units, crictl and the assets need root.
if [ "$(id -u)" -ne 0 ] && [ -z "${GATHER_NO_SUDO:-}" ] && sudo -n true 2>/dev/null; then
    exec sudo -n --preserve-env=TAR_FILE "$0" --id "$GATHER_ID" "${CONTROL_PLANE_HOSTS[@]}"
fi

# NODE is empty on a node; tests point it at a scratch tree standing in for the node's files.
NODE="${GATHER_NODE_ROOT:-}"
WORK_DIR="$(mktemp -d "${GATHER_WORK_DIR:-/tmp}/installer-gather.XXXXXX")" || exit 1
# The archive's top directory is log-bundle-ID, as the installer's: `gather bootstrap` merges it
# into its own log-bundle-ID without nesting, and its analysis looks for
# log-bundle-ID/bootstrap/services/SERVICE.json.
BUNDLE_NAME="log-bundle-$GATHER_ID"
ARTIFACTS="$WORK_DIR/$BUNDLE_NAME"
BOOTSTRAP="$ARTIFACTS/bootstrap"
BUNDLE="${TAR_FILE:-$PWD/$BUNDLE_NAME.tar.gz}"
KUBECONFIG_FILE="$NODE/opt/openshift/auth/kubeconfig"
# A single node that rebooted into its final role carries the bundle gathered before the reboot.
IN_PLACE_BUNDLE="$NODE/var/log/log-bundle-bootstrap.tar.gz"
SSH_OPTS=(-o PreferredAuthentications=publickey -o StrictHostKeyChecking=no
    -o UserKnownHostsFile=/dev/null -o ConnectTimeout=30 -o LogLevel=ERROR)

# say MESSAGE: progress, on the terminal and in the bundle's gather.log.
say() {
    echo "$*"
    echo "$*" >>"$ARTIFACTS/gather.log"
}

# run_to FILE COMMAND...: run COMMAND with its output (and errors) in FILE.
run_to() {
    local file="$1"
    shift
    mkdir -p "$(dirname "$file")"
    "$@" >"$file" 2>&1 || echo "(exit status $?)" >>"$file"
}

gather_service_records() {
    say "Gathering bootstrap service records"
    # Where the installer's analysis looks: bootstrap/services/SERVICE.json.
    mkdir -p "$BOOTSTRAP/services"
    cp "$NODE"/var/log/openshift/*.json "$BOOTSTRAP/services/" 2>/dev/null || true
    # The .done markers with their times: which stages finished, and when.
    run_to "$BOOTSTRAP/done-markers.txt" ls -la --time-style=full-iso "$NODE/opt/openshift/"
}

gather_units() {
    say "Gathering systemd units"
    LANG=POSIX run_to "$ARTIFACTS/failed-units.txt" systemctl list-units --state=failed --no-pager
    local unit
    while read -r unit; do
        [ -n "$unit" ] || continue
        run_to "$ARTIFACTS/unit-status/$unit.txt" systemctl status --no-pager --full "$unit"
        run_to "$ARTIFACTS/unit-status/$unit.log" journalctl --boot --no-pager --output=short-iso --unit="$unit"
    done < <(sed -n 's/^[*● ]*\([^ ]*\.[a-z]*\) .*failed.*/\1/p' "$ARTIFACTS/failed-units.txt")
    run_to "$BOOTSTRAP/host/units.txt" systemctl list-units --no-pager --all
}

gather_journals() {
    say "Gathering journals"
    local unit
    for unit in release-image release-image-download crio-configure bootkube kubelet crio approve-csr \
        progress node-image-pull node-image-overlay node-image-finish chown-gatewayd-key \
        systemd-journal-gatewayd NetworkManager; do
        run_to "$BOOTSTRAP/journals/$unit.log" journalctl --boot --no-pager --output=short-iso --unit="$unit.service"
    done
    journalctl --boot --no-pager --output=short-iso 2>&1 | gzip >"$BOOTSTRAP/journals/journal.log.gz"
}

gather_network() {
    say "Gathering networking"
    local dir="$BOOTSTRAP/network"
    run_to "$dir/ip-addr.txt" ip address show
    run_to "$dir/ip-route.txt" ip route show
    run_to "$dir/ip6-route.txt" ip -6 route show
    run_to "$dir/hostname.txt" hostname
    run_to "$dir/listening.txt" ss -ltnp
    if [ -e "$NODE/etc/resolv.conf" ]; then
        cp "$NODE/etc/resolv.conf" "$dir/resolv.conf"
    fi
}

gather_host() {
    say "Gathering host information"
    run_to "$BOOTSTRAP/rpm-ostree/status" rpm-ostree status
    run_to "$BOOTSTRAP/rpm-ostree/history" rpm-ostree ex history
    run_to "$BOOTSTRAP/host/uname.txt" uname -a
    run_to "$BOOTSTRAP/host/df.txt" df -h
    run_to "$BOOTSTRAP/host/mounts.txt" findmnt --list
    run_to "$BOOTSTRAP/host/date.txt" date -u +%Y-%m-%dT%H:%M:%SZ
    local file
    for file in /etc/hosts /etc/containers/registries.conf \
        /etc/crio/crio.conf.d/50-bootstrap-override.conf /etc/kubernetes/kubelet-pause-image-override \
        /etc/issue.d/50_release-image.issue; do
        if [ -e "$NODE$file" ]; then
            mkdir -p "$BOOTSTRAP/host/files$(dirname "$file")"
            cp "$NODE$file" "$BOOTSTRAP/host/files$file"
        fi
    done
    if [ "$(uname -m)" = s390x ] && command -v dbginfo.sh >/dev/null 2>&1; then
        say "Gathering dbginfo (s390x)"
        mkdir -p "$ARTIFACTS/node-dbginfo"
        dbginfo.sh -d "$ARTIFACTS/node-dbginfo" >/dev/null 2>&1 || true
    fi
}

# CRI-O's containers under bootstrap/containers, podman's under bootstrap/pods, as the installer.
gather_containers() {
    say "Gathering containers"
    local dir="$BOOTSTRAP/containers" pods="$BOOTSTRAP/pods" id name
    run_to "$dir/crictl-pods.txt" crictl pods
    run_to "$dir/crictl-ps.txt" crictl ps --all
    while read -r id name; do
        [ -n "$id" ] || continue
        run_to "$dir/$name-$id.log" crictl logs "$id"
        run_to "$dir/$name-$id.inspect" crictl inspect "$id"
    done < <(crictl ps --all --output=json 2>/dev/null | jq -r '.containers[]? | "\(.id) \(.metadata.name)"' 2>/dev/null)
    run_to "$pods/podman-ps.txt" podman ps --all
    while read -r id name; do
        [ -n "$id" ] || continue
        run_to "$pods/$name-$id.log" podman logs "$id"
        run_to "$pods/$name-$id.inspect" podman inspect "$id"
    done < <(podman ps --all --format=json 2>/dev/null | jq -r '.[]? | "\(.Id[0:12]) \(.Names[0] // "unnamed")"' 2>/dev/null)
}

# Rendered manifests and configs, without what would let someone into the cluster.
gather_assets() {
    say "Gathering rendered assets"
    local excludes=(--exclude='*.key' --exclude='*kubeconfig*' --exclude='*secret*'
        --exclude='auth/' --exclude='*.pem' --exclude='config.json')
    mkdir -p "$ARTIFACTS/rendered-assets/openshift" "$ARTIFACTS/rendered-assets/etc-kubernetes"
    rsync -a "${excludes[@]}" "$NODE/opt/openshift/" "$ARTIFACTS/rendered-assets/openshift/" 2>/dev/null || true
    rsync -a "${excludes[@]}" --exclude='static-pod-resources/' \
        "$NODE/etc/kubernetes/" "$ARTIFACTS/rendered-assets/etc-kubernetes/" 2>/dev/null || true
}

# What the API knew: the dump cluster_bootstrap_gather made when cluster-bootstrap failed, then
# (fresher, overwriting it) the live API's answers. Both under resources/, as the installer.
gather_cluster() {
    local dir="$ARTIFACTS/resources" dump="${BOOTSTRAP_GATHER_DIR:-$NODE/tmp/artifacts-api-server-temp}" resource
    if [ -d "$dump" ]; then
        mkdir -p "$dir"
        cp -r "$dump"/. "$dir/"
    fi
    [ -r "$KUBECONFIG_FILE" ] || return 0
    say "Gathering cluster state from the API"
    if ! oc --kubeconfig="$KUBECONFIG_FILE" --request-timeout=10s get --raw=/readyz >/dev/null 2>&1; then
        say "The API does not answer; skipping cluster state"
        return 0
    fi
    for resource in nodes clusteroperators clusterversion csr machineconfigpools; do
        run_to "$dir/$resource.yaml" oc --kubeconfig="$KUBECONFIG_FILE" --request-timeout=30s get "$resource" --output=yaml
    done
    run_to "$dir/pods.txt" oc --kubeconfig="$KUBECONFIG_FILE" --request-timeout=30s get pods --all-namespaces --output=wide
    run_to "$dir/events.txt" oc --kubeconfig="$KUBECONFIG_FILE" --request-timeout=30s get events --all-namespaces --sort-by=.lastTimestamp
}

# A single node after its reboot: the bundle from before it (log-bundle-bootstrap/, where the
# installer's analysis looks for it), and this host's own state as the control plane.
gather_in_place() {
    [ -f "$IN_PLACE_BUNDLE" ] || return 0
    say "Including the bootstrap bundle $IN_PLACE_BUNDLE"
    tar -xzf "$IN_PLACE_BUNDLE" --no-same-owner --no-same-permissions -C "$ARTIFACTS" ||
        say "Could not unpack $IN_PLACE_BUNDLE"
    if [ -x "$NODE/usr/local/bin/installer-masters-gather.sh" ]; then
        mkdir -p "$ARTIFACTS/control-plane/master"
        "$NODE/usr/local/bin/installer-masters-gather.sh" --id "master-$GATHER_ID" --stdout </dev/null 2>>"$ARTIFACTS/gather.log" |
            tar -C "$ARTIFACTS/control-plane/master" -xzf - --strip-components=1 2>>"$ARTIFACTS/gather.log" ||
            say "Could not gather this host as the control plane"
    fi
}

# Runs installer-masters-gather.sh on each control-plane host and unpacks what it sends back.
gather_control_plane() {
    local host target dest scp_target remote_cmd
    for host in "${CONTROL_PLANE_HOSTS[@]}"; do
        say "Gathering from control-plane host $host"
        target="core@$host"
        dest="$ARTIFACTS/control-plane/$host"
        mkdir -p "$dest"
        # scp wants IPv6 addresses in brackets.
        case "$host" in
            *:*) scp_target="core@[$host]" ;;
            *) scp_target="$target" ;;
        esac
        if ! scp -q "${SSH_OPTS[@]}" "$NODE/usr/local/bin/installer-masters-gather.sh" "$scp_target:" >"$dest/gather.log" 2>&1; then
            echo "Could not copy the gather script to $host (see $dest/gather.log)" >&2
            continue
        fi
        # The tarball comes back on stdout, so file ownership on the host does not matter, and
        # nothing is left in the host's /tmp.
        remote_cmd=$(printf 'sudo ./installer-masters-gather.sh --id %q --stdout' "$GATHER_ID")
        # The command is built here on purpose, with its arguments quoted by printf %q.
        # shellcheck disable=SC2029
        if ! ssh "${SSH_OPTS[@]}" "$target" "$remote_cmd" 2>>"$dest/gather.log" |
            tar -C "$dest" -xzf - --strip-components=1 2>>"$dest/gather.log"; then
            echo "Gathering from $host failed (see $dest/gather.log)" >&2
        fi
    done
}

mkdir -p "$BOOTSTRAP"
gather_service_records
gather_units
gather_journals
gather_network
gather_host
gather_containers
gather_assets
gather_cluster
gather_in_place
gather_control_plane

say "Writing $BUNDLE"
tar -C "$WORK_DIR" -czf "$BUNDLE" "$BUNDLE_NAME"
status=$?
# The installer copies the bundle as the SSH user, who must be able to read it.
if [ -n "${SUDO_USER:-}" ]; then
    chown "$SUDO_USER:" "$BUNDLE" 2>/dev/null || true
fi
rm -rf "$WORK_DIR"
if [ "$status" -ne 0 ]; then
    echo "Could not write $BUNDLE" >&2
    exit 1
fi
echo "Log bundle written to $BUNDLE"
