#!/usr/bin/env python3
"""Writes (or checks) scripts/wsesweep/result_fields.json: the result fields
a sweep may name as metrics, per workload type, so that scripts/sweep.py
refuses a misspelt metric before its first point runs.

The fields come from real runs of small probe configurations of every
workload type, covering the options that add fields (a NoC in packet and
broadcast mode, every GEMM algorithm and pass, weights through MemoryX, sparse
weights, a
training step on one and two systems, GELU and SwiGLU models, sparse blocks). Leaves only:
a metric names a number or a text, never an object or a list.

  scripts/gen_result_fields.py --wsesim build/wsesim            # rewrite
  scripts/gen_result_fields.py --wsesim build/wsesim --check    # exit 1 on drift
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

from wsesweep.atomic import write_text_atomically

HERE = os.path.dirname(os.path.abspath(__file__))
OUTPUT = os.path.join(HERE, "wsesweep", "result_fields.json")

NOC = "arch: {preset: tiny, fabric: {routing: %s}}\nworkload: {type: noc, pattern: %s, warmup_cycles: 50, measure_cycles: 300}\n"
GEMM = ("arch: {preset: tiny}\nrun: {mode: %s}\n"
        "workload: {type: gemm, algorithm: %s, pass: %s, m: 16, k: 16, n: 8, dtype: fp32%s}\n")
TRAIN = ("arch: {preset: tiny, cluster: {systems: %d}}\nrun: {mode: timing}\n"
         "workload: {type: train, model: %s, batch: 2, steps: %d%s}\n")
SWIGLU_MODEL = """name: tiny-swiglu
description: the tiny model with a SwiGLU FFN, RMSNorm and no biases (result-field probe)
layers: 2
d_model: 16
heads: 2
d_ff: 32
vocab: 24
seq: 8
positions: rotary
tied_embeddings: false
ffn: swiglu
norm: rmsnorm
bias: false
parameters: 5968
"""


def probes(model_file):
    yield "noc", NOC % ("xy", "uniform_random")
    yield "noc", NOC % ("color", "row_broadcast")
    yield "chain_reduce", "arch: {preset: tiny}\nworkload: {type: chain_reduce, pes: 4, length: 32}\n"
    for mode in ("functional", "timing"):
        for algorithm in ("weight_stream", "summa", "cannon", "meshgemm"):
            yield "gemm", GEMM % (mode, algorithm, "forward", "")
    for gemm_pass in ("backward_data", "weight_grad"):
        yield "gemm", GEMM % ("timing", "weight_stream", gemm_pass, "")
    yield "gemm", GEMM % ("timing", "weight_stream", "forward", ", weights: memoryx, optimizer: adam")
    yield "gemm", (GEMM % ("timing", "weight_stream", "forward", ", weight_density: 0.5")).replace("fp32", "mixed")
    yield "train", TRAIN % (1, "tiny", 1, "")
    yield "train", TRAIN % (2, "tiny", 2, "")
    yield "train", TRAIN % (1, model_file, 1, "")
    yield "train", TRAIN % (1, "tiny", 1, ", weight_density: 0.5")


def leaves(value, prefix=""):
    if isinstance(value, dict):
        for key, inner in value.items():
            yield from leaves(inner, f"{prefix}.{key}" if prefix else key)
    elif not isinstance(value, list):
        yield prefix


def collect(wsesim):
    fields = {}
    with tempfile.TemporaryDirectory() as work:
        model_file = os.path.join(work, "tiny-swiglu.yaml")
        with open(model_file, "w", encoding="utf-8") as f:
            f.write(SWIGLU_MODEL)
        for i, (workload_type, config) in enumerate(probes(model_file)):
            config_file, result_file = os.path.join(work, f"probe{i}.yaml"), os.path.join(work, f"probe{i}.json")
            with open(config_file, "w", encoding="utf-8") as f:
                f.write(config)
            run = subprocess.run([wsesim, "run", config_file, "--out", result_file], capture_output=True, text=True)
            if run.returncode != 0:
                sys.exit(f"gen_result_fields: probe {i} ({workload_type}) failed: {run.stderr.strip()}\n{config}")
            with open(result_file, encoding="utf-8") as f:
                result = json.load(f)
            # The configuration echo holds keys, not results: config.* is checked as keys are.
            fields.setdefault(workload_type, set()).update(p for p in leaves(result) if not p.startswith("config."))
    return {t: sorted(f) for t, f in sorted(fields.items())}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--wsesim", required=True, help="the wsesim binary")
    parser.add_argument("--check", action="store_true", help="exit 1 if the file differs from the binary's fields")
    parser.add_argument("--output", default=OUTPUT, help=argparse.SUPPRESS)
    args = parser.parse_args()
    text = json.dumps(collect(os.path.abspath(args.wsesim)), indent=1) + "\n"
    if args.check:
        try:
            with open(args.output, encoding="utf-8") as f:
                current = f.read()
        except FileNotFoundError:
            current = ""
        if current != text:
            old = json.loads(current) if current else {}
            new = json.loads(text)
            for t in sorted(set(old) | set(new)):
                added, gone = set(new.get(t, [])) - set(old.get(t, [])), set(old.get(t, [])) - set(new.get(t, []))
                for f in sorted(added):
                    print(f"{t}: {f} is in the results but not in {os.path.relpath(args.output)}")
                for f in sorted(gone):
                    print(f"{t}: {f} is in {os.path.relpath(args.output)} but in no result")
            print("regenerate: scripts/gen_result_fields.py --wsesim build/wsesim")
            return 1
        return 0
    write_text_atomically(args.output, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
