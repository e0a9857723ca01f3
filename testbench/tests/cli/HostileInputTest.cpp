// Issue 29: inputs a hostile user or a broken machine may give, through
// every entry point (the run file, --set, a model file, a preset): each ends
// with one clean line naming what is wrong and a documented exit status,
// never a crash, a runaway read or a message of megabytes.
#include "testbench/tests/cli/CliFixture.h"

namespace {

using namespace wsesim::clitest;

class HostileInput : public Cli {
 protected:
  // One line on stderr, beginning "wsesim", exit 2, nothing written.
  void expectConfigError(const Outcome& o, const std::vector<std::string>& mentions, const std::string& what) {
    EXPECT_EQ(o.status, 2) << what << "\n" << o.err;  // Cli.h: kConfigError
    EXPECT_EQ(o.err.rfind("wsesim: configuration error: ", 0), 0u) << what << "\n" << o.err;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << what << "\n" << o.err.substr(0, 2000);
    expectMentions(o.err, mentions);
    EXPECT_FALSE(fs::exists(work("result.json"))) << what;
  }
};

TEST_F(HostileInput, AValueContainingItselfIsAnErrorInEveryEntryPoint) {
  // Item 1: each of these crashed wsesim with SIGSEGV and no message.
  writeFile(work("loop.yaml"), "arch: {preset: tiny}\nworkload: {type: noc, seed: 1}\nloop: &L\n  me: *L\n");
  expectConfigError(wsesim("run loop.yaml --out result.json"),
                    {"loop.yaml: 'loop.me' refers through an alias to 'loop'", "contains it"}, "run file");

  writeFile(work("run.yaml"), kSmallRun);
  expectConfigError(wsesim("run run.yaml --set 'workload.seed=&a [*a]' --out result.json"),
                    {"--set workload.seed: '[0]' refers through an alias"}, "--set");

  writeFile(work("model.yaml"), "name: model\nlayers: &l {deeper: [*l]}\n");
  writeFile(work("train.yaml"), "arch: {preset: tiny}\nrun: {mode: timing}\nworkload: {type: train, model: model.yaml, batch: 2}\n");
  expectConfigError(wsesim("run train.yaml --out result.json"), {"model.yaml", "'layers.deeper[0]' refers through an alias"},
                    "model file");

  fs::create_directory(work("presets"));
  writeFile(work("presets/looped.yaml"), "mesh: &m\n  width: 8\n  again: *m\n");
  writeFile(work("preset.yaml"), "arch: {preset: looped}\nworkload: {type: noc}\n");
  expectConfigError(wsesim("run preset.yaml --out result.json", "WSESIM_PRESET_DIR=presets"),
                    {"preset looped: 'mesh.again' refers through an alias to 'mesh'"}, "preset");
}

}  // namespace
