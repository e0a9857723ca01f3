#!/usr/bin/python3
"""Plots metrics of a sweep table (OUT/results.json from sweep.py) against a
swept key, one line per value of another swept key; or a wafer heatmap of
one run's per-PE statistics (wsesim run --map MAP.json). PNG or SVG by
extension.

  scripts/plot.py OUT/results.json --x KEY --y METRIC [--y METRIC]... [--lines KEY]
                  [--where KEY=VALUE]... [--logx] [--logy] [--title TEXT]
                  [--speedup-over KEY=VALUE] [--reciprocal-x] --out FILE.png [--out FILE.svg]
  scripts/plot.py --map MAP.json --metric pe_busy|sram|energy|link_load[:N|E|S|W|RAMP]
                  [--region X0,Y0,X1,Y1] [--title TEXT] --out FILE.png [--out FILE.svg]

Every other swept key must be fixed with --where or have one value. Axes
are labelled by name and unit (SRAM per PE (KiB), energy per sample (uJ), ...);
the title is --title or "Y vs X", over the sweep's name and the --where values.
--speedup-over draws each metric as its value at that point of its line over
its own (a time's speed-up; with KEY the x key, beside the ideal line
proportional to x); --reciprocal-x draws x as 1 / x (a density as the
work it saves)."""
import argparse
import json
import os
import sys

from wsesweep import aggregate, heatmap, plotting


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("table", nargs="?", help="results.json of a sweep")
    parser.add_argument("--x", help="swept key on the x axis")
    parser.add_argument("--y", action="append", help="metric (repeat for stacked panels)")
    parser.add_argument("--map", help="a run's wafer map (wsesim run --map): draw a heatmap instead")
    parser.add_argument("--metric", choices=heatmap.METRICS, default="pe_busy", help="the heatmap's metric")
    parser.add_argument("--region", metavar="X0,Y0,X1,Y1", help="the heatmap's rectangle of PEs (inclusive)")
    parser.add_argument("--lines", help="swept key: one line per value")
    parser.add_argument("--where", action="append", default=[], metavar="KEY=VALUE",
                        help="keep only the points with this swept value (repeatable)")
    parser.add_argument("--logx", action="store_true")
    parser.add_argument("--logy", action="store_true")
    parser.add_argument("--speedup-over", metavar="KEY=VALUE",
                        help="the metrics as speed-ups over the point of each line with this swept value")
    parser.add_argument("--reciprocal-x", action="store_true", help="x drawn as 1 / x")
    parser.add_argument("--title", help="the heading (default: Y vs X; a heatmap: the metric and cycles)")
    parser.add_argument("--out", required=True, action="append", help="FILE.png or FILE.svg (repeatable)")
    args = parser.parse_args()

    where = {}
    for condition in args.where:
        key, sep, value = condition.partition("=")
        if not sep:
            parser.error(f"--where {condition}: expected KEY=VALUE")
        where[key] = value
    speedup_over = None
    if args.speedup_over:
        key, sep, value = args.speedup_over.partition("=")
        if not sep:
            parser.error(f"--speedup-over {args.speedup_over}: expected KEY=VALUE")
        speedup_over = {key: value}
    for path in args.out:
        if not path.endswith((".png", ".svg")):
            parser.error(f"--out {path}: the name must end in .png or .svg")
    if args.map:
        return draw_heatmap(parser, args)
    if not args.table or not args.x or not args.y:
        parser.error("a line plot needs a table, --x and --y (or use --map for a heatmap)")
    try:
        table = aggregate.load_table(args.table)
        missing = plotting.line_plot(table, args.x, args.y, args.out, lines=args.lines, where=where,
                                     logx=args.logx, logy=args.logy, title=args.title,
                                     sweep=sweep_name(args.table), speedup_over=speedup_over,
                                     reciprocal_x=args.reciprocal_x)
    except (OSError, ValueError, aggregate.AggregateError, plotting.PlotError) as e:
        print(f"plot: {e}", file=sys.stderr)
        return 2
    if missing:
        print(f"plot: {missing} matching point(s) without results left out", file=sys.stderr)
    print("plot: wrote " + ", ".join(args.out))
    return 0


def sweep_name(table_path):
    """The name of the sweep whose table this is (its spec's file name, as
    sweep.py shows it), from the plan beside the table; None without one."""
    try:
        with open(os.path.join(os.path.dirname(os.path.abspath(table_path)), "sweep.json"), encoding="utf-8") as f:
            spec = json.load(f).get("spec")
    except (OSError, ValueError, AttributeError):
        return None
    return os.path.splitext(os.path.basename(spec))[0] if isinstance(spec, str) and spec else None


def draw_heatmap(parser, args):
    region = None
    if args.region:
        try:
            region = tuple(int(v) for v in args.region.split(","))
        except ValueError:
            region = ()
        if len(region) != 4:
            parser.error(f"--region {args.region}: expected X0,Y0,X1,Y1 (integers)")
    try:
        heatmap.heatmap(heatmap.load_map(args.map), args.metric, args.out, region=region, title=args.title)
    except (OSError, ValueError, plotting.PlotError) as e:
        print(f"plot: {e}", file=sys.stderr)
        return 2
    print("plot: wrote " + ", ".join(args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
