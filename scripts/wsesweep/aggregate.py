"""One table of a sweep: a row per planned point (in plan order) with its
status, the swept values and the chosen result fields, as CSV and JSON."""
import csv
import io
import json
import os

from . import sweepdir
from .atomic import write_text_atomically

TABLE_CSV = "results.csv"
TABLE_JSON = "results.json"


class AggregateError(Exception):
    pass


def build_table(out_dir, plan):
    rows = []
    for point in plan["points"]:
        name = point["name"]
        result = sweepdir.load_result(out_dir, plan, point)
        if result is not None:
            status = "ok"
        elif sweepdir.load_error(out_dir, name) is not None:
            status = "failed"
        else:
            status = "pending"
        row = {"point": name, "status": status, **point["values"]}
        for metric in plan["metrics"]:
            row[metric] = field(result, metric, name) if result is not None else None
        rows.append(row)
    return {"axes": plan["axes"], "metrics": plan["metrics"], "rows": rows}


def field(result, path, point_name):
    value = result
    for i, part in enumerate(path.split(".")):
        if not isinstance(value, dict) or part not in value:
            prefix = ".".join(path.split(".")[:i]) or "(top level)"
            choices = ", ".join(sorted(value)) if isinstance(value, dict) else "not an object"
            raise AggregateError(f"metric {path}: no '{part}' under {prefix} in point {point_name}'s "
                                 f"result (there: {choices})")
        value = value[part]
    if isinstance(value, (dict, list)):
        raise AggregateError(f"metric {path} is an object in the result; name one of its fields")
    return value


def write_table(out_dir, table):
    columns = ["point", "status"] + table["axes"] + table["metrics"]
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(columns)
    for row in table["rows"]:
        writer.writerow(["" if row[c] is None else row[c] for c in columns])
    write_text_atomically(os.path.join(out_dir, TABLE_CSV), text.getvalue())
    write_text_atomically(os.path.join(out_dir, TABLE_JSON), json.dumps(table, indent=1) + "\n")


def load_table(path):
    with open(path, encoding="utf-8") as f:
        table = json.load(f)
    if not isinstance(table, dict) or not {"axes", "metrics", "rows"} <= set(table):
        raise AggregateError(f"{path} is not a sweep table (written by sweep.py as {TABLE_JSON})")
    return table


def format_table(table):
    """Aligned text for the terminal: status, swept values, metrics."""
    columns = ["status"] + table["axes"] + table["metrics"]
    cells = [columns] + [[_cell(row[c]) for c in columns] for row in table["rows"]]
    widths = [max(len(r[i]) for r in cells) for i in range(len(columns))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in cells)


def _cell(value):
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)
