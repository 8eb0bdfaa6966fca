#!/usr/bin/env python3
"""record-mistakes.py INSTALLER VERSION [NAME...]: runs a real openshift-install on every
mistake of mistakes.yaml (or only those NAMEd, keeping the others' recordings) (base.yaml changed by the mistake's merge patch) and writes
recorded/<minor>.toml: for each mistake, whether that release's installer accepts it
(`create manifests` succeeds) or refuses it, with the field paths its error names. With
DISTRIBUTION=okd (an installer built with `-tags scos`) every mistake runs with an OKD payload,
quay.io/okd/scos-release:<version>-okd-scos.0, into recorded/okd-<minor>.toml.

Development time only: the installer is built outside this repository and never committed;
this script holds none of its code. It never pulls an image: the release image override only
names the payload.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))


def merge_patch(target, patch):
    """RFC 7396: maps merge key by key, anything else replaces, null removes."""
    if not isinstance(patch, dict):
        return patch
    result = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result


# A field path the installer prints before the kind of error (k8s field.Error).
FIELD = re.compile(
    r"(?:^|\[|, |: )([A-Za-z][\w.\[\]-]*): (?:Invalid value|Required value|Unsupported value|"
    r"Duplicate value|Forbidden|Internal error|Too many|Too long|Not found)"
)
UNKNOWN = re.compile(r'unknown field "([^"]+)"')
GO_FIELD = re.compile(r"Go struct field \w+\.([\w.]+) of type")


def fields_of(message):
    found = FIELD.findall(message) + UNKNOWN.findall(message) + GO_FIELD.findall(message)
    return sorted(set(found))


# Lists the installer prints from a Go map, in a different order on each run.
SUPPORTED = re.compile(r'supported values: ((?:"[^"]*", )*"[^"]*")')


# Where one field error of a list of them starts.
NEXT_ERROR = re.compile(
    r", (?=[A-Za-z][\w.\[\]-]*: (?:Invalid value|Required value|Unsupported value|"
    r"Duplicate value|Forbidden|Internal error|Too many|Too long|Not found))"
)


def normalized(line):
    """The installer's error line without its timestamp, its map-ordered lists sorted (the
    values a field takes, and the field errors of a `[...]` list)."""
    line = re.sub(r'^time="[^"]*" ', "", line)
    line = SUPPORTED.sub(
        lambda m: "supported values: " + ", ".join(sorted(m.group(1).split(", "))),
        line,
    )
    head, bracket, rest = line.partition('file: [')
    if bracket and rest.endswith("]"):
        errors = sorted(NEXT_ERROR.split(rest[:-1]))
        line = head + bracket + ", ".join(errors) + "]"
    return line


def toml_string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def main():
    installer, version = sys.argv[1], sys.argv[2]
    only = set(sys.argv[3:])
    minor = ".".join(version.split(".")[:2])
    okd = os.environ.get("DISTRIBUTION", "ocp") == "okd"
    with open(os.path.join(HERE, "base.yaml")) as f:
        base = yaml.safe_load(f)
    with open(os.path.join(HERE, "mistakes.yaml")) as f:
        mistakes = yaml.safe_load(f)
    env = dict(os.environ)
    env["OPENSHIFT_INSTALL_SKIP_HOSTCRYPT_VALIDATION"] = "true"
    header = [
        f"# What openshift-install {version}{' (scos)' if okd else ''} decides for each mistake of mistakes.yaml, written by",
        "# record-mistakes.py: accept (`create manifests` succeeds) or refuse, with the field",
        "# paths its error names and its first error line (timestamps removed).",
        f'version = "{version}"',
        "",
    ]
    blocks = {}
    for name, mistake in mistakes.items():
        if only and name not in only:
            continue
        lines = blocks.setdefault(name, [])
        config = merge_patch(base, mistake["patch"])
        arch = ((config.get("controlPlane") or {}).get("architecture")) or "amd64"
        suffix = "aarch64" if arch in ("arm64", "aarch64") else "x86_64"
        env["OPENSHIFT_INSTALL_RELEASE_IMAGE_OVERRIDE"] = (
            f"quay.io/okd/scos-release:{version}-okd-scos.0"
            if okd
            else f"quay.io/openshift-release-dev/ocp-release:{version}-{suffix}"
        )
        work = tempfile.mkdtemp(prefix="mistake-")
        try:
            with open(os.path.join(work, "install-config.yaml"), "w") as f:
                yaml.safe_dump(config, f, sort_keys=False)
            run = subprocess.run(
                [installer, "create", "manifests", "--dir", work],
                env=env, capture_output=True, text=True, timeout=300,
            )
        finally:
            shutil.rmtree(work, ignore_errors=True)
        errors = [
            normalized(l)
            for l in run.stderr.splitlines() + run.stdout.splitlines()
            if "level=error" in l or "level=fatal" in l
        ]
        lines.append(f"[mistake.{name}]")
        if run.returncode == 0:
            lines.append('decision = "accept"')
            print(f"{minor} {name}: accept")
        else:
            message = " ".join(errors)
            lines.append('decision = "refuse"')
            lines.append("fields = [" + ", ".join(toml_string(p) for p in fields_of(message)) + "]")
            lines.append("says = " + toml_string(errors[0] if errors else f"exit {run.returncode}"))
            print(f"{minor} {name}: refuse {fields_of(message)}")
        lines.append("")
    out = os.path.join(HERE, "recorded", f"{'okd-' if okd else ''}{minor}.toml")
    # With names given, the other mistakes keep what the file already records.
    if only and os.path.exists(out):
        with open(out) as f:
            for chunk in f.read().split("\n[mistake.")[1:]:
                name = chunk.split("]", 1)[0]
                blocks.setdefault(name, ("[mistake." + chunk).rstrip("\n").split("\n") + [""])
    for name in mistakes:
        header.extend(blocks.get(name, []))
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as f:
        f.write("\n".join(header))


if __name__ == "__main__":
    main()
