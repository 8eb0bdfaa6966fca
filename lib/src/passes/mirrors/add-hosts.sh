#!/bin/bash
# Written by bootgen. Keeps the lines of /etc/bootgen/hosts (written by the MachineConfigs
# 99-master-bootgen-hosts and 99-worker-bootgen-hosts, which the machine-config operator keeps)
# in /etc/hosts, each marked with "# bootgen-add-host": lines marked so that the file no
# longer lists are removed, every other line is left as it is (the cluster's node resolver
# adds and removes lines of its own). /etc/hosts is rewritten in place, so its SELinux label
# stays. BOOTGEN_HOSTS_ROOT runs it against another root (the tests').
set -euo pipefail

root="${BOOTGEN_HOSTS_ROOT:-}"
hosts="$root/etc/hosts"
entries="$root/etc/bootgen/hosts"
marker="# bootgen-add-host"

kept="$(grep -v -F -e "$marker" "$hosts" 2>/dev/null || true)"
{
	if [ -n "$kept" ]; then
		printf '%s\n' "$kept"
	fi
	while IFS= read -r line || [ -n "$line" ]; do
		case "$line" in
		"" | "#"*) continue ;;
		esac
		printf '%s %s\n' "$line" "$marker"
	done <"$entries"
} >"$hosts.bootgen"
cat "$hosts.bootgen" >"$hosts"
rm -f "$hosts.bootgen"
