// Max unpooling and fractional max pooling (see nabla/ops/pooling.h), with LibTorch's
// nodes. Unpooling scatters each value to its index in a zero plane (its backward gathers
// the gradient back, differentiable). Fractional max pooling places each plane's windows
// from its random samples with LibTorch's interval formula, computed in the input's dtype
// so the same samples pick the same windows; each window is gathered and reduced by max,
// and its backward is max pooling's arg-max scatter.
#include <tuple>
#include <vector>

#include "nabla/autograd/record.h"
#include "nabla/ops/detail/op_impls.h"
#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"
#include "nabla/ops/pooling.h"
#include "nabla/ops/trace.h"
#include "ops/nn/nn_registry.h"
#include "ops/window/pooling_common.h"

namespace nabla {

namespace {

int64_t product(IntArrayRef v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

// ---- Max unpooling --------------------------------------------------------------------------

/// MaxUnpool2DBackward0 / MaxUnpool3DBackward0: grad_self = grad gathered at the indices.
struct MaxUnpoolState {
  SavedVariable indices;  // [P, plane of self], flat positions in each output plane
  DimVector self_sizes;
  int64_t out_plane = 0;
  auto saved() { return std::tie(indices); }
};

variable_list max_unpool_backward(OpNode<MaxUnpoolState>& n, const variable_list& g) {
  const Tensor idx = n.get(n.state.indices);
  return {g[0].reshape({idx.size(0), n.state.out_plane})
              .gather(1, idx)
              .view(IntArrayRef(n.state.self_sizes.data(), n.state.self_sizes.size()))};
}
constexpr NodeType<MaxUnpoolState> kMaxUnpool2d{"MaxUnpool2DBackward0", max_unpool_backward};
constexpr NodeType<MaxUnpoolState> kMaxUnpool3d{"MaxUnpool3DBackward0", max_unpool_backward};

// self [..., s_1..s_k] -> [..., output_size]: zeros, with self's values at indices.
Tensor max_unpool(const char* op, const NodeType<MaxUnpoolState>& type, const Tensor& self,
                  const Tensor& indices, IntArrayRef output_size, int64_t k) {
  NABLA_CHECK(self.defined() && indices.defined(), op, ": expected defined self and indices");
  NABLA_CHECK(indices.scalar_type() == kLong, op,
              ": elements in indices should be type int64 but got: ", indices.scalar_type());
  NABLA_CHECK(self.dim() == k + 1 || self.dim() == k + 2, op, ": expected a ", k + 1, "-d or ",
              k + 2, "-d input, but got a tensor with ", self.dim(), " dims (sizes ", self.sizes(),
              ")");
  NABLA_CHECK(self.sizes() == indices.sizes(), op,
              ": expected shape of indices to be same as that of the input tensor (", self.sizes(),
              ") but got indices tensor with shape: ", indices.sizes());
  NABLA_CHECK(static_cast<int64_t>(output_size.size()) == k, op, ": there should be exactly ", k,
              " elements in output_size, but got ", output_size.size());
  for (int64_t d = 1; d < self.dim(); ++d)
    NABLA_CHECK(self.size(d) > 0, op,
                ": expected input to have non-zero size for non-batch dimensions, but got ",
                self.sizes());
  for (int64_t s : output_size)
    NABLA_CHECK(s >= 0, op, ": output_size must be non-negative, got ", output_size);
  const auto spatial = self.sizes().slice(static_cast<size_t>(self.dim() - k));
  const int64_t in_plane = product(spatial), out_plane = product(output_size);
  const int64_t planes = self.numel() / in_plane;
  Tensor idx = indices.reshape({planes, in_plane});
  if (idx.numel() > 0) {
    const int64_t lo = idx.min().item<int64_t>(), hi = idx.max().item<int64_t>();
    NABLA_CHECK(lo >= 0 && hi < out_plane, op, ": found an invalid max index: ", lo < 0 ? lo : hi,
                " (output volumes are of size ", output_size, ")");
  }
  std::vector<int64_t> shape(self.sizes().begin(), self.sizes().end() - k);
  shape.insert(shape.end(), output_size.begin(), output_size.end());
  Tensor out = no_grad([&] {
    return zeros({planes, out_plane}, self.options())
        .scatter(1, idx, self.reshape({planes, in_plane}))
        .view(shape);
  });
  if (auto node = autograd::record_node(type, {&self})) {
    node->state.indices = autograd::save(idx);
    node->state.self_sizes = DimVector(self.sizes().begin(), self.sizes().end());
    node->state.out_plane = out_plane;
    autograd::set_history(out, node);
  }
  return out;
}

// ---- Fractional max pooling -----------------------------------------------------------------

// The starts of `out` windows of k over n positions for one sample u in [0, 1): LibTorch's
// floor((i + u) a) - floor(u a) with a = (n - k) / (out - 1), in the samples' type T; the
// last window ends at n.
template <class T>
std::vector<int64_t> window_starts(T u, int64_t n, int64_t out, int64_t k) {
  std::vector<int64_t> starts(static_cast<size_t>(out), 0);
  if (out > 1) {
    const T alpha = static_cast<T>(n - k) / static_cast<T>(out - 1);
    for (int64_t i = 0; i + 1 < out; ++i)
      starts[static_cast<size_t>(i)] =
          static_cast<int64_t>((static_cast<T>(i) + u) * alpha) - static_cast<int64_t>(u * alpha);
  }
  starts.back() = n - k;
  return starts;
}

// For each plane and output position, the flat input positions of its window, window dims
// in order (d, h, w): [P * L * K]. samples [P, dims] of type T: one per dim, in the order
// LibTorch reads them (2-d: W's then H's; 3-d: D's, H's, W's).
template <class T>
std::vector<int64_t> window_positions(const Tensor& samples, const std::vector<int64_t>& in,
                                      const std::vector<int64_t>& kernel,
                                      const std::vector<int64_t>& out) {
  const size_t dims = in.size();
  const int64_t planes = samples.size(0);
  const T* u = samples.data_ptr<T>();
  std::vector<int64_t> pos;
  pos.reserve(static_cast<size_t>(planes * product(out) * product(kernel)));
  for (int64_t p = 0; p < planes; ++p) {
    std::vector<std::vector<int64_t>> starts(dims);
    for (size_t d = 0; d < dims; ++d) {
      // 2-d samples are (W, H): reversed against the dims.
      const size_t sample = dims == 2 ? 1 - d : d;
      starts[d] = window_starts<T>(u[p * static_cast<int64_t>(dims) + static_cast<int64_t>(sample)],
                                   in[d], out[d], kernel[d]);
    }
    // Odometers over the output positions and, inside, the window offsets.
    std::vector<int64_t> o(dims, 0);
    for (int64_t l = 0, n_out = product(out); l < n_out; ++l) {
      std::vector<int64_t> off(dims, 0);
      for (int64_t j = 0, n_k = product(kernel); j < n_k; ++j) {
        int64_t flat = 0;
        for (size_t d = 0; d < dims; ++d)
          flat = flat * in[d] + starts[d][static_cast<size_t>(o[d])] + off[d];
        pos.push_back(flat);
        for (size_t d = dims; d-- > 0;) {
          if (++off[d] < kernel[d]) break;
          off[d] = 0;
        }
      }
      for (size_t d = dims; d-- > 0;) {
        if (++o[d] < out[d]) break;
        o[d] = 0;
      }
    }
  }
  return pos;
}

std::tuple<Tensor, Tensor> fractional_max_pool(const char* op, ops::MaxPoolNode node,
                                               const Tensor& input, IntArrayRef kernel_size,
                                               IntArrayRef output_size,
                                               const Tensor& random_samples, int64_t dims) {
  NABLA_CHECK(static_cast<int64_t>(kernel_size.size()) == dims, op,
              ": kernel_size must either be a single Int or tuple of ", dims, " Ints, got ",
              kernel_size);
  NABLA_CHECK(static_cast<int64_t>(output_size.size()) == dims, op,
              ": output_size must either be a single Int or tuple of ", dims, " Ints, got ",
              output_size);
  NABLA_CHECK(
      input.defined() && (input.dim() == dims + 1 || input.dim() == dims + 2) && input.numel() > 0,
      op, ": expected a non-empty ", dims + 1, "-d or ", dims + 2,
      "-d (batch mode) tensor for input, but got sizes ",
      input.defined() ? input.sizes().vec() : std::vector<int64_t>{});
  NABLA_CHECK(input.scalar_type() == kFloat || input.scalar_type() == kDouble, op,
              ": expected a float or double input, got ", input.scalar_type());
  const bool batched = input.dim() == dims + 2;
  const int64_t batch = batched ? input.size(0) : 1, channels = input.size(batched ? 1 : 0);
  std::vector<int64_t> in(input.sizes().end() - dims, input.sizes().end());
  const std::vector<int64_t> k = kernel_size.vec(), out = output_size.vec();
  static const char* kDimNames[] = {"depth", "height", "width"};
  for (int64_t d = 0; d < dims; ++d) {
    const size_t i = static_cast<size_t>(d);
    const char* name = kDimNames[3 - dims + d];
    NABLA_CHECK(k[i] > 0 && out[i] > 0, op, ": kernel_size and output_size must be positive, got ",
                kernel_size, " and ", output_size);
    NABLA_CHECK(out[i] + k[i] - 1 <= in[i], op, ": pool ", name, " ", k[i],
                " too large relative to input ", name, " ", in[i], " (output_size ", output_size,
                ")");
  }
  NABLA_CHECK(
      random_samples.defined() && random_samples.dim() == 3 && random_samples.size(0) == batch &&
          random_samples.size(1) == channels && random_samples.size(2) == dims,
      op, ": expected _random_samples of shape [", batch, ", ", channels, ", ", dims, "], got ",
      random_samples.defined() ? random_samples.sizes().vec() : std::vector<int64_t>{});
  NABLA_CHECK(!(GradMode::is_enabled() && random_samples.requires_grad()), op,
              ": the derivative for 'random_samples' is not implemented");
  NABLA_CHECK(random_samples.scalar_type() == input.scalar_type(), op,
              ": expected _random_samples of the input's dtype ", input.scalar_type(), ", got ",
              random_samples.scalar_type());
  const int64_t planes = batch * channels, n_out = product(out), n_k = product(k);
  Tensor samples = random_samples.detach().to(kCPU).contiguous().view({planes, dims});
  std::vector<int64_t> pos = input.scalar_type() == kDouble
                                 ? window_positions<double>(samples, in, k, out)
                                 : window_positions<float>(samples, in, k, out);
  std::vector<int64_t> shape(input.sizes().begin(), input.sizes().end() - dims);
  shape.insert(shape.end(), out.begin(), out.end());
  Tensor values, indices;
  {
    NoGradGuard no_grad;
    Tensor where = tensor(pos, kLong).to(input.device()).view({planes, n_out * n_k});
    Tensor windows = input.reshape({planes, product(in)}).gather(1, where);
    auto [v, arg] = windows.view({planes, n_out, n_k}).max(-1, true);
    values = v.view(shape);
    indices = where.view({planes, n_out, n_k}).gather(2, arg).view(shape);
  }
  ops::record_max_pool(node, input, values, indices, dims);
  return {values, indices};
}

}  // namespace

Tensor ops::max_unpool2d_impl(const Tensor& self, const Tensor& indices, IntArrayRef output_size) {
  return max_unpool("max_unpool2d", kMaxUnpool2d, self, indices, output_size, 2);
}

Tensor ops::max_unpool3d_impl(const Tensor& self, const Tensor& indices, IntArrayRef output_size,
                              IntArrayRef stride, IntArrayRef padding) {
  const char* op = "max_unpool3d";
  NABLA_CHECK(stride.size() == 3, op,
              ": there should be exactly three elements (depth, height, width) in stride, but "
              "got: ",
              stride.size());
  NABLA_CHECK(padding.size() == 3, op,
              ": there should be exactly three elements (depth, height, width) in padding, but "
              "got: ",
              padding.size());
  NABLA_CHECK(stride[0] > 0 && stride[1] > 0 && stride[2] > 0, op,
              ": strides should be greater than zero, but got stride: ", stride);
  return max_unpool(op, kMaxUnpool3d, self, indices, output_size, 3);
}

std::tuple<Tensor, Tensor> ops::fractional_max_pool2d_impl(const Tensor& input,
                                                           IntArrayRef kernel_size,
                                                           IntArrayRef output_size,
                                                           const Tensor& random_samples) {
  return fractional_max_pool("fractional_max_pool2d", ops::MaxPoolNode::FractionalMaxPool2d, input,
                             kernel_size, output_size, random_samples, 2);
}

std::tuple<Tensor, Tensor> ops::fractional_max_pool3d_impl(const Tensor& input,
                                                           IntArrayRef kernel_size,
                                                           IntArrayRef output_size,
                                                           const Tensor& random_samples) {
  return fractional_max_pool("fractional_max_pool3d", ops::MaxPoolNode::FractionalMaxPool3d, input,
                             kernel_size, output_size, random_samples, 3);
}

}  // namespace nabla
