#include "models/TrainingStep.h"

namespace wsesim::models {

namespace {

// Builds the step in execution order.
class StepBuilder {
 public:
  StepBuilder(const TransformerModel& model, std::uint32_t batch, std::uint32_t seq)
      : model_(model), batch_(batch), seq_(seq) {
    step_.tokens = std::uint64_t(batch) * seq;
  }

  void gemm(const std::string& name, std::uint32_t layer, GemmPass pass, std::uint64_t k, std::uint64_t n) {
    step_.order.push_back({true, step_.gemms.size()});
    step_.gemms.push_back(StreamedGemm{name, layer, pass, step_.tokens, k, n});
  }
  // The forward GEMM of a weight, or both backward passes (data first: the
  // previous layer waits for it; the weight gradient streams out after).
  void weight(const std::string& name, std::uint32_t layer, std::uint64_t k, std::uint64_t n, bool backward) {
    if (!backward) return gemm(name, layer, GemmPass::Forward, k, n);
    gemm(name, layer, GemmPass::BackwardData, k, n);
    gemm(name, layer, GemmPass::WeightGrad, k, n);
  }
  // Backward ops cost twice the forward's arithmetic (two products per
  // input gradient); their elements are the same.
  void op(const std::string& name, std::uint32_t layer, WaferOpKind kind, bool backward, double flops,
          double elements) {
    step_.order.push_back({false, step_.ops.size()});
    step_.ops.push_back(WaferOp{name, layer, kind, backward, backward ? 2 * flops : flops, elements});
  }

  void layer(std::uint32_t l, bool backward) {
    const double t = double(step_.tokens), d = model_.dModel, a = model_.attentionWidth(), ff = model_.dFf;
    // Per sequence and head: scores [seq x seq] = Q K^T and context = P V,
    // each 2 x seq x seq x head_dim FLOPs.
    const double attentionFlops = 2.0 * batch_ * double(seq_) * seq_ * a;
    const double scores = double(batch_) * model_.heads * seq_ * seq_;
    // The elementwise costs per element: layer norm ~8 (mean, variance,
    // scale, shift), softmax ~5 (max, exp, sum, divide), GELU ~8 (tanh
    // form), residual add 1. They are cost-model inputs, documented in
    // docs/training.md.
    if (!backward) {
      op("layer_norm_1", l, WaferOpKind::LayerNorm, false, 8 * t * d, t * d);
      weight("qkv", l, model_.dModel, 3ull * model_.attentionWidth(), false);
      op("attention_scores", l, WaferOpKind::AttentionMatmul, false, attentionFlops, scores);
      op("softmax", l, WaferOpKind::Softmax, false, 5 * scores, scores);
      op("attention_context", l, WaferOpKind::AttentionMatmul, false, attentionFlops, t * a);
      weight("attn_out", l, model_.attentionWidth(), model_.dModel, false);
      op("residual_1", l, WaferOpKind::ResidualAdd, false, t * d, t * d);
      op("layer_norm_2", l, WaferOpKind::LayerNorm, false, 8 * t * d, t * d);
      weight("ffn_up", l, model_.dModel, model_.dFf, false);
      op("gelu", l, WaferOpKind::Gelu, false, 8 * t * ff, t * ff);
      weight("ffn_down", l, model_.dFf, model_.dModel, false);
      op("residual_2", l, WaferOpKind::ResidualAdd, false, t * d, t * d);
      return;
    }
    // The same, backwards.
    op("residual_2", l, WaferOpKind::ResidualAdd, true, t * d, t * d);
    weight("ffn_down", l, model_.dFf, model_.dModel, true);
    op("gelu", l, WaferOpKind::Gelu, true, 8 * t * ff, t * ff);
    weight("ffn_up", l, model_.dModel, model_.dFf, true);
    op("layer_norm_2", l, WaferOpKind::LayerNorm, true, 8 * t * d, t * d);
    op("residual_1", l, WaferOpKind::ResidualAdd, true, t * d, t * d);
    weight("attn_out", l, model_.attentionWidth(), model_.dModel, true);
    op("attention_context", l, WaferOpKind::AttentionMatmul, true, attentionFlops, t * a);
    op("softmax", l, WaferOpKind::Softmax, true, 5 * scores, scores);
    op("attention_scores", l, WaferOpKind::AttentionMatmul, true, attentionFlops, scores);
    weight("qkv", l, model_.dModel, 3ull * model_.attentionWidth(), true);
    op("layer_norm_1", l, WaferOpKind::LayerNorm, true, 8 * t * d, t * d);
  }

  TrainingStep build() {
    const double t = double(step_.tokens), d = model_.dModel;
    op("embedding", kHeadLayer, WaferOpKind::Embedding, false, 0, t * d);
    for (std::uint32_t l = 0; l < model_.layers; ++l) layer(l, false);
    op("final_layer_norm", kHeadLayer, WaferOpKind::LayerNorm, false, 8 * t * d, t * d);
    weight("lm_head", kHeadLayer, model_.dModel, model_.vocab, false);
    op("softmax_loss", kHeadLayer, WaferOpKind::Softmax, false, 5 * t * model_.vocab, t * model_.vocab);
    weight("lm_head", kHeadLayer, model_.dModel, model_.vocab, true);
    op("final_layer_norm", kHeadLayer, WaferOpKind::LayerNorm, true, 8 * t * d, t * d);
    for (std::uint32_t l = model_.layers; l-- > 0;) layer(l, true);
    // The embedding gradient: each token's row of dX added into its row of the table.
    op("embedding", kHeadLayer, WaferOpKind::Embedding, true, t * d / 2, t * d);
    const double attention = 12.0 * model_.layers * double(seq_) * model_.attentionWidth() * t;
    step_.modelFlops = 6.0 * double(model_.parameters()) * t + attention;
    return step_;
  }

 private:
  const TransformerModel& model_;
  std::uint32_t batch_, seq_;
  TrainingStep step_;
};

}  // namespace

TrainingStep lowerTrainingStep(const TransformerModel& model, std::uint32_t batch, std::uint32_t seq) {
  if (batch == 0 || seq == 0) throw ModelError("a training step needs a batch and a sequence of at least 1");
  if (model.learnedPositions && seq > model.seq)
    throw ModelError("seq " + std::to_string(seq) + " exceeds " + model.name + "'s " + std::to_string(model.seq) +
                     " learned positions");
  return StepBuilder(model, batch, seq).build();
}

}  // namespace wsesim::models
