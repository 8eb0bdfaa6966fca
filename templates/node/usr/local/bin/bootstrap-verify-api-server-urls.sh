#!/usr/bin/env bash
# bootstrap-verify-api-server-urls.sh: checks that the API host names resolve and that the API answers
# through them. A wrong DNS record or load balancer is the most common reason a cluster never finishes
# bootstrapping, and these checks name it early in the progress records.
#
# Source it after bootstrap-service-record.sh. Each helper records its own stage and returns non-zero
# on failure; the caller decides whether that is fatal (bootkube.sh carries on).
#
# Environment:
#   BOOTKUBE_ASSET_DIR       /opt/openshift; its tls/ holds the CA bundle used to verify the API
#   API_URL_CHECK_ATTEMPTS   tries before giving up (default 3)
#   BOOTKUBE_RETRY_DELAY     seconds between tries (default 5)

# Waits between tries, but not after the last one.
verify_api_pause() {
	if [ "$1" -lt "${API_URL_CHECK_ATTEMPTS:-3}" ]; then
		sleep "${BOOTKUBE_RETRY_DELAY:-5}"
	fi
}

# resolve_url STAGE HOST: succeeds when HOST has an IPv4 or IPv6 address in DNS.
resolve_url() {
	local stage=$1 host=$2 attempt addresses=''
	record_service_stage_start "$stage" || return 1
	for ((attempt = 1; attempt <= ${API_URL_CHECK_ATTEMPTS:-3}; attempt++)); do
		# +short also prints CNAME targets; only address lines count as resolved.
		addresses=$(dig +short "$host" A "$host" AAAA 2>/dev/null | grep -E '^[0-9.]+$|^[0-9a-fA-F:]*:[0-9a-fA-F:.]*$' || true)
		if [ -n "$addresses" ]; then
			echo "$host resolves to: $(echo "$addresses" | tr '\n' ' ')"
			record_service_stage_success
			return 0
		fi
		echo "$host does not resolve yet (attempt $attempt)" >&2
		verify_api_pause "$attempt"
	done
	record_service_stage_failure "$host did not resolve to any address; check the DNS record for it"
	return 1
}

# check_url STAGE HOST: succeeds when https://HOST:6443/readyz answers "ok". The API's serving
# certificate is verified with the installer's CA bundle when it is present, so a host name that
# points at some other server fails here too.
check_url() {
	local stage=$1 host=$2 attempt output='' tls_args=(--insecure)
	local ca_bundle="${BOOTKUBE_ASSET_DIR:-/opt/openshift}/tls/kube-apiserver-complete-server-ca-bundle.crt"
	[ ! -f "$ca_bundle" ] || tls_args=(--cacert "$ca_bundle")
	record_service_stage_start "$stage" || return 1
	for ((attempt = 1; attempt <= ${API_URL_CHECK_ATTEMPTS:-3}; attempt++)); do
		if output=$(curl --silent --show-error --fail --max-time 10 "${tls_args[@]}" "https://$host:6443/readyz" 2>&1) && [ "$output" = ok ]; then
			echo "https://$host:6443/readyz answers ok"
			record_service_stage_success
			return 0
		fi
		echo "https://$host:6443/readyz is not ready (attempt $attempt): $output" >&2
		verify_api_pause "$attempt"
	done
	record_service_stage_failure "https://$host:6443/readyz did not answer ok: $output"
	return 1
}
