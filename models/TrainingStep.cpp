#include "models/TrainingStep.h"

namespace wsesim::models {

namespace {

// FLOPs per element of the ops without weights: cost-model inputs (no vendor
// figure exists), documented in docs/training.md. Layer norm ~8 (mean,
// variance, scale, shift); RMS norm ~5 (layer norm less the mean, its
// subtraction and the shift); softmax ~5 (max, exp, sum, divide); GELU ~8
// (tanh form); SwiGLU ~6 per output (silu(gate) = gate x sigmoid(gate):
// negate, exp, add 1, reciprocal, multiply; then times up), counting exp as
// one as softmax does and GELU's tanh; residual add 1.
constexpr double kLayerNormFlops = 8, kRmsNormFlops = 5, kSoftmaxFlops = 5, kGeluFlops = 8, kSwigluFlops = 6;

// Builds the step in execution order.
class StepBuilder {
 public:
  StepBuilder(const TransformerModel& model, std::uint32_t batch, std::uint32_t seq, std::uint32_t lmHeadChunks,
              Recomputation recompute)
      : model_(model),
        batch_(batch),
        seq_(seq),
        lmHeadChunks_(lmHeadChunks),
        recompute_(recompute),
        normKind_(model.norm == Norm::RmsNorm ? WaferOpKind::RmsNorm : WaferOpKind::LayerNorm),
        normName_(opKindName(normKind_)) {
    step_.tokens = std::uint64_t(batch) * seq;
  }

  void gemm(const std::string& name, std::uint32_t layer, GemmPass pass, std::uint64_t k, std::uint64_t n,
            const std::string& input) {
    step_.order.push_back({true, step_.gemms.size()});
    step_.gemms.push_back(StreamedGemm{name, layer, pass, step_.tokens, k, n, input, recomputing_});
  }
  // The forward GEMM of a weight reading `input`, or both backward passes
  // (data first: the previous layer waits for it; the weight gradient
  // streams out after).
  void weight(const std::string& name, std::uint32_t layer, std::uint64_t k, std::uint64_t n, bool backward,
              const std::string& input) {
    if (!backward) return gemm(name, layer, GemmPass::Forward, k, n, input);
    gemm(name, layer, GemmPass::BackwardData, k, n, input);
    gemm(name, layer, GemmPass::WeightGrad, k, n, input);
  }
  // Backward ops cost twice the forward's arithmetic (two products per
  // input gradient); their elements are the same.
  void op(const std::string& name, std::uint32_t layer, WaferOpKind kind, bool backward, double flops,
          double elements) {
    step_.order.push_back({false, step_.ops.size()});
    step_.ops.push_back(WaferOp{name, layer, kind, backward, backward ? 2 * flops : flops, elements, recomputing_});
  }

  // A norm over every token's d_model values; its name says its kind and
  // place (layer_norm_1, rms_norm_2, final_layer_norm).
  void norm(const std::string& name, std::uint32_t layer, bool backward) {
    const double elements = double(step_.tokens) * model_.dModel;
    const double perElement = normKind_ == WaferOpKind::RmsNorm ? kRmsNormFlops : kLayerNormFlops;
    op(name, layer, normKind_, backward, perElement * elements, elements);
  }

  // The FFN, reading `input`: its up matrices (SwiGLU's gate before up),
  // the activation over tokens x d_ff, then down; backwards in the reverse
  // order. `upOnly`: the forward pass's up matrices and activation alone
  // (what recomputes the activation).
  void ffn(std::uint32_t l, bool backward, const std::string& input, bool upOnly = false) {
    const bool gated = model_.ffn == Ffn::Swiglu;
    const WaferOpKind kind = gated ? WaferOpKind::Swiglu : WaferOpKind::Gelu;
    const double elements = double(step_.tokens) * model_.dFf;
    const auto activation = [&] {
      op(opKindName(kind), l, kind, backward, (gated ? kSwigluFlops : kGeluFlops) * elements, elements);
    };
    const std::string activated = opKindName(kind);
    if (!backward) {
      if (gated) weight("ffn_gate", l, model_.dModel, model_.dFf, false, input);
      weight("ffn_up", l, model_.dModel, model_.dFf, false, input);
      activation();
      if (!upOnly) weight("ffn_down", l, model_.dFf, model_.dModel, false, activated);
      return;
    }
    weight("ffn_down", l, model_.dFf, model_.dModel, true, activated);
    activation();
    weight("ffn_up", l, model_.dModel, model_.dFf, true, input);
    if (gated) weight("ffn_gate", l, model_.dModel, model_.dFf, true, input);
  }

  // A parallel block's FFN reads the attention's norm and has none of its own.
  std::string ffnInput() const { return normName_ + (model_.block == Block::Parallel ? "_1" : "_2"); }

  void layer(std::uint32_t l, bool backward) {
    const double t = double(step_.tokens), d = model_.dModel, a = model_.attentionWidth();
    // Per sequence and head: scores [seq x seq] = Q K^T and context = P V,
    // each 2 x seq x seq x head_dim FLOPs.
    const double attentionFlops = 2.0 * batch_ * double(seq_) * seq_ * a;
    const double scores = double(batch_) * model_.heads * seq_ * seq_;
    const bool parallel = model_.block == Block::Parallel;
    const std::string norm1 = normName_ + "_1", norm2 = normName_ + "_2", ffnInput = this->ffnInput();
    if (!backward) {
      norm(norm1, l, false);
      weight("qkv", l, model_.dModel, 3ull * model_.attentionWidth(), false, norm1);
      op("attention_scores", l, WaferOpKind::AttentionMatmul, false, attentionFlops, scores);
      op("softmax", l, WaferOpKind::Softmax, false, kSoftmaxFlops * scores, scores);
      op("attention_context", l, WaferOpKind::AttentionMatmul, false, attentionFlops, t * a);
      weight("attn_out", l, model_.attentionWidth(), model_.dModel, false, "attention_context");
      op("residual_1", l, WaferOpKind::ResidualAdd, false, t * d, t * d);
      if (!parallel) norm(norm2, l, false);
      ffn(l, false, ffnInput);
      op("residual_2", l, WaferOpKind::ResidualAdd, false, t * d, t * d);
      return;
    }
    // The same, backwards.
    op("residual_2", l, WaferOpKind::ResidualAdd, true, t * d, t * d);
    ffn(l, true, ffnInput);
    if (!parallel) norm(norm2, l, true);
    op("residual_1", l, WaferOpKind::ResidualAdd, true, t * d, t * d);
    weight("attn_out", l, model_.attentionWidth(), model_.dModel, true, "attention_context");
    op("attention_context", l, WaferOpKind::AttentionMatmul, true, attentionFlops, t * a);
    op("softmax", l, WaferOpKind::Softmax, true, kSoftmaxFlops * scores, scores);
    op("attention_scores", l, WaferOpKind::AttentionMatmul, true, attentionFlops, scores);
    weight("qkv", l, model_.dModel, 3ull * model_.attentionWidth(), true, norm1);
    norm(norm1, l, true);
  }

  TrainingStep build() {
    const double t = double(step_.tokens), d = model_.dModel;
    op("embedding", kHeadLayer, WaferOpKind::Embedding, false, 0, t * d);
    for (std::uint32_t l = 0; l < model_.layers; ++l) layer(l, false);
    const std::string finalNorm = "final_" + normName_;
    norm(finalNorm, kHeadLayer, false);
    for (std::uint32_t c = 0; c < lmHeadChunks_; ++c)
      weight(lmHead(c), kHeadLayer, model_.dModel, lmHeadColumns(c), false, finalNorm);
    op("softmax_loss", kHeadLayer, WaferOpKind::Softmax, false, kSoftmaxFlops * t * model_.vocab, t * model_.vocab);
    for (std::uint32_t c = 0; c < lmHeadChunks_; ++c)
      weight(lmHead(c), kHeadLayer, model_.dModel, lmHeadColumns(c), true, finalNorm);
    norm(finalNorm, kHeadLayer, true);
    for (std::uint32_t l = model_.layers; l-- > 0;) {
      if (l < recompute_.layers) {
        recomputing_ = true;
        if (l < recompute_.whole) layer(l, false);
        else ffn(l, false, ffnInput(), true);
        recomputing_ = false;
      }
      layer(l, true);
    }
    // The embedding gradient: each token's row of dX added into its row of the table.
    op("embedding", kHeadLayer, WaferOpKind::Embedding, true, t * d / 2, t * d);
    const double attention = 12.0 * model_.layers * double(seq_) * model_.attentionWidth() * t;
    step_.modelFlops = 6.0 * double(model_.parameters()) * t + attention;
    return step_;
  }

 private:
  const TransformerModel& model_;
  std::string lmHead(std::uint32_t chunk) const {
    return lmHeadChunks_ == 1 ? "lm_head" : "lm_head[" + std::to_string(chunk) + "/" + std::to_string(lmHeadChunks_) + "]";
  }
  std::uint64_t lmHeadColumns(std::uint32_t chunk) const {
    return model_.vocab / lmHeadChunks_ + (chunk < model_.vocab % lmHeadChunks_ ? 1 : 0);
  }

  std::uint32_t batch_, seq_, lmHeadChunks_;
  Recomputation recompute_;
  bool recomputing_ = false;  // lowering a layer's forward pass again, in the backward pass
  WaferOpKind normKind_;
  std::string normName_;
  TrainingStep step_;
};

}  // namespace

TrainingStep lowerTrainingStep(const TransformerModel& model, std::uint32_t batch, std::uint32_t seq,
                               std::uint32_t lmHeadChunks, Recomputation recompute) {
  if (batch == 0 || seq == 0) throw ModelError("a training step needs a batch and a sequence of at least 1");
  if (lmHeadChunks == 0 || lmHeadChunks > model.vocab)
    throw ModelError("the LM head runs in 1 to " + std::to_string(model.vocab) + " chunks of the vocabulary, not " +
                     std::to_string(lmHeadChunks));
  if (model.learnedPositions && seq > model.seq)
    throw ModelError("seq " + std::to_string(seq) + " exceeds " + model.name + "'s " + std::to_string(model.seq) +
                     " learned positions");
  if (recompute.layers > model.layers || recompute.whole > recompute.layers)
    throw ModelError("recomputing " + std::to_string(recompute.layers) + " layers, " +
                     std::to_string(recompute.whole) + " of them whole: " + model.name + " has " +
                     std::to_string(model.layers));
  return StepBuilder(model, batch, seq, lmHeadChunks, recompute).build();
}

}  // namespace wsesim::models
