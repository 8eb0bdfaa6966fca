#!/usr/bin/env python3
"""record-patch-inputs.py RAW MINOR: from the configs a real openshift-install wrote under RAW
(record.sh's RAW/<case>/bootstrap.ign), keeps what `bootgen patch` reads and changes, as
patch/<MINOR>/<case>.ign, for tests/tests/patch_installer_configs.rs.

Kept as the installer wrote them (each file's path, mode and contents): registries.conf, the
node's and the cluster's pull secrets, the mirror manifests, /etc/hosts and the trust anchors.
These hold only what our cases gave the installer (a made-up pull secret, our mirror hosts, a CA
made for these tests). The release-image scripts are reduced to what the patch acts on: for
each line that names the release image, the word that names it (`NAME=` or a quote before it,
the quote after it); no other line of the installer's scripts is kept. Units are left out.

Development time only, like record.sh: RAW holds the installer's own scripts and is never
committed.
"""
import base64
import json
import os
import re
import sys
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = ["compact", "mirrors-content-sources", "mirrors-digest-sources"]
SCRIPTS = ["/usr/local/bin/release-image-download.sh", "/usr/local/bin/release-image.sh"]
KEPT = re.compile(
    r"^(/etc/containers/registries\.conf|/root/\.docker/config\.json|/etc/hosts"
    r"|/etc/pki/ca-trust/source/anchors/.*"
    r"|/opt/openshift/manifests/(openshift-config-secret-pull-secret\.yaml"
    r"|image-content-source-policy.*\.yaml|image-digest-mirror-set\.yaml"
    r"|user-ca-bundle-config\.yaml))$"
)
RELEASE = re.compile(r"RELEASE_IMAGE=([^\s\"']+)")


def contents(entry):
    source = entry.get("contents", {}).get("source", "")
    if not source.startswith("data:"):
        return b""
    meta, _, data = source[5:].partition(",")
    if meta.endswith(";base64"):
        raw = base64.b64decode(data)
    else:
        raw = urllib.parse.unquote_to_bytes(data)
    if entry.get("contents", {}).get("compression") == "gzip":
        import gzip

        raw = gzip.decompress(raw)
    return raw


def data_url(raw):
    return "data:text/plain;charset=utf-8;base64," + base64.b64encode(raw).decode()


def reduce_script(text, reference):
    """The words naming `reference`, one line each."""
    kept = ["#!/usr/bin/env bash"]
    for line in text.splitlines():
        at = line.find(reference)
        while at != -1:
            start = at
            while start > 0 and not line[start - 1].isspace() and line[start - 1] not in "($":
                start -= 1
            end = at + len(reference)
            if end < len(line) and line[end] in "\"'":
                end += 1
            kept.append(line[start:end])
            at = line.find(reference, at + len(reference))
    return ("\n".join(kept) + "\n").encode()


def reduce(config):
    files = config.get("storage", {}).get("files", [])
    by_path = {f["path"]: f for f in files}
    download = contents(by_path.get(SCRIPTS[0], {})).decode()
    match = RELEASE.search(download)
    if not match:
        sys.exit("no RELEASE_IMAGE= in " + SCRIPTS[0])
    reference = match.group(1)
    out = []
    for f in files:
        path = f["path"]
        if path in SCRIPTS:
            raw = reduce_script(contents(f).decode(), reference)
        elif KEPT.match(path):
            raw = contents(f)
        else:
            continue
        entry = {"path": path, "contents": {"source": data_url(raw)}}
        for key in ("mode", "overwrite", "user", "group"):
            if key in f:
                entry[key] = f[key]
        out.append(entry)
    out.sort(key=lambda f: f["path"])
    return {"ignition": {"version": config["ignition"]["version"]}, "storage": {"files": out}}


def main():
    raw, minor = sys.argv[1], sys.argv[2]
    folder = os.path.join(HERE, minor)
    os.makedirs(folder, exist_ok=True)
    for case in CASES:
        path = os.path.join(raw, case, "bootstrap.ign")
        if not os.path.exists(path):
            print(f"{minor} {case}: no bootstrap.ign (refused?)")
            continue
        with open(path) as f:
            reduced = reduce(json.load(f))
        with open(os.path.join(folder, case + ".ign"), "w") as f:
            json.dump(reduced, f, indent=1, sort_keys=True)
            f.write("\n")
        print(f"{minor} {case}: {len(reduced['storage']['files'])} files kept")


if __name__ == "__main__":
    main()
