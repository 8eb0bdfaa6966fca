#!/bin/bash
# approve-csr.service: while the bootstrap control plane runs, approve every pending certificate
# signing request so the control-plane kubelets can join. Stops once bootkube is done; the
# cluster's own machine-approver takes over from there.
#
# Usage: approve-csr.sh KUBECONFIG
set -uo pipefail

KUBECONFIG_FILE="${1:?usage: approve-csr.sh KUBECONFIG}"
BOOTKUBE_DONE=/opt/openshift/.bootkube.done
INTERVAL=20

# A CSR without a status has been neither approved nor denied.
list_pending() {
    oc --kubeconfig="$KUBECONFIG_FILE" get csr --request-timeout=30s \
        --output=go-template='{{range .items}}{{if not .status}}{{.metadata.name}}{{"\n"}}{{end}}{{end}}'
}

until [ -f "$BOOTKUBE_DONE" ]; do
    # The API server is not up for a good part of the run: errors here are expected.
    if pending=$(list_pending 2>/dev/null) && [ -n "$pending" ]; then
        while read -r csr; do
            [ -n "$csr" ] || continue
            oc --kubeconfig="$KUBECONFIG_FILE" adm certificate approve "$csr" --request-timeout=30s ||
                echo "Could not approve CSR $csr; will retry" >&2
        done <<<"$pending"
    fi
    sleep "$INTERVAL"
done
echo "bootkube is done; no more CSRs to approve here."
