#pragma once
// Every configuration key the binary reads, as its readers declare them:
// ArchConfig and RunConfig, and the factory of every workload type, run on a
// configuration that holds only a preset (ParamReader::declareInto). What a
// factory reads only for some choices (a pattern's keys, memoryx's
// optimizer) is found by running it again with each other option of every
// choice it read, until no new option turns up.

#include <filesystem>
#include <string>
#include <vector>

#include "hw/config/ParamReader.h"

namespace wsesim::keys {

struct KeySection {
  std::string name;                    // "arch", "run", "workload", or a workload type
  std::vector<config::KeySpec> keys;   // in the order first read
  // Empty, or why no run of the reader got to its end (keys it reads after
  // that point are missing): e.g. a required key the preset cannot supply.
  std::string incomplete;
  // Empty, or the values stood in for required keys left unset to list the
  // keys after them ("workload.model=bert-large, ..."): ranges and defaults
  // read after them may be those values'.
  std::string standIns;
};

// How far the workload readers are explored: with each other option of
// every choice (every key, `wsesim keys`), or only as configured (the keys
// a run reads with its defaults, a fraction of the time: the hint for an
// unknown key).
enum class Exploration { EveryOption, DefaultsOnly };

// `overrides` ("dotted.key=value", as --set) steer the readers, e.g. to a
// model for the train workload's keys after workload.model; a default is
// only ever the reader's own or the preset's.
std::vector<KeySection> keyCatalogue(const std::filesystem::path& presetDir, const std::string& preset,
                                     const std::vector<std::string>& overrides,
                                     Exploration exploration = Exploration::EveryOption);

}  // namespace wsesim::keys
