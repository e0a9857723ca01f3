#pragma once
// A small mesh of PEs on the real wafer module, for PE tests: the tiny
// preset's architecture with the mechanism timing (MechanismTiming.h) and overrides, an empty color route table the
// test programs, and one simulation per test process (SystemC elaborates
// once per process).

#include <gtest/gtest.h>
#include <systemc>

#include <memory>
#include <string>
#include <vector>

#include "hw/config/ArchConfig.h"
#include "hw/config/ConfigTree.h"
#include "hw/config/ParamReader.h"
#include "hw/config/RunConfig.h"
#include "hw/fabric/ColorRouteTable.h"
#include "hw/pe/PeArray.h"
#include "hw/pe/ProgramBuilder.h"
#include "hw/pe/ProgramError.h"
#include "hw/wafer/Wafer.h"
#include "testbench/tests/MechanismTiming.h"

namespace wsesim::pe::testing {

using fabric::bit;
using fabric::Port;

struct PeTestBench {
  config::ArchConfig arch;
  config::RunConfig run;
  std::unique_ptr<fabric::ColorRouteTable> routes;
  std::unique_ptr<wafer::Wafer> wafer;
  std::unique_ptr<PeArray> pes;

  // A width x height mesh of the tiny preset; `timing`, then `overrides`, as for --set
  // (pass no timing to test the preset's own).
  explicit PeTestBench(std::uint32_t width = 4, std::uint32_t height = 1, DataMode mode = DataMode::Functional,
                       const std::vector<std::string>& overrides = {},
                       const std::vector<std::string>& timing = wsesim::testing::kMechanismTiming) {
    config::ConfigTree tree = config::ConfigTree::fromText(
        "arch:\n  preset: tiny\n  mesh: {width: " + std::to_string(width) + ", height: " + std::to_string(height) +
            "}\nrun:\n  mode: " + (mode == DataMode::Functional ? "functional" : "timing") + "\n",
        "test");
    for (const std::string& o : timing) tree.applyOverride(o);
    for (const std::string& o : overrides) tree.applyOverride(o);
    tree.applyPreset(config::defaultPresetDir());
    config::ParamReader params(tree);
    arch = config::ArchConfig::read(params);
    run = config::RunConfig::read(params, arch);
    routes = std::make_unique<fabric::ColorRouteTable>(arch.mesh, arch.fabric.colors);
    wafer = std::make_unique<wafer::Wafer>("wafer", arch, run, routes.get());
    pes = std::make_unique<PeArray>(arch.pe, run.mode, wafer->fabric(), routes.get());
    wafer->setDriver(pes.get());
    wafer->fabric().setSink(pes.get());
  }

  fabric::RouterId pe(std::uint32_t x, std::uint32_t y = 0) const { return arch.mesh.id(x, y); }

  // A color flowing east along row y from x0 (injected by its PE) to x1 (delivered to its PE).
  void routeEast(unsigned color, std::uint32_t x0, std::uint32_t x1, std::uint32_t y = 0) {
    for (std::uint32_t x = x0; x <= x1; ++x)
      routes->set(x, y, color, x == x0 ? bit(Port::Ramp) : bit(Port::West), x == x1 ? bit(Port::Ramp) : bit(Port::East));
  }

  ProgramId load(std::uint32_t x, std::uint32_t y, const ProgramBuilder& b) {
    const ProgramId id = pes->addProgram(b.build());
    pes->load(pe(x, y), id);
    return id;
  }

  // Simulates to completion; rethrows a simulation error; checks the PEs finished their work.
  void simulate() {
    sc_core::sc_start();
    wafer->rethrowError();
    pes->checkQuiescent();
  }

  std::uint64_t busy(std::uint32_t x, std::uint32_t y = 0) const { return pes->counters(pe(x, y)).busyCycles; }
};

// The message of the ProgramError `action` throws; a test failure if none.
template <class Action>
std::string programErrorOf(Action action) {
  try {
    action();
  } catch (const ProgramError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a ProgramError, none was thrown";
  return "";
}

inline void expectMentions(const std::string& text, const std::vector<std::string>& parts) {
  for (const std::string& p : parts) EXPECT_NE(text.find(p), std::string::npos) << "'" << p << "' missing from: " << text;
}

}  // namespace wsesim::pe::testing
