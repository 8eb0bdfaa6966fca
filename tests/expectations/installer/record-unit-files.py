#!/usr/bin/env python3
"""record-unit-files.py INSTALLER_GIT: adds to the recorded views the dependency directives of
the units (and drop-ins) the installer writes as files under /etc/systemd, for views recorded
before the objects view kept them.

The installer copies a file of its `data/data/bootstrap/files` tree that is not a template into
the config byte for byte, so its bytes at the commit `<folder>/recorded.toml` names are the
bytes that installer wrote. Each is read from INSTALLER_GIT (a clone of openshift/installer's
history), put into a one-file config and viewed with `bootgen inspect --objects` (BOOTGEN, by
default target/release/bootgen), so the directives are parsed exactly as a new recording's
would be. A path that is a template there, or missing, stops the script: such a view must be
recorded again with that installer (record.sh). Development time only; views already holding
directives are left as they are.
"""
import base64
import json
import os
import pathlib
import subprocess
import sys
import tomllib

HERE = pathlib.Path(__file__).resolve().parent
BOOTGEN = os.environ.get("BOOTGEN", str(HERE.parents[2] / "target/release/bootgen"))


def installer_file(git, commit, path):
    tree = "data/data/bootstrap/files" + path
    for candidate in (tree + ".template", tree):
        show = subprocess.run(
            ["git", "-C", git, "show", f"{commit}:{candidate}"],
            capture_output=True,
        )
        if show.returncode == 0:
            if candidate.endswith(".template"):
                sys.exit(f"{path} is a template at {commit}: record that release again")
            return show.stdout
    sys.exit(f"{path} is not in the installer's files at {commit}")


def directives_of(files):
    """The objects view's directives of each (path, bytes), by bootgen's own reading."""
    config = {
        "ignition": {"version": "3.2.0"},
        "storage": {
            "files": [
                {
                    "path": path,
                    "contents": {
                        "source": "data:;base64," + base64.b64encode(data).decode()
                    },
                }
                for path, data in files.items()
            ]
        },
    }
    view = subprocess.run(
        [BOOTGEN, "inspect", "--objects", "-"],
        input=json.dumps(config).encode(),
        capture_output=True,
        check=True,
    )
    parsed = json.loads(view.stdout)["files"]
    return {path: parsed[path].get("directives", {}) for path in files}


def main():
    git = sys.argv[1]
    for recorded in sorted(HERE.glob("*/recorded.toml")):
        commit = tomllib.loads(recorded.read_text())["installer_commit"]
        for view_file in sorted(recorded.parent.glob("*.json")):
            text = view_file.read_text()
            view = json.loads(text)
            wanted = {
                path: installer_file(git, commit, path)
                for path, entry in view["files"].items()
                if path.startswith(("/etc/systemd/system/", "/etc/systemd/user/"))
                and "directives" not in entry
            }
            if not wanted:
                continue
            for path, directives in directives_of(wanted).items():
                if directives:
                    view["files"][path]["directives"] = directives
            new = json.dumps(view, indent=2, ensure_ascii=False) + "\n"
            if new != text:
                view_file.write_text(new)
                print(f"{recorded.parent.name}/{view_file.name}: unit files' directives added")


if __name__ == "__main__":
    main()
