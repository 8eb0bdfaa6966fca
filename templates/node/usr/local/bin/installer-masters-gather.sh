#!/bin/bash
# Runs on a control-plane host, copied there by installer-gather.sh on the bootstrap node:
# collects why this host did or did not join the bootstrap control plane (its kubelet waiting for
# a certificate, its containers, its configuration).
#
#   sudo ./installer-masters-gather.sh --id ID [--stdout]
#
# Writes /tmp/artifacts-ID; with --stdout, writes it as a tar.gz to standard output instead
# (progress goes to standard error) and leaves nothing behind. Private keys, kubeconfigs and
# secrets are left out. A failing collector never stops the others.
set -uo pipefail

GATHER_ID=""
TO_STDOUT=""
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
        --stdout)
            TO_STDOUT=1
            shift
            ;;
        *)
            echo "usage: $0 --id ID [--stdout]" >&2
            exit 1
            ;;
    esac
done
GATHER_ID="${GATHER_ID:-$(date +%Y%m%d%H%M%S)}"
# NODE is empty on a host; tests point it (and the scratch directory) at a scratch tree.
NODE="${GATHER_NODE_ROOT:-}"
ARTIFACTS="${GATHER_WORK_DIR:-/tmp}/artifacts-$GATHER_ID"
if [ -n "$TO_STDOUT" ]; then
    # Standard output carries the archive only.
    exec 3>&1 1>&2
fi

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
    for unit in kubelet crio machine-config-daemon-firstboot machine-config-daemon-pull \
        NetworkManager ovs-configuration openvswitch ovsdb-server ovs-vswitchd; do
        run_to "$ARTIFACTS/journals/$unit.log" journalctl --boot --no-pager --output=short-iso --unit="$unit.service"
    done
    journalctl --boot --no-pager --output=short-iso 2>&1 | gzip >"$ARTIFACTS/journals/journal.log.gz"
}

gather_host() {
    echo "Gathering host information"
    run_to "$ARTIFACTS/host/uname.txt" uname -a
    run_to "$ARTIFACTS/host/rpm-ostree-status.txt" rpm-ostree status
    run_to "$ARTIFACTS/host/failed-units.txt" systemctl list-units --failed --no-pager --all
    run_to "$ARTIFACTS/host/df.txt" df -h
    run_to "$ARTIFACTS/host/ip-addr.txt" ip address show
    run_to "$ARTIFACTS/host/ip-route.txt" ip route show
    run_to "$ARTIFACTS/host/ip6-route.txt" ip -6 route show
    run_to "$ARTIFACTS/host/listening.txt" ss -ltnp
    local file
    for file in /etc/resolv.conf /etc/hosts /etc/containers/registries.conf; do
        if [ -e "$NODE$file" ]; then
            mkdir -p "$ARTIFACTS/host/files$(dirname "$file")"
            cp "$NODE$file" "$ARTIFACTS/host/files$file"
        fi
    done
    if [ "$(uname -m)" = s390x ] && command -v dbginfo.sh >/dev/null 2>&1; then
        echo "Gathering dbginfo (s390x)"
        mkdir -p "$ARTIFACTS/dbginfo"
        dbginfo.sh -d "$ARTIFACTS/dbginfo" >/dev/null 2>&1 || true
    fi
}

gather_containers() {
    echo "Gathering containers"
    local dir="$ARTIFACTS/containers" id name
    run_to "$dir/crictl-pods.txt" crictl pods
    run_to "$dir/crictl-ps.txt" crictl ps --all
    while read -r id name; do
        [ -n "$id" ] || continue
        run_to "$dir/$name-$id.log" crictl logs "$id"
        run_to "$dir/$name-$id.inspect" crictl inspect "$id"
    done < <(crictl ps --all --output=json 2>/dev/null | jq -r '.containers[]? | "\(.id) \(.metadata.name)"' 2>/dev/null)
}

# Static pod manifests and node configuration, without credentials.
gather_config() {
    echo "Gathering node configuration"
    mkdir -p "$ARTIFACTS/etc-kubernetes"
    rsync -a --exclude='*.key' --exclude='*kubeconfig*' --exclude='*secret*' \
        --exclude='static-pod-resources/' --exclude='*.pem' \
        "$NODE/etc/kubernetes/" "$ARTIFACTS/etc-kubernetes/" 2>/dev/null || true
    if [ -e "$NODE/etc/mcs-machine-config-content.json" ]; then
        # The first-boot MachineConfig; its files may hold secrets, so only the list of paths.
        run_to "$ARTIFACTS/host/machine-config-files.txt" \
            jq -r '.spec.config.storage.files[]?.path' "$NODE/etc/mcs-machine-config-content.json"
    fi
}

rm -rf "$ARTIFACTS"
mkdir -p "$ARTIFACTS"
gather_journals
gather_host
gather_containers
gather_config
if [ -n "$TO_STDOUT" ]; then
    tar -C "$(dirname "$ARTIFACTS")" -czf - "$(basename "$ARTIFACTS")" >&3
    status=$?
    rm -rf "$ARTIFACTS"
    exit "$status"
fi
echo "Artifacts written to $ARTIFACTS"
