#!/usr/bin/env bash
# bootkube-stages.sh: the one list of bootkube stages, and the bookkeeping that lets a stage be undone.
#
# Sourced by bootkube.sh (which runs the stages in this order) and by bootkube-reset.sh (which undoes
# them), so the two can never disagree about names, order or markers.
#
# Directories (environment overrides exist so the scripts can be exercised in a scratch directory):
#   BOOTKUBE_ASSET_DIR   /opt/openshift   rendered assets; the .done markers live here
#   BOOTKUBE_KUBE_DIR    /etc/kubernetes  static pods, bootstrap configs, kubeconfig
#   BOOTKUBE_MCC_DIR     /etc/mcc         machine-config-controller bootstrap input
#   BOOTKUBE_MCS_DIR     /etc/mcs         machine-config-server kubeconfig
#   BOOTKUBE_MCS_TLS_DIR /etc/ssl/mcs     machine-config-server serving certificate
#
# Undo bookkeeping, kept in $ASSET_DIR/.bootkube-undo/:
#   <stage>.before   every path under the directories above, taken just before a "files" stage runs
#   <stage>.placed   what the stage added (its paths minus .before), taken when it succeeds
#   <stage>.backup/  copies of files the stage overwrote through bootkube_place, under their full path
# A stage that never finished has no .placed: what appeared since its .before is its output. That is
# only true for the last stage attempted, and a failing "files" stage always stops bootkube. (A file
# added by hand under these directories after such a failure is taken for that stage's output.)
# Files that containers overwrite in place (rather than through bootkube_place) are not saved.

ASSET_DIR=${BOOTKUBE_ASSET_DIR:-/opt/openshift}
KUBE_DIR=${BOOTKUBE_KUBE_DIR:-/etc/kubernetes}
MCC_DIR=${BOOTKUBE_MCC_DIR:-/etc/mcc}
MCS_DIR=${BOOTKUBE_MCS_DIR:-/etc/mcs}
MCS_TLS_DIR=${BOOTKUBE_MCS_TLS_DIR:-/etc/ssl/mcs}
UNDO_DIR="$ASSET_DIR/.bootkube-undo"

# Every container bootkube starts carries this label with its stage name, so reset can find it.
BOOTKUBE_STAGE_LABEL=io.bootgen.stage

# The stages, in the order bootkube runs them.
#   marker   file in $ASSET_DIR touched when the stage succeeds ("-": none, the stage runs every time)
#   skip-if  file in $ASSET_DIR whose presence skips the stage ("=": the marker)
#   kind     files:   writes files; snapshotted so it can be undone; a failure stops bootkube
#            cluster: only talks to the cluster or waits; a failure stops bootkube
#            probe:   a DNS/API check that records its own stage; a failure is reported, not fatal
bootkube_stage_table() {
	cat <<'EOF'
# name                             marker                                  skip-if          kind
openshift-manifests                openshift-manifests.done                =                files
api-bootstrap                      api-bootstrap.done                      =                files
auth-api-bootstrap                 auth-api-bootstrap.done                 =                files
config-bootstrap                   config-bootstrap.done                   =                files
cvo-bootstrap                      cvo-bootstrap.done                      =                files
etcd-bootstrap                     etcd-bootstrap.done                     =                files
kube-apiserver-bootstrap           kube-apiserver-bootstrap.done           =                files
kube-controller-manager-bootstrap  kube-controller-manager-bootstrap.done  =                files
kube-scheduler-bootstrap           kube-scheduler-bootstrap.done           =                files
ingress-operator-bootstrap         ingress-operator-bootstrap.done         =                files
node-tuning-bootstrap              node-tuning-bootstrap.done              =                files
mco-bootstrap                      mco-bootstrap.done                      =                files
resolve-api-url                    api-dns-resolved.done                   =                probe
resolve-api-int-url                api-int-dns-resolved.done               =                probe
cco-bootstrap                      cco-bootstrap.done                      =                files
wait-for-etcd                      -                                       stop-etcd.done   cluster
cb-bootstrap                       cb-bootstrap.done                       =                files
cvo-overrides                      cvo-overrides.done                      =                cluster
wait-for-ceo                       -                                       -                cluster
check-api-url                      api-dns-check.done                      =                probe
check-api-int-url                  api-int-dns-check.done                  =                probe
EOF
}

# Prints the stage names in run order.
bootkube_stage_names() {
	local name _rest
	while read -r name _rest; do
		case "$name" in '' | '#'*) continue ;; esac
		printf '%s\n' "$name"
	done < <(bootkube_stage_table)
}

# Prints the names of STAGE and every stage after it.
bootkube_stages_from() {
	bootkube_stage_names | sed -n "/^$1\$/,\$p"
}

# Looks STAGE up and sets BOOTKUBE_STAGE_MARKER, BOOTKUBE_STAGE_SKIP_IF (both "" for none) and
# BOOTKUBE_STAGE_KIND. Returns 1 for an unknown stage.
bootkube_stage_info() {
	local name marker skip kind
	while read -r name marker skip kind; do
		[ "$name" = "$1" ] || continue
		[ "$marker" != - ] || marker=
		case "$skip" in
		=) skip=$marker ;;
		-) skip= ;;
		esac
		BOOTKUBE_STAGE_MARKER=$marker
		# shellcheck disable=SC2034 # read by bootkube.sh, which sources this file
		BOOTKUBE_STAGE_SKIP_IF=$skip
		BOOTKUBE_STAGE_KIND=$kind
		return 0
	done < <(bootkube_stage_table)
	return 1
}

# Lists every path under the directories bootkube writes to, sorted, leaving out the undo bookkeeping.
bootkube_list_tree() {
	local root
	for root in "$ASSET_DIR" "$KUBE_DIR" "$MCC_DIR" "$MCS_DIR" "$MCS_TLS_DIR"; do
		[ -e "$root" ] || continue
		find "$root" -path "$UNDO_DIR" -prune -o -print
	done | LC_ALL=C sort -u
}

# True when PATH is one of the directories bootkube writes to or inside one: reset runs as root with
# rm -rf, so a damaged bookkeeping file must not be able to point it anywhere else. The asset
# directory itself holds the bookkeeping and is never a candidate.
bootkube_path_is_ours() {
	local root
	case "$1" in *'/../'* | *'/..') return 1 ;; esac
	for root in "$ASSET_DIR" "$KUBE_DIR" "$MCC_DIR" "$MCS_DIR" "$MCS_TLS_DIR"; do
		case "$1" in "$root"/?*) return 0 ;; esac
	done
	for root in "$KUBE_DIR" "$MCC_DIR" "$MCS_DIR" "$MCS_TLS_DIR"; do
		[ "$1" != "$root" ] || return 0
	done
	return 1
}

# Called before a "files" stage runs: records what exists so the stage's output can be told apart later.
bootkube_snapshot_before() {
	mkdir -p "$UNDO_DIR"
	bootkube_list_tree >"$UNDO_DIR/$1.before"
}

# Called when a "files" stage succeeded: keeps the list of paths it added.
bootkube_snapshot_placed() {
	bootkube_list_tree | LC_ALL=C comm -13 "$UNDO_DIR/$1.before" - >"$UNDO_DIR/$1.placed"
}

# bootkube_place SRC DEST: copies file SRC to path DEST, or the contents of directory SRC into
# directory DEST, for the running stage ($BOOTKUBE_STAGE). A file that existed before the stage and
# is about to be overwritten is saved first so an undo can put it back.
bootkube_place() {
	local src=$1 dest=$2 file backup
	if [ -d "$src" ]; then
		while IFS= read -r -d '' file; do
			bootkube_place "$file" "$dest/${file#"$src"/}"
		done < <(find "$src" -type f -print0)
		return 0
	fi
	backup="$UNDO_DIR/${BOOTKUBE_STAGE:?bootkube_place needs BOOTKUBE_STAGE}.backup$dest"
	if [ -e "$dest" ] && [ ! -e "$backup" ] && grep -qxF -- "$dest" "$UNDO_DIR/$BOOTKUBE_STAGE.before" 2>/dev/null; then
		mkdir -p "$(dirname "$backup")"
		cp -p "$dest" "$backup"
	fi
	mkdir -p "$(dirname "$dest")"
	cp "$src" "$dest"
}

# Like bootkube_place, but a missing SRC (an optional output of a render) is not an error.
bootkube_place_optional() {
	[ ! -e "$1" ] || bootkube_place "$1" "$2"
}

# Force-removes the podman containers started for STAGE (left behind by a killed or failed run).
# Prints how many were removed.
bootkube_remove_containers() {
	local ids=()
	if command -v podman >/dev/null 2>&1; then
		mapfile -t ids < <(podman ps --all --quiet --filter "label=$BOOTKUBE_STAGE_LABEL=$1")
		[ "${#ids[@]}" -eq 0 ] || podman rm --force "${ids[@]}" >/dev/null
	fi
	echo "${#ids[@]}"
}

# Undoes STAGE: stops its containers, puts back the files it overwrote, removes what it added, and
# forgets its marker and bookkeeping. Prints one summary line.
bootkube_undo_stage() {
	local stage=$1 backup_dir added=() path restored=0 removed=0 containers
	bootkube_stage_info "$stage" || return 1
	containers=$(bootkube_remove_containers "$stage")

	# Put overwritten files back first: a file the stage overwrote may itself be the output of an
	# earlier stage that is being undone too, and that stage's own removal comes later.
	backup_dir="$UNDO_DIR/$stage.backup"
	if [ -d "$backup_dir" ]; then
		while IFS= read -r -d '' path; do
			bootkube_path_is_ours "${path#"$backup_dir"}" || continue
			mkdir -p "$(dirname "${path#"$backup_dir"}")"
			cp -p "$path" "${path#"$backup_dir"}"
			restored=$((restored + 1))
		done < <(find "$backup_dir" -type f -print0)
	fi

	if [ -f "$UNDO_DIR/$stage.placed" ]; then
		mapfile -t added <"$UNDO_DIR/$stage.placed"
	elif [ -f "$UNDO_DIR/$stage.before" ]; then
		mapfile -t added < <(bootkube_list_tree | LC_ALL=C comm -13 "$UNDO_DIR/$stage.before" -)
	fi
	for path in "${added[@]}"; do
		bootkube_path_is_ours "$path" || continue
		if [ -e "$path" ] || [ -L "$path" ]; then
			rm -rf -- "$path"
			removed=$((removed + 1))
		fi
	done
	# A stage's render directory carries its name; remove it even if the bookkeeping was lost.
	if [ "$BOOTKUBE_STAGE_KIND" = files ] && [ -e "$ASSET_DIR/$stage" ]; then
		rm -rf -- "${ASSET_DIR:?}/$stage"
		removed=$((removed + 1))
	fi

	[ -z "$BOOTKUBE_STAGE_MARKER" ] || rm -f -- "$ASSET_DIR/$BOOTKUBE_STAGE_MARKER"
	rm -rf -- "$UNDO_DIR/$stage.before" "$UNDO_DIR/$stage.placed" "$backup_dir"
	echo "undid $stage: removed $removed paths, restored $restored files, removed $containers containers"
}
