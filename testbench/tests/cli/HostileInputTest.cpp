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

// Item 5: a 639-byte file of aliases made a 58 MB error line and took
// 390 MB; a 1 MB preset name was echoed whole. Item 7: a value with a
// newline (a YAML block scalar) broke the one-line message in two.
TEST_F(HostileInput, MessagesStayOneShortLineWhateverTheyQuote) {
  // 14 levels of two aliases: 2 + 4 + ... + 2^14 unknown keys, within the 100,000 values.
  std::string bomb = "arch: {preset: tiny, fabric: {routing: xy}}\nworkload: {type: noc}\nrun:\n  a0: &a0 {x: 1, y: 2}\n";
  for (int i = 1; i < 14; ++i)
    bomb += "  a" + std::to_string(i) + ": &a" + std::to_string(i) + " {p: *a" + std::to_string(i - 1) + ", q: *a" +
            std::to_string(i - 1) + "}\n";
  writeFile(work("keys.yaml"), bomb);
  Outcome o = wsesim("run keys.yaml --out result.json");
  expectConfigError(o, {"unknown configuration key(s): run.a0.x (keys.yaml), run.a0.y (keys.yaml), ",
                        " and 32746 more"}, "2^15 - 2 unknown keys");
  EXPECT_LT(o.err.size(), 2000u);
  // 16 levels: more than 100,000 values, refused before they are expanded.
  writeFile(work("bomb.yaml"), bomb + "  a14: &a14 {p: *a13, q: *a13}\n  a15: &a15 {p: *a14, q: *a14}\n");
  o = wsesim("run bomb.yaml --out result.json");
  expectConfigError(o, {"bomb.yaml: more than 100000 values once its aliases are expanded"}, "alias bomb");
  EXPECT_LT(o.err.size(), 1000u);

  writeFile(work("name.yaml"), "arch: {preset: \"" + std::string(1 << 20, 'p') + "\"}\nworkload: {type: noc}\n");
  o = wsesim("run name.yaml --out result.json");
  expectConfigError(o, {"arch.preset = " + std::string(200, 'p') + "... (and 1048376 more bytes) (name.yaml): no such preset"},
                    "a 1 MB preset name");
  EXPECT_LT(o.err.size(), 1000u);
  writeFile(work("value.yaml"), std::string(kSmallRun) + "  seed: \"" + std::string(1 << 20, '7') + "\"\n");
  o = wsesim("run value.yaml --out result.json");
  expectConfigError(o, {"workload.seed = '" + std::string(200, '7') + "... (and 1048376 more bytes)' (value.yaml)"},
                    "a 1 MB value");
  EXPECT_LT(o.err.size(), 1000u);

  writeFile(work("block.yaml"), "arch: {preset: tiny, fabric: {routing: xy}}\nworkload:\n  type: noc\n  pattern: |\n    two\n    lines\n");
  expectConfigError(wsesim("run block.yaml --out result.json"), {"workload.pattern = 'two\\nlines\\n' (block.yaml)"},
                    "a block scalar");
  // A model file's reader (models/) quotes values its own way: the line is
  // kept whole where the message is printed.
  std::string model = readFile(WSESIM_SOURCE_DIR "/models/zoo/tiny.yaml");
  model.replace(model.find("positions: learned"), 18, "positions: |\n  learned\n  rotary");
  writeFile(work("tiny.yaml"), model);
  writeFile(work("train.yaml"), "arch: {preset: tiny}\nrun: {mode: timing}\nworkload: {type: train, model: tiny.yaml, batch: 2}\n");
  expectConfigError(wsesim("run train.yaml --out result.json"), {"positions", "learned\\nrotary"}, "a model file's block scalar");
}

}  // namespace
