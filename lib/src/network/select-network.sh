#!/bin/bash
# Written by bootgen. One config serves several hosts here (a single node's live ISO, or
# several bootstrap candidates), each host's keyfiles staged under /etc/bootgen/network/HOST/.
# Before NetworkManager starts, this keeps the network of the host whose MAC address is
# present on this machine: its keyfiles go to /etc/NetworkManager/system-connections/ and its
# name to /etc/hostname and /etc/bootgen/selected-host. No match leaves the machine to DHCP.
# bootgen's profiles match their NICs by MAC; one that names a NIC (the user's `identifier:
# name`) otherwise than the kernel does (eno1 there, ens3 here, same MAC) is renamed.
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
	while read -r mac _; do
		[ -n "$mac" ] || continue
		case "$present" in
		*" $mac "*) ;;
		*) continue ;;
		esac
		host="$(basename "$dir")"
		# "written=kernel" for each interface of the host that the kernel names otherwise.
		renames=""
		while read -r wanted written; do
			for address in "$root"/sys/class/net/*/address; do
				[ -r "$address" ] || continue
				[ "$(tr '[:upper:]' '[:lower:]' <"$address")" = "$wanted" ] || continue
				kernel="$(basename "$(dirname "$address")")"
				if [ "$kernel" != "$written" ]; then
					renames+="$written=$kernel "
				fi
			done
		done <"$dir/macs"
		mkdir -p "$connections"
		for keyfile in "$dir"*.nmconnection; do
			[ -e "$keyfile" ] || continue
			target="$connections/$(basename "$keyfile")"
			install -m 0600 "$keyfile" "$target"
			if [ -n "$renames" ]; then
				# One pass with every rename, so that two swapped names stay swapped.
				renamed="$(awk -v pairs="$renames" '
					BEGIN { n = split(pairs, list, " "); for (i = 1; i <= n; i++) { split(list[i], kv, "="); to[kv[1]] = kv[2] } }
					{ at = index($0, "="); key = substr($0, 1, at - 1); value = substr($0, at + 1) }
					at > 0 && (key == "interface-name" || key == "parent") && (value in to) { print key "=" to[value]; next }
					{ print }' "$keyfile")"
				printf '%s\n' "$renamed" >"$target"
			fi
		done
		install -m 0644 "$dir/hostname" "$root/etc/hostname"
		# A single node's install-to-disk.sh gives the installed system this name too.
		install -m 0644 "$dir/hostname" "$root/etc/bootgen/selected-host"
		# The running name too: systemd read /etc/hostname before this ran.
		if [ -w "$root/proc/sys/kernel/hostname" ]; then
			cat "$dir/hostname" >"$root/proc/sys/kernel/hostname"
		fi
		echo "bootgen-select-network: this machine is host $host (MAC $mac)"
		exit 0
	done <"$dir/macs"
done
echo "bootgen-select-network: no listed host's MAC is on this machine; its network is left to DHCP" >&2
