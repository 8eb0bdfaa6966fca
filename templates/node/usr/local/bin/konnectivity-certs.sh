#!/usr/bin/env bash
# konnectivity-certs.sh NODE_IP [DIR]: makes the konnectivity certificates in DIR (default
# /opt/openshift/tls/konnectivity): a CA of its own, the server's certificate for NODE_IP (the
# address agents dial) and the one client certificate all agents share. Everything lives one day,
# like the rest of the bootstrap PKI: konnectivity goes away when bootstrap ends.
set -euo pipefail

node_ip=${1:?usage: konnectivity-certs.sh NODE_IP [DIR]}
dir=${2:-/opt/openshift/tls/konnectivity}
mkdir -p "$dir"
work=$(mktemp -d)
trap 'rm -rf -- "$work"' EXIT

# A leaf certificate: NAME.key and NAME.crt in $dir, signed by the CA, with the extensions in $3.
issue() {
	local name=$1 subject=$2 extensions=$3
	openssl req -new -newkey rsa:2048 -nodes -subj "$subject" \
		-keyout "$dir/$name.key" -out "$work/$name.csr" 2>/dev/null
	printf '%s\n' "$extensions" >"$work/$name.ext"
	openssl x509 -req -days 1 -in "$work/$name.csr" \
		-CA "$dir/ca.crt" -CAkey "$dir/ca.key" -CAcreateserial -CAserial "$work/ca.srl" \
		-extfile "$work/$name.ext" -out "$dir/$name.crt" 2>/dev/null
}

openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/O=openshift/CN=konnectivity-signer" \
	-addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
	-keyout "$dir/ca.key" -out "$dir/ca.crt" 2>/dev/null
issue server "/O=openshift/CN=konnectivity-server" \
	"$(printf 'keyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\nsubjectAltName=IP:%s' "$node_ip")"
issue agent "/O=openshift/CN=konnectivity-agent" \
	"$(printf 'keyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=clientAuth')"
chmod 0600 "$dir"/*.key
echo "konnectivity certificates for $node_ip are in $dir"
