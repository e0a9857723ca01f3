#pragma once
// Whether a program can run on a given PE: task, thread and color limits of
// the architecture, descriptors within their buffers and of the right
// element type, and routes that bring every color the program receives to
// the PE's RAMP and take every color it sends from it.

#include "hw/config/ArchConfig.h"
#include "hw/fabric/ColorRouteTable.h"
#include "hw/pe/Isa.h"

namespace wsesim::pe {

// Throws ProgramError naming the PE, the task, the instruction and the item.
void checkProgram(const Program& program, const config::ArchConfig& arch, const fabric::ColorRouteTable* routes,
                  fabric::RouterId pe);

}  // namespace wsesim::pe
