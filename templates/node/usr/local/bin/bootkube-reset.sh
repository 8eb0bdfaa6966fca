#!/usr/bin/env bash
# bootkube-reset.sh: makes bootkube run again from a given stage, on a clean slate.
#
# Deleting .done markers by hand is not enough: the stages' earlier output (static pods in
# /etc/kubernetes/manifests, bootstrap configs, render directories, copies in manifests/) stays and
# makes the second run fail or run with stale files. This stops bootkube.service, then undoes the
# chosen stage and every later one, newest first: their podman containers, the files they placed or
# rendered (from the bookkeeping bootkube.sh keeps in <asset dir>/.bootkube-undo), files they
# overwrote are put back, and their markers go, with .bootkube.done.
#
# Usage: bootkube-reset.sh STAGE|all    bootkube-reset.sh --list
#
# Environment: BOOTKUBE_LIB_DIR (/usr/local/bin), the directories of bootkube-stages.sh, and
#   BOOTKUBE_RESET_NO_SYSTEMCTL=1   do not stop bootkube.service (for a run outside systemd)
#   BOOTGEN_HOLD_DIR                where bootgen's hold files are (/etc/bootgen/hold)
set -euo pipefail

LIB_DIR=${BOOTKUBE_LIB_DIR:-/usr/local/bin}
# shellcheck source=/dev/null
. "$LIB_DIR/bootkube-stages.sh"

usage() {
	cat <<EOF
Usage: $(basename "$0") STAGE|all
       $(basename "$0") --list

Undoes STAGE and every stage after it (all: every stage) so that the next bootkube run starts there.
EOF
}

list_stages() {
	local stage state
	while IFS= read -r stage; do
		bootkube_stage_info "$stage"
		state=
		if [ -n "$BOOTKUBE_STAGE_MARKER" ] && [ -e "$ASSET_DIR/$BOOTKUBE_STAGE_MARKER" ]; then
			state='(done)'
		fi
		printf '%-36s %s\n' "$stage" "$state"
	done < <(bootkube_stage_names)
}

case "${1:-}" in
--list | -l)
	list_stages
	exit 0
	;;
--help | -h)
	usage
	exit 0
	;;
'')
	usage >&2
	exit 2
	;;
all)
	# sed reads all of its input: `head` would close the pipe early and, under pipefail,
	# the writer's SIGPIPE would fail the script at random.
	from=$(bootkube_stage_names | sed -n 1p)
	;;
*)
	from=$1
	if ! bootkube_stage_info "$from"; then
		echo "error: unknown stage '$from'. Known stages, in run order:" >&2
		bootkube_stage_names | sed 's/^/  /' >&2
		exit 2
	fi
	;;
esac

# Stop bootkube first, so it does not resume while its output is being taken away.
if [ "${BOOTKUBE_RESET_NO_SYSTEMCTL:-}" != 1 ] && command -v systemctl >/dev/null 2>&1; then
	echo "Stopping bootkube.service"
	systemctl stop bootkube.service
fi

mapfile -t undo < <(bootkube_stages_from "$from" | tac)
for stage in "${undo[@]}"; do
	bootkube_undo_stage "$stage"
done
# approve-csr.service and progress.service end once bootkube is done: after a finished run they
# must be started again with it, or no one approves the control-plane hosts' certificates.
companions=''
if [ -e "$ASSET_DIR/.bootkube.done" ]; then
	companions='approve-csr.service progress.service'
fi
rm -f "$ASSET_DIR/.bootkube.done"

# A held bootkube (generated or patched with a hold, or in debug mode, or held with a unit it
# requires) skips every `systemctl start` while a hold file its drop-in names exists: releasing
# that hold is what starts it. The commands are for the person at the node's shell (core), so
# they carry sudo, and the release script's full path (sudo's secure_path leaves out
# /usr/local/bin).
start='sudo systemctl start bootkube.service'
hold_dir="${BOOTGEN_HOLD_DIR:-/etc/bootgen/hold}"
hold_dropin=/etc/systemd/system/bootkube.service.d/10-bootgen-hold.conf
for hold in "$hold_dir"/*; do
	[ -e "$hold" ] || continue
	held="$(basename "$hold")"
	if [ "$held" = bootkube.service ] ||
		grep -qxF "ConditionPathExists=!/etc/bootgen/hold/$held" "$hold_dropin" 2>/dev/null; then
		start="sudo /usr/local/bin/bootgen-release $held"
		break
	fi
done

# In the foreground, the companions start without the bootkube.service their Wants= would pull.
by_hand=''
if [ -n "$companions" ]; then
	start="$start && sudo systemctl start $companions"
	by_hand="sudo systemctl start --job-mode=ignore-dependencies $companions && "
fi

cat <<EOF

bootkube will start again at stage $from. Run it with:
  $start && journalctl -f -u bootkube.service
or, in the foreground with a trace:
  ${by_hand}cd $ASSET_DIR && sudo bash -x $LIB_DIR/bootkube.sh
EOF
