"""What a point's result depends on besides its request (base run file and
overrides): the folders of files wsesim reads at run time (the presets and
the model zoo) and the wsesim binary itself. The planner (sweep.py) asks the
binary where each folder is and digests them and the binary once; the plan
carries the digests, so the runner, on any node, needs nothing but the plan
and the Python standard library."""
import collections
import hashlib
import json
import os
import subprocess

CHUNK = 1 << 20

# A folder wsesim reads at run time: `wsesim LISTING --format json` prints
# {DIR_KEY: the folder, "wsesim_version", LISTING: [{"name", "file"}, ...]},
# and ENVIRONMENT points wsesim at another folder. The plan's inputs hold
# the folder under DIR_KEY and the digest of its files under LISTING.
Folder = collections.namedtuple("Folder", "listing dir_key environment")
FOLDERS = (
    Folder("presets", "preset_dir", "WSESIM_PRESET_DIR"),
    Folder("models", "model_dir", "WSESIM_MODEL_DIR"),
)
# The inputs' digests; what a point's digest covers besides its request.
DIGESTS = tuple(folder.listing for folder in FOLDERS) + ("wsesim",)


class InputsError(Exception):
    pass


def probe(wsesim):
    """The inputs of runs of `wsesim` started from this process's environment:
    {"preset_dir", "presets": digest, "model_dir", "models": digest,
    "wsesim": digest, "wsesim_version"}."""
    inputs = {}
    for folder in FOLDERS:
        directory, files, inputs["wsesim_version"] = list_folder(wsesim, folder)
        inputs[folder.dir_key] = os.path.abspath(directory)
        inputs[folder.listing] = folder_digest(files)
    inputs["wsesim"] = file_digest(wsesim)
    return inputs


def list_folder(wsesim, folder):
    """(the folder's path, {name: file}, wsesim's version) as `wsesim` lists them."""
    command = [wsesim, folder.listing, "--format", "json"]
    try:
        process = subprocess.run(command, capture_output=True, text=True)
    except OSError as e:
        raise InputsError(f"cannot start {wsesim}: {e.strerror}")
    last_line = (process.stderr.strip().splitlines() or [""])[-1]
    if process.returncode != 0:
        raise InputsError(f"'{' '.join(command)}' failed (exit status {process.returncode}): {last_line}")
    try:
        listing = json.loads(process.stdout)
        files = {entry["name"]: entry["file"] for entry in listing[folder.listing]}
        return listing[folder.dir_key], files, listing["wsesim_version"]
    except (ValueError, TypeError, KeyError):
        raise InputsError(f"'{' '.join(command)}' printed no listing of {folder.listing}: "
                          "is the binary older than this sweep.py? rebuild it")


def complete(inputs):
    """Whether `inputs` (a plan's) has every folder and digest the runner needs;
    a plan written by an older sweep.py may lack some."""
    return isinstance(inputs, dict) and all(key in inputs for key in DIGESTS + tuple(f.dir_key for f in FOLDERS))


def digests(inputs):
    """The digests of `inputs` a point's digest covers; None for those it lacks."""
    return {key: (inputs or {}).get(key) for key in DIGESTS}


def environment(inputs):
    """The environment that makes wsesim read the folders `inputs` digested."""
    return {folder.environment: inputs[folder.dir_key] for folder in FOLDERS}


def folder_digest(files):
    """Names and contents of a folder's files ({name: path}): a file edited,
    added, removed or renamed changes it; the folder's path does not."""
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
    ["the presets in DIR", "the models in DIR", "the wsesim binary PATH (0.9 -> 1.0)"]."""
    changed = [f"the {folder.listing} in {new[folder.dir_key]}"
               for folder in FOLDERS if old[folder.listing] != new[folder.listing]]
    if old["wsesim"] != new["wsesim"]:
        versions = old.get("wsesim_version"), new["wsesim_version"]
        changed.append(f"the wsesim binary {wsesim}"
                       + (f" ({versions[0]} -> {versions[1]})" if versions[0] != versions[1] else ""))
    return changed
