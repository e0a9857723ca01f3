#include "testbench/results/ResultDocument.h"

#include "testbench/results/HostStats.h"

namespace wsesim::results {

nlohmann::json resolvedConfigJson(const config::ParamReader& params) {
  nlohmann::json root = nlohmann::json::object();
  for (const auto& [key, param] : params.resolved()) {
    std::string pointer;
    for (char ch : key) pointer += ch == '.' ? '/' : ch;
    nlohmann::json& slot = root[nlohmann::json::json_pointer("/" + pointer)];
    switch (param.kind) {
      case config::ResolvedParam::Kind::Integer: slot = std::stoll(param.text); break;
      case config::ResolvedParam::Kind::Real: slot = std::stod(param.text); break;
      case config::ResolvedParam::Kind::Flag: slot = param.text == "true"; break;
      case config::ResolvedParam::Kind::Text: slot = param.text; break;
    }
  }
  return root;
}

nlohmann::json resultDocument(const config::ParamReader& params, const config::ArchConfig& arch,
                              const RunMeasurements& measured, nlohmann::json workload) {
  nlohmann::json doc;
  doc["wsesim_version"] = WSESIM_VERSION;
  doc["config"] = resolvedConfigJson(params);
  doc["cycles"] = measured.cycles;
  doc["simulated_seconds"] = double(measured.cycles) * arch.secondsPerCycle();
  doc["host"] = {{"wall_seconds", measured.wallSeconds},
                 {"peak_rss_bytes", peakRssBytes()},
                 {"planned_bytes", measured.plannedHostBytes}};
  doc["workload"] = std::move(workload);
  return doc;
}

}  // namespace wsesim::results
