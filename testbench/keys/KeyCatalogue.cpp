#include "testbench/keys/KeyCatalogue.h"

#include <algorithm>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "hw/common/Error.h"
#include "hw/config/ArchConfig.h"
#include "hw/common/ConfigError.h"
#include "hw/config/ConfigTree.h"
#include "hw/config/RunConfig.h"
#include "testbench/registry/WorkloadTypes.h"
#include "testbench/workload/Workload.h"

namespace wsesim::keys {
namespace {

// Enough for every pair of options of today's readers (the gemm factory, the
// largest, takes about 300 runs of a millisecond); a bound, not a target.
constexpr std::size_t kMaxRunsPerType = 2000;

config::ConfigTree presetTree(const std::filesystem::path& presetDir, const std::string& preset,
                              const std::vector<std::string>& assignments) {
  config::ConfigTree tree;
  tree.set("arch.preset", preset, "wsesim keys");
  for (const std::string& a : assignments) tree.applyOverride(a);
  tree.applyPreset(presetDir);
  return tree;
}

// The specs of a reader run, cut where each reader took over.
struct ReaderRun {
  std::vector<config::KeySpec> specs;
  std::size_t archEnd = 0, runEnd = 0, typeEnd = 0;  // 0: that reader did not finish
  std::map<std::string, config::ResolvedParam> resolved;
  std::string error;  // what stopped it, if anything
};

ReaderRun readAll(const config::ConfigTree& tree, const workload::WorkloadFactory* factory) {
  ReaderRun r;
  config::ParamReader params(tree);
  params.declareInto(&r.specs);
  try {
    const config::ArchConfig arch = config::ArchConfig::read(params);
    r.archEnd = r.specs.size();
    const config::RunConfig run = config::RunConfig::read(params, arch);
    r.runEnd = r.specs.size();
    workload::readWorkloadType(params);
    r.typeEnd = r.specs.size();
    if (factory) (*factory)(params, arch, run);
  } catch (const Error& e) {  // a configuration a reader refuses; anything else is a bug and propagates
    r.error = e.what();
  }
  r.resolved = params.resolved();
  return r;
}

// What a listing may stand in for the required key that stopped run `r`,
// unset, so that the keys read after it are listed too: the smallest value
// of a number, the first of a choice, a text key's first example.
std::optional<std::pair<std::string, std::string>> standIn(const ReaderRun& r) {
  if (r.error.empty() || r.specs.empty()) return std::nullopt;
  const config::KeySpec& s = r.specs.back();
  if (s.fallback || s.optional || s.given) return std::nullopt;
  if (!s.min.empty()) return std::make_pair(s.key, s.min);
  if (!s.options.empty()) return std::make_pair(s.key, s.options.front());
  if (!s.examples.empty()) return std::make_pair(s.key, s.examples.front());
  return std::nullopt;
}

void append(KeySection& section, std::vector<config::KeySpec>::const_iterator begin,
            std::vector<config::KeySpec>::const_iterator end) {
  for (auto s = begin; s != end; ++s)
    if (std::none_of(section.keys.begin(), section.keys.end(),
                     [&](const config::KeySpec& k) { return k.key == s->key; }))
      section.keys.push_back(*s);
}

// Runs the factory with the preset alone, then (EveryOption) again with each
// other option of every choice read, and of every pair of choices (a noc
// pattern's keys need its routing mode too). A required key left unset gets a stand-in in
// every later run (train's model and batch), so the keys after it are listed.
KeySection exploreWorkload(const std::string& type, const workload::WorkloadFactory& factory,
                           const std::filesystem::path& presetDir, const std::string& preset,
                           const std::vector<std::string>& overrides, Exploration exploration) {
  KeySection section{type, {}, {}, {}};
  std::set<std::set<std::string>> tried;  // sets of "key=option" assignments queued or run
  std::deque<std::set<std::string>> queue{{}};
  std::map<std::string, std::string> standIns;
  bool finished = false;
  std::string firstError;
  for (std::size_t runs = 0; !queue.empty() && runs < kMaxRunsPerType; ++runs) {
    const std::set<std::string> extra = queue.front();
    queue.pop_front();
    std::vector<std::string> assignments = overrides;
    assignments.push_back("workload.type=" + type);
    for (const auto& [key, value] : standIns) assignments.push_back(key + "=" + value);
    assignments.insert(assignments.end(), extra.begin(), extra.end());
    const ReaderRun r = readAll(presetTree(presetDir, preset, assignments), &factory);
    if (r.typeEnd) append(section, r.specs.begin() + long(r.typeEnd), r.specs.end());
    finished = finished || r.error.empty();
    if (runs == 0) firstError = r.error;
    if (const auto s = standIn(r); s && standIns.emplace(*s).second) {
      queue.push_front(extra);  // again, with the stand-in
      continue;
    }
    if (extra.size() == 2 || exploration == Exploration::DefaultsOnly) continue;
    for (const config::KeySpec& s : r.specs) {
      if (!r.resolved.count(s.key)) continue;
      for (const std::string& option : s.options) {
        if (option == r.resolved.at(s.key).text) continue;
        std::set<std::string> next;
        for (const std::string& a : extra)
          if (a.compare(0, s.key.size() + 1, s.key + "=") != 0) next.insert(a);
        next.insert(s.key + "=" + option);
        if (tried.insert(next).second) queue.push_back(std::move(next));
      }
    }
  }
  // No run got through: the keys after the one that stopped them are missing.
  if (!finished) section.incomplete = firstError;
  for (const auto& [key, value] : standIns)
    section.standIns += (section.standIns.empty() ? "" : ", ") + key + "=" + value;
  return section;
}

}  // namespace

std::vector<KeySection> keyCatalogue(const std::filesystem::path& presetDir, const std::string& preset,
                                     const std::vector<std::string>& overrides, Exploration exploration) {
  const ReaderRun base = readAll(presetTree(presetDir, preset, overrides), nullptr);
  // The preset is the architecture: an error here is the preset's (or an override's).
  if (!base.typeEnd) throw config::ConfigError(base.error);
  std::vector<KeySection> sections(3);
  sections[0].name = "arch";
  append(sections[0], base.specs.begin(), base.specs.begin() + long(base.archEnd));
  sections[1].name = "run";
  append(sections[1], base.specs.begin() + long(base.archEnd), base.specs.begin() + long(base.runEnd));
  sections[2].name = "workload";
  append(sections[2], base.specs.begin() + long(base.runEnd), base.specs.begin() + long(base.typeEnd));
  for (const auto& [type, factory] : workload::workloadTypes())
    sections.push_back(exploreWorkload(type, factory, presetDir, preset, overrides, exploration));
  return sections;
}

}  // namespace wsesim::keys
