#!/usr/bin/python3
"""Runs a parameter sweep of wsesim: every point of SPEC's axes, in parallel,
resumable; then one table of results and the spec's plots.

  scripts/sweep.py SPEC.yaml [--out DIR] [--jobs N] [--wsesim PATH]
  scripts/sweep.py SPEC.yaml --aggregate          table (and plots) from the points done so far
  scripts/sweep.py SPEC.yaml --emit slurm         Slurm job array of the pending points
  scripts/sweep.py SPEC.yaml --emit parallel      GNU parallel job list of the pending points

Exit status: 0 every point done, 1 usage, 2 bad spec or sweep folder or a
wsesim that cannot list its presets or models,
3 some point failed (see its error.json; rerunning retries it), 4 the
spec asks for plots but matplotlib is missing (the table is written).
The spec format and the folder layout are in docs/exploration.md."""
import argparse
import concurrent.futures
import os
import queue
import sys

from wsesweep import aggregate, emit, inputs as run_inputs, result_fields, spec as specs, sweepdir
from wsesweep.runner import run_point

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXIT_USAGE, EXIT_SPEC, EXIT_FAILED_POINTS, EXIT_NO_PLOTS = 1, 2, 3, 4


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("spec", help="sweep spec (YAML or JSON)")
    parser.add_argument("--out", help="sweep folder (default: sweeps/SPEC_NAME in the current directory)")
    parser.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)),
                        help="points run at once (default: the cores this process may use)")
    parser.add_argument("--wsesim", help="the wsesim binary (default: $WSESIM, else build/wsesim)")
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--aggregate", action="store_true", help="only write the table and plots")
    action.add_argument("--emit", choices=("slurm", "parallel"), help="only write a scheduler script")
    args = parser.parse_args()
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")

    wsesim = os.path.abspath(args.wsesim or os.environ.get("WSESIM") or os.path.join(REPO, "build", "wsesim"))
    if not args.aggregate and not os.access(wsesim, os.X_OK):
        print(f"sweep: no executable wsesim at {wsesim}: build it or pass --wsesim", file=sys.stderr)
        return EXIT_USAGE
    out_dir = args.out
    try:
        spec = specs.load_spec(args.spec)
        result_fields.check_metrics(spec)
        points = specs.expand_points(spec)
        out_dir = args.out or os.path.join("sweeps", spec.name)
        # --aggregate runs nothing, so it needs no binary: the points count as
        # done against the inputs they were planned with.
        inputs = sweepdir.recorded_inputs(out_dir) if args.aggregate else run_inputs.probe(wsesim)
        plan = sweepdir.write_plan(out_dir, spec, specs.fixed_overrides(spec), points, wsesim, inputs)
    except (specs.SpecError, sweepdir.SweepDirError, run_inputs.InputsError) as e:
        print(f"sweep: {e}", file=sys.stderr)
        return EXIT_SPEC
    except OSError as e:  # the folder cannot be written
        print(f"sweep: cannot write {e.filename or out_dir}: {e.strerror}", file=sys.stderr)
        return EXIT_SPEC

    if not args.aggregate:
        announce_outdated(out_dir, plan)
    if args.emit:
        return emit_script(args.emit, out_dir, plan, spec)
    failed = [] if args.aggregate else run_all(out_dir, plan, args.jobs)
    try:
        plotted = report(out_dir, plan, spec)
    except aggregate.AggregateError as e:
        print(f"sweep: {e}", file=sys.stderr)
        return EXIT_SPEC
    if failed:
        print(f"sweep: {len(failed)} point(s) failed; their error.json files say why, "
              "and running the sweep again retries them", file=sys.stderr)
        return EXIT_FAILED_POINTS
    return 0 if plotted else EXIT_NO_PLOTS


def announce_outdated(out_dir, plan):
    """One line when finished points run again only because the presets,
    the models or the binary changed since they ran, so the rerun is no
    surprise."""
    outdated = [old for old in (sweepdir.outdated_inputs(out_dir, plan, p) for p in plan["points"]) if old]
    changed = []
    for old in outdated:
        changed += [c for c in run_inputs.changes(old, plan["inputs"], plan["wsesim"]) if c not in changed]
    if outdated:
        print(f"sweep: {' and '.join(changed)} changed since {len(outdated)} point(s) were run: "
              f"they run again", flush=True)


def run_all(out_dir, plan, jobs):
    """Runs the pending points; returns the names of those that failed."""
    pending = emit.pending_indices(out_dir, plan)
    total = len(plan["points"])
    print(f"sweep: {total} points, {total - len(pending)} done earlier, {len(pending)} to run "
          f"on {min(jobs, max(len(pending), 1))} jobs in {out_dir}", flush=True)
    failed = []
    # Each running point has cores of its own (its default run.threads), so
    # `jobs` points of several threads each do not oversubscribe the host.
    cores = sorted(os.sched_getaffinity(0))
    share = max(1, len(cores) // jobs)
    slots = queue.SimpleQueue()
    for slot in range(jobs):
        slots.put({cores[(slot * share + c) % len(cores)] for c in range(share)})

    def run_in_slot(point):
        cpus = slots.get()
        try:
            return run_point(out_dir, plan, point, cpus)
        finally:
            slots.put(cpus)

    # Threads are enough: each one only waits for its wsesim process.
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(run_in_slot, plan["points"][i]) for i in pending]
        try:
            for finished, future in enumerate(concurrent.futures.as_completed(futures), 1):
                outcome = future.result()
                line = f"[{finished}/{len(pending)}] {outcome.name}: {outcome.status} ({outcome.seconds:.1f} s)"
                if outcome.status == "failed":
                    failed.append(outcome.name)
                    line += f" {outcome.reason}"
                print(line, flush=True)
        except KeyboardInterrupt:
            # Start nothing new; the running points got the same Ctrl-C.
            pool.shutdown(wait=True, cancel_futures=True)
            print("sweep: interrupted; run the same command again to resume", file=sys.stderr)
            sys.exit(130)
    return failed


def report(out_dir, plan, spec):
    table = aggregate.build_table(out_dir, plan)
    aggregate.write_table(out_dir, table)
    print(aggregate.format_table(table))
    print(f"sweep: table in {os.path.join(out_dir, aggregate.TABLE_CSV)} and {aggregate.TABLE_JSON}")
    if spec.plots:
        # matplotlib only when the spec asks for plots: a sweep runs without it.
        try:
            from wsesweep import plotting
        except ImportError as e:
            print(f"sweep: no plots: {e} (Debian: apt-get install python3-matplotlib, then rerun with "
                  f"--aggregate); the table above is written", file=sys.stderr)
            return False
        for plot in spec.plots:
            stem = os.path.join(out_dir, "plots", plot.name)
            try:
                missing = plotting.line_plot(table, plot.x, plot.y, [stem + ".png", stem + ".svg"],
                                             lines=plot.lines, where=plot.where, logx=plot.logx,
                                             logy=plot.logy, title=plot.title, sweep=spec.name,
                                             speedup_over=plot.speedup_over, reciprocal_x=plot.reciprocal_x)
            except plotting.PlotError as e:
                print(f"sweep: plot {plot.name}: {e}", file=sys.stderr)
                continue
            note = f" ({missing} point(s) without results left out)" if missing else ""
            print(f"sweep: plot {stem}.png and .svg{note}")
    return True


def emit_script(kind, out_dir, plan, spec):
    indices = emit.pending_indices(out_dir, plan)
    if not indices:
        print(f"sweep: all {len(plan['points'])} points are done; nothing to emit "
              f"(table: scripts/sweep.py {args_text(spec, out_dir)} --aggregate)")
        return 0
    if kind == "slurm":
        path = emit.emit_slurm(out_dir, plan, indices, f"wsesim-{spec.name}", spec.sbatch_options)
        print(f"sweep: {path}: {len(indices)} array tasks; submit with: sbatch {path}")
    else:
        path = emit.emit_parallel(out_dir, plan, indices)
        print(f"sweep: {path}: {len(indices)} jobs; run with: parallel --jobs N < {path}")
    print(f"sweep: afterwards: scripts/sweep.py {args_text(spec, out_dir)} --aggregate")
    return 0


def args_text(spec, out_dir):
    return f"{os.path.relpath(spec.path)} --out {out_dir}"


if __name__ == "__main__":
    sys.exit(main())
