#!/bin/bash
# node-image-overlay.service: put the node image checked out by node-image-pull.sh in place of
# the boot image's /usr for this boot, so oc, the kubelet and CRI-O match the release payload.
# Nothing is written to the deployment: the next boot starts from the boot image again.
set -eEuo pipefail

# shellcheck source=/dev/null
. /usr/local/bin/bootstrap-service-record.sh

if [ -e /run/ostree-live ]; then
    CHECKOUT=/var/ostree-container/checkout
else
    CHECKOUT=/ostree/repo/tmp/node-image
fi
DONE_MARKER=/run/node-image-overlay.done

if [ -e "$DONE_MARKER" ]; then
    echo "The node image is already overlaid on /usr for this boot."
    exit 0
fi
if [ ! -d "$CHECKOUT/usr/bin" ]; then
    echo "No node image checkout in $CHECKOUT; node-image-pull.service must run first." >&2
    exit 1
fi

# True when an /etc entry still equals the booted OS default, i.e. nobody (Ignition, an admin)
# changed it, so the node image's default may replace it.
unchanged_default() {
    local default="$1" current="$2"
    if [ -L "$default" ] && [ -L "$current" ]; then
        [ "$(readlink "$default")" = "$(readlink "$current")" ]
    elif [ -f "$default" ] && [ ! -L "$default" ] && [ -f "$current" ] && [ ! -L "$current" ]; then
        cmp -s "$default" "$current"
    else
        return 1
    fi
}

# The same rule as an ostree upgrade: the node image's /usr/etc brings new files and new
# defaults, and local changes in /etc (everything Ignition wrote) are kept.
merge_etc() {
    local new_etc="$CHECKOUT/usr/etc" old_etc=/usr/etc rel
    [ -d "$new_etc" ] || return 0
    # Labels come from the new policy afterwards (restorecon), not from the checkout.
    rsync -a --ignore-existing "$new_etc/" /etc/
    [ -d "$old_etc" ] || return 0
    while IFS= read -r -d '' rel; do
        if unchanged_default "$old_etc/$rel" "/etc/$rel" && ! unchanged_default "$new_etc/$rel" "/etc/$rel"; then
            cp -a --no-preserve=context --remove-destination "$new_etc/$rel" "/etc/$rel"
        fi
    done < <(cd "$new_etc" && find . \( -type f -o -type l \) -printf '%P\0')
}

record_service_stage_start "merge-etc"
merge_etc
record_service_stage_success

record_service_stage_start "overlay-usr"
# The node image's kernel modules belong to its kernel, not to the one running now: keep the
# host's modules visible under the new /usr.
mkdir -p "$CHECKOUT/usr/lib/modules"
mount --bind /usr/lib/modules "$CHECKOUT/usr/lib/modules"
mount --rbind "$CHECKOUT/usr" /usr
record_service_stage_success

# The merged /etc/selinux carries the node image's policy; load it and label /etc by it.
if command -v selinuxenabled >/dev/null 2>&1 && selinuxenabled; then
    record_service_stage_start "reload-selinux-policy"
    load_policy
    restorecon -R /etc
    record_service_stage_success
fi

touch "$DONE_MARKER"
echo "Node image from $CHECKOUT is now /usr for this boot."
