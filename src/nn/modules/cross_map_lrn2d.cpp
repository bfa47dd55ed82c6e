// CrossMapLRN2d: LibTorch's module-level autograd function (torch::nn::functions::
// CrossMapLRN2d), ported from Lua torch with its channel windows as they are. Its forward
// sums the squares of the channels that a running add/remove recurrence selects; its
// backward uses another, fixed window. Both are written here as 0/1 channel-mixing
// matrices, so the value and the first derivative are LibTorch's; the backward is built
// from differentiable ops, so higher derivatives exist (of that backward).
#include <ostream>
#include <tuple>
#include <vector>

#include "nabla/autograd/record.h"
#include "nabla/nn/modules/normalization.h"
#include "nabla/ops/factories.h"

namespace nabla::nn {

namespace {

using autograd::NodeType;
using autograd::OpNode;
using autograd::SavedVariable;
using autograd::variable_list;

/// [C, C] with row c marking the channels whose squares make channel c's scale: the
/// first pre_pad channels, then per channel one added ahead and (past pre_pad) one
/// dropped behind, as LibTorch's recurrence runs.
std::vector<double> forward_window(int64_t channels, int64_t size) {
  const int64_t pre_pad = (size - 1) / 2 + 1;
  const auto c_count = static_cast<size_t>(channels);
  std::vector<double> m(c_count * c_count, 0.0);
  auto at = [&](int64_t row, int64_t col) -> double& {
    return m[static_cast<size_t>(row) * c_count + static_cast<size_t>(col)];
  };
  for (int64_t c = 0; c < std::min(pre_pad, channels); ++c) at(0, c) = 1;
  for (int64_t c = 1; c < channels; ++c) {
    for (int64_t j = 0; j < channels; ++j) at(c, j) = at(c - 1, j);
    if (c < channels - pre_pad + 1) at(c, c + pre_pad - 1) += 1;
    if (c > pre_pad) at(c, c - pre_pad) -= 1;
  }
  return m;
}

/// [C, C] with row c marking the ratios LibTorch's backward sums for channel c: channels
/// c - (size - (size - 1) / 2) to c + (size - 1) / 2 - 1, clipped to the channels.
std::vector<double> backward_window(int64_t channels, int64_t size) {
  const int64_t inverse_pre_pad = size - (size - 1) / 2;
  const auto c_count = static_cast<size_t>(channels);
  std::vector<double> m(c_count * c_count, 0.0);
  for (int64_t c = 0; c < channels; ++c)
    for (int64_t j = std::max<int64_t>(0, c - inverse_pre_pad);
         j <= std::min(channels - 1, c + size - 1 - inverse_pre_pad); ++j)
      m[static_cast<size_t>(c) * c_count + static_cast<size_t>(j)] = 1;
  return m;
}

/// x [N, C, H, W] mixed over channels by `window` [C, C]: out[:, c] = sum_j w[c, j] x[:, j].
Tensor mix_channels(const Tensor& x, const std::vector<double>& window) {
  const int64_t c = x.size(1);
  Tensor w = tensor(window, TensorOptions(kDouble)).view({c, c}).to(x.scalar_type());
  return x.permute({0, 2, 3, 1}).matmul(w.t()).permute({0, 3, 1, 2});
}

Tensor lrn_scale(const Tensor& x, const CrossMapLRN2dOptions& o) {
  return mix_channels(x * x, forward_window(x.size(1), o.size())) *
             (o.alpha() / static_cast<double>(o.size())) +
         static_cast<double>(o.k());
}

struct CrossMapLRN2dState {
  SavedVariable input;
  CrossMapLRN2dOptions options{1};
  auto saved() { return std::tie(input); }
};

// LibTorch's backward: grad * scale^-beta - 2 alpha beta / size * x * sum over the
// backward window of grad * out / scale, with scale and out recomputed from the input.
variable_list cross_map_lrn2d_backward(OpNode<CrossMapLRN2dState>& n, const variable_list& grads) {
  const CrossMapLRN2dOptions& o = n.state.options;
  const Tensor x = n.get(n.state.input), g = grads[0];
  const Tensor scale = lrn_scale(x, o), factor = scale.pow(-o.beta());
  const Tensor ratio = g * (x * factor) / scale;
  const double cache = 2 * o.alpha() * o.beta() / static_cast<double>(o.size());
  return {factor * g - x * mix_channels(ratio, backward_window(x.size(1), o.size())) * cache};
}
constexpr NodeType<CrossMapLRN2dState> kCrossMapLRN2d{"CrossMapLRN2dBackward",
                                                      cross_map_lrn2d_backward};

}  // namespace

CrossMapLRN2dImpl::CrossMapLRN2dImpl(const CrossMapLRN2dOptions& options_) : options(options_) {
  NABLA_CHECK(options.size() > 0, "CrossMapLRN2d: size must be positive, got ", options.size());
}

void CrossMapLRN2dImpl::pretty_print(std::ostream& stream) const {
  stream << "nabla::nn::CrossMapLRN2d(" << options.size() << ", alpha=" << options.alpha()
         << ", beta=" << options.beta() << ", k=" << options.k() << ")";
}

Tensor CrossMapLRN2dImpl::forward(const Tensor& input) {
  NABLA_CHECK(input.defined() && input.dim() == 4,
              "CrossMapLRN2d: expected a 4-d input (N, C, H, W), got ",
              input.defined() ? input.dim() : 0, " dims");
  NABLA_CHECK(input.is_floating_point(), "CrossMapLRN2d: expected a floating input, got ",
              input.scalar_type());
  Tensor out;
  {
    NoGradGuard no_grad;
    out = input * lrn_scale(input, options).pow(-options.beta());
  }
  if (auto node = autograd::record_node(kCrossMapLRN2d, {&input})) {
    node->state.input = autograd::save(input);
    node->state.options = options;
    autograd::set_history(out, node);
  }
  return out;
}

}  // namespace nabla::nn
