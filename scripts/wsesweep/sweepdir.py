"""The sweep folder, the contract between the planner (sweep.py), the
per-point runner (local threads, Slurm array tasks, GNU parallel jobs) and
aggregation:

    OUT/sweep.json               the plan: binary, its inputs (inputs.py), fixed overrides, axes,
                                 metrics, points
    OUT/base.yaml                the base run file, copied so the folder stands alone
    OUT/points/NAME/result.json  wsesim's result stamped with the point's digest, written
                                 atomically: done when its digest is the point's (load_result)
    OUT/points/NAME/wsesim.json  wsesim's result before the stamp (the runner's, transient)
    OUT/points/NAME/error.json   the last failure of that point (removed when it succeeds)
    OUT/points/NAME/*.tmp.*      an atomic write cut short by a kill (cleared before a rerun)

Only this module and the runner read it, and neither needs YAML, so compute
nodes need nothing beyond the Python standard library."""
import hashlib
import json
import os

from . import inputs as run_inputs
from .atomic import write_text_atomically

PLAN = "sweep.json"
BASE = "base.yaml"
POINTS = "points"
RESULT = "result.json"
UNSTAMPED = "wsesim.json"
ERROR = "error.json"
# The key of result.json under which the runner records which point it is the result of.
STAMP = "sweep_point"


class SweepDirError(Exception):
    pass


def write_plan(out_dir, spec, fixed_overrides, points, wsesim, inputs):
    """Write (or refresh) the plan. Axes and metrics may change between runs
    (extending a sweep keeps its finished points), but a different base
    config or fixed override would silently mix two experiments in one table.
    Other `inputs` (presets, models, binary) are no reason to refuse: the
    points they invalidate are simply not done (point_digest)."""
    plan_path = os.path.join(out_dir, PLAN)
    if os.path.exists(out_dir) and not os.path.isdir(out_dir):
        raise SweepDirError(f"--out {out_dir} is not a folder")
    if os.path.exists(plan_path):
        old = load_plan(out_dir)
        try:
            with open(os.path.join(out_dir, BASE), encoding="utf-8") as f:
                old_base = f.read()
        except FileNotFoundError:
            old_base = spec.base_text
        if old_base != spec.base_text or sorted(old["fixed_overrides"]) != sorted(fixed_overrides):
            raise SweepDirError(
                f"{out_dir} holds a sweep with a different base config or 'set' overrides; "
                "its results would not be comparable: use another --out, or remove the folder")
    os.makedirs(os.path.join(out_dir, POINTS), exist_ok=True)
    write_text_atomically(os.path.join(out_dir, BASE), spec.base_text)
    plan = {
        "spec": spec.path,
        "base": spec.base_path,
        "wsesim": wsesim,
        "inputs": inputs,
        "fixed_overrides": fixed_overrides,
        "axes": [a.key for a in spec.axes],
        "metrics": spec.metrics,
        "points": [{"name": p.name, "values": p.values, "overrides": p.overrides} for p in points],
    }
    write_text_atomically(plan_path, json.dumps(plan, indent=1) + "\n")
    return plan


def recorded_inputs(out_dir):
    """The inputs the folder's plan was made with, None if there is none."""
    if not os.path.exists(os.path.join(out_dir, PLAN)):
        return None
    return load_plan(out_dir).get("inputs")


def load_plan(out_dir):
    path = os.path.join(out_dir, PLAN)
    try:
        with open(path, encoding="utf-8") as f:
            plan = json.load(f)
    except OSError as e:
        raise SweepDirError(f"no sweep in {out_dir}: {e.strerror}")
    except ValueError as e:  # not JSON, or not UTF-8
        raise SweepDirError(f"{path} is damaged ({e}): remove the folder or use another --out")
    if not isinstance(plan, dict) or not all(k in plan for k in ("fixed_overrides", "points", "inputs")):
        raise SweepDirError(f"{path} is not a sweep plan: remove the folder or use another --out")
    return plan


def point_dir(out_dir, name):
    return os.path.join(out_dir, POINTS, name)


def point_digest(out_dir, point, inputs):
    """What a point's result depends on: the sweep's base run file, the
    point's overrides (fixed ones first) in the order wsesim applies them,
    and the digests of the presets, models and binary it runs with (`inputs`)."""
    with open(os.path.join(out_dir, BASE), encoding="utf-8") as f:
        base = f.read()
    request = json.dumps({"base": base, "overrides": point["overrides"], **run_inputs.digests(inputs)},
                         sort_keys=True)
    return "sha256:" + hashlib.sha256(request.encode("utf-8")).hexdigest()


def load_json_object(path):
    """The JSON object in `path`, or None if there is none (missing, damaged, not an object)."""
    try:
        with open(path, encoding="utf-8") as f:
            document = json.load(f)
    except (OSError, ValueError):
        return None
    return document if isinstance(document, dict) else None


def load_result(out_dir, plan, point):
    """The point's result document, or None while the point is not done.
    Done means the runner stamped it with this point's digest under the
    plan's inputs (stamp_result): a file that does not parse, one without a
    workload section, one copied from another point or sweep, one run
    against other presets or models or another binary, or one left by an
    older wsesweep is not this point's result, and the point runs again."""
    result, stamp = _stamped_result(out_dir, point)
    if stamp is None or stamp.get("digest") != point_digest(out_dir, point, plan["inputs"]):
        return None
    return result


def outdated_inputs(out_dir, plan, point):
    """If the point's result answers its request but was run with other
    inputs than the plan's: the inputs it was run with; else None."""
    _, stamp = _stamped_result(out_dir, point)
    old = stamp and stamp.get("inputs")
    if not isinstance(old, dict):
        return None
    done = stamp.get("digest") == point_digest(out_dir, point, plan["inputs"])
    answers_request = stamp.get("digest") == point_digest(out_dir, point, old)
    return old if answers_request and not done else None


def _stamped_result(out_dir, point):
    """The point's result.json and its stamp; (None, None) unless it is a stamped wsesim result."""
    result = load_json_object(os.path.join(point_dir(out_dir, point["name"]), RESULT))
    if result is None or not isinstance(result.get("workload"), dict) or not isinstance(result.get(STAMP), dict):
        return None, None
    return result, result[STAMP]


def stamp_result(out_dir, plan, point):
    """Turns the point's UNSTAMPED wsesim result into its RESULT, stamped with
    the point's digest and the inputs it ran with, in one atomic write;
    removes UNSTAMPED. False if wsesim left no result document there."""
    directory = point_dir(out_dir, point["name"])
    result = load_json_object(os.path.join(directory, UNSTAMPED))
    if result is None or not isinstance(result.get("workload"), dict):
        return False
    result[STAMP] = {"name": point["name"], "digest": point_digest(out_dir, point, plan["inputs"]),
                     "inputs": plan["inputs"]}
    write_text_atomically(os.path.join(directory, RESULT), json.dumps(result, indent=2) + "\n")
    os.unlink(os.path.join(directory, UNSTAMPED))
    return True


def clear_leftovers(out_dir, name):
    """Removes what a run of the point killed midway left in its folder: an
    unstamped result and the temporaries of atomic writes (wsesim's own and
    ours). Called only by the runner about to run the point, which owns the
    folder then; a finished result.json and the last error.json stay."""
    directory = point_dir(out_dir, name)
    for entry in os.listdir(directory):
        if entry == UNSTAMPED or any(entry.startswith(f + ".tmp.") for f in (UNSTAMPED, RESULT, ERROR)):
            os.unlink(os.path.join(directory, entry))


def load_error(out_dir, name):
    return load_json_object(os.path.join(point_dir(out_dir, name), ERROR))
