#!/usr/bin/python3
"""The hardware facts and calibration data the repository cites are in it
(issue 32): docs/hardware-facts.md and testbench/calibration/.

  facts_in_repo_test.py REPO_ROOT

Over README.md and every source or doc file (.md .yaml .yml .h .cpp .py
.txt, CMakeLists.txt) under docs/, hw/, models/, firmware/, testbench/ and
scripts/ it checks:

  (a) no file points outside the repository: no path into the shared
      folder beside it, and no mention of the two documents that lived
      there (the facts file and the design notes) by their old names;
  (b) every citation of a fact by name, WSE-FACTS followed by a quoted
      name, optionally with one word between (PE, fabric: the section),
      names a heading or a bold label of docs/hardware-facts.md that
      contains it (in that section when the word names one); a name may
      wrap onto the next line, comment markers there are skipped;
  (c) the calibration data files exist with their header rows, every
      testbench/calibration/ path mentioned exists, and every Markdown
      link to hardware-facts.md or into testbench/calibration/ resolves
      from the file that holds it.

Prints each failure as FILE:LINE: what, and exits 1 if there is any, 2 on
bad usage; 0 otherwise. Python standard library only."""
import os
import re
import sys

SCANNED_TOP_FILES = ["README.md"]
SCANNED_DIRS = ["docs", "hw", "models", "firmware", "testbench", "scripts"]
SUFFIXES = (".md", ".yaml", ".yml", ".h", ".cpp", ".py", ".txt")
SKIPPED_DIRS = {"__pycache__", ".git"}

FACTS_DOC = os.path.join("docs", "hardware-facts.md")
CALIBRATION_FILES = {
    "summa_cs2_fp32_p32_p64.csv": "p,tile,n,hw_cycles",
    "training_cs2.csv": "model,preset,systems,global_batch,seq,samples_per_second",
}

# (a): built from pieces so that this file does not match itself.
SHARED = "sha" + "red"
OUTSIDE = re.compile(r"(?:\.\./)+" + SHARED + r"\b"
                     r"|\b" + SHARED + r"/(?:docs|calibration)\b"
                     r"|\bWSE-FACTS\.md\b"
                     r"|\bDESIGN\.md\b")

# (b): WSE-FACTS, an optional comma, an optional word, then a quoted name;
# the quotes may be escaped (a C++ string literal).
CITATION = re.compile(r"WSE-FACTS,?[ \t]+(?:([A-Za-z][\w-]*)[ \t]+)?\\?\"")
NAME_END = re.compile(r"\\?\"")
CONTINUATION_MARKERS = re.compile(r"^\s*(?://+|#+|\*+|>)?\s*")
MAX_WRAPPED_LINES = 3

CALIBRATION_PATH = re.compile(r"testbench/calibration/([\w.-]+)")
MD_LINK = re.compile(r"\]\(([^)\s]+)\)")


def normalise(text):
    """Case, backticks and runs of white space do not matter."""
    return " ".join(text.replace("`", "").split()).casefold()


def scanned_files(root):
    for name in SCANNED_TOP_FILES:
        path = os.path.join(root, name)
        if os.path.isfile(path):
            yield path
    for top in SCANNED_DIRS:
        for folder, dirs, files in os.walk(os.path.join(root, top)):
            dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not d.startswith("."))
            for name in sorted(files):
                if name.endswith(SUFFIXES) or name == "CMakeLists.txt":
                    yield os.path.join(folder, name)


def read_lines(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read().split("\n")


def facts_index(path):
    """The labels of the facts doc: every heading and bold label, with the
    level-2 section it is in. Returns [(section, label)] and the section
    headings."""
    labels, sections = [], []
    section = ""
    in_code = False
    for line in read_lines(path):
        if line.startswith("```"):
            in_code = not in_code
            continue
        if in_code:
            continue
        heading = re.match(r"^(#+)\s+(.*?)\s*$", line)
        if heading:
            if len(heading.group(1)) == 2:
                section = heading.group(2)
                sections.append(section)
            labels.append((section, heading.group(2)))
            continue
        for bold in re.finditer(r"\*\*(.+?)\*\*", line):
            labels.append((section, bold.group(1)))
    return labels, sections


def citations(lines):
    """(line number, word or None, name) of every citation in lines."""
    for i, line in enumerate(lines):
        for m in CITATION.finditer(line):
            rest, n, name = line[m.end():], i, None
            pieces = []
            while True:
                end = NAME_END.search(rest)
                if end:
                    pieces.append(rest[:end.start()])
                    name = " ".join(pieces)
                    break
                pieces.append(rest)
                n += 1
                if n >= len(lines) or n - i >= MAX_WRAPPED_LINES:
                    break
                rest = CONTINUATION_MARKERS.sub("", lines[n], count=1)
            yield i + 1, m.group(1), name


def section_for(word, sections):
    """The level-2 heading a citation's word names (PE, fabric), if any."""
    if word is None:
        return None
    pattern = re.compile(r"\b" + re.escape(word) + r"\b", re.I)
    matches = [s for s in sections if pattern.search(s)]
    return matches[0] if len(matches) == 1 else None


def main(argv):
    if len(argv) != 2 or not os.path.isdir(argv[1]):
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    root = os.path.abspath(argv[1])
    failures = []
    this = os.path.abspath(__file__)

    def fail(path, line, what):
        failures.append(f"{os.path.relpath(path, root)}:{line}: {what}")

    facts_path = os.path.join(root, FACTS_DOC)
    if not os.path.isfile(facts_path):
        fail(facts_path, 0, "missing: the hardware facts the repository cites as WSE-FACTS")
        labels, sections = [], []
    else:
        labels, sections = facts_index(facts_path)
    normalised = [(section, normalise(label)) for section, label in labels]

    # (c) the data files themselves.
    for name, header in CALIBRATION_FILES.items():
        path = os.path.join(root, "testbench", "calibration", name)
        if not os.path.isfile(path):
            fail(path, 0, "missing calibration data file")
            continue
        rows = [l for l in read_lines(path) if l.strip()]
        if not rows or not rows[0].startswith("#"):
            fail(path, 1, "expected the file's source comment ('# ...') on its first line")
        data = [l for l in rows if not l.startswith("#")]
        if not data or data[0].strip() != header:
            fail(path, 1, f"expected the header row {header!r}")
        elif len(data) < 2:
            fail(path, 1, "no data rows")

    files = cited = 0
    names = set()
    for path in scanned_files(root):
        if os.path.abspath(path) == this:
            continue
        files += 1
        lines = read_lines(path)
        is_md = path.endswith(".md")
        for i, line in enumerate(lines, 1):
            # (a)
            for m in OUTSIDE.finditer(line):
                fail(path, i, f"points outside the repository: {m.group(0)!r} "
                              f"(use docs/hardware-facts.md or testbench/calibration/)")
            # (c) paths into testbench/calibration/ and Markdown links.
            for m in CALIBRATION_PATH.finditer(line):
                target = m.group(1).rstrip(".")
                if not os.path.exists(os.path.join(root, "testbench", "calibration", target)):
                    fail(path, i, f"testbench/calibration/{target} does not exist")
            if is_md:
                for m in MD_LINK.finditer(line):
                    target = m.group(1).split("#")[0]
                    if target.endswith("hardware-facts.md") or "testbench/calibration" in target:
                        resolved = os.path.normpath(os.path.join(os.path.dirname(path), target))
                        if not os.path.exists(resolved):
                            fail(path, i, f"link {target!r} does not resolve from this file")
        # (b)
        for line, word, name in citations(lines):
            if name is None:
                fail(path, line, "WSE-FACTS citation whose quoted name does not end")
                continue
            cited += 1
            names.add(name)
            wanted = normalise(name)
            section = section_for(word, sections)
            pool = [label for s, label in normalised if section is None or s == section]
            if not any(wanted in label for label in pool):
                where = f"section {section!r} of " if section else ""
                fail(path, line, f"cites WSE-FACTS {(word + ' ') if word else ''}\"{name}\", "
                                 f"but {where}{FACTS_DOC} has no heading or bold label containing it")

    for f in failures:
        print(f)
    if failures:
        print(f"FAILED: {len(failures)} problem(s) in {files} files", file=sys.stderr)
        return 1
    print(f"ok: {files} files, {cited} WSE-FACTS citations of {len(names)} names, "
          f"{len(labels)} headings and labels in {FACTS_DOC}, "
          f"{len(CALIBRATION_FILES)} calibration files")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
