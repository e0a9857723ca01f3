#!/usr/bin/python3
"""Runs one point of a planned sweep (what Slurm array tasks and GNU parallel
jobs call; sweep.py --emit writes those lines):

  scripts/run_point.py SWEEP_DIR POINT_NAME

POINT_NAME is the point's folder name (as in SWEEP_DIR/sweep.json). Names,
not positions, so a job emitted before the spec was extended still runs the
point it was written for. A point already done is skipped; a failure is
recorded in the point's error.json.
Exit status: 0 done (now or earlier), 1 usage, 2 no such sweep or point, 3 failed."""
import sys

from wsesweep import inputs as run_inputs, sweepdir
from wsesweep.runner import run_point


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 1
    out_dir, name = sys.argv[1], sys.argv[2]
    try:
        plan = sweepdir.load_plan(out_dir)
    except sweepdir.SweepDirError as e:
        print(f"run_point: {e}", file=sys.stderr)
        return 2
    if not run_inputs.complete(plan.get("inputs")):
        print(f"run_point: {out_dir}/sweep.json was written by an older sweep.py, without the digests "
              "of the presets, models and binary: plan it again with scripts/sweep.py", file=sys.stderr)
        return 2
    point = next((p for p in plan["points"] if p["name"] == name), None)
    if point is None:
        print(f"run_point: {out_dir}/sweep.json has no point {name}: the spec changed since this job "
              "was written; emit the jobs again", file=sys.stderr)
        return 2
    outcome = run_point(out_dir, plan, point)
    print(f"{outcome.name}: {outcome.status} ({outcome.seconds:.1f} s) {outcome.reason}".rstrip())
    return 3 if outcome.status == "failed" else 0


if __name__ == "__main__":
    sys.exit(main())
