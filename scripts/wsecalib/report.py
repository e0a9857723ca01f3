"""What a calibration writes: the fitted preset overlay, the table of every
point (measured, simulated, error, fitted or predicted), a log-log plot of
simulated against measured, and the whole record as JSON; all atomically."""
import csv
import io
import json
import os
import re

from wsesweep.atomic import write_text_atomically

TABLE_BEGIN = "<!-- calibration-table:begin (scripts/calibrate.py --update-doc) -->"
TABLE_END = "<!-- calibration-table:end -->"


def rows_of(points, simulated, fitted_names):
    rows = []
    for p, s in zip(points, simulated):
        rows.append({"point": p.name, "algorithm": p.algorithm, "dtype": p.dtype, "p": p.p, "tile": p.tile,
                     "measured": p.hw_cycles, "simulated": s, "error": (s - p.hw_cycles) / p.hw_cycles,
                     "role": "fitted" if p.name in fitted_names else "predicted"})
    return rows


def mape(rows, role=None):
    chosen = [abs(r["error"]) for r in rows if role is None or r["role"] == role]
    return sum(chosen) / len(chosen) if chosen else None


def markdown(rows, keys, values, data_path, provenance):
    out = io.StringIO()
    out.write(f"Data: `{os.path.basename(data_path)}`" + (f" ({' '.join(provenance)})" if provenance else "") + "\n\n")
    out.write("| key | fitted value |\n|---|---|\n")
    for k in keys:
        out.write(f"| `{k.name}` | {values[k.name]} |\n")
    out.write("\n| point | p | tile | measured cycles | simulated cycles | error | role |\n|---|---|---|---|---|---|---|\n")
    for r in rows:
        out.write(f"| {r['point']} | {r['p']} | {r['tile']} | {r['measured']:.0f} | {r['simulated']:.0f} | "
                  f"{r['error']:+.1%} | {r['role']} |\n")
    for role in ("fitted", "predicted", None):
        m = mape(rows, role)
        if m is not None:
            out.write(f"\nMAPE{' (' + role + ' points)' if role else ' (all points)'}: {m:.1%}")
    return out.getvalue() + "\n"


def overlay_yaml(keys, values, preset, data_path, rows):
    """A preset that is `preset` with the fitted values: drop it into a preset
    folder (WSESIM_PRESET_DIR), or copy its values into a run file's arch."""
    lines = [f"# Fitted by scripts/calibrate.py to {os.path.basename(data_path)} "
             f"(MAPE {mape(rows):.1%} over {len(rows)} points)",
             f"description: {preset} with timing fitted to {os.path.basename(data_path)}",
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


def plot(rows, path_base):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    figure, axes = plt.subplots(figsize=(5.5, 5))
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
    axes.set_xlabel("measured cycles (real machine)")
    axes.set_ylabel("simulated cycles (wsesim)")
    axes.set_title(f"wsesim vs measurements, MAPE {mape(rows):.1%}")
    axes.grid(True, which="both", linewidth=0.3)
    axes.legend()
    figure.tight_layout()
    for ext in ("png", "svg"):
        tmp = f"{path_base}.tmp.{ext}"
        figure.savefig(tmp)
        os.replace(tmp, f"{path_base}.{ext}")
    plt.close(figure)


def write_all(out_dir, rows, keys, values, preset, data_path, provenance, record):
    table = io.StringIO()
    writer = csv.DictWriter(table, fieldnames=list(rows[0].keys()))
    writer.writeheader()
    writer.writerows(rows)
    write_text_atomically(os.path.join(out_dir, "report.csv"), table.getvalue())
    write_text_atomically(os.path.join(out_dir, "report.md"), markdown(rows, keys, values, data_path, provenance))
    write_text_atomically(os.path.join(out_dir, "fitted_preset.yaml"),
                          overlay_yaml(keys, values, preset, data_path, rows))
    write_text_atomically(os.path.join(out_dir, "calibration.json"), json.dumps(record, indent=1) + "\n")
    plot(rows, os.path.join(out_dir, "measured_vs_simulated"))


def update_doc(doc_path, table_markdown):
    """Replaces the text between the calibration-table markers of a doc."""
    with open(doc_path, encoding="utf-8") as f:
        text = f.read()
    pattern = re.compile(re.escape(TABLE_BEGIN) + ".*?" + re.escape(TABLE_END), re.S)
    if not pattern.search(text):
        raise ValueError(f"{doc_path}: no '{TABLE_BEGIN}' ... '{TABLE_END}' markers to replace between")
    text = pattern.sub(lambda _: TABLE_BEGIN + "\n" + table_markdown + TABLE_END, text)
    write_text_atomically(doc_path, text)
