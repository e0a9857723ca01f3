#!/usr/bin/python3
"""Fits wsesim's timing keys to measurements of the real machine.

  scripts/calibrate.py DATA.csv... [--preset wse2] [--fit KEY[=LO:HI]... | --no-fit]
                       [--set KEY=VALUE]... [--fit-on EXPR] [--out DIR] [--jobs N]
                       [--update-doc docs/validation.md]

Each DATA file holds points of one kind, told by its header (wsecalib/data.py):
GEMM cycles on a p x p grid (`p, tile, n, hw_cycles`), run on --preset, or
training throughput (`model, preset, systems, global_batch, seq,
samples_per_second`), one step of the model on the row's preset and
systems, each system's batch in micro-batches chosen by `auto`.

Runs the model (timing mode) on every measured point, fits the free keys
by least squares on relative error (simulated / measured - 1) over the
points `--fit-on` selects (default all; the others are predictions; names:
kind, the files' columns, None where a point's kind has no such column),
runs the model again at the fitted values, and writes to DIR (default
calibration/): fitted_preset.yaml (a preset overlay), report.csv and
report.md (a table per kind: point, measured, simulated, error, fitted or
predicted; for training points the micro-batch chosen and a second table
of where each step's seconds go, and in report.csv each run's host seconds
and step parts), measured_vs_simulated.png/.svg (log-log, with y = x, a
panel per kind) and calibration.json. --no-fit predicts every point at the
preset's values and the --set overrides. Runs are cached in DIR/runs, keyed
by the wsesim executable too, so a rerun with the same build repeats
nothing; training runs share the wafer simulations in DIR/wafer_timing.
Exit status: 0 done, 2 bad input, 3 a model run failed."""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from wsecalib import data, fit, model, report  # noqa: E402

DEFAULT_WSESIM = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build", "wsesim")


def selector(expression):
    """--fit-on: a Python expression over a point's kind and the columns of
    its data file (data.FIELDS; those of another kind are None)."""
    try:
        code = compile(expression, "--fit-on", "eval")
    except SyntaxError as e:
        raise ValueError(f"--fit-on {expression!r}: {e.msg}") from None
    allowed = {"kind", *data.FIELDS}
    unknown = set(code.co_names) - allowed
    if unknown:
        raise ValueError(f"--fit-on {expression!r}: unknown name(s) {', '.join(sorted(unknown))} "
                         f"(use {', '.join(sorted(allowed))})")

    def chosen(point):
        names = {"kind": point.kind, **data.fields(point)}
        try:
            return bool(eval(code, {"__builtins__": {}}, names))  # noqa: S307 (names checked above)
        except TypeError as e:  # an order test on a column the point's kind lacks
            absent = ", ".join(name for name, value in names.items() if value is None)
            raise ValueError(f"--fit-on {expression!r} on {point.name}: {e}; a {point.kind} point has "
                             f"{absent} None (test the kind first, e.g. 'kind == \"gemm\" and p < 64')") from None
    return chosen


def keys_to_fit(args):
    if args.no_fit:
        return []
    return [fit.parse_key(spec) for spec in args.fit] if args.fit else list(fit.DEFAULT_KEYS)


def main(argv):
    parser = argparse.ArgumentParser(prog="calibrate.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("data", nargs="+", help="measurement CSVs: GEMM cycles (p, tile, n, hw_cycles[, algorithm, "
                        "dtype]) or training throughput (model, preset, systems, global_batch, seq, "
                        "samples_per_second)")
    parser.add_argument("--preset", default="wse2",
                        help="the preset the GEMM points run on and the overlay is based on (default wse2); "
                             "a training point runs on its row's")
    fitting = parser.add_mutually_exclusive_group()
    fitting.add_argument("--fit", action="append", metavar="KEY[=LO:HI]",
                         help="a key to fit (repeat; default: " + ", ".join(k.name for k in fit.DEFAULT_KEYS) + ")")
    fitting.add_argument("--no-fit", action="store_true",
                         help="fit nothing: predict every point at the preset's values and the --set overrides")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="a fixed override for every run (repeat)")
    parser.add_argument("--fit-on", default="True", metavar="EXPR",
                        help="which points drive the fit, e.g. 'p == 32' or 'kind == \"train\"' (default: all); "
                             "the rest are predicted")
    parser.add_argument("--out", default="calibration", help="output folder (default calibration/)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="parallel model runs")
    parser.add_argument("--wsesim", default=os.environ.get("WSESIM", DEFAULT_WSESIM), help="the wsesim binary")
    parser.add_argument("--update-doc", metavar="DOC",
                        help="replace the table between the markers of DOC (docs/validation.md): the training table for training points alone, else the calibration table")
    args = parser.parse_args(argv)

    try:
        points, provenance = data.read_all(args.data)
        keys = keys_to_fit(args)
        chosen = selector(args.fit_on)
        fitted_points = [p for p in points if chosen(p)] if keys else []
        if keys and not fitted_points:
            raise ValueError(f"--fit-on {args.fit_on!r} selects none of the {len(points)} points")
        if len(fitted_points) < len(keys):
            raise ValueError(f"{len(keys)} keys to fit need at least as many points; --fit-on selects "
                             f"{len(fitted_points)}")
        bad = [s for s in args.set if "=" not in s]
        if bad:
            raise ValueError(f"--set {bad[0]}: expected KEY=VALUE")
        if args.jobs < 1:
            raise ValueError(f"--jobs {args.jobs}: must be at least 1")
        if not os.access(args.wsesim, os.X_OK):
            raise ValueError(f"--wsesim {args.wsesim}: not an executable (build first, or pass --wsesim)")
        os.makedirs(args.out, exist_ok=True)
    except (data.DataError, ValueError, OSError) as e:
        print(f"calibrate.py: {e}", file=sys.stderr)
        return 2

    runner = model.Model(args.wsesim, args.preset, args.out, args.jobs, args.set)
    log = lambda message: print(message, file=sys.stderr, flush=True)  # noqa: E731
    try:
        theta, slopes, history = fit.fit(runner, fitted_points, keys, log) if keys else ([], [], [])
        values = fit.values_of(keys, theta)
        runs = runner.simulate([(p, values) for p in points])
    except model.ModelError as e:
        print(f"calibrate.py: {e}", file=sys.stderr)
        return 3

    rows = report.rows_of(points, runs, {p.name for p in fitted_points})
    singular, correlation = fit.identifiability(slopes, fitted_points) if keys else ([], [])
    record = {"data": [os.path.abspath(path) for path in args.data], "provenance": provenance,
              "preset": args.preset, "fixed": args.set, "fit_on": args.fit_on, "fitted": values, "rows": rows,
              "mape": report.mape(rows), "mape_fitted": report.mape(rows, "fitted"),
              "mape_predicted": report.mape(rows, "predicted"),
              "mape_by_kind": {kind: report.mape(rows, kind=kind) for kind in report.kinds_of(rows)},
              "identifiability": {"keys": [k.name for k in keys], "singular_values": singular,
                                  "correlation": correlation},
              "rounds": history}
    report.write_all(args.out, rows, keys, values, args.preset, provenance, record)
    table = report.markdown(rows, keys, values, provenance)
    if args.update_doc:
        try:
            report.update_doc(args.update_doc, table, report.kinds_of(rows))
        except (ValueError, OSError) as e:
            print(f"calibrate.py: {e}", file=sys.stderr)
            return 2
    print(table)
    print(f"wrote {args.out}/fitted_preset.yaml, report.csv, report.md, measured_vs_simulated.png/.svg, "
          f"calibration.json")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
