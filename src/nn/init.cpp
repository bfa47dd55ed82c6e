// nn::init: the initialisers, with PyTorch's formulas (torch/nn/init.py).
#include "nabla/nn/init.h"

#include <cmath>
#include <vector>

#include "nabla/autograd/grad_mode.h"
#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"

namespace nabla::nn::init {

namespace {

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};
template <class... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;

void check_defined(const char* fn, const Tensor& t) {
  NABLA_CHECK(t.defined(), "nn::init::", fn, ": the tensor is undefined");
}

int64_t fan(const Tensor& t, FanModeType mode, const char* fn) {
  check_defined(fn, t);
  auto [fan_in, fan_out] = _calculate_fan_in_and_fan_out(t);
  return std::holds_alternative<enumtype::kFanIn>(mode) ? fan_in : fan_out;
}

}  // namespace

double calculate_gain(NonlinearityType nonlinearity, double param) {
  return std::visit(
      Overloaded{[](enumtype::kTanh) { return 5.0 / 3.0; },
                 [](enumtype::kReLU) { return std::sqrt(2.0); },
                 [&](enumtype::kLeakyReLU) { return std::sqrt(2.0 / (1 + param * param)); },
                 [](enumtype::kSELU) { return 3.0 / 4.0; },
                 [](const auto&) { return 1.0; }},  // linear, conv*, sigmoid
      nonlinearity);
}

std::tuple<int64_t, int64_t> _calculate_fan_in_and_fan_out(const Tensor& tensor) {
  NABLA_CHECK(tensor.dim() >= 2,
              "nn::init: fan in and fan out need a tensor of at least 2 dims, got ", tensor.dim(),
              " dims (sizes ", tensor.sizes(), ")");
  int64_t receptive = 1;
  for (int64_t d = 2; d < tensor.dim(); ++d) receptive *= tensor.size(d);
  return {tensor.size(1) * receptive, tensor.size(0) * receptive};
}

Tensor constant_(Tensor tensor, Scalar value) {
  check_defined("constant_", tensor);
  NoGradGuard guard;
  tensor.fill_(value);
  return tensor;
}

Tensor ones_(Tensor tensor) { return constant_(std::move(tensor), 1); }
Tensor zeros_(Tensor tensor) { return constant_(std::move(tensor), 0); }

Tensor eye_(Tensor matrix) {
  check_defined("eye_", matrix);
  NABLA_CHECK(matrix.dim() == 2, "nn::init::eye_: expected a 2-d tensor, got ", matrix.dim(),
              " dims");
  NoGradGuard guard;
  matrix.copy_(eye(matrix.size(0), matrix.size(1), TensorOptions(matrix.scalar_type())));
  return matrix;
}

Tensor dirac_(Tensor tensor, int64_t groups) {
  check_defined("dirac_", tensor);
  NABLA_CHECK(tensor.dim() >= 3 && tensor.dim() <= 5,
              "nn::init::dirac_: expected a 3-, 4- or 5-d tensor, got ", tensor.dim(), " dims");
  NABLA_CHECK(groups > 0 && tensor.size(0) % groups == 0, "nn::init::dirac_: out channels ",
              tensor.size(0), " are not divisible by groups ", groups);
  NoGradGuard guard;
  tensor.zero_();
  const int64_t out_per_group = tensor.size(0) / groups;
  const int64_t n = std::min(out_per_group, tensor.size(1));
  for (int64_t g = 0; g < groups; ++g)
    for (int64_t d = 0; d < n; ++d) {
      Tensor v = tensor.select(0, g * out_per_group + d).select(0, d);
      while (v.dim() > 0) v = v.select(0, v.size(0) / 2);
      v.fill_(1);
    }
  return tensor;
}

Tensor uniform_(Tensor tensor, double low, double high) {
  check_defined("uniform_", tensor);
  NoGradGuard guard;
  tensor.uniform_(low, high);
  return tensor;
}

Tensor normal_(Tensor tensor, double mean, double std) {
  check_defined("normal_", tensor);
  NoGradGuard guard;
  tensor.normal_(mean, std);
  return tensor;
}

Tensor xavier_uniform_(Tensor tensor, double gain) {
  check_defined("xavier_uniform_", tensor);
  auto [fan_in, fan_out] = _calculate_fan_in_and_fan_out(tensor);
  const double std = gain * std::sqrt(2.0 / static_cast<double>(fan_in + fan_out));
  const double bound = std::sqrt(3.0) * std;
  return uniform_(std::move(tensor), -bound, bound);
}

Tensor xavier_normal_(Tensor tensor, double gain) {
  check_defined("xavier_normal_", tensor);
  auto [fan_in, fan_out] = _calculate_fan_in_and_fan_out(tensor);
  const double std = gain * std::sqrt(2.0 / static_cast<double>(fan_in + fan_out));
  return normal_(std::move(tensor), 0, std);
}

Tensor kaiming_uniform_(Tensor tensor, double a, FanModeType mode, NonlinearityType nonlinearity) {
  const int64_t f = fan(tensor, mode, "kaiming_uniform_");
  NABLA_CHECK(f > 0, "nn::init::kaiming_uniform_: the fan is 0 (a tensor with a zero-size dim: ",
              tensor.sizes(), ")");
  const double std = calculate_gain(nonlinearity, a) / std::sqrt(static_cast<double>(f));
  const double bound = std::sqrt(3.0) * std;
  return uniform_(std::move(tensor), -bound, bound);
}

Tensor kaiming_normal_(Tensor tensor, double a, FanModeType mode, NonlinearityType nonlinearity) {
  const int64_t f = fan(tensor, mode, "kaiming_normal_");
  NABLA_CHECK(f > 0, "nn::init::kaiming_normal_: the fan is 0 (a tensor with a zero-size dim: ",
              tensor.sizes(), ")");
  const double std = calculate_gain(nonlinearity, a) / std::sqrt(static_cast<double>(f));
  return normal_(std::move(tensor), 0, std);
}

Tensor orthogonal_(Tensor tensor, double gain) {
  check_defined("orthogonal_", tensor);
  NABLA_CHECK(tensor.dim() >= 2, "nn::init::orthogonal_: expected at least 2 dims, got ",
              tensor.dim());
  NoGradGuard guard;
  const int64_t rows = tensor.size(0);
  const int64_t cols = tensor.numel() / std::max<int64_t>(rows, 1);
  if (tensor.numel() == 0) return tensor;
  // LibTorch's draw (randn({rows, cols}) in the default dtype, transposed when wide), then
  // Householder-free modified Gram-Schmidt in float64 on the taller orientation: Q of a QR
  // decomposition with the sign fix (columns times sign(diag(R))) that makes the
  // distribution uniform (Haar) as PyTorch's. The same Q as LibTorch's for a seed, to
  // rounding (its QR is LAPACK's Householder).
  const bool transpose = rows < cols;
  const int64_t m = transpose ? cols : rows, n = transpose ? rows : cols;
  Tensor drawn = randn({rows, cols}).to(kDouble);
  Tensor a = (transpose ? drawn.t() : drawn).contiguous();
  std::vector<double> q(static_cast<size_t>(m * n));
  const double* src = a.data_ptr<double>();
  for (int64_t i = 0; i < m * n; ++i) q[static_cast<size_t>(i)] = src[i];
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t k = 0; k < j; ++k) {
      double dot = 0;
      for (int64_t i = 0; i < m; ++i) dot += q[i * n + k] * q[i * n + j];
      for (int64_t i = 0; i < m; ++i) q[i * n + j] -= dot * q[i * n + k];
    }
    double norm = 0;
    for (int64_t i = 0; i < m; ++i) norm += q[i * n + j] * q[i * n + j];
    norm = std::sqrt(norm);
    // R's diagonal is the norm (positive), so the sign fix keeps these columns.
    for (int64_t i = 0; i < m; ++i) q[i * n + j] /= norm;
  }
  Tensor qt = from_blob(q.data(), {m, n}, TensorOptions(kDouble)).clone();
  if (transpose) qt = qt.t();
  tensor.view({rows, cols}).copy_(qt * gain);
  return tensor;
}

Tensor sparse_(Tensor tensor, double sparsity, double std) {
  check_defined("sparse_", tensor);
  NABLA_CHECK(tensor.dim() == 2, "nn::init::sparse_: expected a 2-d tensor, got ", tensor.dim(),
              " dims");
  NABLA_CHECK(sparsity >= 0 && sparsity <= 1, "nn::init::sparse_: sparsity must be in [0, 1], got ",
              sparsity);
  NoGradGuard guard;
  const int64_t rows = tensor.size(0), cols = tensor.size(1);
  const auto zeros = static_cast<int64_t>(std::ceil(sparsity * static_cast<double>(rows)));
  tensor.normal_(0, std);
  for (int64_t c = 0; c < cols; ++c) {
    Tensor perm = randperm(rows, TensorOptions(kLong));
    for (int64_t i = 0; i < zeros; ++i)
      tensor.select(1, c).select(0, perm[i].item<int64_t>()).fill_(0);
  }
  return tensor;
}

}  // namespace nabla::nn::init
