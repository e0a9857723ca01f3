#pragma once
// A test's machine: the `arch` and `run` sections of a configuration's
// text, read as `wsesim run` reads them (the preset chain applied), for
// tests that build chips and drive them without a workload.

#include <string>

#include "hw/config/ArchConfig.h"
#include "hw/config/ConfigTree.h"
#include "hw/config/ParamReader.h"
#include "hw/config/RunConfig.h"

namespace wsesim::testing {

struct Machine {
  config::ArchConfig arch;
  config::RunConfig run;
};

inline Machine machineFrom(const std::string& yaml) {
  config::ConfigTree tree = config::ConfigTree::fromText(yaml, "test");
  tree.applyPreset(config::defaultPresetDir());
  config::ParamReader params(tree);
  Machine m;
  m.arch = config::ArchConfig::read(params);
  m.run = config::RunConfig::read(params, m.arch);
  return m;
}

}  // namespace wsesim::testing
