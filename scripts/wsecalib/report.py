"""What a calibration writes: the fitted preset overlay, the table of every
point (measured, simulated, error, fitted or predicted; a table per kind of
point, each in its own unit), a log-log plot of simulated against measured,
and the whole record as JSON; all atomically."""
import csv
import io
import json
import os
import re

from wsesweep.atomic import write_text_atomically

from . import data

def table_markers(kinds):
    """The markers a doc's table lies between: the training table for
    training points alone, the calibration table otherwise, so that a doc
    keeps both."""
    name = "training-table" if list(kinds) == ["train"] else "calibration-table"
    return f"<!-- {name}:begin (scripts/calibrate.py --update-doc) -->", f"<!-- {name}:end -->"


def rows_of(points, runs, fitted_names):
    """A row per point: what describes it (data.fields; None where its kind
    has no such column), measured, simulated, relative error, role, and
    what its run recorded."""
    rows = []
    for point, run in zip(points, runs):
        rows.append({"kind": point.kind, "point": point.name, **data.fields(point), "measured": point.measured,
                     "simulated": run["simulated"], "error": run["simulated"] / point.measured - 1,
                     "role": "fitted" if point.name in fitted_names else "predicted",
                     "host_seconds": run["host_seconds"], "micro_batch": run.get("micro_batch"),
                     "wafer_timing": run.get("wafer_timing"), "step_parts": run.get("step_parts")})
    return rows


def kinds_of(rows):
    return list(dict.fromkeys(r["kind"] for r in rows))


def mape(rows, role=None, kind=None):
    chosen = [abs(r["error"]) for r in rows if role in (None, r["role"]) and kind in (None, r["kind"])]
    return sum(chosen) / len(chosen) if chosen else None


# Each kind's table: header, row field, format.
TABLES = {
    "gemm": (("point", "point", "{}"), ("p", "p", "{}"), ("tile", "tile", "{}"),
             ("measured cycles", "measured", "{:.0f}"), ("simulated cycles", "simulated", "{:.0f}"),
             ("error", "error", "{:+.1%}"), ("role", "role", "{}")),
    "train": (("model", "model", "{}"), ("preset", "preset", "{}"), ("systems", "systems", "{}"),
              ("batch", "global_batch", "{}"), ("seq", "seq", "{}"),
              ("measured samples/s", "measured", "{:.1f}"), ("predicted samples/s", "simulated", "{:.1f}"),
              ("error", "error", "{:+.1%}"), ("role", "role", "{}"), ("micro-batch", "micro_batch", "{}")),
}


def _table(out, columns, rows):
    out.write("\n| " + " | ".join(header for header, _, _ in columns) + " |\n")
    out.write("|" + "---|" * len(columns) + "\n")
    for r in rows:
        out.write("| " + " | ".join(form.format(r[field]) for _, field, form in columns) + " |\n")


def _step_part_names(rows):
    return next((list(r["step_parts"]) for r in rows if r["step_parts"]), [])


def _step_parts_table(out, rows):
    """Where each training point's step goes, in seconds of one system's step."""
    rows = [r for r in rows if r["step_parts"]]
    if not rows:
        return
    names = _step_part_names(rows)
    out.write("\nWhere a system's step goes (seconds):\n")
    columns = [("model", "model", "{}"), ("systems", "systems", "{}")]
    columns += [(name, name, "{:.3f}") for name in names]
    _table(out, columns, [{**r, **r["step_parts"]} for r in rows])


def markdown(rows, keys, values, provenance):
    out = io.StringIO()
    for path, lines in provenance.items():
        out.write(f"Data: `{os.path.basename(path)}`" + (f" ({' '.join(lines)})" if lines else "") + "\n")
    if keys:
        out.write("\n| key | fitted value |\n|---|---|\n")
        for k in keys:
            out.write(f"| `{k.name}` | {values[k.name]} |\n")
    else:
        out.write("\nNothing fitted (--no-fit): every point is a prediction.\n")
    kinds = kinds_of(rows)
    for kind in kinds:
        _table(out, TABLES[kind], [r for r in rows if r["kind"] == kind])
    _step_parts_table(out, [r for r in rows if r["kind"] == "train"])
    for role in ("fitted", "predicted", None):
        m = mape(rows, role)
        if m is not None:
            out.write(f"\nMAPE{' (' + role + ' points)' if role else ' (all points)'}: {m:.1%}")
    if len(kinds) > 1:
        for kind in kinds:
            out.write(f"\nMAPE ({kind} points): {mape(rows, kind=kind):.1%}")
    return out.getvalue() + "\n"


def _data_names(provenance):
    return ", ".join(os.path.basename(path) for path in provenance)


def overlay_yaml(keys, values, preset, provenance, rows):
    """A preset that is `preset` with the fitted values: drop it into a preset
    folder (WSESIM_PRESET_DIR), or copy its values into a run file's arch."""
    lines = [f"# Fitted by scripts/calibrate.py to {_data_names(provenance)} "
             f"(MAPE {mape(rows):.1%} over {len(rows)} points)",
             f"description: {preset} with timing fitted to {_data_names(provenance)}",
             f"base: {preset}"]
    tree = {}
    for k in keys:
        node = tree
        parts = k.name.split(".")[1:]  # below arch.
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        node[parts[-1]] = values[k.name]

    def emit(node, depth):
        for name, value in node.items():
            if isinstance(value, dict):
                lines.append("  " * depth + f"{name}:")
                emit(value, depth + 1)
            else:
                lines.append("  " * depth + f"{name}: {value}")
    emit(tree, 0)
    return "\n".join(lines) + "\n"


def _plot_kind(axes, rows, kind):
    for role, marker in (("fitted", "o"), ("predicted", "s")):
        chosen = [r for r in rows if r["role"] == role]
        if chosen:
            axes.scatter([r["measured"] for r in chosen], [r["simulated"] for r in chosen], marker=marker,
                         label=f"{role} ({len(chosen)})", zorder=3)
    low = min(min(r["measured"], r["simulated"]) for r in rows) / 1.5
    high = max(max(r["measured"], r["simulated"]) for r in rows) * 1.5
    axes.plot([low, high], [low, high], color="grey", linewidth=1, label="y = x")
    axes.set_xscale("log")
    axes.set_yscale("log")
    axes.set_xlim(low, high)
    axes.set_ylim(low, high)
    axes.set_xlabel(f"measured {data.UNIT[kind]} (real machine)")
    axes.set_ylabel(f"simulated {data.UNIT[kind]} (wsesim)")
    axes.set_title(f"wsesim vs measurements ({kind}), MAPE {mape(rows):.1%}")
    axes.grid(True, which="both", linewidth=0.3)
    axes.legend()


def plot(rows, path_base):
    """Simulated against measured, one panel per kind: each its own unit."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    kinds = kinds_of(rows)
    figure, panels = plt.subplots(1, len(kinds), figsize=(5.5 * len(kinds), 5), squeeze=False)
    for axes, kind in zip(panels[0], kinds):
        _plot_kind(axes, [r for r in rows if r["kind"] == kind], kind)
    figure.tight_layout()
    for ext in ("png", "svg"):
        tmp = f"{path_base}.tmp.{ext}"
        figure.savefig(tmp)
        os.replace(tmp, f"{path_base}.{ext}")
    plt.close(figure)


def write_all(out_dir, rows, keys, values, preset, provenance, record):
    # A training point's step parts, a column each ("step_seconds.ops", ...).
    names = _step_part_names(rows)
    flat = []
    for r in rows:
        parts = r["step_parts"] or {}
        flat.append({**{k: v for k, v in r.items() if k != "step_parts"},
                     **{f"step_seconds.{name}": parts.get(name, "") for name in names}})
    table = io.StringIO()
    writer = csv.DictWriter(table, fieldnames=list(flat[0].keys()))
    writer.writeheader()
    writer.writerows(flat)
    write_text_atomically(os.path.join(out_dir, "report.csv"), table.getvalue())
    write_text_atomically(os.path.join(out_dir, "report.md"), markdown(rows, keys, values, provenance))
    write_text_atomically(os.path.join(out_dir, "fitted_preset.yaml"),
                          overlay_yaml(keys, values, preset, provenance, rows))
    write_text_atomically(os.path.join(out_dir, "calibration.json"), json.dumps(record, indent=1) + "\n")
    plot(rows, os.path.join(out_dir, "measured_vs_simulated"))


def update_doc(doc_path, table_markdown, kinds):
    """Replaces the text between the markers of the table for these kinds
    of point (table_markers) in a doc."""
    begin, end = table_markers(kinds)
    with open(doc_path, encoding="utf-8") as f:
        text = f.read()
    pattern = re.compile(re.escape(begin) + ".*?" + re.escape(end), re.S)
    if not pattern.search(text):
        raise ValueError(f"{doc_path}: no '{begin}' ... '{end}' markers to replace between")
    text = pattern.sub(lambda _: begin + "\n" + table_markdown + end, text)
    write_text_atomically(doc_path, text)
