#!/usr/bin/python3
"""Plots metrics of a sweep table (OUT/results.json from sweep.py) against a
swept key, one line per value of another swept key; PNG or SVG by extension.

  scripts/plot.py OUT/results.json --x KEY --y METRIC [--y METRIC]... [--lines KEY]
                  [--where KEY=VALUE]... [--logx] [--logy] [--title TEXT] --out FILE.png [--out FILE.svg]

Every other swept key must be fixed with --where or have one value.
Wafer heatmaps (per-PE busy fraction, per-link load, SRAM use) need per-PE
statistics from the run, which wsesim does not write yet; see docs/exploration.md."""
import argparse
import sys

from wsesweep import aggregate, plotting


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("table", help="results.json of a sweep")
    parser.add_argument("--x", required=True, help="swept key on the x axis")
    parser.add_argument("--y", required=True, action="append", help="metric (repeat for stacked panels)")
    parser.add_argument("--lines", help="swept key: one line per value")
    parser.add_argument("--where", action="append", default=[], metavar="KEY=VALUE",
                        help="keep only the points with this swept value (repeatable)")
    parser.add_argument("--logx", action="store_true")
    parser.add_argument("--logy", action="store_true")
    parser.add_argument("--title")
    parser.add_argument("--out", required=True, action="append", help="FILE.png or FILE.svg (repeatable)")
    args = parser.parse_args()

    where = {}
    for condition in args.where:
        key, sep, value = condition.partition("=")
        if not sep:
            parser.error(f"--where {condition}: expected KEY=VALUE")
        where[key] = value
    for path in args.out:
        if not path.endswith((".png", ".svg")):
            parser.error(f"--out {path}: the name must end in .png or .svg")
    try:
        table = aggregate.load_table(args.table)
        missing = plotting.line_plot(table, args.x, args.y, args.out, lines=args.lines, where=where,
                                     logx=args.logx, logy=args.logy, title=args.title)
    except (OSError, ValueError, aggregate.AggregateError, plotting.PlotError) as e:
        print(f"plot: {e}", file=sys.stderr)
        return 2
    if missing:
        print(f"plot: {missing} matching point(s) without results left out", file=sys.stderr)
    print("plot: wrote " + ", ".join(args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
