#!/bin/bash
# Library (sourced by report-progress.sh), also runnable on its own:
#   wait-for-ha-api.sh KUBECONFIG
#
# wait_for_ha_api KUBECONFIG: on a highly available control plane, return only once at least
# two kube-apiserver instances on control-plane nodes serve a real revision, so that removing
# the bootstrap node cannot take the API down. Other topologies return at once.

wait_for_ha_api() {
    local kubeconfig="$1" topology ready
    until topology=$(oc --kubeconfig="$kubeconfig" get infrastructures.config.openshift.io cluster \
        --request-timeout=30s --output=jsonpath='{.status.controlPlaneTopology}' 2>/dev/null); do
        echo "Waiting for the API to report the control-plane topology" >&2
        sleep 5
    done
    if [ "$topology" != HighlyAvailable ]; then
        echo "Control-plane topology is ${topology:-unknown}; not waiting for a second API server."
        return 0
    fi
    while true; do
        ready=$(oc --kubeconfig="$kubeconfig" get kubeapiservers.operator.openshift.io cluster \
            --request-timeout=30s --output=json 2>/dev/null |
            jq '[.status.nodeStatuses[]? | select((.currentRevision // 0) > 0)] | length' 2>/dev/null) || ready=0
        if [ "${ready:-0}" -ge 2 ]; then
            echo "$ready control-plane nodes serve the Kubernetes API."
            return 0
        fi
        echo "Waiting for at least 2 control-plane nodes to serve the Kubernetes API (now ${ready:-0})" >&2
        sleep 5
    done
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    set -euo pipefail
    wait_for_ha_api "${1:?usage: wait-for-ha-api.sh KUBECONFIG}"
fi
