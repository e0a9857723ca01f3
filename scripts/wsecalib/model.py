"""Runs wsesim on measured points: one timing-mode run per (point, key
values), in parallel, each result cached in the output folder so a rerun
(or the verification after a fit) repeats nothing.

A GEMM point runs the measured algorithm on a mesh the grid's size and is
simulated as cycles; a training point runs one step of its model on its
preset and system count, the system's batch in micro-batches chosen as
the compiler would (`auto`), and is simulated as samples per second."""
import concurrent.futures
import hashlib
import json
import os
import subprocess
import tempfile

from wsesweep import inputs
from wsesweep.atomic import write_text_atomically


class ModelError(Exception):
    pass


def gemm_yaml(point, preset):
    # The mesh is just the grid: the rest of a wafer would only cost host memory.
    return (f"arch:\n  preset: {preset}\n  mesh: {{width: {point.p}, height: {point.p}}}\n"
            f"run:\n  mode: timing\n"
            f"workload:\n  type: gemm\n  algorithm: {point.algorithm}\n  dtype: {point.dtype}\n"
            f"  m: {point.n}\n  k: {point.n}\n  n: {point.n}\n  grid_x: {point.p}\n  grid_y: {point.p}\n")


def train_yaml(point):
    # testbench/configs/train_tiny.yaml with the point's preset, model, batch
    # and cluster: written here so that the run cache's key holds all of it.
    return (f"arch:\n  preset: {point.preset}\n  cluster: {{systems: {point.systems}}}\n"
            f"run:\n  mode: timing\n"
            f"workload:\n  type: train\n  model: {point.model}\n  batch: {point.batch_per_system}\n"
            f"  seq: {point.seq}\n  micro_batch: auto\n")


def gemm_outcome(result):
    return {"simulated": result["cycles"]}


def train_outcome(result):
    workload = result["workload"]
    # A run whose wafer timing came from the cache took only the system
    # model's host time: `wafer_timing` says which it was.
    micro = workload["micro_batch"]["why"]
    recompute = workload.get("activation_recompute", {})
    if recompute.get("enabled"):
        micro += (f"; {recompute['layers_recomputed']} of {recompute['layers']} layers recompute their FFN's"
                  f" activation, {recompute['whole_layers_recomputed']} of them their whole forward pass")
    return {"simulated": workload["samples_per_second"], "micro_batch": micro, "wafer_timing": workload["wafer_timing"],
            "step_parts": step_parts(workload)}


# Where a step's time goes, in the order the summary prints it: the wafer's
# GEMMs by pass and its ops, its waits, and MemoryX's optimizer after it
# (together the step).
STEP_PARTS = (("forward GEMMs", ("gemms_by_pass", "forward")), ("recomputed GEMMs", ("gemms_by_pass", "recompute")),
              ("backward-data GEMMs", ("gemms_by_pass", "backward_data")),
              ("weight-gradient GEMMs", ("gemms_by_pass", "weight_grad")), ("ops", ("ops",)),
              ("waits for weights", ("wafer_idle",)), ("waits for activations", ("activation_wait",)),
              ("optimizer after the wafer", ("optimizer_tail",)))


def step_parts(workload):
    """Seconds of one step in each of STEP_PARTS (0 where the step has none), and the step's."""
    seconds_per_cycle = workload["step_seconds"] / workload["step_cycles"]
    parts = {}
    for name, path in STEP_PARTS:
        node = workload["breakdown_cycles"]
        for key in path:
            node = node.get(key, 0) if isinstance(node, dict) else 0
        parts[name] = node * seconds_per_cycle
    parts["step"] = workload["step_seconds"]
    return parts


class Model:
    def __init__(self, wsesim, preset, out_dir, jobs, overrides=()):
        self.wsesim, self.preset, self.jobs = wsesim, preset, jobs
        self.overrides = list(overrides)
        self.cache_dir = os.path.join(out_dir, "runs")
        # A record holds for the wsesim that ran it: a rebuilt one runs again.
        self.executable = inputs.file_digest(wsesim)
        # Runs that differ only outside the wafer (MemoryX, the cluster) share
        # its simulation; wsesim keys the entries by the wafer's configuration
        # and the step's GEMMs as laid out.
        self.wafer_timing_dir = os.path.abspath(os.path.join(out_dir, "wafer_timing"))
        os.makedirs(self.cache_dir, exist_ok=True)

    def _config(self, point):
        """The point's run file, the run.* settings that do not change its
        result, and what to read from the result."""
        if point.kind == "train":
            return train_yaml(point), [("run.wafer_timing_cache", self.wafer_timing_dir)], train_outcome
        return gemm_yaml(point, self.preset), [], gemm_outcome

    def _key(self, point, config, values):
        # The kind names what the record holds.
        text = json.dumps([point.kind, config, self.overrides, sorted(values.items()), self.executable])
        return point.name + "_" + hashlib.sha256(text.encode()).hexdigest()[:16]

    def simulate(self, jobs):
        """jobs: list of (point, {key: value}); returns their run records, in
        order: `simulated` (cycles or samples/s), `host_seconds`, and for a
        training point `micro_batch` (the choice and why) and `wafer_timing`."""
        with concurrent.futures.ThreadPoolExecutor(max_workers=self.jobs) as pool:
            return list(pool.map(lambda job: self._run(*job), jobs))

    def _run(self, point, values):
        config, settings, outcome = self._config(point)
        result_path = os.path.join(self.cache_dir, self._key(point, config, values) + ".json")
        if os.path.exists(result_path):
            with open(result_path, encoding="utf-8") as f:
                return json.load(f)
        with tempfile.TemporaryDirectory() as scratch:
            config_path = os.path.join(scratch, "run.yaml")
            with open(config_path, "w", encoding="utf-8") as f:
                f.write(config)
            out = os.path.join(scratch, "result.json")
            command = [self.wsesim, "run", config_path, "--out", out]
            for key, value in [*settings, *(o.split("=", 1) for o in self.overrides), *values.items()]:
                command += ["--set", f"{key}={value}"]
            process = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            if process.returncode != 0:
                last = (process.stderr.strip().splitlines() or ["(no message)"])[-1]
                raise ModelError(f"{point.name}: wsesim exited {process.returncode}: {last}\n  {' '.join(command)}")
            with open(out, encoding="utf-8") as f:
                result = json.load(f)
        try:
            record = {"point": point.name, "values": values, **outcome(result),
                      "host_seconds": result.get("host", {}).get("wall_seconds")}
        except KeyError as e:
            raise ModelError(f"{point.name}: the result has no {e} (an older wsesim?)\n  {' '.join(command)}") from None
        write_text_atomically(result_path, json.dumps(record, indent=1) + "\n")
        return record
