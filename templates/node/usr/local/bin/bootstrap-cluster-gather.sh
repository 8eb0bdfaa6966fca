#!/usr/bin/env bash
# bootstrap-cluster-gather.sh: when cluster-bootstrap gives up, the temporary control plane is still
# up for a moment; dump what it knows so the reason survives in the gathered logs.
#
# Source it; call cluster_bootstrap_gather. It never fails: it runs on the way out of an error.
#
# Environment:
#   BOOTSTRAP_GATHER_DIR         where the dumps go (default /tmp/artifacts-api-server-temp)
#   BOOTSTRAP_GATHER_KUBECONFIG  kubeconfig to use (default: the loopback one in BOOTKUBE_ASSET_DIR,
#                                /opt/openshift, which reaches the bootstrap API without DNS or a
#                                load balancer)

cluster_bootstrap_gather() {
	local dir=${BOOTSTRAP_GATHER_DIR:-/tmp/artifacts-api-server-temp}
	local kubeconfig=${BOOTSTRAP_GATHER_KUBECONFIG:-${BOOTKUBE_ASSET_DIR:-/opt/openshift}/auth/kubeconfig-loopback}
	local resource file
	echo "Gathering cluster state into $dir"
	mkdir -p "$dir" || return 0
	# Cluster-wide first, then namespaced lists; secrets are never dumped.
	for resource in nodes clusterversion clusteroperators namespaces certificatesigningrequests \
		pods events configmaps deployments daemonsets; do
		file="$dir/$resource.yaml"
		if ! oc --kubeconfig="$kubeconfig" --request-timeout=30s get "$resource" --all-namespaces --output=yaml >"$file" 2>"$dir/$resource.err"; then
			echo "could not get $resource (see $dir/$resource.err)" >&2
		fi
	done
	oc --kubeconfig="$kubeconfig" --request-timeout=30s get pods --all-namespaces --output=wide >"$dir/pods.txt" 2>&1 || true
	oc --kubeconfig="$kubeconfig" --request-timeout=30s get --raw '/readyz?verbose' >"$dir/readyz.txt" 2>&1 || true
	echo "Gathered $(find "$dir" -type f | wc -l) files into $dir"
	return 0
}
