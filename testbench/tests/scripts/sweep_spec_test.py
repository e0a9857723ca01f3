#!/usr/bin/python3
"""Spec expansion: ranges (arithmetic and geometric, float and integer,
inclusive stop), grid and zip order, point names, --set texts, and the
errors that stop a bad spec before anything runs."""
import os

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

odd = expand('axes: {arch.description: ["a/b,c=d", "123", "yes"]}')
check([p.name for p in odd] == ["arch.description=a%2Fb%2Cc%3Dd", "arch.description=%22123%22",
                                "arch.description=%22yes%22"], f"escaped names {[p.name for p in odd]}")
check(odd[1].overrides == ['arch.description="123"'], "text that YAML would read as a number is quoted")
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
]:
    try:
        expand(body)
        check(False, f"accepted a bad spec: {body}")
    except specs.SpecError as e:
        check(message in str(e), f"{body}: message {e} lacks '{message}'")

bad = ctx.sweep(ctx.write("bad.yaml", "base: missing.yaml\naxes: {workload.seed: [1]}\nmetrics: [cycles]\n"))
check_exit(bad, 2, "spec naming a missing base config")
check("missing.yaml" in bad.stderr, f"message: {bad.stderr}")
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
os.symlink("/dev/urandom", ctx.path("random.yaml"))
done = ctx.sweep(ctx.path("random.yaml"), bounded=True)
check_exit(done, 2, "a spec that is /dev/urandom")
check("cannot read the spec" in done.stderr, f"message: {done.stderr}")
print("ranges, grid and zip, names, --set texts and spec errors as documented")
