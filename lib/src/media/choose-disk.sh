#!/bin/bash
# Written by bootgen. Usage: choose-disk.sh HINTS OUT
# Chooses the disk this live system installs to from the host's root device hints (HINTS: a
# `key=value` line each, the keys of the agent installer's rootDeviceHints) and the disks'
# own facts, as lsblk and udev report them. Exactly one disk must match every hint: it is
# written as coreos-installer's dest-device to OUT (an installer.d config). When none or more
# than one matches, each disk is named with the hint it failed, OUT is not written and the
# step fails, so coreos-installer never starts and no disk is touched.
# As the agent installer matches: model and vendor as substrings, the rest whole; sizes in GB
# of 10^9 bytes; the disk the live system booted from and read-only disks are never chosen.
# BOOTGEN_DISK_WAIT: seconds to wait for a disk that matches to appear (default 30).
set -euo pipefail

hints_file="$1"
out="$2"
wait_for="${BOOTGEN_DISK_WAIT:-30}"

say() {
	printf 'bootgen choose-disk: %s\n' "$*"
}

declare -A hint=()
while IFS= read -r line || [ -n "$line" ]; do
	[ -n "$line" ] || continue
	hint["${line%%=*}"]="${line#*=}"
done <"$hints_file"

if [ -n "${hint[minSizeGigabytes]+set}" ] && ! [[ ${hint[minSizeGigabytes]} =~ ^[0-9]{1,12}$ ]]; then
	say "minSizeGigabytes=${hint[minSizeGigabytes]} is not a number of GB: refusing to choose a disk"
	exit 1
fi
if ((${#hint[@]} == 0)); then
	say "$hints_file holds no hint: refusing to choose a disk"
	exit 1
fi

wanted=""
for key in deviceName hctl model vendor serialNumber minSizeGigabytes wwn wwnWithExtension wwnVendorExtension rotational; do
	if [ -n "${hint[$key]+set}" ]; then
		wanted+="${wanted:+, }$key=${hint[$key]}"
	fi
done

# The value of KEY="..." in one line of `lsblk --pairs`, its \xNN escapes decoded.
pair() {
	local pattern="(^| )$1=\"([^\"]*)\""
	if [[ $2 =~ $pattern ]]; then
		printf '%b' "${BASH_REMATCH[2]}"
	fi
}

# Leading and trailing blanks off (lsblk pads VENDOR).
trim() {
	local s="$1"
	s="${s#"${s%%[![:space:]]*}"}"
	printf '%s' "${s%"${s##*[![:space:]]}"}"
}

# The value of KEY in `udevadm info --query=property` output.
property() {
	local line
	while IFS= read -r line; do
		if [ "${line%%=*}" = "$1" ]; then
			printf '%s' "${line#*=}"
			return
		fi
	done <<<"$2"
}

# Why the disk whose facts are in the globals below fails a hint; nothing when it matches.
failed_hint() {
	local value
	if [ -n "${hint[deviceName]+set}" ]; then
		value="${hint[deviceName]}"
		case " $name $links " in
		*" $value "*) ;;
		*) echo "deviceName: it is $name, not $value" && return ;;
		esac
	fi
	if [ -n "${hint[hctl]+set}" ] && [ "$hctl" != "${hint[hctl]}" ]; then
		echo "hctl: its SCSI address is ${hctl:-none}, not ${hint[hctl]}" && return
	fi
	if [ -n "${hint[model]+set}" ] && [[ $model != *"${hint[model]}"* ]]; then
		echo "model: its model \"$model\" does not hold \"${hint[model]}\"" && return
	fi
	if [ -n "${hint[vendor]+set}" ] && [[ $vendor != *"${hint[vendor]}"* ]]; then
		echo "vendor: its vendor \"$vendor\" does not hold \"${hint[vendor]}\"" && return
	fi
	if [ -n "${hint[serialNumber]+set}" ] && [ "$serial" != "${hint[serialNumber]}" ] &&
		[ "$serial_short" != "${hint[serialNumber]}" ]; then
		echo "serialNumber: its serial number is ${serial:-none}, not ${hint[serialNumber]}" && return
	fi
	local min="${hint[minSizeGigabytes]:-0}"
	if [ -n "${hint[minSizeGigabytes]+set}" ] && ((size / 1000000000 < min)); then
		echo "minSizeGigabytes: it holds $((size / 1000000000)) GB, less than ${hint[minSizeGigabytes]}" && return
	fi
	if [ -n "${hint[wwn]+set}" ] && [ "$wwn" != "${hint[wwn]}" ] && [ "$lsblk_wwn" != "${hint[wwn]}" ]; then
		echo "wwn: its WWN is ${wwn:-${lsblk_wwn:-none}}, not ${hint[wwn]}" && return
	fi
	if [ -n "${hint[wwnWithExtension]+set}" ] && [ "$wwn_extended" != "${hint[wwnWithExtension]}" ]; then
		echo "wwnWithExtension: it has ${wwn_extended:-none}, not ${hint[wwnWithExtension]}" && return
	fi
	if [ -n "${hint[wwnVendorExtension]+set}" ] && [ "$wwn_vendor" != "${hint[wwnVendorExtension]}" ]; then
		echo "wwnVendorExtension: it has ${wwn_vendor:-none}, not ${hint[wwnVendorExtension]}" && return
	fi
	if [ -n "${hint[rotational]+set}" ]; then
		local spins=false
		[ "$rota" = 1 ] && spins=true
		if [ "$spins" != "${hint[rotational]}" ]; then
			echo "rotational: it is rotational=$spins" && return
		fi
	fi
}

# One pass over the disks: fills `matches` and `report` (a line a disk).
scan() {
	matches=()
	report=()
	local listing line type kind failure mountpoint boot=" " mounted=" " props
	listing="$(lsblk --paths --bytes --pairs --output NAME,PKNAME,TYPE,SIZE,ROTA,RO,HCTL,MODEL,VENDOR,SERIAL,WWN,MOUNTPOINT)"
	# The disk the live system runs from (its ISO is mounted at /run/media/iso, on the disk or
	# on one of its partitions) is never a candidate.
	while IFS= read -r line; do
		mountpoint="$(pair MOUNTPOINT "$line")"
		if [ "$mountpoint" = /run/media/iso ]; then
			boot+="$(pair NAME "$line") $(pair PKNAME "$line") "
		elif [ -n "$mountpoint" ]; then
			# A disk in use (mounted, or swap) is no disk to install to either.
			mounted+="$(pair NAME "$line") $(pair PKNAME "$line") "
		fi
	done <<<"$listing"
	while IFS= read -r line; do
		[ -n "$line" ] || continue
		type="$(pair TYPE "$line")"
		name="$(pair NAME "$line")"
		[ "$type" = disk ] || continue
		case "$name" in
		/dev/zram* | /dev/loop*) continue ;;
		esac
		size="$(pair SIZE "$line")"
		[[ $size =~ ^[0-9]{1,20}$ ]] || size=0
		rota="$(pair ROTA "$line")"
		hctl="$(pair HCTL "$line")"
		model="$(trim "$(pair MODEL "$line")")"
		vendor="$(trim "$(pair VENDOR "$line")")"
		serial="$(trim "$(pair SERIAL "$line")")"
		lsblk_wwn="$(pair WWN "$line")"
		kind="${model:-unnamed}, $((size / 1000000000)) GB"
		if [[ $boot == *" $name "* ]]; then
			report+=("$name ($kind): skipped, the live system runs from it")
			continue
		fi
		if [[ $mounted == *" $name "* ]]; then
			report+=("$name ($kind): skipped, it is in use (mounted)")
			continue
		fi
		if [ "$(pair RO "$line")" = 1 ]; then
			report+=("$name ($kind): skipped, it is read-only")
			continue
		fi
		if [ "$size" = 0 ]; then
			report+=("$name ($kind): skipped, it holds no medium")
			continue
		fi
		props="$(udevadm info --query=property --name="$name" 2>/dev/null || true)"
		links="$(property DEVLINKS "$props")"
		serial_short="$(property ID_SERIAL_SHORT "$props")"
		wwn="$(property ID_WWN "$props")"
		wwn_extended="$(property ID_WWN_WITH_EXTENSION "$props")"
		wwn_vendor="$(property ID_WWN_VENDOR_EXTENSION "$props")"
		failure="$(failed_hint)"
		if [ -z "$failure" ]; then
			matches+=("$name")
			report+=("$name ($kind): matches")
		else
			report+=("$name ($kind): fails $failure")
		fi
	done <<<"$listing"
}

waited=0
while :; do
	scan
	if ((${#matches[@]} > 0)) || ((waited >= wait_for)); then
		break
	fi
	if ((waited == 0)); then
		say "no disk matches $wanted yet: waiting up to ${wait_for}s for more disks"
	fi
	sleep 5
	waited=$((waited + 5))
	udevadm settle --timeout=5 2>/dev/null || true
done

if ((${#matches[@]} == 1)); then
	disk="${matches[0]}"
	printf '%s\n' "${report[@]}" | sed 's/^/  /'
	say "installing to $disk: the one disk that matches $wanted"
	mkdir -p "$(dirname "$out")"
	printf 'dest-device: "%s"\n' "$disk" >"$out.tmp"
	mv "$out.tmp" "$out"
	exit 0
fi

if ((${#matches[@]} == 0)); then
	say "refusing to install: no disk matches $wanted; no disk was touched"
else
	say "refusing to install: ${#matches[@]} disks match $wanted (${matches[*]}); add a hint that tells them apart (serialNumber, wwn, hctl); no disk was touched"
fi
if ((${#report[@]} == 0)); then
	say "lsblk shows no disk"
fi
printf '%s\n' "${report[@]}" | sed 's/^/  /'
exit 1
