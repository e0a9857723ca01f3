#pragma once
// What of the chip (hw/chip/WaferChip.h) a workload asks for; the rest is
// not built. Apart from the chip, so that firmware can say what its
// mappings need without seeing the concrete parts.

#include <optional>

#include "hw/wafer/IoRingEdge.h"

namespace wsesim::chip {

struct ChipParts {
  bool routes = true;  // a color route table (the fabric needs one in color routing)
  bool pes = true;     // the PE array (without it, the controller is the fabric's sink)
  std::optional<wafer::IoRingEdge> ingress;  // streams entering the mesh's West and East edges
  std::optional<wafer::IoRingEdge> egress;   // wavelets leaving the mesh there
  bool egressKeepsPayloads = false;          // the egress records payloads (functional mode)
  // The wafer a SystemC module (its time followed by the SystemC models
  // around it, VCD waveforms possible), or its cycle loop alone, which any
  // thread may run, any number of chips at once (SystemC is one kernel per
  // process, single-threaded).
  bool systemc = true;
  // Threads stepping the fabric's bands, and visiting their PEs, at once
  // (FabricKernel, PeArray): the NoC, GEMM and chain-reduce workloads'
  // chips take run.threads. A training step's chips keep one each: its
  // groups of GEMMs run on the threads, a chip each (GemmGroups).
  unsigned fabricThreads = 1;
};

}  // namespace wsesim::chip
