#!/usr/bin/env bash
# record.sh INSTALLER VERSION RAW: runs a real openshift-install on every case under cases/,
# keeping what it wrote under RAW/CASE (outside this repository: it holds the installer's
# scripts), then records the objects view of it (bootgen inspect --objects) as the minor's
# CASE.json, or CASE.refused with the installer's error lines when that release refuses the case.
# record.sh --views VERSION RAW: only the views again, from RAW (after the view itself changed).
# With DISTRIBUTION=okd (an installer built with `-tags scos`), the views go to okd-<minor>/ and
# every case runs with an OKD payload, quay.io/okd/scos-release:<version>-okd-scos.0.
# With CASE=NAME, only that case (a case added since the release was recorded).
# Development time only: the installer binary is built outside this repository, never committed.
set -euo pipefail
views_only=false
if [[ $1 == --views ]]; then
  views_only=true
  shift
  set -- none "$@"
fi
installer=$1 version=$2 raw=$(realpath -m "$3")
here=$(cd "$(dirname "$0")" && pwd)
bootgen=${BOOTGEN:-$here/../../../target/release/bootgen}
minor=${version%.*}
folder=$minor
if [[ ${DISTRIBUTION:-ocp} == okd ]]; then
  folder=okd-$minor
fi
mkdir -p "$here/$folder" "$raw"
for dir in "$here"/cases/${CASE:-*}/; do
  case=$(basename "$dir")
  work=$raw/$case
  target=ignition-configs config=bootstrap.ign
  if grep -q '^bootstrapInPlace:' "$dir/install-config.yaml"; then
    target=single-node-ignition-config config=bootstrap-in-place-for-live-iso.ign
  fi
  if ! $views_only; then
    rm -rf "$work"
    mkdir -p "$work"
    cp "$dir/install-config.yaml" "$work/"
    arch=$(sed -n 's/^  architecture: //p' "$work/install-config.yaml" | head -n 1)
    suffix=x86_64
    [[ $arch == arm64 ]] && suffix=aarch64
    export OPENSHIFT_INSTALL_RELEASE_IMAGE_OVERRIDE=quay.io/openshift-release-dev/ocp-release:$version-$suffix
    if [[ ${DISTRIBUTION:-ocp} == okd ]]; then
      export OPENSHIFT_INSTALL_RELEASE_IMAGE_OVERRIDE=quay.io/okd/scos-release:$version-okd-scos.0
    fi
    export OPENSHIFT_INSTALL_SKIP_HOSTCRYPT_VALIDATION=true
    if [[ -d $dir/manifests || -d $dir/openshift ]]; then
      "$installer" create manifests --dir "$work" >"$work/.log" 2>&1 || true
      for sub in manifests openshift; do
        [[ -d $dir/$sub && -d $work/$sub ]] && cp "$dir/$sub"/* "$work/$sub/"
      done
    fi
    "$installer" create "$target" --dir "$work" >"$work/.log" 2>&1 || true
  fi
  rm -f "$here/$folder/$case".*
  if [[ -f $work/$config ]]; then
    "$bootgen" inspect --objects "$work/$config" >"$here/$folder/$case.json"
    if [[ -f $work/master.ign ]]; then
      "$bootgen" inspect --objects "$work/master.ign" >"$here/$folder/$case.master.json"
    fi
    echo "$folder $case: recorded"
  else
    # The installer's reason, without its timestamps.
    grep -E 'level=(error|fatal)' "$work/.log" | sed -E 's/^time="[^"]*" //' >"$here/$folder/$case.refused" || true
    echo "$folder $case: refused"
  fi
done
