// bilinear, cosine_similarity, pairwise_distance (composed from differentiable ops) and
// their F:: spellings.
#include "nabla/nn/functional/distance.h"
#include "nabla/nn/functional/linear.h"
#include "nabla/ops/functions.h"

namespace nabla {

Tensor bilinear(const Tensor& input1, const Tensor& input2, const Tensor& weight,
                const Tensor& bias) {
  NABLA_CHECK(input1.defined() && input2.defined() && weight.defined(),
              "bilinear: undefined argument");
  NABLA_CHECK(weight.dim() == 3, "bilinear: expected a 3-d weight (out, in1, in2), got ",
              weight.sizes());
  NABLA_CHECK(
      input1.dim() >= 1 && input1.dim() == input2.dim() &&
          input1.sizes().slice(0, input1.dim() - 1) == input2.sizes().slice(0, input2.dim() - 1),
      "bilinear: input1 ", input1.sizes(), " and input2 ", input2.sizes(),
      " must have the same leading dimensions");
  NABLA_CHECK(input1.size(-1) == weight.size(1) && input2.size(-1) == weight.size(2),
              "bilinear: input sizes ", input1.size(-1), " and ", input2.size(-1),
              " do not match weight ", weight.sizes());
  if (bias.defined())
    NABLA_CHECK(bias.dim() == 1 && bias.size(0) == weight.size(0),
                "bilinear: expected bias of shape [", weight.size(0), "], got ", bias.sizes());
  const int64_t out = weight.size(0), in1 = weight.size(1), in2 = weight.size(2);
  std::vector<int64_t> lead(input1.sizes().begin(), input1.sizes().end() - 1);
  Tensor a = input1.reshape({-1, in1}), b = input2.reshape({-1, in2});
  // y[n, o] = sum_ij a[n, i] W[o, i, j] b[n, j]
  Tensor t = a.matmul(weight.permute({1, 0, 2}).reshape({in1, out * in2})).view({-1, out, in2});
  Tensor y = (t * b.unsqueeze(1)).sum(-1);
  if (bias.defined()) y = y + bias;
  lead.push_back(out);
  return y.view(lead);
}

Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, int64_t dim, double eps) {
  NABLA_CHECK(x1.defined() && x2.defined(), "cosine_similarity: undefined argument");
  // PyTorch 1.13: sum(x1 x2) / sqrt(clamp_min(sum(x1^2) sum(x2^2), eps^2)).
  Tensor w12 = (x1 * x2).sum(dim);
  Tensor w1 = (x1 * x1).sum(dim), w2 = (x2 * x2).sum(dim);
  return w12 / (w1 * w2).clamp_min(eps * eps).sqrt();
}

Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, double p, double eps, bool keepdim) {
  NABLA_CHECK(x1.defined() && x2.defined(), "pairwise_distance: undefined argument");
  const int64_t d = std::max(x1.dim(), x2.dim()) - 1;
  NABLA_CHECK(d >= 0, "pairwise_distance: inputs must have at least 1 dim");
  return (x1 - x2 + eps).norm(optional<Scalar>(p), {d}, keepdim);
}

namespace nn::functional {

Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias) {
  return nabla::linear(input, weight, bias);
}

Tensor bilinear(const Tensor& input1, const Tensor& input2, const Tensor& weight,
                const Tensor& bias) {
  return nabla::bilinear(input1, input2, weight, bias);
}

Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, const CosineSimilarityFuncOptions& o) {
  return nabla::cosine_similarity(x1, x2, o.dim(), o.eps());
}

Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, const PairwiseDistanceFuncOptions& o) {
  return nabla::pairwise_distance(x1, x2, o.p(), o.eps(), o.keepdim());
}

}  // namespace nn::functional
}  // namespace nabla
