#!/bin/bash
# Collects what is needed to tell why a bootstrap failed, from this bootstrap node and, over
# SSH, from the control-plane hosts. `openshift-install gather bootstrap` runs it through SSH
# and copies the tarball back; it can also be run by hand:
#
#   sudo installer-gather.sh [--id ID] [CONTROL_PLANE_HOST...]
#
# Writes log-bundle-ID.tar.gz into the current directory. Private keys, kubeconfigs and
# secrets are left out. A failing collector never stops the others.
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

ARTIFACTS="/tmp/artifacts-$GATHER_ID"
BOOTSTRAP="$ARTIFACTS/bootstrap"
BUNDLE="$PWD/log-bundle-$GATHER_ID.tar.gz"
KUBECONFIG_FILE=/opt/openshift/auth/kubeconfig
SSH_OPTS=(-o PreferredAuthentications=publickey -o StrictHostKeyChecking=no
    -o UserKnownHostsFile=/dev/null -o ConnectTimeout=30 -o LogLevel=ERROR)

# run_to FILE COMMAND...: run COMMAND with its output (and errors) in FILE.
run_to() {
    local file="$1"
    shift
    mkdir -p "$(dirname "$file")"
    "$@" >"$file" 2>&1 || echo "(exit status $?)" >>"$file"
}

gather_journals() {
    echo "Gathering journals"
    local unit
    for unit in release-image crio-configure bootkube kubelet crio approve-csr progress \
        node-image-pull node-image-overlay node-image-finish chown-gatewayd-key \
        systemd-journal-gatewayd NetworkManager; do
        run_to "$BOOTSTRAP/journals/$unit.log" journalctl --boot --no-pager --output=short-iso --unit="$unit.service"
    done
    journalctl --boot --no-pager --output=short-iso 2>&1 | gzip >"$BOOTSTRAP/journals/journal.log.gz"
}

gather_services() {
    echo "Gathering service state"
    run_to "$BOOTSTRAP/services/failed-units.txt" systemctl list-units --failed --no-pager --all
    run_to "$BOOTSTRAP/services/units.txt" systemctl list-units --no-pager --all
    run_to "$BOOTSTRAP/services/status.txt" systemctl status --no-pager --full \
        release-image.service crio-configure.service bootkube.service kubelet.service crio.service \
        approve-csr.service progress.service
    mkdir -p "$BOOTSTRAP/progress"
    cp /var/log/openshift/*.json "$BOOTSTRAP/progress/" 2>/dev/null || true
    run_to "$BOOTSTRAP/progress/done-markers.txt" ls -la --time-style=full-iso /opt/openshift/
}

gather_host() {
    echo "Gathering host information"
    run_to "$BOOTSTRAP/host/uname.txt" uname -a
    run_to "$BOOTSTRAP/host/rpm-ostree-status.txt" rpm-ostree status
    run_to "$BOOTSTRAP/host/df.txt" df -h
    run_to "$BOOTSTRAP/host/mounts.txt" findmnt --list
    run_to "$BOOTSTRAP/host/ip-addr.txt" ip address show
    run_to "$BOOTSTRAP/host/ip-route.txt" ip route show
    run_to "$BOOTSTRAP/host/ip6-route.txt" ip -6 route show
    run_to "$BOOTSTRAP/host/listening.txt" ss -ltnp
    local file
    for file in /etc/resolv.conf /etc/hosts /etc/containers/registries.conf \
        /etc/crio/crio.conf.d/50-bootstrap-override.conf /etc/kubernetes/kubelet-pause-image-override \
        /etc/issue.d/50_release-image.issue; do
        if [ -e "$file" ]; then
            mkdir -p "$BOOTSTRAP/host/files$(dirname "$file")"
            cp "$file" "$BOOTSTRAP/host/files$file"
        fi
    done
    if [ "$(uname -m)" = s390x ] && command -v dbginfo.sh >/dev/null 2>&1; then
        echo "Gathering dbginfo (s390x)"
        mkdir -p "$BOOTSTRAP/dbginfo"
        dbginfo.sh -d "$BOOTSTRAP/dbginfo" >/dev/null 2>&1 || true
    fi
}

gather_containers() {
    echo "Gathering containers"
    local dir="$BOOTSTRAP/containers" id name
    run_to "$dir/crictl-pods.txt" crictl pods
    run_to "$dir/crictl-ps.txt" crictl ps --all
    while read -r id name; do
        [ -n "$id" ] || continue
        run_to "$dir/$name-$id.log" crictl logs "$id"
        run_to "$dir/$name-$id.inspect" crictl inspect "$id"
    done < <(crictl ps --all --output=json 2>/dev/null | jq -r '.containers[]? | "\(.id) \(.metadata.name)"' 2>/dev/null)
    run_to "$dir/podman-ps.txt" podman ps --all
    while read -r id name; do
        [ -n "$id" ] || continue
        run_to "$dir/podman-$name-$id.log" podman logs "$id"
    done < <(podman ps --all --format=json 2>/dev/null | jq -r '.[]? | "\(.Id[0:12]) \(.Names[0] // "unnamed")"' 2>/dev/null)
}

# Rendered manifests and configs, without what would let someone into the cluster.
gather_assets() {
    echo "Gathering rendered assets"
    local excludes=(--exclude='*.key' --exclude='*kubeconfig*' --exclude='*secret*'
        --exclude='auth/' --exclude='*.pem' --exclude='config.json')
    mkdir -p "$BOOTSTRAP/rendered-assets/opt-openshift" "$BOOTSTRAP/rendered-assets/etc-kubernetes"
    rsync -a "${excludes[@]}" /opt/openshift/ "$BOOTSTRAP/rendered-assets/opt-openshift/" 2>/dev/null || true
    rsync -a "${excludes[@]}" --exclude='static-pod-resources/' \
        /etc/kubernetes/ "$BOOTSTRAP/rendered-assets/etc-kubernetes/" 2>/dev/null || true
    # Written by cluster_bootstrap_gather when cluster-bootstrap failed.
    if [ -d /tmp/artifacts-api-server-temp ]; then
        cp -r /tmp/artifacts-api-server-temp "$ARTIFACTS/api-server-temp"
    fi
}

gather_cluster() {
    [ -r "$KUBECONFIG_FILE" ] || return 0
    echo "Gathering cluster state from the API"
    local dir="$ARTIFACTS/resources" resource
    if ! oc --kubeconfig="$KUBECONFIG_FILE" --request-timeout=10s get --raw=/readyz >/dev/null 2>&1; then
        echo "The API does not answer; skipping cluster state"
        return 0
    fi
    for resource in nodes clusteroperators clusterversion csr machineconfigpools; do
        run_to "$dir/$resource.yaml" oc --kubeconfig="$KUBECONFIG_FILE" --request-timeout=30s get "$resource" --output=yaml
    done
    run_to "$dir/pods.txt" oc --kubeconfig="$KUBECONFIG_FILE" --request-timeout=30s get pods --all-namespaces --output=wide
    run_to "$dir/events.txt" oc --kubeconfig="$KUBECONFIG_FILE" --request-timeout=30s get events --all-namespaces --sort-by=.lastTimestamp
}

# Runs installer-masters-gather.sh on each control-plane host and unpacks what it sends back.
gather_control_plane() {
    local host target dest scp_target remote_cmd
    for host in "${CONTROL_PLANE_HOSTS[@]}"; do
        echo "Gathering from control-plane host $host"
        target="core@$host"
        dest="$ARTIFACTS/control-plane/$host"
        mkdir -p "$dest"
        # scp wants IPv6 addresses in brackets.
        case "$host" in
            *:*) scp_target="core@[$host]" ;;
            *) scp_target="$target" ;;
        esac
        if ! scp -q "${SSH_OPTS[@]}" /usr/local/bin/installer-masters-gather.sh "$scp_target:" >"$dest/gather.log" 2>&1; then
            echo "Could not copy the gather script to $host (see $dest/gather.log)" >&2
            continue
        fi
        # The tarball comes back on stdout, so file ownership on the host does not matter.
        remote_cmd=$(printf 'sudo ./installer-masters-gather.sh --id %q >&2 && sudo tar -C /tmp -czf - %q' \
            "$GATHER_ID" "artifacts-$GATHER_ID")
        # The command is built here on purpose, with its arguments quoted by printf %q.
        # shellcheck disable=SC2029
        if ! ssh "${SSH_OPTS[@]}" "$target" "$remote_cmd" 2>>"$dest/gather.log" |
            tar -C "$dest" -xzf - --strip-components=1 2>>"$dest/gather.log"; then
            echo "Gathering from $host failed (see $dest/gather.log)" >&2
        fi
    done
}

mkdir -p "$BOOTSTRAP"
gather_journals
gather_services
gather_host
gather_containers
gather_assets
gather_cluster
gather_control_plane

echo "Writing $BUNDLE"
tar -C /tmp -czf "$BUNDLE" "artifacts-$GATHER_ID"
# The installer copies the bundle as the SSH user, who must be able to read it.
if [ -n "${SUDO_USER:-}" ]; then
    chown "$SUDO_USER:" "$BUNDLE" 2>/dev/null || true
fi
rm -rf "$ARTIFACTS"
echo "Log bundle written to $BUNDLE"
