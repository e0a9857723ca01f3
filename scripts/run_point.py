#!/usr/bin/python3
"""Runs one point of a planned sweep (what Slurm array tasks and GNU parallel
jobs call; sweep.py --emit writes those lines):

  scripts/run_point.py SWEEP_DIR INDEX

INDEX is the point's position in SWEEP_DIR/sweep.json. A point already done
is skipped; a failure is recorded in the point's error.json.
Exit status: 0 done (now or earlier), 1 usage, 2 no such sweep or point, 3 failed."""
import sys

from wsesweep import sweepdir
from wsesweep.runner import run_point


def main():
    if len(sys.argv) != 3 or not sys.argv[2].isdigit():
        print(__doc__.strip(), file=sys.stderr)
        return 1
    out_dir, index = sys.argv[1], int(sys.argv[2])
    try:
        plan = sweepdir.load_plan(out_dir)
    except sweepdir.SweepDirError as e:
        print(f"run_point: {e}", file=sys.stderr)
        return 2
    if index >= len(plan["points"]):
        print(f"run_point: {out_dir} has {len(plan['points'])} points, no index {index}", file=sys.stderr)
        return 2
    outcome = run_point(out_dir, plan, index)
    print(f"{outcome.name}: {outcome.status} ({outcome.seconds:.1f} s) {outcome.reason}".rstrip())
    return 3 if outcome.status == "failed" else 0


if __name__ == "__main__":
    sys.exit(main())
