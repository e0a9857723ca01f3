#include "testbench/results/EnergyReport.h"

#include <cstdio>
#include <utility>

namespace wsesim::results {

namespace {

// The counts besides the op elements, by their name in the results.
const std::pair<const char*, double energy::ActionCounts::*> kCounts[] = {
    {"sram_read_bytes", &energy::ActionCounts::sramReadBytes},
    {"sram_write_bytes", &energy::ActionCounts::sramWriteBytes},
    {"ramp_crossings", &energy::ActionCounts::rampCrossings},
    {"hops", &energy::ActionCounts::hops},
    {"queue_pushes", &energy::ActionCounts::queuePushes},
    {"queue_reads", &energy::ActionCounts::queueReads},
    {"queue_pops", &energy::ActionCounts::queuePops},
    {"pe_active_cycles", &energy::ActionCounts::peActiveCycles},
    {"pe_idle_cycles", &energy::ActionCounts::peIdleCycles},
    {"io_ring_bytes", &energy::ActionCounts::ioRingBytes},
    {"memoryx_bytes", &energy::ActionCounts::memoryxBytes},
    {"optimizer_parameters", &energy::ActionCounts::optimizerParameters},
    {"swarmx_bytes", &energy::ActionCounts::swarmxBytes}};

// "12.3 kW", "45.6 W".
std::string watts(double w) {
  char text[32];
  std::snprintf(text, sizeof text, w >= 1e3 ? "%.4g kW" : "%.4g W", w >= 1e3 ? w / 1e3 : w);
  return text;
}

}  // namespace

nlohmann::json actionsJson(const energy::ActionCounts& a) {
  nlohmann::json json = nlohmann::json::object();
  for (unsigned p = 0; p < pe::kPrecisionCount; ++p)
    for (unsigned op = 0; op < pe::kOpcodeCount; ++op)
      json["op_elements"][pe::precisionName(pe::Precision(p))][pe::opcodeName(pe::Opcode(op))] = a.opElements[p][op];
  for (const auto& [name, member] : kCounts) json[name] = a.*member;
  return json;
}

energy::ActionCounts actionsFromJson(const nlohmann::json& json) {
  energy::ActionCounts a;
  for (unsigned p = 0; p < pe::kPrecisionCount; ++p)
    for (unsigned op = 0; op < pe::kOpcodeCount; ++op)
      a.opElements[p][op] =
          json.at("op_elements").at(pe::precisionName(pe::Precision(p))).at(pe::opcodeName(pe::Opcode(op))).get<double>();
  for (const auto& [name, member] : kCounts) a.*member = json.at(name).get<double>();
  return a;
}

nlohmann::json componentsJson(const energy::EnergyBreakdown& b) {
  return {{"compute", b.compute},   {"sram", b.sram},       {"fabric", b.fabric},
          {"pe_cycles", b.peCycles}, {"leakage", b.leakage}, {"io_ring", b.ioRing},
          {"memoryx", b.memoryx},   {"optimizer", b.optimizer}, {"swarmx", b.swarmx},
          {"system_static", b.systemStatic}};
}

nlohmann::json areaJson(const energy::AreaEstimate& a) {
  return {{"pe_mm2", {{"logic", a.logicMm2}, {"sram", a.sramMm2}, {"router", a.routerMm2}, {"tile", a.tileMm2()}}},
          {"pe_pitch_mm", a.pitchMm},
          {"physical_pes", a.physicalPes},
          {"total_mm2", a.waferMm2},
          {"usable_mm2", a.usableMm2},
          {"used_fraction", a.waferMm2 / a.usableMm2},
          {"fits", a.fits()}};
}

nlohmann::json energyResults(const energy::ActionCounts& actions, const config::ArchConfig& arch,
                             const EnergyScope& scope) {
  const energy::EnergyModel model = arch.energyModel();
  const energy::EnergyBreakdown b = model.energyOf(actions, scope.seconds, scope.systems);
  const double total = b.total();
  nlohmann::json power = nlohmann::json::object();
  const nlohmann::json components = componentsJson(b);
  for (const auto& [name, joules] : components.items())
    power[name] = scope.seconds > 0 ? joules.get<double>() / scope.seconds : 0.0;
  const double watts = scope.seconds > 0 ? total / scope.seconds : 0.0;
  nlohmann::json energy = {{"total_j", total}, {"components_j", components}};
  nlohmann::json efficiency = {{"flop_per_j", total > 0 ? scope.flops / total : 0.0}};
  if (scope.samples > 0) {
    energy["per_sample_j"] = total / scope.samples;
    efficiency["samples_per_j"] = total > 0 ? scope.samples / total : 0.0;
  }
  if (scope.tokens > 0) energy["per_token_j"] = total / scope.tokens;
  return {{"actions", actionsJson(actions)},
          {"energy", energy},
          {"power", {{"average_w", watts}, {"per_system_w", watts / scope.systems}, {"components_w", power}}},
          {"area", areaJson(model.area())},
          {"efficiency", efficiency}};
}

std::string energySummary(const nlohmann::json& r) {
  const nlohmann::json& e = r["energy"];
  const nlohmann::json& a = r["area"];
  char line[512];
  std::string out;
  char perSample[64] = "";
  if (e.contains("per_sample_j"))
    std::snprintf(perSample, sizeof perSample, " (%.4g J per sample)", e["per_sample_j"].get<double>());
  std::snprintf(line, sizeof line, "  energy    %.4g J%s, average power %s (%s per system), %.4g FLOP/J\n",
                e["total_j"].get<double>(), perSample, watts(r["power"]["average_w"].get<double>()).c_str(),
                watts(r["power"]["per_system_w"].get<double>()).c_str(), r["efficiency"]["flop_per_j"].get<double>());
  out += line;
  std::snprintf(line, sizeof line, "  area      %.4g mm^2 per PE, %.6g of %.6g mm^2 usable (arch.area.wafer_usable_mm2): %s\n",
                a["pe_mm2"]["tile"].get<double>(), a["total_mm2"].get<double>(), a["usable_mm2"].get<double>(),
                a["fits"].get<bool>() ? "fits" : "DOES NOT FIT the wafer");
  out += line;
  return out;
}

}  // namespace wsesim::results
