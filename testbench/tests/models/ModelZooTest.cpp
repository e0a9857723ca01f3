// The model zoo and the lowering of a training step: every zoo model's
// parameter count within 2% of its published size, bad model files
// rejected with the key named, and the tiny model's step lowered into
// exactly the expected GEMMs, ops and model FLOPs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <tuple>

#include "models/TrainingStep.h"
#include "models/TransformerModel.h"

namespace wsesim::models {
namespace {

struct Published {
  const char* name;
  double parameters;  // from the model's paper or card (see each zoo file)
};

class Zoo : public ::testing::TestWithParam<Published> {};

TEST_P(Zoo, ParameterCountWithinTwoPercentOfThePublishedSize) {
  const TransformerModel m = loadModel(GetParam().name);
  EXPECT_EQ(m.name, GetParam().name);
  EXPECT_NEAR(double(m.parameters()) / GetParam().parameters, 1.0, 0.02) << m.parameters();
}

INSTANTIATE_TEST_SUITE_P(Models, Zoo,
                         ::testing::Values(Published{"gpt3-xl", 1.3e9}, Published{"gpt-j-6b", 6053381344},
                                           Published{"gpt3-13b", 13.0e9}, Published{"gpt-neox-20b", 20554568208},
                                           Published{"bert-large", 340e6}),
                         [](const auto& info) {
                           std::string n = info.param.name;
                           for (char& c : n) c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                           return n;
                         });

TEST(ModelZoo, ListsEveryModel) {
  const std::vector<std::string> names = modelNames(defaultModelDir());
  for (const char* n : {"bert-large", "gpt-j-6b", "gpt-neox-20b", "gpt3-13b", "gpt3-xl", "tiny"})
    EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
}

// A model file in a scratch folder, loaded; the error text if it fails.
std::string loadError(const std::string& text) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "wsesim-model-test";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "bad.yaml") << text;
  try {
    loadModel("bad", dir);
  } catch (const ModelError& e) {
    return e.what();
  }
  return "";
}

const std::string kTiny =
    "name: bad\ndescription: x\nlayers: 2\nd_model: 16\nheads: 2\nd_ff: 32\nvocab: 24\nseq: 8\n"
    "positions: learned\ntied_embeddings: true\n";

TEST(ModelFile, ErrorsNameTheKey) {
  EXPECT_EQ(loadError(kTiny + "parameters: 4992\n"), "");
  for (const auto& [text, key, detail] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {kTiny + "parameters: 9000\n", "parameters", "4992 parameters"},      // inconsistent with the shape
           {kTiny + "parameters: 4992\nexperts: 8\n", "experts", "not a model key"},
           {kTiny + "parameters: 4992\nhead_dim: 0\n", "head_dim", "[1, 65536]"},
           {kTiny, "parameters", "missing"},
       }) {
    const std::string e = loadError(text);
    EXPECT_NE(e.find("bad.yaml: " + key + ": "), std::string::npos) << e;
    EXPECT_NE(e.find(detail), std::string::npos) << e;
  }
  std::string heads = kTiny + "parameters: 4992\n";
  heads.replace(heads.find("heads: 2"), 8, "heads: 3");
  EXPECT_NE(loadError(heads).find("heads: 3 heads do not divide d_model 16"), std::string::npos);
  EXPECT_NE(loadError("- a list\n").find("mapping"), std::string::npos);
}

TEST(ModelFile, UnknownModelNamesTheZoo) {
  try {
    loadModel("gpt5");
    ADD_FAILURE();
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("gpt3-xl"), std::string::npos) << e.what();
  }
}

// The tiny model (2 layers, d 16, 2 heads, d_ff 32, vocab 24), batch 2 x
// seq 8 = 16 tokens: forward qkv, attn_out, ffn_up, ffn_down per layer and
// the LM head; backward the LM head, then per layer from the last, each
// weight's backward-data and weight-gradient GEMM, FFN down first.
TEST(TrainingStep, TinyModelLowersToTheExpectedGemms) {
  const TrainingStep step = lowerTrainingStep(loadModel("tiny"), 2, 8);
  using G = std::tuple<std::string, std::uint32_t, GemmPass, std::uint64_t, std::uint64_t, std::uint64_t>;
  std::vector<G> want;
  const auto F = GemmPass::Forward, D = GemmPass::BackwardData, W = GemmPass::WeightGrad;
  for (std::uint32_t l = 0; l < 2; ++l)
    for (const G& g : {G{"qkv", l, F, 16, 16, 48}, G{"attn_out", l, F, 16, 16, 16}, G{"ffn_up", l, F, 16, 16, 32},
                       G{"ffn_down", l, F, 16, 32, 16}})
      want.push_back(g);
  want.push_back({"lm_head", kHeadLayer, F, 16, 16, 24});
  want.push_back({"lm_head", kHeadLayer, D, 16, 16, 24});
  want.push_back({"lm_head", kHeadLayer, W, 16, 16, 24});
  for (std::uint32_t l = 2; l-- > 0;)
    for (const auto& [name, k, n] : {std::tuple<const char*, int, int>{"ffn_down", 32, 16}, {"ffn_up", 16, 32},
                                     {"attn_out", 16, 16}, {"qkv", 16, 48}})
      for (const GemmPass p : {D, W}) want.push_back({name, l, p, 16, std::uint64_t(k), std::uint64_t(n)});
  std::vector<G> got;
  for (const StreamedGemm& g : step.gemms) got.push_back({g.name, g.layer, g.pass, g.m, g.k, g.n});
  EXPECT_EQ(got, want);
  EXPECT_EQ(step.tokens, 16u);
  EXPECT_EQ(step.order.size(), step.gemms.size() + step.ops.size());
  // 6 x 4992 parameters x 16 tokens + 12 x 2 layers x seq 8 x width 16 x 16 tokens.
  EXPECT_DOUBLE_EQ(step.modelFlops, 6.0 * 4992 * 16 + 12.0 * 2 * 8 * 16 * 16);
}

// Per layer and sequence, the attention matmuls forward are 2 x 2 x seq^2 x
// width FLOPs (scores and context), backward twice that; softmax covers
// batch x heads x seq^2 scores.
TEST(TrainingStep, AttentionOpsFollowTheSequenceSquared) {
  const TrainingStep step = lowerTrainingStep(loadModel("tiny"), 2, 8);
  double forward = 0, backward = 0, softmaxElements = 0;
  for (const WaferOp& op : step.ops) {
    if (op.kind == WaferOpKind::AttentionMatmul) (op.backward ? backward : forward) += op.flops;
    if (op.name == "softmax" && !op.backward && op.layer == 0) softmaxElements = op.elements;
  }
  EXPECT_DOUBLE_EQ(forward, 2 * 2 * (2.0 * 2 * 8 * 8 * 16));
  EXPECT_DOUBLE_EQ(backward, 2 * forward);
  EXPECT_DOUBLE_EQ(softmaxElements, 2.0 * 2 * 8 * 8);
}

TEST(TrainingStep, SequenceLongerThanLearnedPositionsIsRefused) {
  EXPECT_THROW(lowerTrainingStep(loadModel("tiny"), 1, 9), ModelError);
  EXPECT_NO_THROW(lowerTrainingStep(loadModel("gpt-j-6b"), 1, 4096));  // rotary: no table to run out of
}

}  // namespace
}  // namespace wsesim::models
