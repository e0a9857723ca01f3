"""What a point's result depends on besides its request (base run file and
overrides): the preset files wsesim reads at run time and the wsesim binary
itself. The planner (sweep.py) asks the binary where its presets are and
digests both once; the plan carries the digests, so the runner, on any
node, needs nothing but the plan and the Python standard library."""
import hashlib
import json
import os
import subprocess

CHUNK = 1 << 20


class InputsError(Exception):
    pass


def probe(wsesim):
    """The inputs of runs of `wsesim` started from this process's environment:
    {"preset_dir", "presets": digest, "wsesim": digest, "wsesim_version"}."""
    command = [wsesim, "presets", "--format", "json"]
    try:
        process = subprocess.run(command, capture_output=True, text=True)
    except OSError as e:
        raise InputsError(f"cannot start {wsesim}: {e.strerror}")
    last_line = (process.stderr.strip().splitlines() or [""])[-1]
    if process.returncode != 0:
        raise InputsError(f"'{' '.join(command)}' failed (exit status {process.returncode}): {last_line}")
    try:
        listing = json.loads(process.stdout)
        preset_dir, presets, version = listing["preset_dir"], listing["presets"], listing["wsesim_version"]
        files = {p["name"]: p["file"] for p in presets}
    except (ValueError, TypeError, KeyError):
        raise InputsError(f"'{' '.join(command)}' printed no preset listing: "
                          "is the binary older than this sweep.py? rebuild it")
    return {
        "preset_dir": os.path.abspath(preset_dir),
        "presets": presets_digest(files),
        "wsesim": file_digest(wsesim),
        "wsesim_version": version,
    }


def presets_digest(files):
    """Names and contents of the preset files ({name: path}): a preset edited,
    added, removed or renamed changes it; the directory's path does not."""
    contents = {name: file_digest(path) for name, path in files.items()}
    return "sha256:" + hashlib.sha256(json.dumps(contents, sort_keys=True).encode("utf-8")).hexdigest()


def file_digest(path):
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            for chunk in iter(lambda: f.read(CHUNK), b""):
                digest.update(chunk)
    except OSError as e:
        raise InputsError(f"cannot read {path}: {e.strerror}")
    return "sha256:" + digest.hexdigest()


def changes(old, new, wsesim):
    """Words naming what differs between the inputs `old` and `new`, e.g.
    ["the presets in DIR", "the wsesim binary PATH (0.9 -> 1.0)"]."""
    changed = []
    if old["presets"] != new["presets"]:
        changed.append(f"the presets in {new['preset_dir']}")
    if old["wsesim"] != new["wsesim"]:
        versions = old.get("wsesim_version"), new["wsesim_version"]
        changed.append(f"the wsesim binary {wsesim}"
                       + (f" ({versions[0]} -> {versions[1]})" if versions[0] != versions[1] else ""))
    return changed
