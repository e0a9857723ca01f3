"""Line plots from a sweep table: one or more metrics against a swept key,
one line per value of a second swept key, written as PNG and/or SVG.

Axes are labelled with a name and a unit (LABELS, then the suffix rules of
label()), values scaled to a readable unit (bytes to KiB/MiB, joules to
mJ/uJ, fractions to %); every plot has a title; the wafer-area fraction
gets the line where the design stops fitting, and saturated NoC points are
drawn hollow. The raw keys go into the file's metadata (SVG dc:description,
PNG text chunk), where a search for a key finds them."""
import math
import os

import matplotlib

matplotlib.use("Agg")  # files only: no display on build machines or cluster nodes
import matplotlib.pyplot as plt  # noqa: E402  (must follow the backend choice)
from matplotlib import ticker  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402

# Text stays text in SVGs: editable in a figure editor and searchable.
matplotlib.rcParams["svg.fonttype"] = "none"


class PlotError(Exception):
    pass


# Unit kinds (the second field of LABELS):
#   "bytes"         B, KiB, MiB, GiB: whichever keeps the largest value under 1024
#   "si:J", "si:s"  SI prefixes (p ... G) keeping the largest value in [1, 1000)
#   "count:cycles"  cycles, k cycles, M cycles, G cycles (only upwards)
#   "percent:TEXT"  a fraction drawn x 100, unit TEXT (e.g. "%", "% of cycles")
#   "fixed:TEXT"    drawn as is, unit TEXT
#   None            drawn as is, no unit
LABELS = {
    # Swept configuration keys.
    "arch.pe.sram_bytes": ("SRAM per PE", "bytes"),
    "arch.mesh.width": ("mesh width", "fixed:PEs"),
    "arch.mesh.height": ("mesh height", "fixed:PEs"),
    "arch.cluster.systems": ("CS systems", None),
    "arch.fabric.queue_depth": ("router queue depth", "fixed:wavelets"),
    "arch.fabric.hop_latency_cycles": ("hop latency", "count:cycles"),
    "arch.clock_hz": ("clock", "si:Hz"),
    "workload.injection_rate": ("offered load", "fixed:wavelets/PE/cycle"),
    "workload.pattern": ("traffic pattern", None),
    "workload.packet_wavelets": ("packet length", "fixed:wavelets"),
    "workload.batch": ("batch", "fixed:sequences"),
    "workload.weight_density": ("weight density", None),
    "workload.seq": ("sequence length", "fixed:tokens"),
    "workload.m": ("M", None),
    "workload.k": ("K", None),
    "workload.n": ("N", None),
    "workload.weight_density": ("weight density", None),
    # Result fields, every run.
    "cycles": ("cycles", "count:cycles"),
    "simulated_seconds": ("simulated time", "si:s"),
    "host.wall_seconds": ("host wall time", "si:s"),
    "host.peak_rss_bytes": ("host peak memory", "bytes"),
    # NoC.
    "workload.offered_rate": ("measured offered load", "fixed:wavelets/PE/cycle"),
    "workload.accepted_rate": ("accepted throughput", "fixed:wavelets/PE/cycle"),
    "workload.latency_avg": ("mean packet latency", "count:cycles"),
    "workload.latency_p50": ("median packet latency", "count:cycles"),
    "workload.latency_p99": ("p99 packet latency", "count:cycles"),
    "workload.latency_max": ("maximum packet latency", "count:cycles"),
    "workload.link_utilisation.max": ("busiest mesh link load", "percent:% of cycles"),
    "workload.link_utilisation.mean": ("mean mesh link load", "percent:% of cycles"),
    "workload.link_utilisation.p99": ("p99 mesh link load", "percent:% of cycles"),
    "workload.ramp_utilisation.max": ("busiest RAMP load", "percent:% of cycles"),
    "workload.ramp_utilisation.mean": ("mean RAMP load", "percent:% of cycles"),
    "workload.measured_deliveries_missing": ("measured deliveries missing", "fixed:wavelets"),
    "workload.saturated": ("saturated", None),
    "workload.router_cycles_per_second": ("simulation speed", "count:router-cycles/s"),
    # GEMM.
    "workload.utilisation": ("utilisation", "percent:% of FMAC peak"),
    "workload.phases": ("phases", None),
    "workload.cycles_over_bound": ("cycles over the lower bound", "fixed:x"),
    "workload.lower_bounds.max": ("lower bound", "count:cycles"),
    "workload.sram_high_water_bytes": ("SRAM high-water, busiest PE", "bytes"),
    "workload.achieved_flops_per_second": ("achieved", "si:FLOP/s"),
    # Training.
    "workload.step_cycles": ("training step", "count:cycles"),
    "workload.step_seconds": ("training step time", "si:s"),
    "workload.samples_per_second": ("throughput", "count:samples/s"),
    "workload.tokens_per_second": ("throughput", "count:tokens/s"),
    "workload.global_batch": ("global batch", "fixed:samples"),
    "workload.breakdown_cycles.gemms": ("GEMMs in the step", "count:cycles"),
    "workload.breakdown_cycles.ops": ("other ops in the step", "count:cycles"),
    "workload.breakdown_cycles.wafer_idle": ("wafer idle in the step", "count:cycles"),
    "workload.breakdown_cycles.optimizer_tail": ("optimizer tail", "count:cycles"),
    "workload.scaling.efficiency": ("scaling efficiency", "percent:%"),
    "workload.scaling.swarmx_depth": ("SwarmX tree depth", "fixed:levels"),
    "workload.wafer_timing": ("wafer timing", None),
    # Energy, power, area (docs/energy-model.md).
    "workload.energy.per_sample_j": ("energy per sample", "si:J"),
    "workload.energy.per_token_j": ("energy per token", "si:J"),
    "workload.energy.total_j": ("energy", "si:J"),
    "workload.power.average_w": ("average power", "si:W"),
    "workload.power.per_system_w": ("power per system", "si:W"),
    "workload.area.pe_mm2.tile": ("PE tile area", "fixed:mm\u00b2"),
    "workload.area.total_mm2": ("PE area", "fixed:mm\u00b2"),
    "workload.area.used_fraction": ("wafer area used", "percent:% of usable"),
    "workload.area.fits": ("fits on the wafer", None),
    "workload.efficiency.flop_per_j": ("efficiency", "si:FLOP/J"),
    "workload.efficiency.samples_per_j": ("efficiency", "count:samples/J"),
}

# Suffix rules for keys not in LABELS, tried in order on the last part of the
# key (the name is the key without the suffix), then on the other parts (the
# name is the whole key): e.g. workload.energy.per_token_j, *_bytes, the
# parts of workload.breakdown_cycles.ops.
SUFFIXES = (
    ("_per_second", "count:/s"),
    ("_per_j", "count:/J"),
    ("_bytes", "bytes"),
    ("_seconds", "si:s"),
    ("_s", "si:s"),
    ("_hz", "si:Hz"),
    ("_j", "si:J"),
    ("_w", "si:W"),
    ("_mm2", "fixed:mm\u00b2"),
    ("_cycles", "count:cycles"),
    ("_fraction", "percent:%"),
    ("_rate", "fixed:wavelets/PE/cycle"),
)

# The wafer-area fraction: the design fits the wafer at or below 1 (the
# result's area.fits; docs/energy-model.md).
AREA_FRACTION = "workload.area.used_fraction"
# A NoC point is saturated when measured packets were still undelivered at
# the end of the drain: its latencies are lower bounds. Older results lack
# workload.saturated; measured_deliveries_missing > 0 says the same.
SATURATED = "workload.saturated"
DELIVERIES_MISSING = "workload.measured_deliveries_missing"
SATURATED_NOTE = "hollow: saturated (latencies are lower bounds)"
FITS_NOTE = "fits on the wafer (at or below 100 %)"
IDEAL_NOTE = "ideal: proportional to x"

_SI_PREFIXES = {-12: "p", -9: "n", -6: "\u00b5", -3: "m", 0: "", 3: "k", 6: "M", 9: "G", 12: "T"}
_COUNT_PREFIXES = {0: "", 3: "k ", 6: "M ", 9: "G "}
_COUNT_WORDS = {10 ** 3: "thousands", 10 ** 6: "millions", 10 ** 9: "billions"}
_BINARY_UNITS = ("B", "KiB", "MiB", "GiB", "TiB")


def label(key):
    """(name, unit kind) of a table key: LABELS, else a suffix rule, else the key with no unit."""
    if key in LABELS:
        return LABELS[key]
    parts = key.split(".")
    last = parts[-1]
    if "utilisation" in last or last == "efficiency":
        return key, "percent:%"
    for suffix, kind in SUFFIXES:
        if last.endswith(suffix) and len(last) > len(suffix):
            return ".".join(parts[:-1] + [last[:-len(suffix)]]), kind
    if last == "cycles" or last.startswith("latency"):
        return key, "count:cycles"
    if last in ("bytes", "seconds"):
        return key, "bytes" if last == "bytes" else "si:s"
    for part in parts[:-1]:
        if "utilisation" in part:
            return key, "percent:%"
        for suffix, kind in SUFFIXES:
            if part.endswith(suffix):
                return key, kind
    return key, None


def scale(kind, values, log=False):
    """(divisor, unit text) for drawing these values of this unit kind: the
    values are drawn divided by the divisor; unit text None: no unit. log:
    for a log axis, where counts up to 999999 stay as they are."""
    if kind is None:
        return 1, None
    family, _, text = kind.partition(":")
    if family == "fixed":
        return 1, text
    if family == "percent":
        return 0.01, text
    largest = max((abs(v) for v in values if _is_number(v) and math.isfinite(v)), default=0)
    if family == "bytes":
        step = 0
        while step + 1 < len(_BINARY_UNITS) and largest >= 1024 ** (step + 1):
            step += 1
        return 1024 ** step, _BINARY_UNITS[step]
    exponent = 3 * math.floor(math.log10(largest) / 3) if largest > 0 else 0
    if family == "count":
        # Counts up to 9999 as they are (a latency of 2000 cycles, not 2 k).
        kept = 3 if log else 1
        exponent = 3 * math.floor((math.log10(largest) - kept) / 3) if largest > 0 else 0
        exponent = min(max(exponent, 0), 9)
        if text.startswith("/"):  # a bare rate, e.g. /s: k/s
            return 10 ** exponent, _COUNT_PREFIXES[exponent].strip() + text
        return 10 ** exponent, _COUNT_PREFIXES[exponent] + text
    if family == "si":
        if text == "s":
            exponent = min(exponent, 0)  # no ks
        exponent = min(max(exponent, -12), 12)
        return 10 ** exponent, _SI_PREFIXES[exponent] + text
    raise ValueError(f"unknown unit kind {kind!r}")


def axis_label(key, values, log=False):
    """(axis label text, divisor) of a key whose values are drawn (on a log axis)."""
    name, kind = label(key)
    divisor, unit = scale(kind, values, log)
    if unit and kind.startswith("count:") and kind.partition(":")[2] == name:
        # "cycles (millions)", not "cycles (M cycles)"
        return (f"{name} ({_COUNT_WORDS[divisor]})" if divisor != 1 else name), divisor
    return (f"{name} ({unit})" if unit else name), divisor


def describe_value(key, value):
    """A fixed value as the title shows it: 'SRAM per PE = 48 KiB'."""
    name, kind = label(key)
    if not _is_number(value):
        try:
            value = float(value)
        except (TypeError, ValueError):
            return f"{name} = {value}"
    divisor, unit = scale(kind, [value])
    shown = _plain(value / divisor)
    if not unit:
        return f"{name} = {shown}"
    return f"{name} = {shown}{'' if unit.startswith('%') else ' '}{unit}"


def is_saturated(row):
    value = row.get(SATURATED)
    if value is not None:
        return value is True or str(value).lower() == "true"
    missing = row.get(DELIVERIES_MISSING)
    return _is_number(missing) and missing > 0


def line_plot(table, x, ys, outputs, lines=None, where=None, logx=False, logy=False, title=None, sweep=None,
              speedup_over=None, reciprocal_x=False):
    """Returns how many matching points had no result (failed or pending).
    title: the heading (else 'Y vs X'); sweep: the sweep's name, shown under
    it with the fixed `where` values. speedup_over: {KEY: VALUE}, each
    metric drawn as its value at that point of the line over its own (a
    time's speed-up), with the ideal line (proportional to x) when KEY is
    x; reciprocal_x: x drawn as 1 / its value (a density as its work saved)."""
    where = where or {}
    over = next(iter(speedup_over.items())) if speedup_over else None
    if speedup_over and len(speedup_over) != 1:
        raise PlotError(f"speed-up over one point of a swept key, not {speedup_over}")
    for key in [x] + ([lines] if lines else []) + list(where) + ([over[0]] if over else []):
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
    if over:
        done = _speedups(done, ys, over, lines)
    if reciprocal_x:
        done = _reciprocal(done, x)

    groups = {}
    for row in done:
        groups.setdefault(row[lines] if lines else None, []).append(row)
    x_label, x_divisor = axis_label(x, [r[x] for r in done], logx)
    if reciprocal_x:
        x_label, x_divisor = f"1 / {label(x)[0]}", 1
    line_name, line_divisor = axis_label(lines, [r[lines] for r in done]) if lines else (None, 1)
    any_saturated = any(is_saturated(r) for r in done)

    figure, panels = plt.subplots(len(ys), 1, sharex=True, squeeze=False,
                                  figsize=(6.4, 1.1 + 3.2 * len(ys)))
    beside = None
    for panel, metric in zip(panels[:, 0], ys):
        y_label, y_divisor = axis_label(metric, [r[metric] for r in done], logy)
        if over:
            y_label, y_divisor = f"speed-up of {label(metric)[0]}\nover {describe_value(*over)}", 1
        for (value, rows), color in zip(groups.items(), _colors()):
            rows = sorted(rows, key=lambda r: _sort_key(r[x]))
            xs = [_scaled(r[x], x_divisor) for r in rows]
            ys_ = [_scaled(r[metric], y_divisor) for r in rows]
            name = None if lines is None else _plain(_scaled(value, line_divisor))
            hollow = [(a, b) for a, b, r in zip(xs, ys_, rows) if is_saturated(r)]
            # Filled markers on the line, but for the saturated points: those hollow on top.
            panel.plot(xs, ys_, "o-", color=color, markersize=4, label=name,
                       markevery=[i for i, r in enumerate(rows) if not is_saturated(r)])
            if hollow:
                panel.plot(*zip(*hollow), "o", color=color, markersize=5, markerfacecolor="none",
                           markeredgewidth=1.2)
        if metric == AREA_FRACTION:
            panel.axhline(1 / y_divisor, color="0.35", linestyle="--", linewidth=1, label=FITS_NOTE)
        if over and over[0] == x:
            reference = 1 / float(over[1]) if reciprocal_x else float(over[1])
            xs = sorted({float(r[x]) for r in done})
            panel.plot([v / x_divisor for v in xs], [v / reference for v in xs], "--", color="0.35", linewidth=1,
                       label=IDEAL_NOTE)
        panel.set_ylabel(y_label)
        panel.grid(True, alpha=0.3)
        if logy:
            panel.set_yscale("log")
            _plain_log_ticks(panel.yaxis)
        else:
            _no_offset(panel, "y")
        if logx:
            panel.set_xscale("log")
        beside = _legend(panel, lines is not None and panel is panels[0, 0], line_name,
                         any_saturated and panel is panels[0, 0]) or beside
    panels[-1, 0].set_xlabel(x_label)
    if not logx:
        _no_offset(panels[-1, 0], "x")
    else:
        _swept_ticks(panels[-1, 0].xaxis, sorted({_scaled(r[x], x_divisor) for r in done
                                                  if _is_number(r[x])}))

    names = [label(m)[0] for m in ys]
    heading = title or f"{', '.join(names)} vs {label(x)[0]}"
    context = ([f"sweep {sweep}"] if sweep else []) + [describe_value(k, v) for k, v in where.items()]
    figure.suptitle(heading + ("\n" + "; ".join(context) if context else ""), fontsize="medium")
    keys = [f"x: {x}", f"y: {', '.join(ys)}"] + ([f"lines: {lines}"] if lines else [])
    keys += [f"where: {k}={v}" for k, v in where.items()] + ([f"sweep: {sweep}"] if sweep else [])
    if beside:  # wider by the legend, so the panels keep their width
        width = beside.get_window_extent(figure.canvas.get_renderer()).width / figure.dpi
        figure.set_figwidth(figure.get_figwidth() + width + 0.2)
    save(figure, outputs, metadata={"Title": heading, "Description": "; ".join(keys)})
    return len(selected) - len(done)


def _legend(panel, with_lines, line_name, with_saturated_note):
    """The line values (first panel), the fits line where drawn, the hollow-marker note (first panel)."""
    handles, texts = panel.get_legend_handles_labels()
    if not with_lines:
        kept = [(h, t) for h, t in zip(handles, texts) if t in (FITS_NOTE, IDEAL_NOTE)]
        handles, texts = [h for h, _ in kept], [t for _, t in kept]
    if with_saturated_note:
        handles.append(Line2D([], [], linestyle="none", marker="o", markersize=5, color="0.3",
                              markerfacecolor="none"))
        texts.append(SATURATED_NOTE)
    if not handles:
        return None
    if not with_lines and not with_saturated_note:  # the fits or ideal line only: small, inside
        panel.legend(handles, texts, fontsize="small")
        return None
    # Beside the panel, right of it: lines that saturate run into any corner.
    return panel.legend(handles, texts, title=line_name if with_lines else None, fontsize="small",
                        title_fontsize="small", loc="upper left", bbox_to_anchor=(1.02, 1), borderaxespad=0)


def _speedups(rows, metrics, over, lines):
    """The rows with each metric as the value at the point of their line
    where over's key has over's value, divided by their own."""
    key, value = over
    references = {}
    for row in rows:
        if same_value(row[key], value):
            references[row[lines] if lines else None] = row
    faster = []
    for row in rows:
        reference = references.get(row[lines] if lines else None)
        if reference is None:
            raise PlotError(f"no finished point with {key} = {value}" +
                            (f" for {lines} = {row[lines]}" if lines else "") + " to take speed-ups over")
        derived = dict(row)
        for metric in metrics:
            if not (_is_number(row[metric]) and _is_number(reference[metric]) and row[metric] > 0):
                raise PlotError(f"{metric} = {row[metric]!r}: a speed-up needs positive numbers")
            derived[metric] = reference[metric] / row[metric]
        faster.append(derived)
    return faster


def _reciprocal(rows, key):
    inverted = []
    for row in rows:
        try:
            value = float(row[key])
        except (TypeError, ValueError):
            raise PlotError(f"{key} = {row[key]!r}: 1 / x needs numbers")
        if value == 0:
            raise PlotError(f"{key} = 0 has no reciprocal")
        inverted.append(dict(row, **{key: 1 / value}))
    return inverted


def _no_offset(panel, which):
    """No '+4.5e1' offset above a linear axis: the ticks say the values."""
    try:
        panel.ticklabel_format(axis=which, useOffset=False)
    except AttributeError:  # text values (categories)
        pass


def _plain_log_ticks(axis):
    """Log-axis labels as plain numbers (20, 300, 0.05) instead of 2x10^1."""
    axis.set_major_formatter(_PlainLogFormatter())
    axis.set_minor_formatter(_PlainLogFormatter())


def _swept_ticks(axis, values):
    """A log x axis of a few swept values: a tick at each, labelled plainly."""
    if not values or len(values) > 16:
        _plain_log_ticks(axis)
        return
    axis.set_major_locator(ticker.FixedLocator(values))
    axis.set_major_formatter(ticker.FuncFormatter(lambda v, _: _plain(v)))
    axis.set_minor_locator(ticker.NullLocator())


class _PlainLogFormatter(ticker.LogFormatter):
    """Plain numbers; over up to 3 decades also 2 and 5 times each power of
    ten (matplotlib labels no minor tick beyond one decade), within half a
    decade every minor tick."""

    def set_locs(self, locs=None):
        low, high = self.axis.get_view_interval()
        decades = math.log10(high / low) if low > 0 and high > low else 0
        self._sublabels = set(range(1, 11)) if decades <= 0.5 else {1, 2, 5} if decades <= 3 else {1}

    def _num_to_string(self, x, vmin, vmax):
        return _plain(x)


def save(figure, outputs, metadata=None):
    """Writes the figure to every path (PNG or SVG by extension) and closes it."""
    figure.tight_layout()
    for path in outputs:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        figure.savefig(path, dpi=120, metadata=metadata)
    plt.close(figure)


def _colors():
    cycle = matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]
    while True:
        yield from cycle


def _scaled(value, divisor):
    return value / divisor if _is_number(value) and divisor != 1 else value


def _plain(value):
    """A number as a tick or legend shows it: 48, 0.05, 1.5e-05; text as is."""
    if not _is_number(value) or not math.isfinite(value):
        return str(value)
    if value == int(value) and abs(value) < 1e9:
        return str(int(value))
    return f"{value:.4g}"


def _is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


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
