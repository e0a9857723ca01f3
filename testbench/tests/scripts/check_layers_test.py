#!/usr/bin/python3
"""scripts/check_layers.py on small trees planted in WORK_DIR, each with the
real table of docs/README.md: a tree that keeps the table passes, and every
kind of arrow the table forbids fails with the file, the line and why.

  check_layers_test.py CHECK_LAYERS_PY README_MD WORK_DIR
"""
import os
import shutil
import subprocess
import sys

if len(sys.argv) != 4:
    sys.exit(__doc__.strip())
CHECKER, README, WORK = (os.path.abspath(a) for a in sys.argv[1:])
shutil.rmtree(WORK, ignore_errors=True)


def check(condition, message):
    if not condition:
        sys.exit("FAIL: " + message)


def plant(name, files, readme=True):
    """A tree under WORK/name: `files` maps paths to their include lines."""
    root = os.path.join(WORK, name)
    os.makedirs(os.path.join(root, "docs"))
    if readme:
        shutil.copy(README, os.path.join(root, "docs", "README.md"))
    for path, includes in files.items():
        os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
        with open(os.path.join(root, path), "w", encoding="utf-8") as f:
            f.write("#pragma once\n#include <vector>\n" + "".join(f'#include "{i}"\n' for i in includes))
    return root


def run(root):
    r = subprocess.run([sys.executable, CHECKER, root], capture_output=True, text=True)
    return r.returncode, r.stdout


# Downward arrows, firmware on hw, models on the YAML leaf, testbench on anything.
LEGAL = {
    "hw/fabric/Port.h": [],
    "hw/sim/CycleDriver.h": ["hw/fabric/Port.h"],
    "hw/pe/PeArray.h": ["hw/sim/CycleDriver.h", "hw/fabric/Port.h", "hw/pe/Isa.h"],
    "hw/pe/Isa.h": [],
    "hw/config/ArchConfig.h": ["hw/pe/PeArray.h", "hw/config/StrictYaml.h"],
    "hw/config/StrictYaml.h": [],
    "hw/trace/Tracer.cpp": ["hw/wafer/Wafer.h", "hw/config/ArchConfig.h"],
    "hw/wafer/Wafer.h": ["hw/pe/PeArray.h"],
    "firmware/gemm/Plan.cpp": ["hw/config/ArchConfig.h", "firmware/gemm/Plan.h"],
    "firmware/gemm/Plan.h": [],
    "models/Zoo.cpp": ["hw/config/StrictYaml.h", "models/Zoo.h"],
    "models/Zoo.h": [],
    "testbench/cli/Main.cpp": ["models/Zoo.h", "firmware/gemm/Plan.h", "hw/trace/Tracer.cpp"],
    # The runtime runs the mappings and sees the PEs through their interface.
    "firmware/runtime/Phases.h": ["firmware/gemm/Plan.h", "hw/pe/PeGrid.h"],
    "hw/pe/PeGrid.h": [],
    "hw/chip/ChipParts.h": [],
    # A workload uses the shared base and results; the registry above names every workload.
    "testbench/workload/Workload.h": ["firmware/runtime/Phases.h", "testbench/results/Doc.h"],
    "testbench/results/Doc.h": ["hw/config/ArchConfig.h"],
    "testbench/gemm/GemmWorkload.h": ["testbench/workload/Workload.h", "hw/chip/ChipParts.h", "models/Zoo.h"],
    "testbench/train/TrainWorkload.h": ["testbench/workload/Workload.h", "firmware/gemm/Plan.h"],
    "testbench/registry/Types.cpp": ["testbench/gemm/GemmWorkload.h", "testbench/train/TrainWorkload.h"],
}
status, out = run(plant("legal", LEGAL))
check(status == 0 and out == "", f"a tree that keeps the table: status {status}, output:\n{out}")

# One forbidden arrow of each kind, each with the line it is on.
FORBIDDEN = {
    "hw/pe/Late.h": (["hw/fabric/Port.h", "hw/wafer/Wafer.h"], 4,
                     "hw/pe (floor 3) may include its floor and below, not hw/wafer (floor 5)"),
    "hw/energy/Reads.cpp": (["hw/config/ArchConfig.h"], 3,
                            "hw/energy (floor 4) may include its floor and below, not hw/config (floor 7)"),
    "hw/config/StrictYaml.cpp": (["hw/config/StrictYaml.h", "hw/config/ArchConfig.h"], 4,
                                 "hw/config/StrictYaml may include only hw/config/StrictYaml, hw/common"),
    "hw/fabric/Up.h": (["firmware/gemm/Plan.h"], 3,
                       "hw/fabric (floor 1) may include its floor and below; firmware/gemm/Plan.h is on no floor"),
    "firmware/gemm/Run.cpp": (["testbench/cli/Main.cpp"], 3, "firmware/gemm may include only hw, firmware"),
    "firmware/gemm/Keys.cpp": (["hw/config/ArchConfig.h", "hw/config/ParamReader.h"], 4,
                               "firmware/gemm may not include hw/config/ParamReader"),
    # Last round's fixes, kept: the mappings below the runtime, firmware
    # off the concrete PE array, the edges' implementations and the chip,
    # workloads as siblings, the shared base naming no workload.
    "firmware/gemm/Runs.cpp": (["firmware/gemm/Plan.h", "firmware/runtime/Phases.h"], 4,
                               "firmware/gemm may not include firmware/runtime"),
    "firmware/runtime/Pes.cpp": (["hw/pe/PeArray.h"], 3, "firmware may not include hw/pe/PeArray"),
    "firmware/runtime/Ring.cpp": (["hw/wafer/EdgeInjector.h"], 3, "firmware may not include hw/wafer/EdgeInjector"),
    "firmware/kernels/Out.cpp": (["hw/wafer/EdgeCollector.h"], 3, "firmware may not include hw/wafer/EdgeCollector"),
    "firmware/runtime/Chip.h": (["hw/chip/ChipParts.h"], 3, "firmware may not include hw/chip"),
    "testbench/train/UsesGemm.cpp": (["testbench/gemm/GemmWorkload.h"], 3,
                                     "testbench/train may include only hw, firmware, models, testbench/train, "
                                     "testbench/workload, testbench/results"),
    "testbench/workload/Names.cpp": (["testbench/noc/NocWorkload.h"], 3,
                                     "testbench/workload may include only hw, firmware, models, testbench/workload, "
                                     "testbench/results"),
    "models/Step.cpp": (["hw/config/ArchConfig.h"], 3,
                        "models may include only models, hw/common, hw/config/StrictYaml"),
}
files = dict(LEGAL)
files.update({path: includes for path, (includes, _, _) in FORBIDDEN.items()})
files["hw/newfloor/X.h"] = []
status, out = run(plant("forbidden", files))
check(status == 1, f"forbidden arrows: status {status}, expected 1; output:\n{out}")
lines = out.splitlines()
for path, (includes, line, why) in FORBIDDEN.items():
    expected = f"{path}:{line}: includes {includes[-1]}: {why}"
    check(expected in lines, f"expected the line\n  {expected}\nin:\n{out}")
check("hw/newfloor/X.h: no row of the table in docs/README.md covers it" in lines, f"unknown directory:\n{out}")
arrows = [l for l in lines if not l.startswith("folder cycle: ")]  # gemm<->runtime above is one too
check(len(arrows) == len(FORBIDDEN) + 1, f"only the planted arrows, got:\n{out}")

# Two folders each row allows to include the other still may not form a
# cycle (last round's registry fixes): the checker names the folders and an
# include for each arrow.
CYCLE = {
    "firmware/kernels/A.h": ["firmware/routes/B.h"],
    "firmware/routes/B.h": [],
    "firmware/routes/C.h": ["firmware/kernels/D.h"],
    "firmware/kernels/D.h": [],
}
status, out = run(plant("cycle", CYCLE))
expected = ("folder cycle: firmware/kernels, firmware/routes include each other (firmware/kernels/A.h:3 includes "
            "firmware/routes/B.h; firmware/routes/C.h:3 includes firmware/kernels/D.h)")
check(status == 1 and out.splitlines() == [expected], f"a folder cycle: status {status}, expected\n  {expected}\ngot:\n{out}")

# An include written relative to the file is the file it names.
status, out = run(plant("relative", {"hw/pe/Isa.h": [], "hw/wafer/Wafer.h": [], "hw/pe/Rel.h": ["../wafer/Wafer.h"]}))
check(status == 1 and "hw/pe/Rel.h:3: includes hw/wafer/Wafer.h:" in out, f"relative include:\n{out}")

# Without the table there is nothing to check against: status 2.
status, out = run(plant("no_table", {"hw/pe/Isa.h": []}, readme=False))
check(status == 2, f"no docs/README.md: status {status}, expected 2")

print("check_layers: legal tree passes; pe->wafer, energy->config, the YAML leaf, hw->firmware, "
      "firmware->testbench, firmware->ParamReader, models->config, gemm->runtime, firmware->PeArray, the edges' "
      "implementations and hw/chip, train->gemm, workload->noc, an unknown directory, a relative include and a "
      "folder cycle behave as the table says")
