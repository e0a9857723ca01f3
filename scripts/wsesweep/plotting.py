"""Line plots from a sweep table: one or more metrics against a swept key,
one line per value of a second swept key, written as PNG and/or SVG."""
import os

import matplotlib

matplotlib.use("Agg")  # files only: no display on build machines or cluster nodes
import matplotlib.pyplot as plt  # noqa: E402  (must follow the backend choice)

# Text stays text in SVGs: editable in a figure editor and searchable.
matplotlib.rcParams["svg.fonttype"] = "none"


class PlotError(Exception):
    pass


def line_plot(table, x, ys, outputs, lines=None, where=None, logx=False, logy=False, title=None):
    """Returns how many matching points had no result (failed or pending)."""
    where = where or {}
    for key in [x] + ([lines] if lines else []) + list(where):
        if key not in table["axes"]:
            raise PlotError(f"{key} is not a swept key of this table ({', '.join(table['axes'])})")
    for metric in ys:
        if metric not in table["metrics"]:
            raise PlotError(f"{metric} is not a metric of this table ({', '.join(table['metrics'])})")

    selected = [r for r in table["rows"] if all(same_value(r[k], v) for k, v in where.items())]
    # A key is free when it takes several values at one (x, line) point;
    # one that moves along with x (a zipped axis) is not.
    free = [k for k in table["axes"] if k not in (x, lines) and k not in where
            and _varies_at_a_point(selected, k, x, lines)]
    if free:
        raise PlotError(f"{', '.join(free)} also vary: fix them with where (--where KEY=VALUE) "
                        "or use one as the line key")
    done = [r for r in selected if r["status"] == "ok"]
    if not done:
        raise PlotError("no finished point matches")

    groups = {}
    for row in done:
        groups.setdefault(row[lines] if lines else None, []).append(row)
    figure, panels = plt.subplots(len(ys), 1, sharex=True, squeeze=False,
                                  figsize=(6.4, 0.8 + 3.2 * len(ys)))
    for panel, metric in zip(panels[:, 0], ys):
        for value, rows in groups.items():
            rows = sorted(rows, key=lambda r: _sort_key(r[x]))
            panel.plot([r[x] for r in rows], [r[metric] for r in rows], "o-", markersize=4,
                       label=None if lines is None else str(value))
        panel.set_ylabel(metric)
        panel.grid(True, alpha=0.3)
        if logy:
            panel.set_yscale("log")
        if logx:
            panel.set_xscale("log")
    panels[-1, 0].set_xlabel(x)
    if lines:
        panels[0, 0].legend(title=lines, fontsize="small")
    fixed = ", ".join(f"{k}={v}" for k, v in where.items())
    heading = " | ".join(t for t in (title, fixed) if t)
    if heading:
        figure.suptitle(heading, fontsize="medium")
    save(figure, outputs)
    return len(selected) - len(done)


def save(figure, outputs):
    """Writes the figure to every path (PNG or SVG by extension) and closes it."""
    figure.tight_layout()
    for path in outputs:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        figure.savefig(path, dpi=120)
    plt.close(figure)


def _varies_at_a_point(rows, key, x, lines):
    seen = {}
    for r in rows:
        seen.setdefault((repr(r[x]), repr(r[lines]) if lines else None), set()).add(repr(r[key]))
    return any(len(values) > 1 for values in seen.values())


def same_value(value, wanted):
    """Numbers compare as numbers, so --where workload.injection_rate=0.010
    matches 0.01; anything else compares as text."""
    try:
        return float(value) == float(wanted)
    except (TypeError, ValueError):
        return str(value) == str(wanted)


def _sort_key(value):
    return (0, value, "") if isinstance(value, (int, float)) else (1, 0, str(value))
