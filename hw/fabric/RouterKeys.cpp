#include "hw/fabric/RouterKeys.h"

namespace wsesim::fabric {

const common::KeyTable<RouterParams>& routerKeys() {
  using Key = common::Key<RouterParams>;
  static const common::KeyTable<RouterParams> keys = {"arch.fabric.", {
      // The per-port color bitmasks of the kernel hold 32 colors, i.e. 5 bits.
      Key::integer("color_bits", 1, 5, [](RouterParams& p, std::int64_t v) { p.colorBits = unsigned(v); },
       "width of the color field (kernel bitmasks hold 32 colors); also the width of the VCD color signals"),
      Key::integer("colors", 1, 32, [](RouterParams& p, std::int64_t v) { p.colors = unsigned(v); },
                   "routable colors, i.e. queues per input port")
          .boundedBy(
              "color_bits", [](std::int64_t bits) { return std::int64_t(1) << bits; },
              [](std::int64_t bits) {
                return "the " + std::to_string(bits) + "-bit color field of arch.fabric.color_bits holds " +
                       std::to_string(std::int64_t(1) << bits) + " colors";
              }),
      // Queue counts are 8-bit.
      Key::integer("queue_depth", 1, 255, [](RouterParams& p, std::int64_t v) { p.queueDepth = unsigned(v); },
       "wavelets per (input port, color) queue; full link rate needs `>= hop_latency_cycles + 1`"),
      Key::integer("hop_latency_cycles", 1, 1024, [](RouterParams& p, std::int64_t v) { p.hopLatencyCycles = unsigned(v); },
       "cycles from a router forwarding a wavelet to it being ready at the next"),
      Key::integer("ramp_latency_cycles", 0, 1024, [](RouterParams& p, std::int64_t v) { p.rampLatencyCycles = unsigned(v); },
       "cycles on the ramp, paid once at injection and once at delivery"),
      Key::integer("route_switch_cycles", 0, 1 << 20, [](RouterParams& p, std::int64_t v) { p.routeSwitchCycles = unsigned(v); },
       "cycles a mapping's next phase waits when it reprograms routes (SUMMA's broadcast roots, the weight "
       "gradient's passes)"),
      Key::choice("routing", routingNames, [](RouterParams& p, const std::string& v) { p.routing = routingModeOf(v); },
       "static per-color routes, or address-routed packet mode (fabric-model.md)"),
      Key::choice("arbitration", arbitrationNames,
       [](RouterParams& p, const std::string& v) { p.arbitration = arbitrationModeOf(v); },
       "which contender an output grants: round-robin over (input port, color) pairs, or fixed priority N, E, S, W, "
       "RAMP then the lowest color, which starves the later inputs under load (fabric-model.md)"),
  }, {}};
  return keys;
}

}  // namespace wsesim::fabric
