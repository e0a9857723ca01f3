#!/usr/bin/python3
"""Checks every #include "..." of the C++ sources against the table of
docs/README.md ("Which code may include which"): a directory of hw/ may
include its own floor and lower ones, firmware/, models/ and testbench/
what their rows name (less what follows "; not " in the row).

  scripts/check_layers.py [SOURCE_ROOT]

SOURCE_ROOT defaults to the repository this script lives in. Prints one line
per arrow the table forbids (file:line, the include, why), and one per cycle
of folders (a folder including, through others, a folder that includes it:
the folders, and for each arrow one include that makes it), which the table
alone can allow between rows that may include each other.
Exit status: 0 none, 1 some, 2 the table cannot be read."""
import os
import re
import sys

README = os.path.join("docs", "README.md")
SOURCE_SUFFIXES = (".h", ".hpp", ".cpp", ".cc")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')

class TableError(Exception):
    pass


class Row:
    def __init__(self, floor, path, may_include):
        self.floor = floor  # an int for the floors of hw/, else None
        self.path = path
        self.anything = may_include.strip().lower() == "anything"
        self.by_floor = may_include.strip().lower().startswith("its floor")
        # "`hw`, `firmware`; not `hw/config/ParamReader`": what follows "not" is
        # excepted from what precedes it.
        allowed, _, excepted = may_include.partition("; not ")
        self.allowed = re.findall(r"`([^`]+)`", allowed)
        self.excepted = re.findall(r"`([^`]+)`", excepted)
        if floor is not None and not self.by_floor:
            raise TableError(f"row {path}: a floor's row may include 'its floor and below'")
        if floor is None and not (self.anything or self.allowed):
            raise TableError(f"row {path}: 'may include' names no path and is not 'anything'")

    def name(self):
        return self.path if self.floor is None else f"{self.path} (floor {self.floor})"


def under(path, prefix):
    """Whether `path` is `prefix`, lies in the directory `prefix`, or is the
    file `prefix` with a suffix (hw/config/StrictYaml covers StrictYaml.h)."""
    return path == prefix or path.startswith(prefix + "/") or path.startswith(prefix + ".")


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def read_table(root):
    path = os.path.join(root, README)
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise TableError(f"cannot read {path}: {e.strerror}")
    for i, line in enumerate(lines):
        header = [c.lower() for c in cells(line)] if line.lstrip().startswith("|") else []
        if header[:3] == ["floor", "path", "may include"]:
            break
    else:
        raise TableError(f"{path} has no table with the columns floor | path | may include")
    rows = []
    for line in lines[i + 2:]:
        if not line.lstrip().startswith("|"):
            break
        floor, row_path, may_include = cells(line)[:3]
        row_path = row_path.strip("`").rstrip("/")
        try:
            rows.append(Row(int(floor) if floor else None, row_path, may_include))
        except ValueError:
            raise TableError(f"{path}: row {row_path}: floor '{floor}' is not a number")
    if not rows:
        raise TableError(f"{path}: the floor table has no rows")
    return rows


def row_of(path, rows, floors_only=False):
    """The row of the longest path containing `path`, or None."""
    matching = [r for r in rows if under(path, r.path) and (r.floor is not None or not floors_only)]
    return max(matching, key=lambda r: len(r.path), default=None)


def why_forbidden(source, target, rows):
    """Why `source` may not include `target`, or None if it may."""
    row = row_of(source, rows)
    if row.anything:
        return None
    if row.by_floor:
        own = row_of(source, rows, floors_only=True)
        to = row_of(target, rows, floors_only=True)
        if to is None:
            return f"{own.name()} may include its floor and below; {target} is on no floor"
        if to.floor > own.floor:
            return f"{own.name()} may include its floor and below, not {to.name()}"
        return None
    excepted = [e for e in row.excepted if under(target, e)]
    if excepted:
        return f"{row.name()} may not include {excepted[0]}"
    if any(under(target, allowed) for allowed in row.allowed):
        return None
    return f"{row.name()} may include only " + ", ".join(row.allowed)


def sources(root, rows):
    tops = sorted({r.path.split("/")[0] for r in rows})
    for top in tops:
        for folder, dirs, files in os.walk(os.path.join(root, top)):
            dirs.sort()
            for name in sorted(files):
                if name.endswith(SOURCE_SUFFIXES):
                    yield os.path.relpath(os.path.join(folder, name), root).replace(os.sep, "/")


def resolve(root, source, included):
    """The include as a path from the root: as written, or relative to the
    including file when that is where it exists."""
    beside = os.path.normpath(os.path.join(os.path.dirname(source), included)).replace(os.sep, "/")
    if not os.path.exists(os.path.join(root, included)) and os.path.exists(os.path.join(root, beside)):
        return beside
    return included


def folder_cycles(arrows):
    """Each cycle of the folder graph `arrows` ({folder: {folder: example}}),
    one per strongly connected component of more than one folder, as text."""
    index, low, stack, on_stack, components = {}, {}, [], set(), []

    def visit(v):  # Tarjan's algorithm; the graph is small, recursion is fine
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(arrows.get(v, {})):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for v in sorted(arrows):
        if v not in index:
            visit(v)
    found = []
    for component in components:
        members = set(component)
        examples = [arrows[a][b] for a in component for b in sorted(arrows.get(a, {})) if b in members]
        found.append("folder cycle: " + ", ".join(component) + " include each other (" + "; ".join(examples) + ")")
    return found


def check(root):
    rows = read_table(root)
    problems = []
    arrows = {}  # folder -> folder -> the first include that makes the arrow
    for source in sources(root, rows):
        if row_of(source, rows) is None:
            problems.append(f"{source}: no row of the table in {README} covers it")
            continue
        with open(os.path.join(root, source), encoding="utf-8", errors="replace") as f:
            for number, line in enumerate(f, 1):
                match = INCLUDE.match(line)
                if not match:
                    continue
                target = resolve(root, source, match.group(1))
                here, there = os.path.dirname(source), os.path.dirname(target)
                if here != there and os.path.exists(os.path.join(root, target)):
                    arrows.setdefault(here, {}).setdefault(there, f"{source}:{number} includes {target}")
                why = why_forbidden(source, target, rows)
                if why is None:
                    continue
                problems.append(f"{source}:{number}: includes {target}: {why}")
    return problems + folder_cycles(arrows)


def main():
    if len(sys.argv) > 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    root = sys.argv[1] if len(sys.argv) == 2 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        problems = check(root)
    except TableError as e:
        print(f"check_layers: {e}", file=sys.stderr)
        return 2
    for p in problems:
        print(p)
    if problems:
        print(f"check_layers: {len(problems)} include(s) against the table in {README} or folder cycle(s)",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
