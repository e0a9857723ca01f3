"""Shared pieces of the sweep script tests: paths from the command line,
tiny 8 x 8 NoC runs, and checks that fail with a message."""
import json
import os
import re
import resource
import shutil
import subprocess
import sys

SKIP = 77  # ctest SKIP_RETURN_CODE


class Context:
    """argv: WSESIM_BINARY SCRIPTS_DIR WORK_DIR"""

    def __init__(self):
        if len(sys.argv) != 4:
            sys.exit(f"usage: {sys.argv[0]} WSESIM_BINARY SCRIPTS_DIR WORK_DIR")
        self.wsesim, self.scripts, self.work = (os.path.abspath(a) for a in sys.argv[1:])
        # A clean folder per test, kept after the run for a look when it fails.
        shutil.rmtree(self.work, ignore_errors=True)
        os.makedirs(self.work)
        sys.path.insert(0, self.scripts)

    def path(self, *parts):
        return os.path.join(self.work, *parts)

    def write(self, name, text):
        with open(self.path(name), "w", encoding="utf-8") as f:
            f.write(text)
        return self.path(name)

    def tiny_base(self, measure_cycles=2000):
        return self.write("base.yaml", f"""\
arch:
  preset: tiny
  fabric:
    routing: xy
workload:
  type: noc
  pattern: uniform_random
  warmup_cycles: 100
  measure_cycles: {measure_cycles}
  seed: 1
""")

    def sweep(self, spec, *args, env=None, bounded=False):
        return self.script("sweep.py", spec, "--wsesim", self.wsesim, *args, env=env, bounded=bounded)

    def script(self, name, *args, env=None, bounded=False):
        """bounded: under 1 GiB of address space and 60 s, for inputs that
        an unfixed script would read until memory runs out."""
        return subprocess.run(["/usr/bin/python3", os.path.join(self.scripts, name), *args],
                              capture_output=True, text=True, env=env,
                              preexec_fn=_bound_memory if bounded else None, timeout=60 if bounded else None)


def _bound_memory():
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


def check(condition, message):
    if not condition:
        print(f"FAILED: {message}", file=sys.stderr)
        sys.exit(1)


def check_exit(process, status, what):
    check(process.returncode == status,
          f"{what}: exit status {process.returncode}, expected {status}\n"
          f"stdout:\n{process.stdout}\nstderr:\n{process.stderr}")


def check_resume(process, points, done_earlier, what):
    """The sweep of `points` points exited 0, counting `done_earlier` of them as done earlier."""
    check_exit(process, 0, what)
    counts = f"{points} points, {done_earlier} done earlier, {points - done_earlier} to run"
    check(counts in process.stdout, f"{what}: expected '{counts}':\n{process.stdout}")


def rows_by_value(out_dir, axis):
    """The rows of a one-axis sweep's results.json, by their value of the axis."""
    return {row[axis]: row for row in load_json(os.path.join(out_dir, "results.json"))["rows"]}


def check_inputs_recorded(out_dir, point, dir_key, folder):
    """The plan's inputs name `folder` under `dir_key`, and the point's stamp holds those inputs."""
    plan_inputs = load_json(os.path.join(out_dir, "sweep.json"))["inputs"]
    stamp = load_json(os.path.join(out_dir, "points", point, "result.json"))["sweep_point"]
    check(stamp["inputs"] == plan_inputs and plan_inputs[dir_key] == folder,
          f"the stamp's inputs {stamp['inputs']} are not the plan's {plan_inputs}, or lack {dir_key} {folder}")


def check_copy_reruns_nothing(sweep_with, folder, out_dir, axis, values):
    """A finished one-axis sweep resumed by `sweep_with(FOLDER)` with a copy of
    `folder` (of presets, models) elsewhere: the same experiment, nothing
    runs again. Returns the copy."""
    copy = folder + "-moved"
    shutil.copytree(folder, copy)

    def result_times():
        return {value: os.stat(os.path.join(out_dir, "points", f"{axis}={value}", "result.json")).st_mtime_ns
                for value in values}

    times = result_times()
    same = sweep_with(copy)
    check_resume(same, len(values), len(values), f"resume with a copy of {folder}")
    check("run again" not in same.stdout, f"announced a rerun of nothing:\n{same.stdout}")
    check(result_times() == times, f"a point ran again although {copy} holds the same files as {folder}")
    return copy


def load_json(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def config_value(result, key):
    value = result["config"]
    for part in key.split("."):
        value = value[part]
    return value


def check_table_matches_points(out_dir, expected_rows):
    """results.json and results.csv hold exactly the expected (status, swept
    values) rows, and every metric equals the field in that point's result."""
    import csv
    table = load_json(os.path.join(out_dir, "results.json"))
    rows = table["rows"]
    got = sorted((r["status"],) + tuple(r[k] for k in table["axes"]) for r in rows)
    check(got == sorted(expected_rows), f"table rows {got}, expected {sorted(expected_rows)}")
    with open(os.path.join(out_dir, "results.csv"), encoding="utf-8") as f:
        csv_rows = list(csv.DictReader(f))
    check(len(csv_rows) == len(rows), f"results.csv has {len(csv_rows)} rows, results.json {len(rows)}")
    for row, csv_row in zip(rows, csv_rows):
        result_path = os.path.join(out_dir, "points", row["point"], "result.json")
        for key in table["axes"]:
            check(csv_row[key] == str(row[key]), f"{row['point']}: CSV {key} {csv_row[key]} vs {row[key]}")
        if row["status"] != "ok":
            check(all(row[m] is None for m in table["metrics"]), f"{row['point']}: metrics without a result")
            continue
        result = load_json(result_path)
        for key in table["axes"]:
            check(config_value(result, key) == row[key],
                  f"{row['point']}: result config {key} = {config_value(result, key)}, row says {row[key]}")
        for metric in table["metrics"]:
            value = result
            for part in metric.split("."):
                value = value[part]
            check(row[metric] == value, f"{row['point']}: {metric} {row[metric]} in table, {value} in result")
            check(float(csv_row[metric]) == float(value), f"{row['point']}: CSV {metric} {csv_row[metric]}")
    return table


def keep_figures(plotting):
    """The figures `plotting` saves from now on, kept (in a list it returns)
    for a look at their artists after saving."""
    figures = []
    save = plotting.save

    def keeping_save(figure, outputs, metadata=None):
        figures.append(figure)
        save(figure, outputs, metadata=metadata)

    plotting.save = keeping_save
    return figures


def svg_texts(path):
    """The text elements of an SVG (matplotlib keeps text as text)."""
    with open(path, encoding="utf-8") as f:
        return re.findall(r"<text[^>]*>([^<]*)</text>", f.read())
