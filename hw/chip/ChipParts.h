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
  // Threads stepping the fabric's bands at once (FabricKernel): the NoC
  // workload's chip takes run.threads. A chip with PEs keeps one: its PE
  // array's cycle runs on one thread between the fabric's passes, and a
  // GEMM on 64 x 64 PEs ran 0.68x as fast with the fabric on two.
  unsigned fabricThreads = 1;
};

}  // namespace wsesim::chip
