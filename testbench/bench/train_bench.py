#!/usr/bin/python3
"""Training-step benchmark: how long a model's step takes to simulate.

The scenarios the models issue asks for: GPT-3 XL (1.3B) on the full
750 x 994 WSE-2 preset, and the same with only the model name changed to
GPT-NeoX 20B; a GPT-3 XL step on the 64 x 64 `small` preset as the quick
one; and steps at the public batches of real CS-2 runs (GPT-2 small,
GPT-J on two systems, BERT-Large), each in the micro-batches `auto`
picks. Every distinct GEMM is simulated once with representative rows
(docs/training.md); the step then runs on the system model. Each scenario
reports its step, where it went, and the host's wall time and peak memory.
Writes one JSON document atomically.

    testbench/bench/train_bench.py [--wsesim build/wsesim] [--out train_bench.json] [--only NAME]...
"""
import os
import sys

from bench_common import ROOT, host_fields, main, run_wsesim

CONFIG = os.path.join(ROOT, "testbench", "configs", "train_tiny.yaml")


def train(name, model, preset, batch, seq, systems=1):
    return (name, {"arch.preset": preset, "workload.model": model, "workload.batch": batch, "workload.seq": seq,
                   "arch.cluster.systems": systems})


SCENARIOS = [
    train("gpt3xl_small_batch1_seq128", "gpt3-xl", "small", 1, 128),
    train("gpt3xl_wse2_batch8_seq2048", "gpt3-xl", "wse2", 8, 2048),
    train("gpt-neox-20b_wse2_batch8_seq2048", "gpt-neox-20b", "wse2", 8, 2048),
    # The public batches of real CS-2 runs (training_cs2.csv, docs/validation.md), micro-batches chosen by auto.
    train("gpt2-small_wse2_batch112_seq2048", "gpt2-small", "wse2", 112, 2048),
    train("gpt-j-6b_wse2_2systems_batch60_seq2048", "gpt-j-6b", "wse2", 60, 2048, systems=2),
    train("bert-large_wse2_batch1024_seq128", "bert-large", "wse2", 1024, 128),
]


def run(wsesim, name, overrides):
    result, wall = run_wsesim(wsesim, name, CONFIG, overrides)
    w = result["workload"]
    return {
        "name": name,
        "overrides": overrides,
        "parameters": w["parameters"],
        "step_cycles": w["step_cycles"],
        "step_seconds": w["step_seconds"],
        "samples_per_second": w["samples_per_second"],
        "utilisation": w["utilisation"],
        "micro_batch": w["micro_batch"]["why"],
        "breakdown_cycles": w["breakdown_cycles"],
        "phase_bounds": w["phase_bounds"],
        "gemms_simulated": len(w["gemms"]),
        "simulated_gemm_cycles": w["host"]["simulated_gemm_cycles"],
        # The groups of GEMMs simulated at once (training.md, "On several cores"): their host seconds.
        "threads_used": w["host"]["threads"],
        "gemm_group_seconds": [g["seconds"] for g in w["host"].get("gemm_groups", [])],
        **host_fields(result, wall),
    }


def line(row):
    return (f'{row["name"]:36s} step {row["step_seconds"] * 1e3:9.3f} ms  util {100 * row["utilisation"]:5.1f}%  '
            f'wall {row["process_wall_seconds"]:8.1f} s  RSS {row["peak_rss_bytes"] / 2**20:7.0f} MiB')


if __name__ == "__main__":
    sys.exit(main(__doc__, "train", SCENARIOS, run, line))
