"""Runs wsesim on measured points: one timing-mode run per (point, key
values), in parallel, each result cached in the output folder so a rerun
(or the verification after a fit) repeats nothing."""
import concurrent.futures
import hashlib
import json
import os
import subprocess
import tempfile

from wsesweep.atomic import write_text_atomically


class ModelError(Exception):
    pass


def run_yaml(point, preset):
    # The mesh is just the grid: the rest of a wafer would only cost host memory.
    return (f"arch:\n  preset: {preset}\n  mesh: {{width: {point.p}, height: {point.p}}}\n"
            f"run:\n  mode: timing\n"
            f"workload:\n  type: gemm\n  algorithm: {point.algorithm}\n  dtype: {point.dtype}\n"
            f"  m: {point.n}\n  k: {point.n}\n  n: {point.n}\n  grid_x: {point.p}\n  grid_y: {point.p}\n")


class Model:
    def __init__(self, wsesim, preset, out_dir, jobs, overrides=()):
        self.wsesim, self.preset, self.jobs = wsesim, preset, jobs
        self.overrides = list(overrides)
        self.cache_dir = os.path.join(out_dir, "runs")
        os.makedirs(self.cache_dir, exist_ok=True)

    def _key(self, point, values):
        text = json.dumps([run_yaml(point, self.preset), self.overrides, sorted(values.items())])
        return point.name + "_" + hashlib.sha256(text.encode()).hexdigest()[:16]

    def cycles(self, jobs):
        """jobs: list of (point, {key: value}); returns their simulated cycles, in order."""
        with concurrent.futures.ThreadPoolExecutor(max_workers=self.jobs) as pool:
            return list(pool.map(lambda job: self._run(*job), jobs))

    def _run(self, point, values):
        result_path = os.path.join(self.cache_dir, self._key(point, values) + ".json")
        if os.path.exists(result_path):
            with open(result_path, encoding="utf-8") as f:
                return json.load(f)["cycles"]
        with tempfile.TemporaryDirectory() as scratch:
            config = os.path.join(scratch, "run.yaml")
            with open(config, "w", encoding="utf-8") as f:
                f.write(run_yaml(point, self.preset))
            out = os.path.join(scratch, "result.json")
            command = [self.wsesim, "run", config, "--out", out]
            for key, value in [*(o.split("=", 1) for o in self.overrides), *values.items()]:
                command += ["--set", f"{key}={value}"]
            process = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            if process.returncode != 0:
                last = (process.stderr.strip().splitlines() or ["(no message)"])[-1]
                raise ModelError(f"{point.name}: wsesim exited {process.returncode}: {last}\n  {' '.join(command)}")
            with open(out, encoding="utf-8") as f:
                result = json.load(f)
        record = {"point": point.name, "values": values, "cycles": result["cycles"],
                  "host_seconds": result.get("host", {}).get("wall_seconds")}
        write_text_atomically(result_path, json.dumps(record, indent=1) + "\n")
        return record["cycles"]
