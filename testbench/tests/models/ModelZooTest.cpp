// The model zoo and the lowering of a training step: every zoo model's
// parameter count within 2% of its published size (GPT-2 small and Llama-2
// 7B by hand), bad model files rejected with the key named, the FFN, norm
// and bias keys in the count, the tiny model's step lowered into exactly the
// expected GEMMs, ops and model FLOPs, and Llama-2 7B's layer (SwiGLU,
// RMSNorm) likewise.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <tuple>

#include "models/TrainingStep.h"
#include "models/TransformerModel.h"
#include "testbench/tests/ScratchDir.h"

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
                                           Published{"bert-large", 340e6}, Published{"gpt2-small", 124e6},
                                           Published{"llama-2-7b", 6738415616}),
                         [](const auto& info) {
                           std::string n = info.param.name;
                           for (char& c : n) c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                           return n;
                         });

TEST(ModelZoo, ListsEveryModel) {
  const std::vector<std::string> names = modelNames(defaultModelDir());
  for (const char* n :
       {"bert-large", "gpt-j-6b", "gpt-neox-20b", "gpt2-small", "gpt3-13b", "gpt3-xl", "llama-2-7b", "tiny"})
    EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
}

// Writes a model file named bad.yaml in this test's scratch folder and
// returns the folder.
std::filesystem::path scratchModel(const std::string& text) {
  static const wsesim::testing::ScratchDir dir;
  dir.write("bad.yaml", text);
  return dir.path();
}

// A model file in a scratch folder, loaded; the error text if it fails.
std::string loadError(const std::string& text) {
  try {
    loadModel("bad", scratchModel(text));
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
           {kTiny + "parameters: .nan\n", "parameters", "must be a positive finite number"},  // no bypass of the check
           {kTiny + "parameters: .inf\n", "parameters", "must be a positive finite number"},
           {kTiny + "parameters: 4992\nexperts: 8\n", "experts", "not a model key"},
           {kTiny + "parameters: 4992\nhead_dim: 0\n", "head_dim", "[1, 65536]"},
           {kTiny, "parameters", "missing"},
           {kTiny + "parameters: 4992\nffn: relu\n", "ffn", "must be gelu | swiglu, got relu"},
           {kTiny + "parameters: 4992\nnorm: batchnorm\n", "norm", "must be layernorm | rmsnorm, got batchnorm"},
           {kTiny + "parameters: 4992\nbias: maybe\n", "bias", "must be true or false, got maybe"},
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

// GPT-2 small: 50,257 x 768 token and 2,048 x 768 position embeddings, per
// layer 7,087,872 (QKV 1,771,776, output 590,592, FFN 4,722,432, norms
// 3,072), a final norm of 1,536. With GPT-2's own 1,024 positions the count
// is the Hugging Face gpt2 model's, 124,439,808.
TEST(ModelZoo, Gpt2SmallCountsItsLearnedPositions) {
  TransformerModel m = loadModel("gpt2-small");
  EXPECT_EQ(m.parameters(), 125226240u);
  m.seq = 1024;
  EXPECT_EQ(m.parameters(), 124439808u);
}

// Llama-2 7B: 2 x 32,000 x 4,096 untied embeddings, per layer QKV and output
// 4 x 4,096^2, SwiGLU 3 x 4,096 x 11,008, two RMS norms 2 x 4,096, no biases;
// a final RMS norm of 4,096: exactly the published 6,738,415,616.
TEST(ModelZoo, Llama2_7bCountIsThePublishedOne) {
  const TransformerModel m = loadModel("llama-2-7b");
  EXPECT_EQ(m.ffn, Ffn::Swiglu);
  EXPECT_EQ(m.norm, Norm::RmsNorm);
  EXPECT_FALSE(m.biases);
  EXPECT_EQ(m.parameters(), 6738415616u);
}

// On the tiny model (2 layers, d 16, width 16, d_ff 32; 4992 parameters),
// from a file: SwiGLU adds a gate matrix (16 x 32) and its bias per layer,
// RMS norm drops the shift of each of the 5 norms, and no biases drops
// QKV's, the output's and the FFN's (48 + 16 + 32 + 16 per layer).
TEST(ModelFile, FfnNormAndBiasKeysChangeTheCount) {
  const TransformerModel plain = loadModel("bad", scratchModel(kTiny + "parameters: 4992\n"));
  EXPECT_EQ(plain.ffn, Ffn::Gelu);
  EXPECT_EQ(plain.norm, Norm::LayerNorm);
  EXPECT_TRUE(plain.biases);
  const std::uint64_t gate = 16 * 32, shift = 16, biases = 3 * 16 + 16 + 32 + 16;
  for (const auto& [keys, count] : std::vector<std::pair<std::string, std::uint64_t>>{
           {"ffn: swiglu\n", 4992 + 2 * (gate + 32)},
           {"norm: rmsnorm\n", 4992 - 5 * shift},
           {"bias: false\n", 4992 - 2 * biases},
           {"ffn: gelu\nnorm: layernorm\nbias: true\n", 4992},
           {"ffn: swiglu\nnorm: rmsnorm\nbias: false\n", 4992 + 2 * gate - 5 * shift - 2 * biases}}) {
    const std::string text = kTiny + keys + "parameters: " + std::to_string(count) + "\n";
    EXPECT_EQ(loadError(text), "") << keys;
    EXPECT_EQ(loadModel("bad", scratchModel(text)).parameters(), count) << keys;
  }
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

// Recomputation, on the tiny model's 2 layers: layer 1 recomputes its
// FFN's activation (the FFN up GEMM and GELU again), layer 0 its whole
// forward pass (the norms, attention, both FFN GEMMs and the residual
// adds), each just before its backward pass and marked as recomputed. The
// model's FLOPs, the work the model asks for, do not change.
TEST(TrainingStep, RecomputedLayersRunTheirForwardPassAgainBeforeTheirBackwardPass) {
  const TrainingStep plain = lowerTrainingStep(loadModel("tiny"), 2, 8);
  const TrainingStep step = lowerTrainingStep(loadModel("tiny"), 2, 8, 1, Recomputation{2, 1});
  std::vector<std::string> backward;  // the items after the LM head's backward pass
  bool pastHead = false;
  for (const StepItem& item : step.order) {
    if (item.isGemm) {
      const StreamedGemm& g = step.gemms[item.index];
      pastHead = pastHead || (g.layer == kHeadLayer && g.pass == GemmPass::WeightGrad);
      if (pastHead && g.layer != kHeadLayer)
        backward.push_back(std::to_string(g.layer) + " " + g.name +
                           (g.recompute ? " recompute" : std::string(" ") + gemmPassName(g.pass)));
    } else if (const WaferOp& op = step.ops[item.index]; pastHead && op.recompute) {
      backward.push_back(std::to_string(op.layer) + " " + op.name + " recompute");
    }
  }
  const std::vector<std::string> want{
      "1 ffn_up recompute", "1 gelu recompute",
      "1 ffn_down backward_data", "1 ffn_down weight_grad", "1 ffn_up backward_data", "1 ffn_up weight_grad",
      "1 attn_out backward_data", "1 attn_out weight_grad", "1 qkv backward_data", "1 qkv weight_grad",
      "0 layer_norm_1 recompute", "0 qkv recompute", "0 attention_scores recompute", "0 softmax recompute",
      "0 attention_context recompute", "0 attn_out recompute", "0 residual_1 recompute", "0 layer_norm_2 recompute",
      "0 ffn_up recompute", "0 gelu recompute", "0 ffn_down recompute", "0 residual_2 recompute",
      "0 ffn_down backward_data", "0 ffn_down weight_grad", "0 ffn_up backward_data", "0 ffn_up weight_grad",
      "0 attn_out backward_data", "0 attn_out weight_grad", "0 qkv backward_data", "0 qkv weight_grad"};
  EXPECT_EQ(backward, want);
  EXPECT_EQ(step.gemms.size(), plain.gemms.size() + 5);
  EXPECT_EQ(step.ops.size(), plain.ops.size() + 9);
  for (const StreamedGemm& g : step.gemms) EXPECT_TRUE(!g.recompute || g.pass == GemmPass::Forward);
  EXPECT_DOUBLE_EQ(step.modelFlops, plain.modelFlops);
  EXPECT_THROW(lowerTrainingStep(loadModel("tiny"), 2, 8, 1, Recomputation{3, 0}), ModelError);  // it has 2 layers
  EXPECT_THROW(lowerTrainingStep(loadModel("tiny"), 2, 8, 1, Recomputation{1, 2}), ModelError);  // whole ones recompute
  // The search's steps: one more layer's FFN activation, then one more layer whole.
  EXPECT_EQ(Recomputation::step(1, 2).layers, 1u);
  EXPECT_EQ(Recomputation::step(3, 2).layers, 2u);
  EXPECT_EQ(Recomputation::step(3, 2).whole, 1u);
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

// Llama-2 7B, batch 1 x seq 4096: each layer streams five weights (QKV,
// output, SwiGLU's gate and up, down), each in three passes, with RMS norms
// and a SwiGLU op where GPT's layer has layer norms and GELU.
TEST(TrainingStep, Llama2_7bLayerHasAGatedFfnAndRmsNorms) {
  const std::uint64_t t = 4096, d = 4096, ff = 11008;
  const TrainingStep step = lowerTrainingStep(loadModel("llama-2-7b"), 1, 4096);
  // Layer 0 in execution order: a GEMM by its weight and pass, an op by its
  // name (and "backward").
  std::vector<std::string> order;
  using G = std::tuple<std::string, GemmPass, std::uint64_t, std::uint64_t, std::uint64_t>;
  std::vector<G> gemms;
  for (const StepItem& item : step.order) {
    if (item.isGemm) {
      const StreamedGemm& g = step.gemms[item.index];
      if (g.layer != 0) continue;
      order.push_back(g.name + " " + gemmPassName(g.pass));
      gemms.push_back({g.name, g.pass, g.m, g.k, g.n});
    } else {
      const WaferOp& op = step.ops[item.index];
      if (op.layer == 0) order.push_back(op.name + (op.backward ? " backward" : ""));
    }
  }
  EXPECT_EQ(order, (std::vector<std::string>{
                       "rms_norm_1", "qkv forward", "attention_scores", "softmax", "attention_context",
                       "attn_out forward", "residual_1", "rms_norm_2", "ffn_gate forward", "ffn_up forward", "swiglu",
                       "ffn_down forward", "residual_2",
                       "residual_2 backward", "ffn_down backward_data", "ffn_down weight_grad", "swiglu backward",
                       "ffn_up backward_data", "ffn_up weight_grad", "ffn_gate backward_data",
                       "ffn_gate weight_grad", "rms_norm_2 backward", "residual_1 backward",
                       "attn_out backward_data", "attn_out weight_grad", "attention_context backward",
                       "softmax backward", "attention_scores backward", "qkv backward_data", "qkv weight_grad",
                       "rms_norm_1 backward"}));
  const auto F = GemmPass::Forward, D = GemmPass::BackwardData, W = GemmPass::WeightGrad;
  EXPECT_EQ(gemms, (std::vector<G>{{"qkv", F, t, d, 3 * d}, {"attn_out", F, t, d, d}, {"ffn_gate", F, t, d, ff},
                                   {"ffn_up", F, t, d, ff}, {"ffn_down", F, t, ff, d}, {"ffn_down", D, t, ff, d},
                                   {"ffn_down", W, t, ff, d}, {"ffn_up", D, t, d, ff}, {"ffn_up", W, t, d, ff},
                                   {"ffn_gate", D, t, d, ff}, {"ffn_gate", W, t, d, ff}, {"attn_out", D, t, d, d},
                                   {"attn_out", W, t, d, d}, {"qkv", D, t, d, 3 * d}, {"qkv", W, t, d, 3 * d}}));
  // 32 layers x 15 and the LM head's 3.
  EXPECT_EQ(step.gemms.size(), 32u * 15 + 3);
  // RMS norm ~5 FLOPs per element, SwiGLU ~6 per output (docs/training.md);
  // no layer norm or GELU anywhere.
  for (const WaferOp& op : step.ops) {
    EXPECT_NE(op.kind, WaferOpKind::LayerNorm) << op.name;
    EXPECT_NE(op.kind, WaferOpKind::Gelu) << op.name;
    const double backward = op.backward ? 2 : 1;
    if (op.kind == WaferOpKind::RmsNorm) {
      EXPECT_DOUBLE_EQ(op.elements, double(t * d)) << op.name;
      EXPECT_DOUBLE_EQ(op.flops, backward * 5 * double(t * d)) << op.name;
    }
    if (op.kind == WaferOpKind::Swiglu) {
      EXPECT_EQ(op.name, "swiglu");
      EXPECT_DOUBLE_EQ(op.elements, double(t * ff));
      EXPECT_DOUBLE_EQ(op.flops, backward * 6 * double(t * ff));
    }
  }
  const auto named = [&](const std::string& name) {
    return std::count_if(step.ops.begin(), step.ops.end(), [&](const WaferOp& op) { return op.name == name; });
  };
  EXPECT_EQ(named("final_rms_norm"), 2);  // forward and backward
  EXPECT_EQ(named("swiglu"), 2 * 32);
  // 6 x 6,738,415,616 x 4096 tokens + 12 x 32 layers x seq 4096 x width 4096 x 4096 tokens.
  EXPECT_DOUBLE_EQ(step.modelFlops, 6.0 * 6738415616 * 4096 + 12.0 * 32 * 4096 * 4096 * 4096);
}

// GPT-J's parallel block: one layer norm a layer, which QKV and the FFN's
// up matrix both read (so the backward pass keeps it once); the FFN's down
// matrix reads the GELU, the attention output the context. Its count drops
// by the 28 second norms (2 x 4096 parameters each) against a sequential
// block of the same shape.
TEST(TrainingStep, GptJLayerHasOneNormThatQkvAndTheFfnRead) {
  const TransformerModel gptj = loadModel("gpt-j-6b");
  const TrainingStep step = lowerTrainingStep(gptj, 1, 2048);
  std::map<std::string, std::string> inputs;
  std::vector<std::string> norms;
  for (const StreamedGemm& g : step.gemms)
    if (g.layer == 0 && g.pass == GemmPass::Forward) inputs[g.name] = g.input;
  for (const WaferOp& op : step.ops)
    if (op.layer == 0 && !op.backward && op.kind == WaferOpKind::LayerNorm) norms.push_back(op.name);
  EXPECT_EQ(norms, std::vector<std::string>{"layer_norm_1"});
  EXPECT_EQ(inputs, (std::map<std::string, std::string>{{"qkv", "layer_norm_1"},
                                                        {"attn_out", "attention_context"},
                                                        {"ffn_up", "layer_norm_1"},
                                                        {"ffn_down", "gelu"}}));
  TransformerModel sequential = gptj;
  sequential.block = Block::Sequential;
  EXPECT_EQ(sequential.parameters() - gptj.parameters(), 28u * 2 * 4096);
}

TEST(TrainingStep, SequenceLongerThanLearnedPositionsIsRefused) {
  EXPECT_THROW(lowerTrainingStep(loadModel("tiny"), 1, 9), ModelError);
  EXPECT_NO_THROW(lowerTrainingStep(loadModel("gpt-j-6b"), 1, 4096));  // rotary: no table to run out of
}

}  // namespace
}  // namespace wsesim::models
