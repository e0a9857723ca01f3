"""The sweep folder, the contract between the planner (sweep.py), the
per-point runner (local threads, Slurm array tasks, GNU parallel jobs) and
aggregation:

    OUT/sweep.json               the plan: binary, fixed overrides, axes, metrics, points
    OUT/base.yaml                the base run file, copied so the folder stands alone
    OUT/points/NAME/result.json  wsesim's result, written atomically: its presence means done
    OUT/points/NAME/error.json   the last failure of that point (removed when it succeeds)

Only this module and the runner read it, and neither needs YAML, so compute
nodes need nothing beyond the Python standard library."""
import json
import os

from .atomic import write_text_atomically

PLAN = "sweep.json"
BASE = "base.yaml"
POINTS = "points"
RESULT = "result.json"
ERROR = "error.json"


class SweepDirError(Exception):
    pass


def write_plan(out_dir, spec, fixed_overrides, points, wsesim):
    """Write (or refresh) the plan. Axes and metrics may change between runs
    (extending a sweep keeps its finished points), but a different base
    config or fixed override would silently mix two experiments in one table."""
    plan_path = os.path.join(out_dir, PLAN)
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
        "fixed_overrides": fixed_overrides,
        "axes": [a.key for a in spec.axes],
        "metrics": spec.metrics,
        "points": [{"name": p.name, "values": p.values, "overrides": p.overrides} for p in points],
    }
    write_text_atomically(plan_path, json.dumps(plan, indent=1) + "\n")
    return plan


def load_plan(out_dir):
    try:
        with open(os.path.join(out_dir, PLAN), encoding="utf-8") as f:
            return json.load(f)
    except OSError as e:
        raise SweepDirError(f"no sweep in {out_dir}: {e.strerror}")


def point_dir(out_dir, name):
    return os.path.join(out_dir, POINTS, name)


def load_result(out_dir, name):
    """The point's result document, or None while the point is not done. A
    file that does not parse (written by something less careful than
    wsesim, or damaged) is not a result: the point runs again."""
    try:
        with open(os.path.join(point_dir(out_dir, name), RESULT), encoding="utf-8") as f:
            result = json.load(f)
    except (OSError, ValueError):
        return None
    return result if isinstance(result, dict) and isinstance(result.get("workload"), dict) else None


def load_error(out_dir, name):
    try:
        with open(os.path.join(point_dir(out_dir, name), ERROR), encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None
