#!/usr/bin/python3
"""Fits wsesim's timing keys to measurements of the real machine.

  scripts/calibrate.py DATA.csv [--preset wse2] [--fit KEY[=LO:HI]]... [--fit-on EXPR]
                       [--out DIR] [--jobs N] [--update-doc docs/validation.md]

Runs the model (timing mode) on every measured point, fits the free keys
by least squares on relative error over the points `--fit-on` selects
(default all; the others are predictions), runs the model again at the
fitted values, and writes to DIR (default calibration/): fitted_preset.yaml
(a preset overlay), report.csv and report.md (point, measured, simulated,
error, fitted or predicted), measured_vs_simulated.png/.svg (log-log,
with y = x) and calibration.json. Runs are cached in DIR/runs, so a rerun
repeats nothing. Exit status: 0 done, 2 bad input, 3 a model run failed."""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from wsecalib import data, fit, model, report  # noqa: E402

DEFAULT_WSESIM = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build", "wsesim")


def selector(expression):
    """--fit-on: a Python expression over p, tile, algorithm, dtype."""
    try:
        code = compile(expression, "--fit-on", "eval")
    except SyntaxError as e:
        raise ValueError(f"--fit-on {expression!r}: {e.msg}") from None
    allowed = {"p", "tile", "n", "algorithm", "dtype"}
    unknown = set(code.co_names) - allowed
    if unknown:
        raise ValueError(f"--fit-on {expression!r}: unknown name(s) {', '.join(sorted(unknown))} "
                         f"(use {', '.join(sorted(allowed))})")
    return lambda point: bool(eval(code, {"__builtins__": {}}, {  # noqa: S307 (names checked above)
        "p": point.p, "tile": point.tile, "n": point.n, "algorithm": point.algorithm, "dtype": point.dtype}))


def main(argv):
    parser = argparse.ArgumentParser(prog="calibrate.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("data", help="measurements CSV (p, tile, n, hw_cycles[, algorithm, dtype])")
    parser.add_argument("--preset", default="wse2", help="the preset to start from (default wse2)")
    parser.add_argument("--fit", action="append", metavar="KEY[=LO:HI]",
                        help="a key to fit (repeat; default: " + ", ".join(k.name for k in fit.DEFAULT_KEYS) + ")")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="a fixed override for every run (repeat)")
    parser.add_argument("--fit-on", default="True", metavar="EXPR",
                        help="which points drive the fit, e.g. 'p == 32' (default: all); the rest are predicted")
    parser.add_argument("--out", default="calibration", help="output folder (default calibration/)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="parallel model runs")
    parser.add_argument("--wsesim", default=os.environ.get("WSESIM", DEFAULT_WSESIM), help="the wsesim binary")
    parser.add_argument("--update-doc", metavar="DOC",
                        help="replace the calibration table between the markers of DOC (docs/validation.md)")
    args = parser.parse_args(argv)

    try:
        points, provenance = data.read_points(args.data)
        keys = [fit.parse_key(spec) for spec in args.fit] if args.fit else list(fit.DEFAULT_KEYS)
        chosen = selector(args.fit_on)
        fitted_points = [p for p in points if chosen(p)]
        if not fitted_points:
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
        theta, slopes, history = fit.fit(runner, fitted_points, keys, log)
        values = fit.values_of(keys, theta)
        simulated = runner.cycles([(p, values) for p in points])
    except model.ModelError as e:
        print(f"calibrate.py: {e}", file=sys.stderr)
        return 3

    rows = report.rows_of(points, simulated, {p.name for p in fitted_points})
    singular, correlation = fit.identifiability(slopes, fitted_points)
    record = {"data": os.path.abspath(args.data), "provenance": provenance, "preset": args.preset,
              "fixed": args.set, "fit_on": args.fit_on, "fitted": values, "rows": rows,
              "mape": report.mape(rows), "mape_fitted": report.mape(rows, "fitted"),
              "mape_predicted": report.mape(rows, "predicted"),
              "identifiability": {"keys": [k.name for k in keys], "singular_values": singular,
                                  "correlation": correlation},
              "rounds": history}
    report.write_all(args.out, rows, keys, values, args.preset, args.data, provenance, record)
    table = report.markdown(rows, keys, values, args.data, provenance)
    if args.update_doc:
        try:
            report.update_doc(args.update_doc, table)
        except (ValueError, OSError) as e:
            print(f"calibrate.py: {e}", file=sys.stderr)
            return 2
    print(table)
    print(f"wrote {args.out}/fitted_preset.yaml, report.csv, report.md, measured_vs_simulated.png/.svg, "
          f"calibration.json")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
