#!/usr/bin/python3
"""A local sweep gives each running point its share of the cores, so that
points whose wsesim uses every core it may (run.threads' default) do not
oversubscribe the host: at --jobs J on C cores each point's process may run
on C / J of them (at least one), at --jobs 1 on all. The wsesim here is a
wrapper that logs the cores its process may use, then runs the real one;
each line in one write, so that points running at once cannot interleave
theirs (print() writes the number and the newline apart when
PYTHONUNBUFFERED is set, which made this test fail now and then)."""
import os
import stat

from sweep_testlib import SKIP, Context, check, check_exit

ctx = Context()
cores = sorted(os.sched_getaffinity(0))
if len(cores) < 2:
    print("one core: nothing to share")
    raise SystemExit(SKIP)
log = ctx.path("affinity.log")
wrapper = ctx.write("wsesim", f"""#!/bin/sh
if [ "$1" = run ]; then
  /usr/bin/python3 -c 'import os; os.write(1, b"%d\\n" % len(os.sched_getaffinity(0)))' >> {log}
fi
exec {ctx.wsesim} "$@"
""")
os.chmod(wrapper, os.stat(wrapper).st_mode | stat.S_IXUSR)
ctx.tiny_base(measure_cycles=200)
spec = ctx.write("cores.yaml", """\
base: base.yaml
axes:
  workload.injection_rate: [0.01, 0.02, 0.03, 0.04]
metrics: [workload.latency_avg]
""")


def sweep_logs(jobs, out):
    if os.path.exists(log):
        os.unlink(log)
    ran = ctx.script("sweep.py", spec, "--wsesim", wrapper, "--out", ctx.path(out), "--jobs", str(jobs))
    check_exit(ran, 0, f"sweep at --jobs {jobs}")
    with open(log) as f:
        return [int(line) for line in f]


shares = sweep_logs(len(cores), "all_jobs")
check(shares == [1] * 4, f"--jobs {len(cores)} on {len(cores)} cores: each point should have 1 core, got {shares}")
shares = sweep_logs(1, "one_job")
check(shares == [len(cores)] * 4, f"--jobs 1: each point should have all {len(cores)} cores, got {shares}")
print("ok")
