#!/bin/bash
# progress.service: once bootkube is done and the control plane can do without this node, tell
# the installer: the ConfigMap kube-system/bootstrap with status "complete" is what
# `openshift-install wait-for bootstrap-complete` waits for.
#
# Usage: report-progress.sh KUBECONFIG
set -eEuo pipefail

KUBECONFIG_FILE="${1:?usage: report-progress.sh KUBECONFIG}"
BOOTKUBE_DONE=/opt/openshift/.bootkube.done

# shellcheck source=/dev/null
. /usr/local/bin/bootstrap-service-record.sh
# shellcheck source=/dev/null
. /usr/local/bin/wait-for-ha-api.sh

record_service_stage_start "wait-for-bootstrap-complete"
until [ -f "$BOOTKUBE_DONE" ]; do
    sleep 5
done
wait_for_ha_api "$KUBECONFIG_FILE"
record_service_stage_success

record_service_stage_start "report-bootstrap-complete"
# apply, not create: a restarted service must not fail on an existing ConfigMap.
until oc --kubeconfig="$KUBECONFIG_FILE" apply --request-timeout=30s --filename=- <<'YAML'
apiVersion: v1
kind: ConfigMap
metadata:
  name: bootstrap
  namespace: kube-system
data:
  status: complete
YAML
do
    echo "Could not record bootstrap completion yet; retrying in 5s" >&2
    sleep 5
done
record_service_stage_success
echo "Reported bootstrap complete."
