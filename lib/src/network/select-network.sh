#!/bin/bash
# Written by bootgen. One config serves several hosts here (a single node's live ISO, or
# several bootstrap candidates), each host's keyfiles staged under /etc/bootgen/network/HOST/.
# Before NetworkManager starts, this keeps the network of the host whose MAC address is
# present on this machine: its keyfiles go to /etc/NetworkManager/system-connections/ and its
# name to /etc/hostname. No match leaves the machine to DHCP.
# BOOTGEN_NETWORK_ROOT runs it against another root (the tests' fake /sys/class/net).
set -euo pipefail

root="${BOOTGEN_NETWORK_ROOT:-}"
staged="$root/etc/bootgen/network"
connections="$root/etc/NetworkManager/system-connections"

present=" "
for address in "$root"/sys/class/net/*/address; do
	[ -r "$address" ] || continue
	present+="$(tr '[:upper:]' '[:lower:]' <"$address") "
done

for dir in "$staged"/*/; do
	[ -f "$dir/macs" ] || continue
	while read -r mac; do
		[ -n "$mac" ] || continue
		case "$present" in
		*" $mac "*) ;;
		*) continue ;;
		esac
		host="$(basename "$dir")"
		mkdir -p "$connections"
		for keyfile in "$dir"*.nmconnection; do
			[ -e "$keyfile" ] || continue
			install -m 0600 "$keyfile" "$connections/"
		done
		install -m 0644 "$dir/hostname" "$root/etc/hostname"
		# The running name too: systemd read /etc/hostname before this ran.
		if [ -w "$root/proc/sys/kernel/hostname" ]; then
			cat "$dir/hostname" >"$root/proc/sys/kernel/hostname"
		fi
		echo "bootgen-select-network: this machine is host $host (MAC $mac)"
		exit 0
	done <"$dir/macs"
done
echo "bootgen-select-network: no listed host's MAC is on this machine; its network is left to DHCP" >&2
