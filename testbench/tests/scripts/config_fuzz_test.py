#!/usr/bin/python3
"""Fuzz test of `wsesim run` (issues 23 and 29): mutates the example run
files in testbench/configs (unknown keys, wrong types, extreme numbers, NaN
and infinities, negative values, empty and binary files, repeated keys,
second documents, huge meshes, long and non-UTF-8 strings, directories where
files belong, unwritable outputs; aliases, values that contain themselves and
alias bombs, tags, block scalars, devices and FIFOs as input files, output
paths of every kind, signals during a run) and runs each mutation,
deterministically from a seed. Every case must end with a documented exit
status (Cli.h: 0-4; 128 + n for an interrupted one), no signal, within its
time and memory bounds; a failed case must print exactly one stderr line
that names a mutated key or value and leave no result file behind; a
successful one must leave a parseable result, and every node a case made
(a device, a FIFO, a symlink) must still be one afterwards.

usage: config_fuzz_test.py WSESIM CONFIG_DIR WORK_DIR SEED CASES
"""
import json
import os
import random
import re
import resource
import shutil
import signal
import socket
import stat
import subprocess
import sys
import threading
import time

import yaml

EXIT_STATUSES = {0, 1, 2, 3, 4}
INTERRUPTED = {128 + s: f"wsesim: interrupted by {n}; unfinished output files removed\n"
               for s, n in ((signal.SIGHUP, "SIGHUP"), (signal.SIGINT, "SIGINT"), (signal.SIGTERM, "SIGTERM"))}
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


def leaves(doc, prefix="", seen=None):
    """The dotted keys and values; a mapping met again (an alias mutation
    shares them, or puts one inside itself) is not walked again."""
    seen = set() if seen is None else seen
    seen.add(id(doc))
    for key, value in doc.items():
        dotted = f"{prefix}.{key}" if prefix else str(key)
        if isinstance(value, dict):
            if id(value) not in seen:
                yield from leaves(value, dotted, seen)
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
        self.setup = []         # callables(folder) making nodes before the run
        self.nodes = {}         # name -> stat test its node must still pass afterwards
        self.fifo_readers = []  # FIFOs read in the background during the run
        self.results = ["result.json"]  # JSON results a success must leave (paths in the folder)
        self.stdout_json = False  # a success writes its result to stdout
        self.signal = None      # (signal, seconds after the start) to interrupt the run with
        self.stale = []         # temporaries of a killed earlier run, gone after a success


def mutate(rng, case):
    doc = case.doc
    known = [k for k, _ in leaves(doc)] + KNOWN_KEYS
    kind = rng.choice(["unknown_key", "wrong_type", "extreme", "non_number", "negative", "empty_or_binary",
                       "duplicate", "second_document", "huge_mesh", "long_string", "directory", "output",
                       "set_override", "tiny_rate", "legal_edge", "legal_edge", "legal_edge",
                       # issue 29
                       "alias", "tag", "block_scalar", "special_file", "output_kind", "output_kind", "signal"])
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
    elif kind in ISSUE_29_KINDS:
        ISSUE_29_KINDS[kind](rng, case, key)
    elif kind == "tiny_rate":
        value = rng.choice([1e-30, 1e-300, 1e-20, 1e-12, 5e-324])
        set_dotted(doc, "workload.injection_rate", value)
        case.mentions += ["workload.injection_rate", "workload.pattern", "workload"]


# ---------------------------------------------------------------- issue 29
# Mutations of the text: a value replaced by a marker, the marker by YAML
# the dumper cannot write (tags, block scalars).
MARKER = "FUZZ_MARKER_VALUE"


def text_with(case, key, yaml_value):
    """The case's run file with `key` set to the YAML `yaml_value` (a block
    scalar's lines are indented under the key)."""
    set_dotted(case.doc, key, MARKER)
    text = yaml.safe_dump(case.doc, sort_keys=False, allow_unicode=True)
    line = next(l for l in text.split("\n") if MARKER in l)
    indent = " " * (len(line) - len(line.lstrip()) + 2)
    return text.replace(MARKER, yaml_value.replace("\n", "\n" + indent)).encode()


def mutate_alias(rng, case, key):
    """Aliases: a value that contains itself (it crashed wsesim), aliases of
    aliases (a few hundred bytes, millions of keys), a shared value."""
    form = rng.choice(["self", "self_list", "bomb", "shared", "set_self", "set_undefined"])
    section = rng.choice(["arch", "workload", "run"])
    if form in ("self", "self_list"):
        loop = {}
        loop["me"] = [loop] if form == "self_list" else loop
        case.doc.setdefault(section, {})["loop"] = loop
        case.mentions += ["refers through an alias", f"{section}.loop"]
    elif form == "bomb":
        levels = rng.choice([8, 12, 15, 16, 20])
        bomb = {"x": 1, "y": 2}
        for _ in range(levels):
            bomb = {"p": bomb, "q": bomb}
        case.doc.setdefault(section, {})["bomb"] = bomb
        case.mentions += ["more than 100000 values", f"{section}.bomb"]
    elif form == "shared":
        shared = {"width": 8, "height": 8}
        case.doc.setdefault("arch", {})["mesh"] = shared
        case.doc["arch"]["alias_of_mesh"] = shared
        case.mentions += ["arch.alias_of_mesh"]
    elif form == "set_self":
        case.sets[key] = rng.choice(["&a [*a]", "&a {x: *a}"])
        case.mentions += [key, "refers through an alias"]
    else:
        case.sets[key] = rng.choice(["*undefined", "&a 1"])
        case.mentions += [key, "--set"]


def mutate_tag(rng, case, key):
    tagged = rng.choice(["!!str 5", "!!binary aGVsbG8=", "!custom x", "!!int abc", "!!float 1", "!!map {}",
                         "!!null ''", "!!seq [1]", "!<tag:yaml.org,2002:str> 8", "!!bool yes"])
    case.text = text_with(case, key, tagged)
    case.mentions += [key, tagged.split(" ")[-1][:40], "not valid YAML"]


def mutate_block_scalar(rng, case, key):
    """A value with newlines: the one-line error must stay one line."""
    block = rng.choice(["|\ntwo\nlines", ">\nfolded\nlines", "|-\n12\n13", "|\n" + "x" * 300 + "\ny"])
    case.text = text_with(case, key, block)
    case.mentions += [key, "\\n"]


def mutate_special_file(rng, case, key):
    """Devices and pipes where a run reads a file whole: /dev/zero was read
    until memory ran out."""
    path = rng.choice(["/dev/zero", "/dev/urandom", "/dev/null", "/dev/full", "fifo"])
    where = rng.choice(["config", "workload.model", "arch.preset"])
    if path == "fifo":
        def fifo_with_writer(folder):
            os.mkfifo(os.path.join(folder, "fifo"))
            # A writer that gives the reader one small document, if it is read.
            threading.Thread(target=_write_fifo, args=(os.path.join(folder, "fifo"),), daemon=True).start()
        case.setup.append(fifo_with_writer)
        case.nodes["fifo"] = stat.S_ISFIFO
    if where == "config":
        case.config_path = path
    else:
        set_dotted(case.doc, where, path)
        case.mentions += [where]
    case.mentions += [path, "character device", "workload.type", "arch"]


def _write_fifo(path):
    try:
        fd = os.open(path, os.O_WRONLY)  # waits for the reader; the daemon thread dies with the test
        os.write(fd, b"arch: {preset: tiny}\n")
        os.close(fd)
    except OSError:
        pass


OUTPUT_OPTIONS = ["--out", "--map", "--timeline", "--vcd"]


def _mknod(folder, name, minor):
    try:
        os.mknod(os.path.join(folder, name), 0o666 | stat.S_IFCHR, os.makedev(1, minor))
        return True
    except OSError:  # not root: a FIFO stands in (also written directly, never replaced)
        return False


def mutate_output_kind(rng, case, key):
    """Outputs that are not plain new files: each must be written as
    docs/configuration.md ("Output paths") says, never replacing the node.
    One per case: a second would name an option twice."""
    if any(o in case.args for o in OUTPUT_OPTIONS):
        return
    option = rng.choice(OUTPUT_OPTIONS)
    kind = rng.choice(["null", "full", "dash", "link", "dangling", "loop", "fifo", "socket", "input", "twice",
                       "stale"])
    rest = ["--out", "result.json"] if option != "--out" else []
    case.results = ["result.json"] if rest else []
    if kind == "null":
        def make(folder):
            if not _mknod(folder, "null", 3):
                os.mkfifo(os.path.join(folder, "null"))
                case.fifo_readers.append(os.path.join(folder, "null"))
        case.setup.append(make)
        case.nodes["null"] = lambda mode: stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)
        case.args += [option, "null"] + rest
    elif kind == "full":
        def make(folder):
            if not _mknod(folder, "full", 7):
                os.symlink("/dev/full", os.path.join(folder, "full"))  # written through to the host's
        case.setup.append(make)
        case.nodes["full"] = lambda mode: stat.S_ISCHR(mode) or stat.S_ISLNK(mode)
        case.args += [option, "full"] + rest
        case.mentions += ["No space left on device"]
    elif kind == "dash":
        case.args += [option, "-"] + rest
        case.stdout_json = option in ("--out", "--map", "--timeline")
    elif kind in ("link", "dangling"):
        def make(folder):
            os.makedirs(os.path.join(folder, "sub"))
            if kind == "link":
                with open(os.path.join(folder, "sub", "target.json"), "w") as f:
                    f.write("old")
            os.symlink("sub/target.json", os.path.join(folder, "link.json"))
        case.setup.append(make)
        case.nodes["link.json"] = stat.S_ISLNK
        case.args += [option, "link.json"] + rest
        if option != "--vcd":
            case.results.append("sub/target.json")
    elif kind == "loop":
        def make(folder):
            os.symlink("loop_b", os.path.join(folder, "loop_a"))
            os.symlink("loop_a", os.path.join(folder, "loop_b"))
        case.setup.append(make)
        case.args += [option, "loop_a"] + rest
        case.mentions += ["too many levels of symbolic links"]
    elif kind == "fifo":
        def make(folder):
            os.mkfifo(os.path.join(folder, "pipe"))
            case.fifo_readers.append(os.path.join(folder, "pipe"))
        case.setup.append(make)
        case.nodes["pipe"] = stat.S_ISFIFO
        case.args += [option, "pipe"] + rest
    elif kind == "socket":
        def make(folder):
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.bind(os.path.join(folder, "sock"))
            case.sockets = [sock]
        case.setup.append(make)
        case.nodes["sock"] = stat.S_ISSOCK
        case.args += [option, "sock"] + rest
        case.mentions += ["is a socket"]
    elif kind == "input":
        case.args += [option, "run.yaml"] + rest
        case.mentions += ["the configuration file this run reads"]
    elif kind == "twice":
        other = rng.choice([o for o in ("--out", "--map", "--timeline", "--vcd") if o != option])
        name = rng.choice(["same.json", "-"])
        case.args += [option, name, other, name]
        case.results = []
        case.mentions += ["names the same file"]
    else:  # stale: what a killed earlier run left for the result, removed by a run that writes it
        def make(folder):
            for leftover in ("result.json.tmp.999999999", "result.json.partial.vcd"):
                path = os.path.join(folder, leftover)
                with open(path, "w") as f:
                    f.write("cut short")
                os.utime(path, (time.time() - 120, time.time() - 120))
        case.setup.append(make)
        case.stale = ["result.json.tmp.999999999", "result.json.partial.vcd"]
        case.args += ["--out", "result.json"]
    case.mentions += [option]


def mutate_signal(rng, case, key):
    """SIGTERM, SIGINT or SIGHUP during the run: unfinished outputs removed,
    'interrupted' said, exit 128 + n."""
    if any(o in case.args for o in OUTPUT_OPTIONS):  # one per case, and not with an output_kind
        return
    case.signal = (rng.choice([signal.SIGTERM, signal.SIGINT, signal.SIGHUP]), rng.uniform(0.05, 0.4))
    # Long enough to be running when the signal comes (the other examples
    # end within it): a NoC run of 10^8 cycles, the other mutations kept.
    if case.doc.get("workload", {}).get("type") != "noc":
        case.doc["workload"] = {"type": "noc", "pattern": "uniform_random", "injection_rate": 0.01, "seed": 1}
        case.doc.setdefault("arch", {}).setdefault("fabric", {})["routing"] = "xy"
    case.sets["run.max_cycles"] = str(10 ** 9)
    case.sets["workload.measure_cycles"] = str(10 ** 8)
    case.args += ["--out", "result.json"] + (["--vcd", "trace.vcd"] if rng.random() < 0.7 else [])
    case.mentions += ["interrupted", "--out", "--vcd"]


ISSUE_29_KINDS = {"alias": mutate_alias, "tag": mutate_tag, "block_scalar": mutate_block_scalar,
                  "special_file": mutate_special_file, "output_kind": mutate_output_kind, "signal": mutate_signal}


def build_case(rng, bases):
    base_name = rng.choice(sorted(bases))
    case = Case(base_name, json.loads(json.dumps(bases[base_name])))
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        mutate(rng, case)
    return case


# The warning a sanitized build's ASan runtime prints when an error leaves a
# SystemC thread's coroutine stack (docs/testing.md): never an error report
# of its own (a report ends the process with ASan's status, which the case
# then fails on), so it is taken out before the one-line check.
ASAN_STACK_WARNING = re.compile(r"==\d+==WARNING: ASan is ignoring requested __asan_handle_no_return:[^\n]*\n"
                                r"False positive error reports may follow\n"
                                r"For details see https://github.com/google/sanitizers/issues/189\n")


def limit_child():
    # AddressSanitizer reserves terabytes of shadow address space up front, so
    # a sanitized wsesim (the sanitizer job) cannot start under an address
    # space limit; its memory stays bounded by run.max_host_bytes.
    if os.environ.get("WSESIM_SANITIZED") != "1":
        resource.setrlimit(resource.RLIMIT_AS, (CASE_ADDRESS_SPACE, CASE_ADDRESS_SPACE))
    resource.setrlimit(resource.RLIMIT_CPU, (CASE_SECONDS, CASE_SECONDS))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _read_fifo(path):
    try:
        with open(path, "rb") as f:
            while f.read(1 << 16):
                pass
    except OSError:
        pass


def _release_fifo_reader(path):
    """A reader still waiting in open() for a writer that never came (the run
    failed first): a writer that opens and closes at once lets it go."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
    except OSError:
        pass


def run_case(wsesim, case, folder):
    os.makedirs(folder)
    if case.config_path == "run.yaml":
        text = case.text if case.text is not None else yaml.safe_dump(case.doc, sort_keys=False, allow_unicode=True).encode()
        with open(os.path.join(folder, "run.yaml"), "wb") as f:
            f.write(text)
    for make in case.setup:
        make(folder)
    command = [wsesim, "run", case.config_path]
    for key, value in case.sets.items():
        command += ["--set", f"{key}={value}"]
    command += case.args if case.args else ["--out", "result.json"]
    before = set(os.listdir(folder))
    readers = [threading.Thread(target=_read_fifo, args=(fifo,), daemon=True) for fifo in case.fifo_readers]
    for reader in readers:
        reader.start()
    start = time.monotonic()
    process = subprocess.Popen(command, cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               preexec_fn=limit_child)
    try:
        if case.signal:
            try:
                process.communicate(timeout=case.signal[1])
            except subprocess.TimeoutExpired:
                process.send_signal(case.signal[0])
        stdout, stderr = process.communicate(timeout=CASE_SECONDS)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        return "timeout", None, time.monotonic() - start
    finally:
        for fifo in case.fifo_readers:
            _release_fifo_reader(fifo)
        for reader in readers:
            reader.join(timeout=5)
    seconds = time.monotonic() - start
    problems = []
    status = process.returncode
    stderr = ASAN_STACK_WARNING.sub("", stderr.decode("utf-8", "replace"))
    interrupted = case.signal is not None and status == 128 + case.signal[0]
    if status < 0:
        problems.append(f"killed by signal {-status}")
    elif status not in EXIT_STATUSES and not interrupted:
        problems.append(f"exit status {status} is not a documented one")
    if interrupted and stderr != INTERRUPTED[status]:
        problems.append(f"interrupted, but stderr is {stderr[:500]!r}")
    left = set(os.listdir(folder)) - before
    if status == 0:
        problems += [f"success without the result {r}" for r in case.results if not _json_file(folder, r)]
        if case.stdout_json and not _json_text(stdout):
            problems.append(f"success without the result on stdout: {stdout[:200]!r}")
        problems += [f"a killed run's temporary {t} is still there" for t in case.stale
                     if os.path.exists(os.path.join(folder, t))]
    elif not interrupted:
        lines = stderr.rstrip("\n").split("\n")
        if status != 1 and (len(lines) != 1 or not lines[0].startswith("wsesim")):
            problems.append(f"stderr is not one 'wsesim...' line: {stderr[:2000]!r}")
        if not any(m and m in stderr for m in case.mentions):
            problems.append(f"stderr names none of {case.mentions!r}: {stderr[:500]!r}")
    if status != 0 and left:
        problems.append(f"files left behind after a failure: {sorted(left)}")
    if status == 0 and any(".tmp." in f or ".partial" in f for f in left):
        problems.append(f"temporary files left behind: {sorted(left)}")
    for name, test in case.nodes.items():
        try:
            mode = os.lstat(os.path.join(folder, name)).st_mode
        except OSError:
            mode = 0
        if not test(mode):
            problems.append(f"the node {name} the case made was replaced or removed (mode {mode:o})")
    for sock in getattr(case, "sockets", []):
        sock.close()
    if os.environ.get("FUZZ_SHOW"):
        print(f"  {case.base_name} {case.kinds} -> {status}: {stderr.strip()[:200]}")
    return ("clean" if not problems else "; ".join(problems)), status, seconds


def _json_file(folder, name):
    try:
        with open(os.path.join(folder, name), encoding="utf-8") as f:
            json.load(f)
        return True
    except (OSError, ValueError):
        return False


def _json_text(data):
    try:
        json.loads(data)
        return True
    except ValueError:
        return False


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
    by_kind = {}  # mutation kind -> [cases with it, non-clean ones]
    slowest = 0.0
    for index in range(cases):
        rng = random.Random(f"{seed}:{index}")
        case = build_case(rng, bases)
        folder = os.path.join(work_dir, f"case{index:04d}")
        verdict, status, seconds = run_case(wsesim, case, folder)
        slowest = max(slowest, seconds)
        statuses[status] = statuses.get(status, 0) + 1
        for kind in set(case.kinds):
            by_kind.setdefault(kind, [0, 0])[0] += 1
            by_kind[kind][1] += verdict != "clean"
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
    print("by mutation (cases / non-clean): " +
          ", ".join(f"{k} {n}/{bad}" for k, (n, bad) in sorted(by_kind.items())))
    print(f"{cases - counts['non_clean']} passed, {counts['non_clean']} failed")
    return 1 if counts["non_clean"] else 0


if __name__ == "__main__":
    sys.exit(main())
