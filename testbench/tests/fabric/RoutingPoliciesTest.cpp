// The routing policy list: arch.fabric.routing's values and its error come
// from the list, and every policy in it moves a wavelet whose address and
// color route agree along the minimal path at the hand-derived cycle. The
// cases enumerate the list, so a new policy is covered without a new test.

#include <gtest/gtest.h>

#include <string>

#include "hw/config/ArchConfig.h"
#include "hw/common/ConfigError.h"
#include "hw/config/ConfigTree.h"
#include "hw/config/ParamReader.h"
#include "hw/fabric/RoutingPolicies.h"
#include "testbench/tests/fabric/FabricTestSupport.h"

namespace wsesim::fabric {
namespace {

using namespace testsupport;

config::ArchConfig tinyArchRouting(const std::string& routing) {
  config::ConfigTree tree =
      config::ConfigTree::fromText("arch:\n  preset: tiny\n  fabric:\n    routing: " + routing + "\n", "test");
  tree.applyPreset(config::defaultPresetDir());
  config::ParamReader params(tree);
  return config::ArchConfig::read(params);
}

TEST(RoutingPolicies, NamesAreUniqueAndEachNamesItsOwnPolicy) {
  const std::vector<std::string> names = routingNames();
  ASSERT_EQ(names.size(), std::tuple_size_v<RoutingPolicyList>);
  for (std::size_t i = 0; i < names.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) EXPECT_NE(names[i], names[j]);
    EXPECT_EQ(routingModeOf(names[i]).index, i) << names[i];
    EXPECT_EQ(routingName(routingModeOf(names[i])), names[i]);
  }
  EXPECT_EQ(routingName(routingMode<ColorRouting>()), std::string("color"));
  EXPECT_EQ(routingName(routingMode<XyRouting>()), std::string("xy"));
}

TEST(RoutingPolicies, AnUnknownValueIsRefusedNamingTheKeyAndEveryPolicy) {
  try {
    tinyArchRouting("adaptive");
    ADD_FAILURE() << "expected a ConfigError";
  } catch (const config::ConfigError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("arch.fabric.routing"), std::string::npos) << msg;
    EXPECT_NE(msg.find("adaptive"), std::string::npos) << msg;
    for (const std::string& name : routingNames()) EXPECT_NE(msg.find(name), std::string::npos) << name << ": " << msg;
  }
  try {
    routingModeOf("adaptive");
    ADD_FAILURE() << "expected a FabricError";
  } catch (const FabricError& e) {
    for (const std::string& name : routingNames()) EXPECT_NE(std::string(e.what()).find(name), std::string::npos);
  }
}

class EveryPolicy : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryPolicy, TheKeySelectsIt) { EXPECT_EQ(routingName(tinyArchRouting(GetParam()).fabric.routing), GetParam()); }

// From PE (0,0) to PE (3,2) with the color route along X then Y: 5 hops of
// H = 1 and the RAMP twice, R = 2, so injected at cycle 0 it reaches the PE
// at 5 * 1 + 2 * 2 = 9, having crossed each link of the path once.
TEST_P(EveryPolicy, DeliversAlongTheMinimalPathAtTheHandDerivedCycle) {
  const FabricParams p = makeParams(routingModeOf(GetParam()), 4, 3, 1, 2, 2);
  ColorRouteTable routes(p.mesh, p.colors);
  routePath(routes, 1, xyPath({0, 0}, {3, 2}));
  FabricKernel fabric(p, &routes);
  RecordingSink sink;
  fabric.setSink(&sink);
  ASSERT_TRUE(fabric.inject(p.mesh.id(0, 0), makeWavelet(1, 42, 3, 2), 0));
  for (std::uint64_t t = 0; !fabric.idle() && t < 100; ++t) fabric.step(t);
  ASSERT_EQ(sink.arrivals.size(), 1u);
  EXPECT_EQ(sink.arrivals[0].at, p.mesh.id(3, 2));
  EXPECT_EQ(sink.arrivals[0].wavelet.payload, 42u);
  EXPECT_EQ(sink.arrivals[0].cycle, 9u);
  EXPECT_EQ(fabric.counters().hops, 5u);
}

INSTANTIATE_TEST_SUITE_P(All, EveryPolicy, ::testing::ValuesIn(routingNames()),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

}  // namespace
}  // namespace wsesim::fabric
