#!/usr/bin/python3
"""Spec expansion: ranges (arithmetic and geometric, float and integer,
inclusive stop), grid and zip order, point names, --set texts, and the
errors that stop a bad spec before anything runs."""
import os
import subprocess

from sweep_testlib import Context, check, check_exit

ctx = Context()
from wsesweep import spec as specs  # noqa: E402  (Context puts scripts/ on the path)

ctx.tiny_base()


def expand(body):
    path = ctx.write("spec.yaml", "base: base.yaml\nmetrics: [cycles]\n" + body)
    return specs.expand_points(specs.load_spec(path))


def values(body, key):
    return [p.values[key] for p in expand(body)]


rate = "workload.injection_rate"
check(values(f"axes: {{{rate}: {{start: 0.1, stop: 0.3, step: 0.1}}}}", rate) == [0.1, 0.2, 0.3],
      "float range must include its stop and read 0.3, not 0.30000000000000004")
check(values("axes: {arch.mesh.width: {start: 4, stop: 10, step: 3}}", "arch.mesh.width") == [4, 7, 10],
      "integer range")
check(values("axes: {arch.pe.sram_bytes: {start: 16384, stop: 65536, factor: 2}}", "arch.pe.sram_bytes")
      == [16384, 32768, 65536], "geometric range")

grid = expand(f"axes: {{{rate}: [0.01, 0.02], workload.pattern: [transpose, uniform_random]}}")
check([tuple(p.values.values()) for p in grid] ==
      [(0.01, "transpose"), (0.01, "uniform_random"), (0.02, "transpose"), (0.02, "uniform_random")],
      "grid order: first axis slowest")
zipped = expand(f"mode: zip\nset: {{workload.seed: 7}}\naxes: {{{rate}: [0.01, 0.02], arch.fabric.queue_depth: [2, 4]}}")
check([p.name for p in zipped] == ["workload.injection_rate=0.01,arch.fabric.queue_depth=2",
                                   "workload.injection_rate=0.02,arch.fabric.queue_depth=4"], "zip names")
check(zipped[1].overrides == ["workload.seed=7", "workload.injection_rate=0.02", "arch.fabric.queue_depth=4"],
      f"--set texts {zipped[1].overrides}")

odd = expand('axes: {arch.description: ["a/b,c=d", "yes", "[x"]}')
check([p.name for p in odd] == ["arch.description=a%2Fb%2Cc%3Dd", "arch.description=%22yes%22",
                                "arch.description=%22%5Bx%22"], f"escaped names {[p.name for p in odd]}")
check(odd[1].overrides == ['arch.description="yes"'], "text that YAML 1.1 would read as a boolean is quoted")

# Issue 29, item 9: numbers as wsesim reads them. PyYAML read 010 as octal 8
# (wsesim: 10) and 1e15 as text; '1', 1 and 1.0 were three points of one run.
check(values("axes: {workload.seed: [010, 1e15, 0x10, '7', 2.0, 1_000, 1:30, yes]}", "workload.seed")
      == [10, 10 ** 15, 16, 7, 2, "1_000", "1:30", "yes"], "YAML numbers as wsesim reads them")
check(expand("axes: {workload.seed: [010]}")[0].overrides == ["workload.seed=10"], "--set text of 010")
check(values("axes: {workload.seed: {start: 1e3, stop: 1e5, factor: 10}}", "workload.seed") == [1000, 10000, 100000],
      "a range in 1e3 notation")
check(expand("set: {workload.seed: '3'}\naxes: {run.mode: [timing]}")[0].overrides
      == ["workload.seed=3", "run.mode=timing"], "fixed values normalised too")
long_name = expand("axes: {arch.description: [" + "x" * 300 + "]}")[0].name
check(len(long_name) <= 200 and long_name.startswith("arch.description=xxx"), "long names are shortened")

for body, message in [
    ("axes: {workload.seed: {start: 5, stop: 1, step: 1}}", "below start"),
    ("axes: {workload.seed: {start: 1, stop: 5}}", "{start, stop, step}"),
    ("mode: zip\naxes: {workload.seed: [1, 2], workload.injection_rate: [0.1]}", "equal lengths"),
    ("axes: {seed: [1]}", "not a dotted config key"),
    ("axes: {workload.seed: [1, 1]}", "appears twice"),
    ("set: {workload.seed: 1}\naxes: {workload.seed: [2]}", "both in 'set' and in 'axes'"),
    ("axes: {workload.seed: [1]}\nplots: [{name: p, x: workload.seed, y: latency}]", "not among the metrics"),
    ("axis: {workload.seed: [1]}", "unknown spec key"),
    # Item 9: these were Python tracebacks, or silently kept the last key.
    ("axes: {workload.seed: [1, 1.0, '1']}", "appears twice"),
    ("axes: {workload.seed: {start: 1, stop: .inf, step: 1}}", "must be finite numbers"),
    ("axes: {workload.injection_rate: {start: .nan, stop: 1, step: 0.1}}", "must be finite numbers"),
    ("axes: {workload.seed: {start: 0, stop: 1e300, step: 1}}", "more than the 100000 a sweep may have"),
    ("axes: {workload.seed: {start: 1, stop: 1e300, factor: 1.0001}}", "more than the 100000"),
    ("axes: {workload.seed: {start: 0, stop: 999, step: 1}, run.max_cycles: {start: 0, stop: 999, step: 1}}",
     "the axes make 1000000 points"),
    ("axes: {workload.seed: [1]}\naxes: {workload.seed: [2]}", "key 'axes' is given twice (lines 3 and 4)"),
    ("axes: {workload.seed: [1], workload.seed: [2]}", "key 'workload.seed' is given twice"),
    ("axes: {workload.seed: [1]}\nplots: [{name: ../../evil, x: workload.seed, y: cycles}]", "plot name '../../evil'"),
    ("axes: {workload.seed: [1]}\nplots: [{name: .hidden, x: workload.seed, y: cycles}]", "plot name '.hidden'"),
    ("axes: {workload.seed: [{a: 1}]}", "values are numbers, booleans or text"),
    ("axes: &a {workload.seed: *a}", "a range is"),
]:
    try:
        expand(body)
        check(False, f"accepted a bad spec: {body}")
    except specs.SpecError as e:
        check(message in str(e), f"{body}: message {e} lacks '{message}'")

bad = ctx.sweep(ctx.write("bad.yaml", "base: missing.yaml\naxes: {workload.seed: [1]}\nmetrics: [cycles]\n"))
check_exit(bad, 2, "spec naming a missing base config")
check("missing.yaml" in bad.stderr, f"message: {bad.stderr}")
# Item 9: a file as --out, a damaged sweep.json: 'sweep: ...' and exit 2, no traceback.
good = ctx.write("good.yaml", "base: base.yaml\naxes: {workload.seed: [1]}\nmetrics: [cycles]\n")
ctx.write("a-file", "")
os.makedirs(ctx.path("damaged"))
for out, plan, message in [("a-file", None, "--out " + ctx.path("a-file") + " is not a folder"),
                           ("damaged", "{broken", "sweep.json is damaged"),
                           ("damaged", "[1, 2]", "sweep.json is not a sweep plan")]:
    if plan is not None:
        ctx.write(os.path.join(out, "sweep.json"), plan)
    for extra in ([], ["--aggregate"]):
        done = ctx.sweep(good, "--out", ctx.path(out), *extra)
        check_exit(done, 2, f"--out {out} {extra}")
        check(message in done.stderr and done.stderr.startswith("sweep: ") and "Traceback" not in done.stderr,
              f"--out {out} {extra}: message {done.stderr!r} lacks '{message}'")

# Issue 29, item 6: a base config of /dev/zero took the sweep to 24 GB and
# the kernel's OOM killer. Files read whole are regular files or pipes of at
# most 16 MiB, as wsesim's.
big = ctx.write("big.yaml", "")
os.truncate(big, 17 << 20)
for base, message in [("/dev/zero", "cannot read the base config of"), ("/dev/zero", "not a regular file or a pipe"),
                      ("big.yaml", "17825792 bytes, more than the 16 MiB allowed"), (".", "it is a directory")]:
    spec = ctx.write("device.yaml", f"base: {base}\naxes: {{workload.seed: [1]}}\nmetrics: [cycles]\n")
    done = ctx.sweep(spec, bounded=True)
    check_exit(done, 2, f"base: {base}")
    check(message in done.stderr and done.stderr.startswith("sweep: ") and done.stderr.count("\n") == 1,
          f"base: {base}: message {done.stderr!r} lacks '{message}'")
# A base config in a FIFO is read from its writer, however late it comes.
os.mkfifo(ctx.path("fifo.yaml"))
writer = subprocess.Popen(["sh", "-c", f"sleep 0.3; cat {ctx.path('base.yaml')} > {ctx.path('fifo.yaml')}"])
check(specs.load_spec(ctx.write("fifo-spec.yaml", "base: fifo.yaml\naxes: {workload.seed: [1]}\nmetrics: [cycles]\n"))
      .base_text == open(ctx.path("base.yaml")).read(), "a base config from a FIFO")
writer.wait()
os.symlink("/dev/urandom", ctx.path("random.yaml"))
done = ctx.sweep(ctx.path("random.yaml"), bounded=True)
check_exit(done, 2, "a spec that is /dev/urandom")
check("cannot read the spec" in done.stderr, f"message: {done.stderr}")
print("ranges, grid and zip, names, --set texts and spec errors as documented")
