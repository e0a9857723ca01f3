#!/usr/bin/python3
"""Fuzz test of `wsesim run` (issue 23): mutates the example run files in
testbench/configs (unknown keys, wrong types, extreme numbers, NaN and
infinities, negative values, empty and binary files, repeated keys, second
documents, huge meshes, long and non-UTF-8 strings, directories where files
belong, unwritable outputs) and runs each mutation, deterministically from a
seed. Every case must end with a documented exit status (Cli.h: 0-4), no
signal, within its time and memory bounds; a failed case must print exactly
one stderr line that names a mutated key or value and leave no result file
behind; a successful one must leave a parseable result.

usage: config_fuzz_test.py WSESIM CONFIG_DIR WORK_DIR SEED CASES
"""
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import time

import yaml

EXIT_STATUSES = {0, 1, 2, 3, 4}
CASE_SECONDS = 30  # wall and CPU per case; the slowest clean case takes about 1 s
CASE_ADDRESS_SPACE = 3 << 30  # bytes; run.max_host_bytes below keeps a run under it
# Every case runs with these unless it mutates them itself: a legal
# configuration may ask for 2^40 cycles or a full wafer.
# 20000 cycles hold every example's window; 64 MiB plan at most ~7,000
# routers (a 65535 x 1 row is refused), which step 20000 busy cycles within
# a few seconds. An error may name these bounds whatever the mutation was.
BOUNDS = {"run.max_cycles": "20000", "run.max_host_bytes": str(64 << 20)}
# Keys whose larger values take more SRAM: an overflow names arch.pe.sram_bytes.
SRAM_KEYS = {"workload.length", "workload.m", "workload.k", "workload.n", "workload.batch", "workload.seq",
             "workload.rows", "workload.pes"}

# Keys worth mutating beyond those the example files give.
KNOWN_KEYS = [
    "arch.mesh.width", "arch.mesh.height", "arch.fabric.queue_depth", "arch.fabric.colors",
    "arch.fabric.color_bits", "arch.fabric.hop_latency_cycles", "arch.fabric.routing", "arch.pe.sram_bytes",
    "arch.pe.threads", "arch.clock_hz", "arch.preset", "run.watchdog_cycles", "run.mode",
    "run.vcd.region.x1", "run.timeline.link_window_cycles", "run.max_cycles", "run.max_host_bytes",
    "workload.seed", "workload.type",
]
EXTREME_NUMBERS = [0, -1, 1, 2, 255, 256, 65535, 65536, 2**31 - 1, 2**31, 2**32, 2**53 + 1, 2**62, 2**63, 2**64,
                   10**30, 1e308, -1e308, 1e-300, 5e-324, 0.5, -0.0, 1e-30, 1e-20]
NON_NUMBERS = [".nan", ".inf", "-.inf", "nan", "inf", "NaN", "1e999", "0x10", "1_000", "12abc", "", "~", "true"]
WRONG_TYPES = [[1, 2], {"a": 1}, True, None, "text", "yes", {"nested": {"deeper": [1]}}]
DIRECTORIES = ["/tmp", "/", "."]
# Values at the edges of their documented ranges (legal): runs that must
# either succeed, stop at run.max_cycles, or be refused naming the key.
LEGAL_EDGES = {
    "arch.fabric.queue_depth": [1, 255], "arch.fabric.colors": [1, 32], "arch.fabric.hop_latency_cycles": [1, 1024],
    "arch.mesh.width": [1, 2, 3], "arch.mesh.height": [1, 2, 3], "run.watchdog_cycles": [2**40],
    "run.mode": ["timing", "functional"], "run.timeline.link_window_cycles": [1, 2**32],
    "workload.injection_rate": [0, 1, 1e-9, 0.999], "workload.packet_wavelets": [1, 7, 65535],
    "workload.warmup_cycles": [0, 2**40], "workload.measure_cycles": [1, 2**40], "workload.drain_cycles": [0, 2**40],
    "workload.seed": [0, 2**62], "workload.pattern": ["transpose", "hotspot", "bit_complement", "nearest_neighbour",
                                                      "column_broadcast"],
    "workload.pes": [2, 8], "workload.length": [1, 4096], "workload.dtype": ["fp16", "mixed", "fp32"],
    "workload.rows": [1, 8], "workload.repeat": [1, 16],
    "workload.m": [1, 8, 512], "workload.k": [1, 8, 512], "workload.n": [1, 8, 512],
    "workload.pass": ["forward", "backward_data", "weight_grad"], "workload.weights": ["edge", "memoryx"],
    "workload.algorithm": ["summa", "cannon", "meshgemm", "weight_stream"], "workload.values": ["uniform"],
    "workload.batch": [1, 64], "workload.seq": [1, 2048], "workload.steps": [1, 3], "workload.optimizer": ["sgd"],
    "workload.wafers": ["every"], "workload.layers": ["every"],
}


def shrink(name, doc):
    """The example on an 8 x 8 mesh (preset tiny), so a case takes well under a second."""
    doc.setdefault("arch", {})["preset"] = "tiny"
    work = doc.get("workload", {})
    if work.get("type") == "chain_reduce":
        work["pes"] = min(int(work.get("pes", 4)), 8)
    if name.startswith("row_broadcast"):
        work["broadcast_sources"] = min(int(work.get("broadcast_sources", 1)), 8)
        doc.get("run", {}).pop("vcd", None)
    return doc


def leaves(doc, prefix=""):
    for key, value in doc.items():
        dotted = f"{prefix}.{key}" if prefix else str(key)
        if isinstance(value, dict):
            yield from leaves(value, dotted)
        else:
            yield dotted, value


def set_dotted(doc, dotted, value):
    parts = dotted.split(".")
    node = doc
    for part in parts[:-1]:
        if not isinstance(node.get(part), dict):
            node[part] = {}
        node = node[part]
    node[parts[-1]] = value


class Case:
    """One mutated run: the run file's bytes, extra arguments, and the texts an error may name."""

    def __init__(self, base_name, doc):
        self.base_name = base_name
        self.doc = doc
        self.text = None  # bytes, when a mutation writes the file itself
        self.args = []
        self.sets = dict(BOUNDS)
        self.outputs = ["result.json"]
        self.mentions = list(BOUNDS)
        self.kinds = []
        self.config_path = "run.yaml"


def mutate(rng, case):
    doc = case.doc
    known = [k for k, _ in leaves(doc)] + KNOWN_KEYS
    kind = rng.choice(["unknown_key", "wrong_type", "extreme", "non_number", "negative", "empty_or_binary",
                       "duplicate", "second_document", "huge_mesh", "long_string", "directory", "output",
                       "set_override", "tiny_rate", "legal_edge", "legal_edge", "legal_edge"])
    case.kinds.append(kind)
    key = rng.choice(known)
    if kind == "unknown_key":
        section = rng.choice(["arch", "workload", "run", "arch.fabric", "arch.mesh", "run.vcd", "bogus"])
        name = rng.choice(["queue_dept", "widht", "x", "injection_rat", "mode2", "ÄÖü", "a" * 300])
        set_dotted(doc, f"{section}.{name}", rng.choice([1, "v", 0.5]))
        case.mentions += [name, section]
    elif kind in ("wrong_type", "extreme", "non_number", "negative", "long_string"):
        if kind == "wrong_type":
            value = rng.choice(WRONG_TYPES)
        elif kind == "extreme":
            value = rng.choice(EXTREME_NUMBERS)
        elif kind == "non_number":
            value = rng.choice(NON_NUMBERS)
        elif kind == "negative":
            current = dict(leaves(doc)).get(key, 1)
            value = -current if isinstance(current, (int, float)) and not isinstance(current, bool) else -1
        else:
            value = rng.choice(["x" * rng.choice([256, 4096, 100000]), "é" * 300, "tiny" + "a" * 260])
        set_dotted(doc, key, value)
        case.mentions += [key, str(value)[:40]]
    elif kind == "empty_or_binary":
        case.text = rng.choice([b"", b"\n", b"   \n", b"---\n", b"...\n", bytes(rng.randrange(256) for _ in range(200)),
                                b"\x00\x01\x02", "arch: {preset: tiny}\nworkload: {type: noc, seed: \xff}\n".encode("latin-1"),
                                b"\xef\xbb\xbfarch: {preset: tiny}\n", b"[1, 2, 3]\n", b"just text\n", b"{{{{\n"])
        case.mentions += ["run.yaml", "workload.type", "arch"]
    elif kind == "duplicate":
        leaf = rng.choice(list(leaves(doc)))
        text = yaml.safe_dump(doc, sort_keys=False)
        section = leaf[0].split(".")[0]
        # Repeat a whole section, or one key inside its section, with another value.
        if rng.random() < 0.5:
            text += f"{section}:\n  preset: wse2\n" if section == "arch" else f"{section}:\n  seed: 3\n"
            case.mentions += [f"'{section}'"]
        else:
            text = text.replace(f"{section}:\n", f"{section}:\n  dup_key: 1\n  dup_key: 2\n", 1)
            case.mentions += ["dup_key"]
        case.text = text.encode()
    elif kind == "second_document":
        case.text = (yaml.safe_dump(doc, sort_keys=False) + "---\n" + rng.choice(["", "run: {mode: timing}\n"])).encode()
        case.mentions += ["second YAML document"]
    elif kind == "huge_mesh":
        width, height = rng.choice([(65535, 65535), (750, 994), (4096, 4096), (65535, 1), (1, 65535), (65536, 2)])
        set_dotted(doc, "arch.mesh.width", width)
        set_dotted(doc, "arch.mesh.height", height)
        case.mentions += ["arch.mesh", "host memory", "run.max_cycles", str(width), str(height)]
    elif kind == "directory":
        path = rng.choice(DIRECTORIES)
        target = rng.choice(["workload.model", "arch.preset", "config", "run.wafer_timing_cache"])
        if target == "config":
            case.config_path = path
            case.mentions += [path]
        else:
            set_dotted(doc, target, path)
            case.mentions += [target, path]
    elif kind == "output":
        option = rng.choice(["--out", "--map", "--timeline", "--vcd"])
        path = rng.choice(["no/such/dir/x.json", "/tmp", "/proc/x.json", "run.yaml/x.json", "a" * 300 + ".json"])
        case.args += [option, path]
        case.mentions += [option, path[:40]]
    elif kind == "set_override":
        value = rng.choice([str(v) for v in EXTREME_NUMBERS] + NON_NUMBERS + ["[1, 2]", "{a: 1}", "a=b"])
        case.sets[key] = value
        case.mentions += [key, value[:40] if value else "--set"]
    elif kind == "legal_edge":
        section = doc.get("workload", {}).get("type", "")
        candidates = [k for k in LEGAL_EDGES if not k.startswith("workload.") or k in dict(leaves(doc))
                      or section == "noc" or rng.random() < 0.1]
        edge_key = rng.choice(sorted(candidates))
        value = rng.choice(LEGAL_EDGES[edge_key])
        set_dotted(doc, edge_key, value)
        case.mentions += [edge_key, str(value)] + (["arch.pe.sram_bytes"] if edge_key in SRAM_KEYS else [])
    elif kind == "tiny_rate":
        value = rng.choice([1e-30, 1e-300, 1e-20, 1e-12, 5e-324])
        set_dotted(doc, "workload.injection_rate", value)
        case.mentions += ["workload.injection_rate", "workload.pattern", "workload"]


def build_case(rng, bases):
    base_name = rng.choice(sorted(bases))
    case = Case(base_name, json.loads(json.dumps(bases[base_name])))
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        mutate(rng, case)
    return case


def limit_child():
    # AddressSanitizer reserves terabytes of shadow address space up front, so
    # a sanitized wsesim (the sanitizer job) cannot start under an address
    # space limit; its memory stays bounded by run.max_host_bytes.
    if os.environ.get("WSESIM_SANITIZED") != "1":
        resource.setrlimit(resource.RLIMIT_AS, (CASE_ADDRESS_SPACE, CASE_ADDRESS_SPACE))
    resource.setrlimit(resource.RLIMIT_CPU, (CASE_SECONDS, CASE_SECONDS))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def run_case(wsesim, case, folder):
    os.makedirs(folder)
    if case.config_path == "run.yaml":
        text = case.text if case.text is not None else yaml.safe_dump(case.doc, sort_keys=False, allow_unicode=True).encode()
        with open(os.path.join(folder, "run.yaml"), "wb") as f:
            f.write(text)
    command = [wsesim, "run", case.config_path]
    for key, value in case.sets.items():
        command += ["--set", f"{key}={value}"]
    command += case.args if case.args else ["--out", "result.json"]
    before = set(os.listdir(folder))
    start = time.monotonic()
    try:
        done = subprocess.run(command, cwd=folder, capture_output=True, timeout=CASE_SECONDS, preexec_fn=limit_child)
    except subprocess.TimeoutExpired:
        return "timeout", None, time.monotonic() - start
    seconds = time.monotonic() - start
    problems = []
    status = done.returncode
    stderr = done.stderr.decode("utf-8", "replace")
    if status < 0:
        problems.append(f"killed by signal {-status}")
    elif status not in EXIT_STATUSES:
        problems.append(f"exit status {status} is not a documented one")
    left = set(os.listdir(folder)) - before
    if status == 0:
        if case.args == [] and "result.json" not in left:
            problems.append("success without result.json")
        elif "result.json" in left:
            json.load(open(os.path.join(folder, "result.json")))
    else:
        lines = stderr.rstrip("\n").split("\n")
        if status != 1 and (len(lines) != 1 or not lines[0].startswith("wsesim")):
            problems.append(f"stderr is not one 'wsesim...' line: {stderr[:2000]!r}")
        if not any(m and m in stderr for m in case.mentions):
            problems.append(f"stderr names none of {case.mentions!r}: {stderr[:500]!r}")
        if left:
            problems.append(f"files left behind after a failure: {sorted(left)}")
    if status == 0 and any(".tmp." in f or ".partial" in f for f in left):
        problems.append(f"temporary files left behind: {sorted(left)}")
    if os.environ.get("FUZZ_SHOW"):
        print(f"  {case.base_name} {case.kinds} -> {status}: {stderr.strip()[:200]}")
    return ("clean" if not problems else "; ".join(problems)), status, seconds


def main():
    wsesim, config_dir, work_dir, seed, cases = sys.argv[1:6]
    seed, cases = int(seed), int(cases)
    bases = {}
    for name in sorted(os.listdir(config_dir)):
        if name.endswith(".yaml"):
            with open(os.path.join(config_dir, name)) as f:
                bases[name[:-5]] = shrink(name, yaml.safe_load(f))
    shutil.rmtree(work_dir, ignore_errors=True)
    os.makedirs(work_dir)
    counts = {"clean_error": 0, "success": 0, "non_clean": 0}
    statuses = {}
    slowest = 0.0
    for index in range(cases):
        rng = random.Random(f"{seed}:{index}")
        case = build_case(rng, bases)
        folder = os.path.join(work_dir, f"case{index:04d}")
        verdict, status, seconds = run_case(wsesim, case, folder)
        slowest = max(slowest, seconds)
        statuses[status] = statuses.get(status, 0) + 1
        if verdict != "clean":
            counts["non_clean"] += 1
            print(f"NON-CLEAN case {index} (seed {seed}, base {case.base_name}, {case.kinds}): {verdict}\n"
                  f"  folder {folder}, args {case.sets} {case.args}", flush=True)
        else:
            counts["clean_error" if status else "success"] += 1
            shutil.rmtree(folder)
    peak_rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
    print(f"config fuzz seed {seed}: {cases} cases, {counts['clean_error']} clean errors, {counts['success']} "
          f"successes, {counts['non_clean']} non-clean; exit statuses {dict(sorted(statuses.items(), key=str))}; "
          f"slowest case {slowest:.2f} s, largest peak RSS {peak_rss / 2**20:.0f} MiB")
    print(f"{cases - counts['non_clean']} passed, {counts['non_clean']} failed")
    return 1 if counts["non_clean"] else 0


if __name__ == "__main__":
    sys.exit(main())
