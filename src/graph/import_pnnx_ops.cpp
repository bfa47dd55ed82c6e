// The operator table of graph::load_pnnx: each nn.*, F.*, torch.* and Tensor.* type pnnx
// writes, as op-table nodes. Module operators (nn.*) carry their weights (`@weight`) and
// settings as parameters; function operators read tensors from inputs (`$weight=12`) and
// settings from parameters or from inputs known at import (Note [PNNX operands]).
#include <climits>
#include <cmath>

#include "graph/import_pnnx.h"
#include "nabla/ops/factories.h"

namespace nabla::graph::detail {

namespace {

using I = PnnxImporter;
using Op = PnnxOperator;
using Attrs = ops::Attributes;
using Ints = std::vector<int64_t>;

bool is_module(const Op& op) { return op.type.rfind("nn.", 0) == 0; }

// A module's `@key` weight, or a function's `$key` input; undefined when absent.
Value tensor_arg(I& im, const Op& op, const char* key, bool trainable = true) {
  if (is_module(op))
    return im.has_weight(op, key) ? im.weight(op, key, trainable) : im.graph().constant(Tensor());
  return im.arg_index(op, key) >= 0 ? im.in(op, key) : im.graph().constant(Tensor());
}

// The spatial dimensions of an operator type: "nn.Conv2d" and "F.max_pool2d" are 2.
size_t dims_of(const Op& op) {
  return op.type.ends_with("1d") ? 1 : op.type.ends_with("3d") ? 3 : 2;
}

Ints ints_or(I& im, const Op& op, const char* key, size_t n, int64_t fallback) {
  return im.has(op, key) ? im.ints_of(op, key, n) : Ints(n, fallback);
}

void unary(I& im, const Op& op, const std::string& name, Attrs attrs = {}) {
  im.define(op, im.call(op, name, {im.in(op, size_t{0})}, std::move(attrs)));
}

void conv(I& im, const Op& op, bool transposed) {
  const size_t dims = dims_of(op);
  if (dims == 3) im.fail(op, "3-d convolutions are not mapped yet");
  Value x = im.in(op, size_t{0});
  const Value w = tensor_arg(im, op, "weight"), b = tensor_arg(im, op, "bias");
  Attrs a = {{"stride", ints_or(im, op, "stride", dims, 1)},
             {"dilation", ints_or(im, op, "dilation", dims, 1)},
             {"groups", im.int_of(op, "groups", 1)}};
  const std::string padding = im.str_of(op, "padding", "");
  if (padding == "same" || padding == "valid") {
    a.push_back({"padding", padding});
  } else {
    Ints pad = ints_or(im, op, "padding", dims, 0);
    const std::string mode = im.str_of(op, "padding_mode", "zeros");
    if (mode != "zeros") {  // reflect, replicate, circular: padded first
      Ints amounts;
      for (size_t d = dims; d-- > 0;) amounts.insert(amounts.end(), {pad[d], pad[d]});
      const std::string kind = mode == "reflect"     ? "reflection_pad"
                               : mode == "replicate" ? "replication_pad"
                                                     : "";
      if (kind.empty() && mode != "circular") im.fail(op, "padding_mode=" + mode);
      x = kind.empty()
              ? im.call(op, "circular_pad", {x}, {{"padding", amounts}}, false)
              : im.call(op, kind + std::to_string(dims) + "d", {x}, {{"padding", amounts}}, false);
      pad.assign(dims, 0);
    }
    a.push_back({"padding", pad});
  }
  if (transposed) a.push_back({"output_padding", ints_or(im, op, "output_padding", dims, 0)});
  const std::string name =
      std::string(transposed ? "conv_transpose" : "conv") + std::to_string(dims) + "d";
  im.define(op, im.call(op, name, {x, w, b}, std::move(a)));
}

void batch_norm(I& im, const Op& op) {
  const Value mean = tensor_arg(im, op, "running_mean", false),
              var = tensor_arg(im, op, "running_var", false);
  const Value w = tensor_arg(im, op, "weight"), b = tensor_arg(im, op, "bias");
  im.define(op, im.call(op, "batch_norm", {im.in(op, size_t{0}), w, b, mean, var},
                        {{"training", false}, {"eps", im.float_of(op, "eps", 1e-5)}}));
}

void instance_norm(I& im, const Op& op) {
  const Value mean = tensor_arg(im, op, "running_mean", false),
              var = tensor_arg(im, op, "running_var", false);
  const Value w = tensor_arg(im, op, "weight"), b = tensor_arg(im, op, "bias");
  const bool stats = is_module(op) ? !im.bool_of(op, "track_running_stats", false)
                                   : im.bool_of(op, "use_input_stats", true);
  im.define(op, im.call(op, "instance_norm", {im.in(op, size_t{0}), w, b, mean, var},
                        {{"use_input_stats", stats}, {"eps", im.float_of(op, "eps", 1e-5)}}));
}

// LayerNorm and GroupNorm: input, optional weight and bias, `eps` and the norm's own setting.
void affine_norm(I& im, const Op& op, const std::string& name, Attrs a) {
  a.push_back({"eps", im.float_of(op, "eps", 1e-5)});
  im.define(
      op, im.call(op, name,
                  {im.in(op, size_t{0}), tensor_arg(im, op, "weight"), tensor_arg(im, op, "bias")},
                  std::move(a)));
}

void layer_norm(I& im, const Op& op) {
  affine_norm(im, op, "layer_norm", {{"normalized_shape", im.ints_of(op, "normalized_shape")}});
}

void group_norm(I& im, const Op& op) {
  affine_norm(im, op, "group_norm", {{"num_groups", im.int_of(op, "num_groups")}});
}

void pool(I& im, const Op& op, bool max) {
  const size_t dims = dims_of(op);
  if (dims == 3) im.fail(op, "3-d pooling is not mapped yet");
  const Ints kernel = im.ints_of(op, "kernel_size", dims);
  Attrs a = {{"kernel_size", kernel},
             {"stride", im.has(op, "stride") ? im.ints_of(op, "stride", dims) : kernel},
             {"padding", ints_or(im, op, "padding", dims, 0)},
             {"ceil_mode", im.bool_of(op, "ceil_mode", false)}};
  const std::string d = std::to_string(dims) + "d";
  if (max) {
    a.push_back({"dilation", ints_or(im, op, "dilation", dims, 1)});
    if (im.bool_of(op, "return_indices", false)) {
      if (dims != 2) im.fail(op, "return_indices is mapped for 2-d pooling only");
      Value v = im.call(op, "max_pool2d_with_indices", {im.in(op, size_t{0})}, std::move(a));
      im.define(op, 0, Term::of(v.output(0)));
      if (op.outputs.size() > 1) im.define(op, 1, Term::of(v.output(1)));
      return;
    }
    return im.define(op, im.call(op, "max_pool" + d, {im.in(op, size_t{0})}, std::move(a)));
  }
  a.push_back({"count_include_pad", im.bool_of(op, "count_include_pad", true)});
  if (im.has(op, "divisor_override")) {
    if (dims != 2) im.fail(op, "divisor_override is mapped for 2-d pooling only");
    a.push_back({"divisor_override", im.int_of(op, "divisor_override")});
  }
  im.define(op, im.call(op, "avg_pool" + d, {im.in(op, size_t{0})}, std::move(a)));
}

void adaptive_pool(I& im, const Op& op, bool max) {
  const size_t dims = dims_of(op);
  const Ints size = im.ints_of(op, "output_size", dims);
  const std::string name =
      std::string(max ? "adaptive_max_pool" : "adaptive_avg_pool") + std::to_string(dims) + "d";
  if (max && dims != 2) im.fail(op, "only 2-d adaptive max pooling is mapped");
  if (dims == 3) im.fail(op, "3-d adaptive pooling is not mapped yet");
  Value v = im.call(op, name, {im.in(op, size_t{0})}, {{"output_size", size}});
  if (!max) return im.define(op, v);
  im.define(op, 0, Term::of(v.output(0)));
  if (op.outputs.size() > 1) im.define(op, 1, Term::of(v.output(1)));
}

// nn.Upsample and F.interpolate: nearest, nearest-exact, linear and bilinear, from a
// size or scale factors (output = floor(input * scale), the scales kept for the kernel).
void upsample(I& im, const Op& op) {
  const Value x = im.in(op, size_t{0});
  const Ints in = im.shape_of(x);
  const size_t dims = in.size() - 2;
  if (in.size() < 3 || dims > 2) im.fail(op, "only 1-d and 2-d inputs are mapped");
  const std::string mode = im.str_of(op, "mode", "nearest");
  Ints size;
  std::vector<double> scales;
  if (im.has(op, "size")) {
    size = im.ints_of(op, "size", dims);
  } else {
    if (!im.has(op, "scale_factor")) im.fail(op, "neither size nor scale_factor is given");
    scales = im.floats_of(op, "scale_factor");
    if (scales.size() == 1) scales.assign(dims, scales[0]);
    if (scales.size() != dims)
      im.fail(op, "scale_factor has " + std::to_string(scales.size()) + " values");
    for (size_t d = 0; d < dims; ++d)
      size.push_back(static_cast<int64_t>(std::floor(static_cast<double>(in[2 + d]) * scales[d])));
    if (im.bool_of(op, "recompute_scale_factor", false)) scales.clear();
  }
  Attrs a = {{"output_size", size}};
  const bool linear = mode == "linear" || mode == "bilinear";
  if (linear) a.push_back({"align_corners", im.bool_of(op, "align_corners", false)});
  if (!scales.empty()) {
    if (dims == 1) {
      a.push_back({"scales", scales[0]});
    } else {
      a.push_back({"scales_h", scales[0]});
      a.push_back({"scales_w", scales[1]});
    }
  }
  std::string name;
  if (mode == "nearest")
    name = "upsample_nearest";
  else if (mode == "nearest-exact")
    name = "_upsample_nearest_exact";
  else if (mode == "linear" && dims == 1)
    name = "upsample_linear";
  else if (mode == "bilinear" && dims == 2)
    name = "upsample_bilinear";
  else
    im.fail(op, "mode=" + mode + " on a " + std::to_string(dims) + "-d input is not mapped");
  im.define(op, im.call(op, name + std::to_string(dims) + "d", {x}, std::move(a)));
}

// F.pad: `pad` pairs from the last dimension; constant, reflect, replicate, circular.
void pad(I& im, const Op& op) {
  const Ints amounts = im.ints_of(op, "pad");
  const std::string mode = im.str_of(op, "mode", "constant");
  const Value x = im.in(op, size_t{0});
  if (mode == "constant")
    return im.define(op, im.call(op, "constant_pad_nd", {x},
                                 {{"pad", amounts}, {"value", im.float_of(op, "value", 0.0)}}));
  const std::string d = std::to_string(amounts.size() / 2) + "d";
  if (mode == "reflect")
    return im.define(op, im.call(op, "reflection_pad" + d, {x}, {{"padding", amounts}}));
  if (mode == "replicate")
    return im.define(op, im.call(op, "replication_pad" + d, {x}, {{"padding", amounts}}));
  if (mode == "circular")
    return im.define(op, im.call(op, "circular_pad", {x}, {{"padding", amounts}}));
  im.fail(op, "mode=" + mode);
}

// nn.ZeroPad2d, nn.ConstantPad1d/2d, nn.ReflectionPad1d/2d, nn.ReplicationPad1d/2d.
void pad_module(I& im, const Op& op, const std::string& mode) {
  const size_t dims = dims_of(op);
  const Ints amounts = im.ints_of(op, "padding", 2 * dims);
  const Value x = im.in(op, size_t{0});
  const std::string d = std::to_string(dims) + "d";
  if (mode == "constant")
    return im.define(op, im.call(op, "constant_pad_nd", {x},
                                 {{"pad", amounts}, {"value", im.float_of(op, "value", 0.0)}}));
  im.define(op, im.call(op, mode + d, {x}, {{"padding", amounts}}));
}

// Tensor.slice, single (dim/start/end/step/select) or fused (dims/starts/ends/steps/
// selects) as pnnx writes it: the dims are the input's, in Python's indexing order; a
// select (not INT_MAX) takes one index and drops the dimension.
void slice(I& im, const Op& op) {
  const bool fused = im.has(op, "dims");
  const Ints dims = fused ? im.ints_of(op, "dims") : Ints{im.int_of(op, "dim")};
  const size_t n = dims.size();
  auto list = [&](const char* many, const char* one, int64_t fallback) {
    if (fused) return im.has(op, many) ? im.ints_of(op, many, n) : Ints(n, fallback);
    return Ints{im.int_of(op, one, fallback)};
  };
  const Ints starts = list("starts", "start", 0), ends = list("ends", "end", INT_MAX),
             steps = list("steps", "step", 1), selects = list("selects", "select", INT_MAX);
  Value x = im.in(op, size_t{0});
  const Ints shape = im.shape_of(x);
  const auto rank = static_cast<int64_t>(shape.size());
  std::vector<std::pair<int64_t, size_t>>
      order;  // highest dimension first: selects keep the others'
  for (size_t k = 0; k < n; ++k) {
    const int64_t d = dims[k] < 0 ? dims[k] + rank : dims[k];
    if (d < 0 || d >= rank)
      im.fail(op, "dimension " + std::to_string(dims[k]) + " is out of range");
    order.push_back({d, k});
  }
  std::sort(order.rbegin(), order.rend());
  for (size_t j = 0; j < order.size(); ++j) {
    const auto [d, k] = order[j];
    const bool last = j + 1 == order.size();
    const int64_t size = shape[static_cast<size_t>(d)];
    if (selects[k] != INT_MAX) {
      x = im.call(op, "select", {x}, {{"dim", d}, {"index", selects[k]}}, last);
      continue;
    }
    if (steps[k] <= 0) im.fail(op, "a step of " + std::to_string(steps[k]));
    auto clampi = [&](int64_t i) { return std::clamp(i < 0 ? i + size : i, int64_t{0}, size); };
    const int64_t end = ends[k] >= INT_MAX ? size : clampi(ends[k]);
    x = im.call(op, "slice", {x},
                {{"dim", d}, {"start", clampi(starts[k])}, {"end", end}, {"step", steps[k]}}, last);
  }
  im.define(op, x);
}

// nn.LSTM, nn.GRU, nn.RNN: the op-table's lstm / gru / rnn_tanh / rnn_relu with the
// module's weights in PyTorch's order; absent initial states are zeros.
void rnn(I& im, const Op& op, const std::string& kind) {
  const int64_t hidden = im.int_of(op, "hidden_size"), layers = im.int_of(op, "num_layers", 1);
  const bool bidirectional = im.bool_of(op, "bidirectional", false),
             batch_first = im.bool_of(op, "batch_first", false);
  const bool bias = im.bool_of(op, "bias", true);
  if (im.int_of(op, "proj_size", 0) != 0) im.fail(op, "proj_size is not mapped yet");
  const Value x = im.in(op, size_t{0});
  const Ints shape = im.shape_of(x);
  if (shape.size() != 3) im.fail(op, "only batched (3-d) inputs are mapped");
  const int64_t dirs = bidirectional ? 2 : 1, batch = shape[batch_first ? 0 : 1];
  const bool lstm = kind == "lstm";
  std::vector<Value> in = {x};
  for (size_t s = 1; s <= (lstm ? 2u : 1u); ++s) {
    if (s < op.inputs.size()) {
      in.push_back(im.in(op, s));
    } else {
      in.push_back(im.graph().constant(zeros({layers * dirs, batch, hidden})));
    }
  }
  for (int64_t l = 0; l < layers; ++l)
    for (int64_t d = 0; d < dirs; ++d) {
      const std::string suffix = "_l" + std::to_string(l) + (d ? "_reverse" : "");
      in.push_back(im.weight(op, "weight_ih" + suffix));
      in.push_back(im.weight(op, "weight_hh" + suffix));
      if (bias) {
        in.push_back(im.weight(op, "bias_ih" + suffix));
        in.push_back(im.weight(op, "bias_hh" + suffix));
      }
    }
  std::string name = kind;
  if (kind == "rnn")
    name = im.str_of(op, "nonlinearity", "tanh") == "relu" ? "rnn_relu" : "rnn_tanh";
  Value out = im.call(op, name, std::move(in),
                      {{"has_biases", bias},
                       {"num_layers", layers},
                       {"dropout", 0.0},
                       {"train", false},
                       {"bidirectional", bidirectional},
                       {"batch_first", batch_first}});
  for (size_t i = 0; i < op.outputs.size(); ++i)
    im.define(op, i, Term::of(out.output(static_cast<int64_t>(i))));
}

// nn.MultiheadAttention as projections, scaled dot products and softmax per head.
void multihead_attention(I& im, const Op& op) {
  const int64_t e = im.int_of(op, "embed_dim"), heads = im.int_of(op, "num_heads");
  if (im.bool_of(op, "add_bias_kv", false) || im.bool_of(op, "add_zero_attn", false))
    im.fail(op, "add_bias_kv and add_zero_attn are not mapped yet");
  if (!im.has_weight(op, "in_proj_weight"))
    im.fail(op, "separate q/k/v projections are not mapped yet");
  if (e % heads != 0) im.fail(op, "embed_dim is not a multiple of num_heads");
  const bool batch_first = im.bool_of(op, "batch_first", false);
  const int mask_at = im.arg_index(op, "attn_mask");
  const size_t n_in = mask_at >= 0 ? static_cast<size_t>(mask_at) : op.inputs.size();
  auto input = [&](size_t i) {
    Value v = im.in(op, std::min(i, n_in - 1));  // one input: query = key = value
    return batch_first
               ? v
               : im.call(op, "transpose", {v}, {{"dim0", int64_t{0}}, {"dim1", int64_t{1}}}, false);
  };
  const Value w = im.weight(op, "in_proj_weight");
  const bool bias = im.has_weight(op, "in_proj_bias");
  const Value b = bias ? im.weight(op, "in_proj_bias") : Value{};
  const int64_t d = e / heads;
  auto project = [&](size_t i) {  // [N, L, E] -> [N, H, L, D]
    const Value x = input(i);
    const Attrs rows = {{"dim", int64_t{0}},
                        {"start", static_cast<int64_t>(i) * e},
                        {"end", static_cast<int64_t>(i + 1) * e}};
    std::vector<Value> in = {x, im.call(op, "slice", {w}, rows, false)};
    if (bias) in.push_back(im.call(op, "slice", {b}, rows, false));
    const Ints s = im.shape_of(x);
    Value y = im.call(op, "linear", std::move(in), {}, false);
    y = im.call(op, "reshape", {y}, {{"shape", Ints{s[0], s[1], heads, d}}}, false);
    return im.call(op, "permute", {y}, {{"dims", Ints{0, 2, 1, 3}}}, false);
  };
  const Value q = project(0), k = project(1), v = project(2);
  Value scores = im.call(
      op, "matmul",
      {q, im.call(op, "transpose", {k}, {{"dim0", int64_t{-2}}, {"dim1", int64_t{-1}}}, false)}, {},
      false);
  scores =
      im.call(op, "mul", {scores}, {{"other", 1.0 / std::sqrt(static_cast<double>(d))}}, false);
  if (mask_at >= 0) {
    const Value mask = im.in(op, static_cast<size_t>(mask_at));
    if (im.example_of(mask).scalar_type() == kBool)
      scores = im.call(op, "masked_fill", {scores, mask}, {{"value", -INFINITY}}, false);
    else
      scores = im.call(op, "add", {scores, mask}, {}, false);
  }
  const Value attn = im.call(op, "softmax", {scores}, {{"dim", int64_t{-1}}}, false);
  Value out = im.call(op, "matmul", {attn, v}, {}, false);  // [N, H, L, D]
  const Ints qs = im.shape_of(q);
  out = im.call(op, "permute", {out}, {{"dims", Ints{0, 2, 1, 3}}}, false);
  out = im.call(op, "reshape", {out}, {{"shape", Ints{qs[0], qs[2], e}}}, false);
  std::vector<Value> proj = {out, im.weight(op, "out_proj.weight")};
  if (im.has_weight(op, "out_proj.bias")) proj.push_back(im.weight(op, "out_proj.bias"));
  out = im.call(op, "linear", std::move(proj), {}, batch_first);
  if (!batch_first)
    out = im.call(op, "transpose", {out}, {{"dim0", int64_t{0}}, {"dim1", int64_t{1}}});
  im.define(op, out);
  if (op.outputs.size() > 1)  // the attention weights, averaged over the heads
    im.define(op, 1, Term::of(im.call(op, "mean", {attn}, {{"dim", Ints{1}}}, false)));
}

// torch.mean / sum / amax / amin / logsumexp / prod: over `dim`, or every dimension.
void reduce(I& im, const Op& op, const std::string& name) {
  const Value x = im.in(op, size_t{0});
  const bool keepdim = im.bool_of(op, "keepdim", false);
  if (!im.has(op, "dim")) {
    if (name == "amax" || name == "amin" || name == "logsumexp") {
      Ints all(im.shape_of(x).size());
      for (size_t k = 0; k < all.size(); ++k) all[k] = static_cast<int64_t>(k);
      return im.define(op, im.call(op, name, {x}, {{"dim", all}, {"keepdim", keepdim}}));
    }
    return im.define(op, im.call(op, name, {x}));
  }
  const Ints dim = im.ints_of(op, "dim");
  if (name == "prod")
    return im.define(op, im.call(op, name, {x}, {{"dim", dim.at(0)}, {"keepdim", keepdim}}));
  im.define(op, im.call(op, name, {x}, {{"dim", dim}, {"keepdim", keepdim}}));
}

// torch.max / torch.min: with dim, values and indices; without, the extreme of all.
void extreme(I& im, const Op& op, const std::string& name) {
  if (!im.has(op, "dim")) return unary(im, op, name);
  Value v = im.call(op, name, {im.in(op, size_t{0})},
                    {{"dim", im.int_of(op, "dim")}, {"keepdim", im.bool_of(op, "keepdim", false)}});
  for (size_t i = 0; i < op.outputs.size(); ++i)
    im.define(op, i, Term::of(v.output(static_cast<int64_t>(i))));
}

// torch.chunk / split / unbind / tensor_split: one output per piece.
void pieces(I& im, const Op& op, const std::string& name) {
  const Value x = im.in(op, size_t{0});
  const int64_t dim = im.int_of(op, "dim", 0);
  Value v;
  if (name == "chunk") {
    v = im.call(op, "chunk", {x}, {{"chunks", im.int_of(op, "chunks")}, {"dim", dim}});
  } else if (name == "unbind") {
    v = im.call(op, "unbind", {x}, {{"dim", dim}});
  } else if (name == "tensor_split") {
    v = im.has(op, "indices") ? im.call(op, "tensor_split", {x},
                                        {{"indices", im.ints_of(op, "indices")}, {"dim", dim}})
                              : im.call(op, "tensor_split", {x},
                                        {{"sections", im.int_of(op, "sections")}, {"dim", dim}});
  } else {
    const Ints sizes = im.ints_of(op, "split_size_or_sections");
    v = sizes.size() == 1 && op.outputs.size() != 1
            ? im.call(op, "split", {x}, {{"split_size", sizes[0]}, {"dim", dim}})
            : im.call(op, "split_with_sizes", {x}, {{"split_sizes", sizes}, {"dim", dim}});
  }
  for (size_t i = 0; i < op.outputs.size(); ++i)
    im.define(op, i, Term::of(v.output(static_cast<int64_t>(i))));
}

// torch.where(condition, input, other): either value may be a number (a parameter).
void where(I& im, const Op& op) {
  auto operand = [&](const char* key, size_t position) {
    if (im.arg_index(op, key) >= 0) return im.in(op, key);
    if (im.has(op, key))
      return im.graph().constant(scalar_tensor(im.float_of(op, key, 0), TensorOptions(kFloat)));
    return im.in(op, position);
  };
  const Value c =
      im.arg_index(op, "condition") >= 0 ? im.in(op, "condition") : im.in(op, size_t{0});
  im.define(op, im.call(op, "where", {c, operand("input", 1), operand("other", 2)}));
}

void squeeze(I& im, const Op& op, bool un) {
  Value x = im.in(op, size_t{0});
  if (!im.has(op, "dim")) {
    if (un) im.fail(op, "unsqueeze without dim");
    return im.define(op, im.call(op, "squeeze", {x}));
  }
  Ints dims = im.ints_of(op, "dim");
  const auto rank = static_cast<int64_t>(im.shape_of(x).size());
  for (auto& d : dims) d = d < 0 ? d + rank + (un ? 1 : 0) : d;
  std::sort(dims.begin(), dims.end());
  if (!un) std::reverse(dims.begin(), dims.end());
  for (size_t k = 0; k < dims.size(); ++k)
    x = im.call(op, un ? "unsqueeze" : "squeeze", {x}, {{"dim", dims[k]}}, k + 1 == dims.size());
  im.define(op, x);
}

// nn.PixelShuffle / F.pixel_shuffle: [N, C r^2, H, W] -> [N, C, H r, W r].
void pixel_shuffle(I& im, const Op& op) {
  const int64_t r = im.int_of(op, "upscale_factor");
  const Value x = im.in(op, size_t{0});
  const Ints s = im.shape_of(x);
  if (s.size() != 4 || r <= 0 || s[1] % (r * r) != 0) im.fail(op, "expects [N, C r^2, H, W]");
  Value y =
      im.call(op, "reshape", {x}, {{"shape", Ints{s[0], s[1] / (r * r), r, r, s[2], s[3]}}}, false);
  y = im.call(op, "permute", {y}, {{"dims", Ints{0, 1, 4, 2, 5, 3}}}, false);
  im.define(
      op, im.call(op, "reshape", {y}, {{"shape", Ints{s[0], s[1] / (r * r), s[2] * r, s[3] * r}}}));
}

std::unordered_map<std::string, PnnxHandler> make_table() {
  std::unordered_map<std::string, PnnxHandler> t;
  auto both = [&t](const std::string& module, const std::string& function, const PnnxHandler& h) {
    if (!module.empty()) t["nn." + module] = h;
    if (!function.empty()) t[function] = h;
  };
  // Activations: the module, the function, the op, and the settings read as numbers with
  // PyTorch's defaults.
  struct Activation {
    const char *module, *function, *op;
    std::vector<std::pair<const char*, double>> settings;
  };
  for (const Activation& a : std::vector<Activation>{
           {"ReLU", "F.relu", "relu", {}},
           {"ReLU6", "F.relu6", "relu6", {}},
           {"Sigmoid", "F.sigmoid", "sigmoid", {}},
           {"Tanh", "F.tanh", "tanh", {}},
           {"SiLU", "F.silu", "silu", {}},
           {"Hardswish", "F.hardswish", "hardswish", {}},
           {"Hardsigmoid", "F.hardsigmoid", "hardsigmoid", {}},
           {"Mish", "F.mish", "mish", {}},
           {"SELU", "F.selu", "selu", {}},
           {"Softsign", "F.softsign", "softsign", {}},
           {"LogSigmoid", "F.logsigmoid", "log_sigmoid", {}},
           {"Tanhshrink", "F.tanhshrink", "tanhshrink", {}},
           {"LeakyReLU", "F.leaky_relu", "leaky_relu", {{"negative_slope", 0.01}}},
           {"ELU", "F.elu", "elu", {{"alpha", 1.0}}},
           {"CELU", "F.celu", "celu", {{"alpha", 1.0}}},
           {"Hardtanh", "F.hardtanh", "hardtanh", {{"min_val", -1.0}, {"max_val", 1.0}}},
           {"Softplus", "F.softplus", "softplus", {{"beta", 1.0}, {"threshold", 20.0}}},
           {"Hardshrink", "F.hardshrink", "hardshrink", {{"lambd", 0.5}}},
           {"Softshrink", "F.softshrink", "softshrink", {{"lambd", 0.5}}},
           {"Threshold", "F.threshold", "threshold", {{"threshold", 0.0}, {"value", 0.0}}}})
    both(a.module, a.function, [a](I& im, const Op& op) {
      Attrs attrs;
      for (const auto& [key, fallback] : a.settings)
        attrs.push_back({key, im.float_of(op, key, fallback)});
      unary(im, op, a.op, std::move(attrs));
    });
  both("GELU", "F.gelu", [](I& im, const Op& op) {
    unary(im, op, "gelu", {{"approximate", im.str_of(op, "approximate", "none")}});
  });
  for (const auto& [module, name] :
       std::vector<std::pair<std::string, std::string>>{{"Softmax", "softmax"},
                                                        {"LogSoftmax", "log_softmax"},
                                                        {"Softmin", "softmin"},
                                                        {"GLU", "glu"}})
    both(module, "F." + name, [name = name](I& im, const Op& op) {
      unary(im, op, name, {{"dim", im.int_of(op, "dim", -1)}});
    });
  both("PReLU", "F.prelu", [](I& im, const Op& op) {
    im.define(op, im.call(op, "prelu", {im.in(op, size_t{0}), tensor_arg(im, op, "weight")}));
  });
  // Layers with weights.
  for (const char* d : {"1d", "2d"}) {
    both(std::string("Conv") + d, std::string("F.conv") + d,
         [](I& im, const Op& op) { conv(im, op, false); });
    both(std::string("ConvTranspose") + d, std::string("F.conv_transpose") + d,
         [](I& im, const Op& op) { conv(im, op, true); });
    both(std::string("MaxPool") + d, std::string("F.max_pool") + d,
         [](I& im, const Op& op) { pool(im, op, true); });
    both(std::string("AvgPool") + d, std::string("F.avg_pool") + d,
         [](I& im, const Op& op) { pool(im, op, false); });
    both(std::string("AdaptiveAvgPool") + d, std::string("F.adaptive_avg_pool") + d,
         [](I& im, const Op& op) { adaptive_pool(im, op, false); });
    both(std::string("AdaptiveMaxPool") + d, std::string("F.adaptive_max_pool") + d,
         [](I& im, const Op& op) { adaptive_pool(im, op, true); });
    both(std::string("ReflectionPad") + d, "",
         [](I& im, const Op& op) { pad_module(im, op, "reflection_pad"); });
    both(std::string("ReplicationPad") + d, "",
         [](I& im, const Op& op) { pad_module(im, op, "replication_pad"); });
    both(std::string("ConstantPad") + d, "",
         [](I& im, const Op& op) { pad_module(im, op, "constant"); });
  }
  both("ZeroPad2d", "", [](I& im, const Op& op) { pad_module(im, op, "constant"); });
  for (const char* d : {"1d", "2d", "3d"}) {
    both(std::string("BatchNorm") + d, "", batch_norm);
    both(std::string("InstanceNorm") + d, "", instance_norm);
  }
  t["F.batch_norm"] = batch_norm;
  t["F.instance_norm"] = instance_norm;
  both("LayerNorm", "F.layer_norm", layer_norm);
  both("GroupNorm", "F.group_norm", group_norm);
  both("Linear", "F.linear", [](I& im, const Op& op) {
    im.define(op, im.call(op, "linear",
                          {im.in(op, size_t{0}), tensor_arg(im, op, "weight"),
                           tensor_arg(im, op, "bias")}));
  });
  both("Embedding", "F.embedding", [](I& im, const Op& op) {
    const Value table = is_module(op) ? im.weight(op, "weight") : im.in(op, "weight");
    const Value idx =
        is_module(op) || im.arg_index(op, "input") < 0 ? im.in(op, size_t{0}) : im.in(op, "input");
    im.define(op, im.call(op, "embedding", {table, idx}));
  });
  both("Upsample", "F.interpolate", upsample);
  both("UpsamplingNearest2d", "F.upsample_nearest", upsample);
  both("UpsamplingBilinear2d", "F.upsample_bilinear", upsample);
  t["F.upsample"] = upsample;
  both("PixelShuffle", "F.pixel_shuffle", pixel_shuffle);
  both("LSTM", "", [](I& im, const Op& op) { rnn(im, op, "lstm"); });
  both("GRU", "", [](I& im, const Op& op) { rnn(im, op, "gru"); });
  both("RNN", "", [](I& im, const Op& op) { rnn(im, op, "rnn"); });
  both("MultiheadAttention", "", multihead_attention);
  auto identity = [](I& im, const Op& op) { im.define(op, im.in(op, size_t{0})); };
  for (const char* name :
       {"nn.Dropout", "nn.Dropout2d", "nn.Dropout3d", "nn.AlphaDropout", "nn.Identity", "F.dropout",
        "F.dropout2d", "F.alpha_dropout", "Tensor.contiguous"})
    t[name] = identity;
  t["F.pad"] = pad;
  // Tensor functions.
  t["torch.cat"] = t["torch.concat"] = [](I& im, const Op& op) {
    std::vector<Value> in;
    for (size_t i = 0; i < op.inputs.size(); ++i) in.push_back(im.in(op, i));
    im.define(op, im.call(op, "cat", std::move(in), {{"dim", im.int_of(op, "dim", 0)}}));
  };
  t["torch.stack"] = [](I& im, const Op& op) {
    std::vector<Value> in;
    for (size_t i = 0; i < op.inputs.size(); ++i) in.push_back(im.in(op, i));
    im.define(op, im.call(op, "stack", std::move(in), {{"dim", im.int_of(op, "dim", 0)}}));
  };
  both("Flatten", "torch.flatten", [](I& im, const Op& op) {
    unary(im, op, "flatten",
          {{"start_dim", im.int_of(op, "start_dim", is_module(op) ? 1 : 0)},
           {"end_dim", im.int_of(op, "end_dim", -1)}});
  });
  t["Tensor.reshape"] = t["Tensor.view"] = [](I& im, const Op& op) {
    unary(im, op, "reshape", {{"shape", im.ints_of(op, "shape")}});
  };
  t["Tensor.permute"] = t["torch.permute"] = [](I& im, const Op& op) {
    unary(im, op, "permute", {{"dims", im.ints_of(op, "dims")}});
  };
  t["torch.transpose"] = t["Tensor.transpose"] = [](I& im, const Op& op) {
    unary(im, op, "transpose", {{"dim0", im.int_of(op, "dim0")}, {"dim1", im.int_of(op, "dim1")}});
  };
  t["Tensor.slice"] = slice;
  t["Tensor.select"] = [](I& im, const Op& op) {
    unary(im, op, "select", {{"dim", im.int_of(op, "dim")}, {"index", im.int_of(op, "index")}});
  };
  for (const char* name : {"mean", "sum", "amax", "amin", "logsumexp", "prod"})
    t[std::string("torch.") + name] = [name = std::string(name)](I& im, const Op& op) {
      reduce(im, op, name);
    };
  t["torch.max"] = [](I& im, const Op& op) { extreme(im, op, "max"); };
  t["torch.min"] = [](I& im, const Op& op) { extreme(im, op, "min"); };
  for (const char* name : {"argmax", "argmin"})
    t[std::string("torch.") + name] = [name = std::string(name)](I& im, const Op& op) {
      Attrs a = {{"keepdim", im.bool_of(op, "keepdim", false)}};
      if (im.has(op, "dim")) a.push_back({"dim", im.int_of(op, "dim")});
      unary(im, op, name, std::move(a));
    };
  for (const char* name : {"matmul", "bmm", "mm"})
    t[std::string("torch.") + name] = [name = std::string(name)](I& im, const Op& op) {
      im.define(op, im.call(op, name, {im.in(op, size_t{0}), im.in(op, size_t{1})}));
    };
  t["torch.addmm"] = [](I& im, const Op& op) {
    im.define(
        op, im.call(op, "addmm", {im.in(op, size_t{0}), im.in(op, size_t{1}), im.in(op, size_t{2})},
                    {{"beta", im.float_of(op, "beta", 1.0)},
                     {"alpha", im.float_of(op, "alpha", 1.0)}}));
  };
  t["torch.squeeze"] = [](I& im, const Op& op) { squeeze(im, op, false); };
  t["torch.unsqueeze"] = [](I& im, const Op& op) { squeeze(im, op, true); };
  for (const char* name : {"chunk", "split", "unbind", "tensor_split"})
    t[std::string("torch.") + name] = [name = std::string(name)](I& im, const Op& op) {
      pieces(im, op, name);
    };
  t["torch.clamp"] = [](I& im, const Op& op) {
    Attrs a;
    if (im.has(op, "min")) a.push_back({"min", im.float_of(op, "min", 0)});
    if (im.has(op, "max")) a.push_back({"max", im.float_of(op, "max", 0)});
    unary(im, op, "clamp", std::move(a));
  };
  t["torch.where"] = where;
  t["Tensor.expand"] = [](I& im, const Op& op) {
    unary(im, op, "expand", {{"size", im.ints_of(op, "sizes")}});
  };
  t["Tensor.repeat"] = [](I& im, const Op& op) {
    unary(im, op, "repeat", {{"repeats", im.ints_of(op, "sizes")}});
  };
  t["torch.tile"] = [](I& im, const Op& op) {
    unary(im, op, "tile", {{"dims", im.ints_of(op, "dims")}});
  };
  t["Tensor.masked_fill"] = [](I& im, const Op& op) {
    im.define(op, im.call(op, "masked_fill", {im.in(op, size_t{0}), im.in(op, "mask")},
                          {{"value", im.float_of(op, "value", 0.0)}}));
  };
  t["Tensor.to"] = [](I& im, const Op& op) {
    ScalarType dtype = kFloat;
    if (!torch_dtype(im.str_of(op, "dtype", ""), dtype))
      return im.define(op, im.in(op, size_t{0}));  // a device or layout change
    unary(im, op, "to", {{"dtype", dtype}});
  };
  // Comparisons: `other` a tensor input or a number.
  for (const char* name : {"eq", "ne", "gt", "ge", "lt", "le"})
    t[std::string("torch.") + name] = [name = std::string(name)](I& im, const Op& op) {
      if (im.arg_index(op, "other") >= 0)
        return im.define(op, im.call(op, name, {im.in(op, size_t{0}), im.in(op, "other")}));
      unary(im, op, name, {{"other", im.float_of(op, "other", 0.0)}});
    };
  for (const char* name :
       {"logical_and", "logical_or", "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor"})
    t[std::string("torch.") + name] = [name = std::string(name)](I& im, const Op& op) {
      im.define(op, im.call(op, name, {im.in(op, size_t{0}), im.in(op, size_t{1})}));
    };
  t["torch.logical_not"] = [](I& im, const Op& op) { unary(im, op, "logical_not"); };
  t["torch.bitwise_not"] = [](I& im, const Op& op) { unary(im, op, "bitwise_not"); };
  for (const char* name : {"var", "std"})  // unbiased (torch 1) or correction (torch 2)
    t[std::string("torch.") + name] = [name = std::string(name)](I& im, const Op& op) {
      const bool unbiased = im.has(op, "correction") ? im.int_of(op, "correction") != 0
                                                     : im.bool_of(op, "unbiased", true);
      Attrs a = {{"unbiased", unbiased}, {"keepdim", im.bool_of(op, "keepdim", false)}};
      if (im.has(op, "dim")) a.push_back({"dim", im.ints_of(op, "dim")});
      unary(im, op, name, std::move(a));
    };
  t["torch.norm"] = [](I& im, const Op& op) {
    const std::string p = im.str_of(op, "p", "fro");
    Attrs a = {{"p", p == "fro" ? 2.0 : im.float_of(op, "p", 2.0)},
               {"keepdim", im.bool_of(op, "keepdim", false)}};
    if (im.has(op, "dim")) a.push_back({"dim", im.ints_of(op, "dim")});
    unary(im, op, "norm", std::move(a));
  };
  for (const char* name : {"index_select", "gather"})
    t[std::string("torch.") + name] = [name = std::string(name)](I& im, const Op& op) {
      im.define(op, im.call(op, name, {im.in(op, size_t{0}), im.in(op, "index")},
                            {{"dim", im.int_of(op, "dim")}}));
    };
  t["torch.scatter_add"] = [](I& im, const Op& op) {
    im.define(
        op, im.call(op, "scatter_add", {im.in(op, size_t{0}), im.in(op, "index"), im.in(op, "src")},
                    {{"dim", im.int_of(op, "dim")}}));
  };
  t["torch.masked_select"] = [](I& im, const Op& op) {
    im.define(op, im.call(op, "masked_select", {im.in(op, size_t{0}), im.in(op, "mask")}));
  };
  t["torch.clone"] = [](I& im, const Op& op) { unary(im, op, "clone"); };
  t["torch.t"] = [](I& im, const Op& op) { unary(im, op, "t"); };
  t["torch.flip"] = [](I& im, const Op& op) {
    unary(im, op, "flip", {{"dims", im.ints_of(op, "dims")}});
  };
  t["torch.roll"] = [](I& im, const Op& op) {
    unary(im, op, "roll", {{"shifts", im.ints_of(op, "shifts")}, {"dims", im.ints_of(op, "dims")}});
  };
  t["torch.cumsum"] = [](I& im, const Op& op) {
    unary(im, op, "cumsum", {{"dim", im.int_of(op, "dim")}});
  };
  return t;
}

}  // namespace

const std::unordered_map<std::string, PnnxHandler>& pnnx_operator_table() {
  static const auto table = make_table();
  return table;
}

}  // namespace nabla::graph::detail
