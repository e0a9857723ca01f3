#pragma once
// One training step of a transformer lowered into what the wafer runs
// (data parallel, weight streaming): per layer, the weight-streamed GEMMs
// (QKV, attention output, FFN gate (SwiGLU), up and down; the LM head too) in
// the forward, backward-data and weight-gradient passes, and the work that
// involves no weights (attention score and context matmuls, softmax, layer or
// RMS norms, GELU or SwiGLU, residual adds, the embedding lookup and its
// gradient), in execution order:
// forward through the layers, then backward in reverse.

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "hw/common/EnumNames.h"
#include "hw/common/GemmPass.h"
#include "models/TransformerModel.h"

namespace wsesim::models {

inline constexpr std::uint32_t kHeadLayer = ~0u;  // the LM head and embeddings belong to no layer

// The layer Y[m x n] = X[m x k] . W[k x n] of one weight matrix, in one pass
// (the pass's product is derived from it, as `workload.type: gemm` does).
struct StreamedGemm {
  std::string name;  // qkv, attn_out, ffn_gate (SwiGLU), ffn_up, ffn_down, lm_head
  std::uint32_t layer = 0;
  GemmPass pass = GemmPass::Forward;
  std::uint64_t m = 0, k = 0, n = 0;
  // The activation X its forward pass reads, named in its layer (a norm's
  // output, the attention context, the FFN's activation): the GEMMs of a
  // layer that read the same one keep one copy of it for the backward pass
  // (SwiGLU's gate and up, a parallel block's QKV and FFN).
  std::string input;
  // A forward GEMM run again just before its layer's backward pass, its
  // layer's activations recomputed rather than kept (lowerTrainingStep).
  bool recompute = false;
  double flops() const { return 2.0 * double(m) * double(k) * double(n); }
  // The part of the step its cycles count in: its pass, or `recompute`.
  const char* stepPart() const { return recompute ? "recompute" : gemmPassName(pass); }
};

enum class WaferOpKind : std::uint8_t {
  AttentionMatmul, Softmax, LayerNorm, RmsNorm, Gelu, Swiglu, ResidualAdd, Embedding
};
inline constexpr EnumName<WaferOpKind> kWaferOpKindNames[] = {
    {WaferOpKind::AttentionMatmul, "attention_matmul"}, {WaferOpKind::Softmax, "softmax"},
    {WaferOpKind::LayerNorm, "layer_norm"}, {WaferOpKind::RmsNorm, "rms_norm"}, {WaferOpKind::Gelu, "gelu"},
    {WaferOpKind::Swiglu, "swiglu"}, {WaferOpKind::ResidualAdd, "residual_add"},
    {WaferOpKind::Embedding, "embedding"}};
constexpr const char* opKindName(WaferOpKind k) { return nameOf(kWaferOpKindNames, k); }

// Work on the wafer without streamed weights: `flops` of arithmetic on
// `elements` values (the cost model in the train workload prices them).
struct WaferOp {
  std::string name;
  std::uint32_t layer = 0;
  WaferOpKind kind = WaferOpKind::Softmax;
  bool backward = false;
  double flops = 0;
  double elements = 0;
  bool recompute = false;  // a forward op run again before its layer's backward pass
};

struct StepItem {  // one entry of the step, in order: a GEMM or an op
  bool isGemm = true;
  std::size_t index = 0;  // into gemms or ops
};

struct TrainingStep {
  std::uint64_t tokens = 0;  // batch x seq, per system
  std::vector<StreamedGemm> gemms;
  std::vector<WaferOp> ops;
  std::vector<StepItem> order;
  // The model FLOPs of the step: 6 x parameters x tokens for the weights'
  // matmuls (forward 2, backward 4) plus the attention matmuls (forward
  // 4 x seq x attention width per token and layer, backward twice that).
  double modelFlops = 0;
};

// Which layers' activations the backward pass recomputes rather than keeps,
// counted from the first layer (the earliest, whose backward pass comes
// last). The first `layers` recompute their FFN's activation, the input of
// its down matrix and its largest (its up matrices' forward GEMMs and the
// activation op again, just before the layer's backward pass), and keep
// the inputs of their other GEMMs; the first `whole` of those recompute
// their whole forward pass and keep only their input.
struct Recomputation {
  std::uint32_t layers = 0, whole = 0;
  // The `relief`-th step of a search that recomputes ever more: one more
  // layer's FFN activation up to all `of` layers', then one more layer's
  // whole forward pass (0 <= relief <= 2 x of).
  static Recomputation step(std::uint32_t relief, std::uint32_t of) {
    return {std::min(relief, of), relief > of ? relief - of : 0};
  }
};

// The LM head runs over the vocabulary in `lmHeadChunks` chunks, each its
// own weight matrix of d_model x (its share of the vocabulary), so that its
// logits fit the wafer (`lm_head` when 1; else `lm_head[i/C]`, the first
// vocab % C one column wider). Throws ModelError when `seq` exceeds the
// model's context (learned positions) or the chunks the vocabulary.
// Recomputed layers (`recompute`) run the recomputed part of their
// forward pass again, its weights streamed again, just before their
// backward pass.
TrainingStep lowerTrainingStep(const TransformerModel& model, std::uint32_t batch, std::uint32_t seq,
                               std::uint32_t lmHeadChunks = 1, Recomputation recompute = {});

}  // namespace wsesim::models
