#!/usr/bin/python3
"""The README's two commands for a fresh Debian 12 machine: the first
(install, build, run the default job) writes its outputs inside the
ignored build folder, never untracked files in the clone; the second (build
and test) is the very command .ci/run runs. argv[1]: the repository root."""
import re
import sys

root = sys.argv[1]
with open(f"{root}/README.md", encoding="utf-8") as f:
    readme = f.read()
with open(f"{root}/.ci/run", encoding="utf-8") as f:
    ci = f.read()

quick = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
commands = re.findall(r"```sh\n(.*?)\n```", quick, re.S)
problems = []
if len(commands) != 2:
    problems.append(f"the quick start has {len(commands)} sh blocks, not the two commands")
else:
    first, second = commands
    for option, path in re.findall(r"(--out|--vcd|--map|--timeline)\s+(\S+)", first):
        if not path.startswith("build/"):
            problems.append(f"the first command writes {option} {path} into the clone, outside build/ (.gitignore)")
    if "./build/wsesim run" not in first:
        problems.append("the first command runs no job")
    if second not in ci:
        problems.append(f"the second command is not what .ci/run runs: {second!r}")
for p in problems:
    print(f"README.md: {p}", file=sys.stderr)
sys.exit(1 if problems else 0)
