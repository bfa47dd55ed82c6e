// Neural-network operators: convolutions, pooling, Gemm, norms, class losses.
#include "graph/onnx/importer.h"

#include <cmath>

#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"
#include "nabla/ops/padding.h"
#include "nabla/ops/pooling.h"
#include "nabla/ops/sampling.h"

#if NABLA_HAVE_ONNX

namespace nabla::graph::onnx_import {

// The pads of a Conv or pooling node over its spatial dims: explicit `pads`, or auto_pad's
// (VALID: none; SAME_*: an output of ceil(input / stride), the odd pad at the end for
// SAME_UPPER, at the start for SAME_LOWER).
Importer::Pads Importer::pads_of(const Node& n, const std::vector<int64_t>& kernel,
                                 const std::vector<int64_t>& strides,
                                 const std::vector<int64_t>& dilations) {
  const size_t dims = kernel.size();
  if (strides.size() != dims || dilations.size() != dims)
    fail(n, "kernel_shape, strides and dilations differ in length");
  for (size_t d = 0; d < dims; ++d)
    if (kernel[d] < 1 || strides[d] < 1 || dilations[d] < 1)
      fail(n, "a kernel size, stride or dilation below 1");
  Pads p{std::vector<int64_t>(dims, 0), std::vector<int64_t>(dims, 0)};
  const auto* a = attr(n, "auto_pad");
  const std::string mode = a ? a->s() : "NOTSET";
  if (mode == "NOTSET") {
    const auto pads = attr_ints(n, "pads", std::vector<int64_t>(2 * dims, 0));
    if (pads.size() != 2 * dims) fail(n, "pads has " + std::to_string(pads.size()) + " values");
    for (size_t d = 0; d < dims; ++d) {
      p.begin[d] = pads[d];
      p.end[d] = pads[d + dims];
      if (p.begin[d] < 0 || p.end[d] < 0) fail(n, "a negative pad");
    }
    return p;
  }
  if (mode == "VALID") return p;
  if (mode != "SAME_UPPER" && mode != "SAME_LOWER") fail(n, "auto_pad '" + mode + "'");
  const auto x = shape_of(n, 0);
  if (x.size() != dims + 2) fail(n, "the input has " + std::to_string(x.size()) + " dims");
  for (size_t d = 0; d < dims; ++d) {
    const int64_t in = x[d + 2], out = (in + strides[d] - 1) / strides[d];
    const int64_t total =
        std::max<int64_t>(0, (out - 1) * strides[d] + (kernel[d] - 1) * dilations[d] + 1 - in);
    p.begin[d] = mode == "SAME_UPPER" ? total / 2 : total - total / 2;
    p.end[d] = total - p.begin[d];
  }
  return p;
}

// x padded by `p` with `value` (pads the op's own padding cannot express).
Value Importer::pad_spatial(const Node& n, Value x, const Pads& p, double value) {
  std::vector<int64_t> torch_pad;  // LibTorch's order: the last dim's (begin, end) first
  for (size_t d = p.begin.size(); d-- > 0;) {
    torch_pad.push_back(p.begin[d]);
    torch_pad.push_back(p.end[d]);
  }
  return call(n, "constant_pad_nd", {x}, {{"pad", torch_pad}, {"value", value}}, false);
}

void Importer::conv(const Node& n) {
  const auto w = shape_of(n, 1);  // [out channels, in channels / group, kernel...]
  const size_t dims = w.size() - 2;
  if (w.size() < 3 || dims > 3) fail(n, std::to_string(dims) + "-d convolutions are not mapped");
  const std::vector<int64_t> ones(dims, 1);
  const auto kernel = attr_ints(n, "kernel_shape", std::vector<int64_t>(w.begin() + 2, w.end()));
  const auto strides = attr_ints(n, "strides", ones), dilations = attr_ints(n, "dilations", ones);
  Pads p = pads_of(n, kernel, strides, dilations);
  Value x = input(n, 0);
  if (p.begin != p.end) {  // asymmetric: padded first
    x = pad_spatial(n, x, p, 0.0);
    p.begin.assign(dims, 0);
  }
  std::vector<Value> in = {x, input(n, 1)};
  if (has_input(n, 2)) in.push_back(input(n, 2));
  define(n, call(n, "conv" + std::to_string(dims) + "d", std::move(in),
                 {{"stride", strides},
                  {"padding", p.begin},
                  {"dilation", dilations},
                  {"groups", attr_int(n, "group", 1)}}));
}

// ConvTranspose. Symmetric explicit pads map to the op's padding. Otherwise the op runs
// without padding and its result is cropped: by asymmetric pads, or by the pads that give
// output_shape or auto_pad SAME_*'s output of input * stride (ONNX's formula, the odd one
// at the end for SAME_UPPER, else at the start).
void Importer::conv_transpose(const Node& n) {
  const auto x = shape_of(n, 0), w = shape_of(n, 1);
  const size_t dims = w.size() - 2;
  if (w.size() < 3 || dims > 3) fail(n, std::to_string(dims) + "-d transposed convolutions");
  std::vector<Value> in = {input(n, 0), input(n, 1)};
  if (has_input(n, 2)) in.push_back(input(n, 2));
  const std::vector<int64_t> ones(dims, 1), zeros(dims, 0);
  const auto strides = attr_ints(n, "strides", ones), dilations = attr_ints(n, "dilations", ones);
  const auto output_padding = attr_ints(n, "output_padding", zeros);
  if (x.size() != dims + 2 || strides.size() != dims || dilations.size() != dims ||
      output_padding.size() != dims)
    fail(n, "the input's dims, strides, dilations and output_padding do not match the kernel's");
  const std::string op = "conv_transpose" + std::to_string(dims) + "d";
  const auto* auto_pad = attr(n, "auto_pad");
  const bool same = auto_pad && auto_pad->s().rfind("SAME", 0) == 0;
  std::vector<int64_t> out_shape = attr_ints(n, "output_shape", {});
  Pads p{zeros, zeros};
  if (out_shape.empty() && !same)
    p = pads_of(n, std::vector<int64_t>(w.begin() + 2, w.end()), strides, dilations);
  auto attrs = [&](const std::vector<int64_t>& padding) {
    return Attrs{{"stride", strides},
                 {"padding", padding},
                 {"output_padding", output_padding},
                 {"groups", attr_int(n, "group", 1)},
                 {"dilation", dilations}};
  };
  if (out_shape.empty() && !same && p.begin == p.end)
    return define(n, call(n, op, std::move(in), attrs(p.begin)));
  if (out_shape.size() > dims) out_shape.erase(out_shape.begin(), out_shape.end() - dims);
  Value v = call(n, op, std::move(in), attrs(zeros), false);
  for (size_t d = 0; d < dims; ++d) {
    const int64_t full =
        strides[d] * (x[2 + d] - 1) + output_padding[d] + (w[2 + d] - 1) * dilations[d] + 1;
    int64_t begin = p.begin[d], size = full - p.begin[d] - p.end[d];
    if (same || !out_shape.empty()) {
      if (out_shape.empty())
        size = x[2 + d] * strides[d];
      else if (out_shape.size() == dims)
        size = out_shape[d];
      else
        fail(n, "output_shape has the wrong number of values");
      // the pads (negative: zeros added) split as ONNX's, halves rounded down
      const int64_t total = full - size, half = total >= 0 ? total / 2 : -((1 - total) / 2);
      begin = auto_pad && auto_pad->s() == "SAME_UPPER" ? half : total - half;
    }
    const int64_t end = full - begin - size;
    if (begin < 0 || end < 0) {  // zeros first, then a crop of what is left
      std::vector<int64_t> pad(2 * (dims - d), 0);
      pad[pad.size() - 2] = std::max<int64_t>(0, -begin);
      pad[pad.size() - 1] = std::max<int64_t>(0, -end);
      v = call(n, "constant_pad_nd", {v}, {{"pad", pad}, {"value", 0.0}}, false);
      begin = std::max<int64_t>(0, begin);
    }
    v = call(n, "slice", {v},
             {{"dim", static_cast<int64_t>(2 + d)},
              {"start", begin},
              {"end", begin + size},
              {"step", int64_t{1}}},
             d + 1 == dims);
  }
  define(n, v);
}

// MaxPool and AveragePool, 1-3 d. Pads LibTorch's pooling cannot take (different at the two
// ends, or over half the kernel) are applied first: -inf for MaxPool, zeros for
// AveragePool, whose count_include_pad=0 then divides by the pooled count of real elements.
void Importer::pool(const Node& n, bool max) {
  const auto kernel = attr_ints(n, "kernel_shape", {});
  const size_t dims = kernel.size();
  if (dims < 1 || dims > 3) fail(n, std::to_string(dims) + "-d pooling is not mapped");
  const std::vector<int64_t> ones(dims, 1);
  const auto strides = attr_ints(n, "strides", ones);
  const auto dilations = max ? attr_ints(n, "dilations", ones) : ones;
  Pads p = pads_of(n, kernel, strides, dilations);
  bool explicit_pad = p.begin != p.end;
  for (size_t d = 0; d < dims; ++d) explicit_pad |= 2 * p.begin[d] > kernel[d];
  const bool include_pad = attr_int(n, "count_include_pad", 0) != 0;
  const std::string op = std::string(max ? "max_pool" : "avg_pool") + std::to_string(dims) + "d";
  Attrs a = {{"kernel_size", kernel},
             {"stride", strides},
             {"padding", explicit_pad ? std::vector<int64_t>(dims, 0) : p.begin},
             {"ceil_mode", attr_int(n, "ceil_mode", 0) != 0}};
  if (max)
    a.push_back({"dilation", dilations});
  else
    a.push_back({"count_include_pad", include_pad});
  if (max && wants_output(n, 1)) {  // Indices: flat positions in the whole input
    if (explicit_pad) fail(n, "its Indices output with pads LibTorch's pooling cannot take");
    Value v = g_.custom(
        op,
        [kernel, strides, pad = p.begin, dilations, ceil = attr_int(n, "ceil_mode", 0) != 0,
         columns = attr_int(n, "storage_order", 0) != 0](const std::vector<Tensor>& x) {
          using Fn = std::tuple<Tensor, Tensor> (*)(const Tensor&, IntArrayRef, IntArrayRef,
                                                    IntArrayRef, IntArrayRef, bool);
          static const Fn fns[] = {nabla::max_pool1d_with_indices, nabla::max_pool2d_with_indices,
                                   nabla::max_pool3d_with_indices};
          auto [values, idx] = fns[kernel.size() - 1](x[0], kernel, strides, pad, dilations, ceil);
          const int64_t planes = x[0].size(0) * x[0].size(1);
          const int64_t plane = x[0].numel() / std::max<int64_t>(planes, 1);
          if (columns && kernel.size() == 2) {  // storage_order=1: column-major positions
            const int64_t h = x[0].size(2), w = x[0].size(3);
            idx = idx.remainder(w) * h + idx.floor_divide(w);
          }
          const Tensor offset = arange(planes, TensorOptions(kLong)).to(idx.device()) * plane;
          std::vector<int64_t> shape(static_cast<size_t>(idx.dim()), 1);
          shape[0] = x[0].size(0);
          shape[1] = x[0].size(1);
          return std::vector<Tensor>{values, idx + offset.view(shape)};
        },
        {input(n, 0)}, n.output(0));
    return define(n, v.output(0), {v.output(1)});
  }
  if (!explicit_pad) return define(n, call(n, op, {input(n, 0)}, std::move(a)));
  if (max || include_pad)
    return define(n, call(n, op, {pad_spatial(n, input(n, 0), p, max ? -INFINITY : 0.0)}, a));
  Value x = input(n, 0);
  Value sum = call(n, op, {pad_spatial(n, x, p, 0.0)}, a, false);
  Value real = call(n, "ones_like", {x}, {}, false);
  Value count = call(n, op, {pad_spatial(n, real, p, 0.0)}, a, false);
  define(n, call(n, "div", {sum, count}));
}

// Y = alpha * A' B' + beta * C; torch's Linear is the plain case (transB, alpha = beta = 1).
void Importer::gemm(const Node& n) {
  const bool ta = attr_int(n, "transA", 0), tb = attr_int(n, "transB", 0);
  const double alpha = attr_float(n, "alpha", 1.0), beta = attr_float(n, "beta", 1.0);
  Value a = input(n, 0), b = input(n, 1);
  if (!ta && tb && alpha == 1.0 && beta == 1.0) {
    std::vector<Value> in = {a, b};
    if (has_input(n, 2)) in.push_back(input(n, 2));
    return define(n, call(n, "linear", std::move(in)));
  }
  if (ta) a = call(n, "t", {a}, {}, false);
  if (tb) b = call(n, "t", {b}, {}, false);
  const bool bias = has_input(n, 2) && beta != 0.0;
  Value y = call(n, "matmul", {a, b}, {}, !bias && alpha == 1.0);
  if (alpha != 1.0) y = call(n, "mul", {y}, {{"other", alpha}}, !bias);
  if (bias) {
    Value c = input(n, 2);
    if (beta != 1.0) c = call(n, "mul", {c}, {{"other", beta}}, false);
    y = call(n, "add", {y, c});
  }
  define(n, y);
}

// Inference form: X, scale, B, mean, var (the statistics constants, scale and B trainable).
// training_mode=1 (opset 14): normalized by the batch's statistics (the variance biased),
// the running ones updated with `momentum` as two more outputs.
void Importer::batch_norm(const Node& n) {
  if (attr_int(n, "training_mode", 0) != 0) {
    Value v = g_.custom(
        "BatchNormalization",
        [eps = attr_float(n, "epsilon", 1e-5),
         momentum = attr_float(n, "momentum", 0.9)](const std::vector<Tensor>& x) {
          std::vector<int64_t> dims = {0}, shape(static_cast<size_t>(x[0].dim()), 1);
          for (int64_t d = 2; d < x[0].dim(); ++d) dims.push_back(d);
          shape[1] = x[0].size(1);
          const Tensor mean = x[0].mean(dims), var = (x[0] - mean.view(shape)).square().mean(dims);
          const Tensor y =
              (x[0] - mean.view(shape)) / (var.view(shape) + eps).sqrt() * x[1].view(shape) +
              x[2].view(shape);
          return std::vector<Tensor>{y, x[3] * momentum + mean * (1 - momentum),
                                     x[4] * momentum + var * (1 - momentum)};
        },
        {input(n, 0), input(n, 1), input(n, 2), input(n, 3), input(n, 4)}, n.output(0));
    return define(n, v.output(0), {v.output(1), v.output(2)});
  }
  // running statistics from the file are constants (they are not trained)
  auto statistic = [&](int i) {
    return has_input(n, i) && constants_.count(n.input(i))
               ? g_.constant(constant(n, i), n.input(i) + ".stat")
               : input(n, i);
  };
  std::vector<Value> in = {input(n, 0), input(n, 1), input(n, 2), statistic(3), statistic(4)};
  define(n, call(n, "batch_norm", std::move(in),
                 {{"training", false}, {"eps", attr_float(n, "epsilon", 1e-5)}}));
}

// LayerNormalization; its optional outputs Mean and InvStdDev (over the normalized dims,
// kept as size 1) come from a node of their own.
void Importer::layer_norm(const Node& n) {
  const auto shape = shape_of(n, 0);
  const int64_t axis = axis_of(n, static_cast<int64_t>(shape.size()), -1);
  const double eps = attr_float(n, "epsilon", 1e-5);
  std::vector<Value> in = {input(n, 0), input(n, 1)};
  if (has_input(n, 2)) in.push_back(input(n, 2));
  Value y = call(n, "layer_norm", std::move(in),
                 {{"normalized_shape", std::vector<int64_t>(shape.begin() + axis, shape.end())},
                  {"eps", eps}});
  if (!wants_output(n, 1) && !wants_output(n, 2)) return define(n, y);
  std::vector<int64_t> dims;
  for (int64_t d = axis; d < static_cast<int64_t>(shape.size()); ++d) dims.push_back(d);
  std::vector<Value> all = {input(n, 0), input(n, 1)};  // all of them: Note [ONNX records]
  if (has_input(n, 2)) all.push_back(input(n, 2));
  Value stats = g_.custom(
      "layer_norm_statistics",
      [dims, eps](const std::vector<Tensor>& x) -> std::vector<Tensor> {
        const Tensor mean = x[0].mean(dims, true);
        const Tensor var = (x[0] - mean).square().mean(dims, true);
        return {mean, (var + eps).rsqrt()};
      },
      std::move(all), n.output(0) + ".statistics");
  define(n, y, {stats.output(0), stats.output(1)});
}

// NegativeLogLikelihoodLoss (log-probabilities in) and SoftmaxCrossEntropyLoss (scores in;
// its optional second output is their log_softmax): inputs [N, C, d1...], targets
// [N, d1...], optional class weights; reduction and ignore_index as LibTorch's nll_loss.
void Importer::class_loss(const Node& n, bool from_scores) {
  const auto* r = attr(n, "reduction");
  const std::string reduction = r ? r->s() : "mean";
  if (reduction != "mean" && reduction != "sum" && reduction != "none")
    fail(n, "reduction '" + reduction + "'");
  const auto* ignore = attr(n, "ignore_index");
  Value scores = input(n, 0);
  Value log_prob =
      from_scores ? call(n, "log_softmax", {scores}, {{"dim", int64_t{1}}}, false) : scores;
  Value target = call(n, "to", {input(n, 1)}, {{"dtype", kLong}}, false);
  std::vector<Value> in = {log_prob, target};
  if (has_input(n, 2)) in.push_back(input(n, 2));
  Value loss = call(n, "nll_loss_nd", std::move(in),
                    {{"reduction", int64_t{reduction == "none"   ? 0
                                           : reduction == "mean" ? 1
                                                                 : 2}},
                     {"ignore_index", ignore ? ignore->i() : int64_t{-100}}});
  define(n, loss,
         from_scores && wants_output(n, 1) ? std::vector<Value>{log_prob} : std::vector<Value>{});
}

// LRN, MeanVarianceNormalization, GridSample, MaxUnpool: function nodes of the ops their
// definitions compose.
bool Importer::map_nn(const Node& n) {
  using In = const std::vector<Tensor>&;
  const std::string& op = n.op_type();
  auto done = [&](auto f) {
    define(n, function_node(n, op, present_inputs(n), f));
    return true;
  };
  // LRN: x / (bias + alpha / size * sum of squares over nearby channels)^beta. Written out
  // rather than mapped to nabla's local_response_norm: for an even size ONNX puts the
  // extra channel of the window after the centre ((size - 1) / 2 before it), LibTorch's
  // op before it, so the two differ there.
  if (op == "LRN")
    return done([size = attr_int(n, "size", 1), alpha = attr_float(n, "alpha", 1e-4),
                 beta = attr_float(n, "beta", 0.75), bias = attr_float(n, "bias", 1.0)](In x) {
      const Tensor sq = x[0].square();
      const int64_t before = (size - 1) / 2, after = size - 1 - before, channels = x[0].size(1);
      std::vector<int64_t> pad(static_cast<size_t>(2 * (x[0].dim() - 2)), 0);
      pad.push_back(before);  // the channel dim: the last pair of LibTorch's pad order
      pad.push_back(after);
      const Tensor padded = constant_pad_nd(sq, pad, 0);
      Tensor sum = padded.narrow(1, 0, channels);
      for (int64_t k = 1; k < size; ++k) sum = sum + padded.narrow(1, k, channels);
      return x[0] / (sum * (alpha / static_cast<double>(size)) + bias).pow(beta);
    });
  if (op == "MeanVarianceNormalization")  // (x - mean) / (std + 1e-9) over `axes`
    return done([axes = attr_ints(n, "axes", {0, 2, 3})](In x) {
      const Tensor mean = x[0].mean(axes, true);
      const Tensor var = x[0].square().mean(axes, true) - mean.square();
      return (x[0] - mean) / (var.sqrt() + 1e-9);
    });
  if (op == "GridSample") {  // LibTorch's grid_sampler, 4-d, bilinear or nearest
    const auto* m = attr(n, "mode");
    const auto* p = attr(n, "padding_mode");
    const std::string mode = m ? m->s() : "bilinear", padding = p ? p->s() : "zeros";
    if (mode != "bilinear" && mode != "nearest") fail(n, "mode '" + mode + "'");
    const int64_t padding_mode = padding == "zeros"        ? 0
                                 : padding == "border"     ? 1
                                 : padding == "reflection" ? 2
                                                           : -1;
    if (padding_mode < 0) fail(n, "padding_mode '" + padding + "'");
    return done([nearest = mode == "nearest", padding_mode,
                 corners = attr_int(n, "align_corners", 0) != 0](In x) {
      return grid_sampler(x[0], x[1].to(x[0].scalar_type()), nearest ? 1 : 0, padding_mode,
                          corners);
    });
  }
  if (op == "MaxUnpool") {  // X's values placed at the flat positions I gives, zeros elsewhere
    const auto kernel = attr_ints(n, "kernel_shape", {});
    const size_t dims = kernel.size();
    const auto strides = attr_ints(n, "strides", std::vector<int64_t>(dims, 1));
    const auto pads = attr_ints(n, "pads", std::vector<int64_t>(2 * dims, 0));
    if (pads.size() != 2 * dims || strides.size() != dims)
      fail(n, "pads or strides of the wrong size");
    return done([kernel, strides, pads](In x) {
      // the indices are positions in the output of the default shape; output_shape adds
      // zeros at the end of each dim
      std::vector<int64_t> full = {x[0].size(0), x[0].size(1)}, shape;
      for (size_t d = 0; d < kernel.size(); ++d)
        full.push_back((x[0].size(static_cast<int64_t>(d + 2)) - 1) * strides[d] + kernel[d] -
                       pads[d] - pads[d + kernel.size()]);
      if (x.size() > 2) {  // output_shape
        const Tensor s = x[2].to(kCPU).to(kLong).contiguous();
        shape.assign(s.data_ptr<int64_t>(), s.data_ptr<int64_t>() + s.numel());
      }
      int64_t total = 1;
      for (int64_t d : full) total *= d;
      const Tensor flat = zeros({total}, x[0].options());
      const Tensor out =
          flat.scatter(0, x[1].reshape({-1}).to(kLong), x[0].reshape({-1})).view(full);
      if (shape.empty() || shape == full) return out;
      NABLA_CHECK(shape.size() == full.size(), "MaxUnpool: output_shape has ", shape.size(),
                  " values for ", full.size(), " dims");
      std::vector<int64_t> pad;
      for (size_t d = full.size(); d-- > 2;) pad.insert(pad.end(), {0, shape[d] - full[d]});
      return constant_pad_nd(out, pad, 0);
    });
  }
  return false;
}

}  // namespace nabla::graph::onnx_import

#endif
