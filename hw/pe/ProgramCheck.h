#pragma once
// Whether a program can run on a given PE: task, thread and color limits of
// the architecture, descriptors within their buffers and of the right
// element type, and routes that bring every color the program receives to
// the PE's RAMP and take every color it sends from it.

#include "hw/fabric/ColorRouteTable.h"
#include "hw/fabric/FabricParams.h"
#include "hw/pe/Isa.h"
#include "hw/pe/PeParams.h"

namespace wsesim::pe {

// Throws ProgramError naming the PE, the task, the instruction and the item.
// `fabric` gives the mesh (PE names), the colors and the routing mode.
void checkProgram(const Program& program, const PeParams& params, const fabric::FabricParams& fabric,
                  const fabric::ColorRouteTable* routes, fabric::RouterId pe);

// The colors a program receives (data tasks, fabric inputs) and sends.
struct ColorUse {
  std::uint32_t received = 0, sent = 0;
};
ColorUse colorUse(const Program& program);

// Whether the routes at `pe` deliver every received color to the RAMP and
// take every sent color from it: the only part of checkProgram that
// differs between PEs running one program.
bool routesServe(const ColorUse& use, const fabric::ColorRouteTable& routes, fabric::RouterId pe);

}  // namespace wsesim::pe
