#!/usr/bin/python3
"""The figures docs/exploration.md quotes from the example sweeps are what
the examples give today (issue 32), and the check would notice if not.

  example_numbers_test.py WSESIM REPO_ROOT WORK_DIR check
  example_numbers_test.py WSESIM REPO_ROOT WORK_DIR drift

check: scripts/doc_numbers.py --check reruns the cheap examples (about
3 min on 2 cores) and compares every generated block of the page with what
the runs give; it fails naming each number that differs. The sweeps stay
in WORK_DIR for a look.

drift: the same check of one cheap example (sram_energy_area, a few
seconds) with a timing key changed for the rerun
(arch.firmware.weight_stream_loop_cycles 0 -> 14, weight streaming paying
a SUMMA-like loop per op) must fail (exit 1), name the block and report
numbers the page holds as changed, and leave the page as it was.

Exits 0 on success, 1 on failure, 2 on bad usage."""
import os
import re
import subprocess
import sys

DRIFT_EXAMPLE = "sram_energy_area"
DRIFT_KEY = "arch.firmware.weight_stream_loop_cycles=14"


def doc_numbers(wsesim, repo, work, *extra):
    command = [sys.executable, os.path.join(repo, "scripts", "doc_numbers.py"), "--check",
               "--wsesim", wsesim, "--doc", os.path.join(repo, "docs", "exploration.md"),
               "--work", work] + list(extra)
    print("running:", " ".join(command), flush=True)
    proc = subprocess.run(command, capture_output=True, text=True)
    print(proc.stdout + proc.stderr, flush=True)
    return proc


def check(wsesim, repo, work):
    proc = doc_numbers(wsesim, repo, work)
    if proc.returncode != 0:
        print(f"FAIL: the page's generated numbers differ from a rerun (exit {proc.returncode}); if the "
              f"change is meant, run scripts/doc_numbers.py --update and read the text around each block")
        return 1
    return 0


def drift(wsesim, repo, work):
    doc_path = os.path.join(repo, "docs", "exploration.md")
    with open(doc_path, encoding="utf-8") as f:
        before = f.read()
    block = re.search(r"example-numbers:" + DRIFT_EXAMPLE + r":begin[^\n]*\n(.*?)<!-- example-numbers:", before, re.S)
    if not block:
        print(f"FAIL: {doc_path} has no {DRIFT_EXAMPLE} block")
        return 1
    proc = doc_numbers(wsesim, repo, work, "--only", DRIFT_EXAMPLE, "--set", DRIFT_KEY)
    failures = []
    if proc.returncode != 1:
        failures.append(f"exit {proc.returncode}, not 1 (a number differs)")
    if f"example-numbers:{DRIFT_EXAMPLE} differs" not in proc.stdout:
        failures.append(f"the output does not name the block {DRIFT_EXAMPLE}")
    # Each reported difference reads '...CONTEXT [OLD -> NEW]': some OLD must be
    # a number the page's block holds, and NEW another one.
    changed = [(old, new) for old, new in re.findall(r"^ {4}\.\.\..*\[([^\]\n]*) -> ([^\]\n]*)\]$", proc.stdout, re.M)
               if re.fullmatch(r"[\d.,]+%?", old) and old != new and old in block.group(1)]
    if not changed:
        failures.append("no number of the page's block is reported as changed")
    with open(doc_path, encoding="utf-8") as f:
        if f.read() != before:
            failures.append("--check changed the page")
    for failure in failures:
        print(f"FAIL: {DRIFT_KEY}: {failure}")
    if not failures:
        print(f"ok: with {DRIFT_KEY} the check fails naming {len(changed)} changed number(s), e.g. "
              f"{changed[0][0]} -> {changed[0][1]}")
    return 1 if failures else 0


def main():
    if len(sys.argv) != 5 or sys.argv[4] not in ("check", "drift"):
        print(__doc__, file=sys.stderr)
        return 2
    wsesim, repo, work, mode = sys.argv[1:]
    os.makedirs(work, exist_ok=True)
    return (check if mode == "check" else drift)(os.path.abspath(wsesim), os.path.abspath(repo),
                                                  os.path.abspath(work))


if __name__ == "__main__":
    sys.exit(main())
