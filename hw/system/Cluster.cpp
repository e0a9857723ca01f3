#include "hw/system/Cluster.h"

#include <algorithm>
#include <string>

namespace wsesim::system {

Cluster::Cluster(sc_core::sc_module_name name, const ClusterSpec& spec, ModelWeights model,
                 const OptimizerModel& optimizer, const sc_core::sc_event* trigger,
                 std::function<ClusterWork()> prepare)
    : sc_core::sc_module(name),
      memoryx("memoryx", spec.memoryx, std::move(model), optimizer),
      swarmx("swarmx", spec.swarmx, spec.systems, false),
      systems("system", spec.systems,
              [&spec](const char* n, std::size_t) { return new CsSystem(n, spec.io, spec.meshRows); }),
      trigger_(trigger),
      prepare_(std::move(prepare)) {
  memoryx.weights_out.bind(swarmx.from_memoryx);
  swarmx.to_memoryx.bind(memoryx.gradients_in);
  swarmx.activations_to_memoryx.bind(memoryx.activations_in);
  for (CsSystem& s : systems) {
    swarmx.to_systems.bind(s.weights_in);
    s.gradients_out.bind(swarmx.from_systems);
    s.activations.bind(swarmx.activations_from_systems);
  }
  SC_THREAD(run);
}

void Cluster::run() {
  if (trigger_) wait(*trigger_);
  began_ = sc_core::sc_time_stamp();
  ClusterWork work = prepare_();
  if (work.wafers.size() != 1 && work.wafers.size() != systems.size())
    SC_REPORT_ERROR(name(), ("the cluster needs one wafer's work for all systems or one per system (" +
                             std::to_string(systems.size()) + "), was given " + std::to_string(work.wafers.size()))
                                .c_str());
  for (std::size_t i = 0; i < systems.size(); ++i)
    systems[i].setWork(work.wafers.size() == 1 ? work.wafers[0] : std::move(work.wafers[i]), began_);
  memoryx.startStreaming(std::move(work.schedule));
}

sc_core::sc_time Cluster::finished() const {
  sc_core::sc_time end = began_;
  for (const CsSystem& s : systems) end = std::max(end, s.waferFree());
  for (const OptimizerUpdate& u : memoryx.updates()) end = std::max(end, u.end);
  return end;
}

}  // namespace wsesim::system
