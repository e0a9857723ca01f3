#!/usr/bin/python3
"""Regenerates the key tables of docs/configuration.md from the binary, or
checks that they are current.

  scripts/gen_config_docs.py [--wsesim PATH] [--doc PATH]          rewrite the tables in place
  scripts/gen_config_docs.py --check [--wsesim PATH] [--doc PATH]  exit 1, naming each key that differs

The tables are the output of `wsesim keys --format markdown`, one region per
section between `<!-- BEGIN wsesim keys: NAME ... -->` and
`<!-- END wsesim keys: NAME -->`; the prose around them is left alone.
The train workload's keys after workload.model are read for a model, so
the binary is run with one from the zoo (WSE-2 preset, gpt3-xl).

Exit status: 0 done (or current), 1 stale (--check), 2 usage or a doc
without the regions the binary writes."""
import argparse
import os
import re
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KEYS_ARGS = ["keys", "--format", "markdown", "--preset", "wse2", "--set", "workload.model=gpt3-xl"]
REGION = re.compile(r"<!-- BEGIN wsesim keys: (\S+) .*?-->\n.*?<!-- END wsesim keys: \1 -->\n", re.S)


def regions(text):
    return {m.group(1): m for m in REGION.finditer(text)}


def rows(region_text):
    """key -> table row, for the rows of one region."""
    out = {}
    for line in region_text.splitlines():
        m = re.match(r"\| `([^`]+)` \|", line)
        if m:
            out[m.group(1)] = line
    return out


def differences(name, doc_region, binary_region):
    doc, binary = rows(doc_region), rows(binary_region)
    found = []
    for key in binary:
        if key not in doc:
            found.append(f"{name}: {key} is read by the binary but missing from the doc")
        elif doc[key] != binary[key]:
            found.append(f"{name}: {key} differs\n    doc:    {doc[key]}\n    binary: {binary[key]}")
    for key in doc:
        if key not in binary:
            found.append(f"{name}: {key} is in the doc but the binary reads no such key")
    if not found and doc_region != binary_region:
        found.append(f"{name}: the region's header or row order differs")
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wsesim", default=os.path.join(REPO, "build", "wsesim"))
    parser.add_argument("--doc", default=os.path.join(REPO, "docs", "configuration.md"))
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()

    generated = subprocess.run([args.wsesim] + KEYS_ARGS, check=True, capture_output=True, text=True).stdout
    with open(args.doc, encoding="utf-8") as f:
        doc = f.read()
    wanted, present = regions(generated), regions(doc)
    missing = [name for name in wanted if name not in present]
    if missing:
        print(f"{args.doc}: no region for {', '.join(missing)}: add an empty "
              f"'<!-- BEGIN wsesim keys: NAME -->' / '<!-- END wsesim keys: NAME -->' pair where each table goes",
              file=sys.stderr)
        return 2
    stale = [name for name in present if name not in wanted]
    found = [f"{name}: the binary has no such section" for name in stale]
    for name, m in wanted.items():
        found += differences(name, present[name].group(0), m.group(0))

    if args.check:
        if found:
            print(f"{args.doc} is stale (regenerate with scripts/gen_config_docs.py):\n  " + "\n  ".join(found),
                  file=sys.stderr)
            return 1
        return 0
    if stale:
        print("\n".join(found), file=sys.stderr)
        return 2
    for name in sorted(wanted, key=lambda n: present[n].start(), reverse=True):
        doc = doc[:present[name].start()] + wanted[name].group(0) + doc[present[name].end():]
    with open(args.doc, "w", encoding="utf-8") as f:
        f.write(doc)
    print(f"{args.doc}: {len(found)} change(s)" + ("".join("\n  " + f.splitlines()[0] for f in found)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
