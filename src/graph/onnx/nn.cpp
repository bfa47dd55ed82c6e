// Neural-network operators: convolutions, pooling, Gemm, norms, class losses, LSTM.
#include "graph/onnx/importer.h"

#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"

#if NABLA_HAVE_ONNX

namespace nabla::graph::onnx_import {

void Importer::conv(const Node& n) {
  const auto kernel = attr_ints(n, "kernel_shape", {});
  const size_t dims =
      kernel.empty() ? static_cast<size_t>(constant(n, 1).dim() - 2) : kernel.size();
  if (dims < 1 || dims > 3) fail(n, std::to_string(dims) + "-d convolutions are not mapped");
  std::vector<Value> in = {input(n, 0), input(n, 1)};
  if (has_input(n, 2)) in.push_back(input(n, 2));
  define(n, call(n, "conv" + std::to_string(dims) + "d", std::move(in),
                 {{"stride", attr_ints(n, "strides", std::vector<int64_t>(dims, 1))},
                  {"padding", symmetric_pads(n, dims)},
                  {"dilation", attr_ints(n, "dilations", std::vector<int64_t>(dims, 1))},
                  {"groups", attr_int(n, "group", 1)}}));
}

// ConvTranspose. Explicit symmetric pads map to the op's padding. An output_shape, or
// auto_pad SAME_* (an output of input * stride), fixes the output's size instead: the
// pads come from it (ONNX's formula, the odd one at the end for SAME_UPPER, else at the
// start), and the op runs without padding and its result is cropped by them.
void Importer::conv_transpose(const Node& n) {
  const auto kernel = attr_ints(n, "kernel_shape", {});
  const size_t dims = kernel.empty() ? shape_of(n, 1).size() - 2 : kernel.size();
  if (dims < 1 || dims > 3) fail(n, std::to_string(dims) + "-d transposed convolutions");
  std::vector<Value> in = {input(n, 0), input(n, 1)};
  if (has_input(n, 2)) in.push_back(input(n, 2));
  const std::vector<int64_t> ones(dims, 1), zeros(dims, 0);
  const auto strides = attr_ints(n, "strides", ones), dilations = attr_ints(n, "dilations", ones);
  const auto output_padding = attr_ints(n, "output_padding", zeros);
  const std::string op = "conv_transpose" + std::to_string(dims) + "d";
  const auto* auto_pad = attr(n, "auto_pad");
  const bool same = auto_pad && auto_pad->s().rfind("SAME", 0) == 0;
  if (!attr(n, "output_shape") && !same)
    return define(n, call(n, op, std::move(in),
                          {{"stride", strides},
                           {"padding", symmetric_pads(n, dims)},
                           {"output_padding", output_padding},
                           {"groups", attr_int(n, "group", 1)},
                           {"dilation", dilations}}));
  const auto x = shape_of(n, 0), w = shape_of(n, 1);
  std::vector<int64_t> out_shape = attr_ints(n, "output_shape", {});
  if (out_shape.empty())
    for (size_t d = 0; d < dims; ++d) out_shape.push_back(x[2 + d] * strides[d]);
  if (out_shape.size() > dims) out_shape.erase(out_shape.begin(), out_shape.end() - dims);
  if (out_shape.size() != dims) fail(n, "output_shape has the wrong number of values");
  const bool upper = auto_pad && auto_pad->s() == "SAME_UPPER";
  Value v = call(n, op, std::move(in),
                 {{"stride", strides},
                  {"padding", zeros},
                  {"output_padding", output_padding},
                  {"groups", attr_int(n, "group", 1)},
                  {"dilation", dilations}},
                 false);
  for (size_t d = 0; d < dims; ++d) {
    const int64_t full =
        strides[d] * (x[2 + d] - 1) + output_padding[d] + (w[2 + d] - 1) * dilations[d] + 1;
    const int64_t total = full - out_shape[d];
    if (total < 0) fail(n, "output_shape is larger than the transposed convolution gives");
    const int64_t begin = upper ? total / 2 : total - total / 2;
    v = call(n, "slice", {v},
             {{"dim", static_cast<int64_t>(2 + d)},
              {"start", begin},
              {"end", begin + out_shape[d]},
              {"step", int64_t{1}}},
             d + 1 == dims);
  }
  define(n, v);
}

void Importer::pool(const Node& n, bool max) {
  const auto kernel = attr_ints(n, "kernel_shape", {});
  const size_t dims = kernel.size();
  if (dims < 1 || dims > 3) fail(n, std::to_string(dims) + "-d pooling is not mapped");
  Attrs a = {{"kernel_size", kernel},
             {"stride", attr_ints(n, "strides", std::vector<int64_t>(dims, 1))},
             {"padding", symmetric_pads(n, dims)},
             {"ceil_mode", attr_int(n, "ceil_mode", 0) != 0}};
  if (max)
    a.push_back({"dilation", attr_ints(n, "dilations", std::vector<int64_t>(dims, 1))});
  else
    a.push_back({"count_include_pad", attr_int(n, "count_include_pad", 0) != 0});
  define(n, call(n, std::string(max ? "max_pool" : "avg_pool") + std::to_string(dims) + "d",
                 {input(n, 0)}, std::move(a)));
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
void Importer::batch_norm(const Node& n) {
  if (attr_int(n, "training_mode", 0) != 0) fail(n, "training_mode=1 is not supported");
  for (int i = 3; i <= 4; ++i)
    if (!constants_.count(n.input(i))) fail(n, "its running statistics must be initializers");
  std::vector<Value> in = {input(n, 0), input(n, 1), input(n, 2),
                           g_.constant(constant(n, 3), n.input(3) + ".stat"),
                           g_.constant(constant(n, 4), n.input(4) + ".stat")};
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
  Value stats = g_.custom(
      "layer_norm_statistics",
      [dims, eps](const std::vector<Tensor>& x) -> std::vector<Tensor> {
        const Tensor mean = x[0].mean(dims, true);
        const Tensor var = (x[0] - mean).square().mean(dims, true);
        return {mean, (var + eps).rsqrt()};
      },
      {input(n, 0)}, n.output(0) + ".statistics");
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

// ONNX's LSTM (layout 0: X [seq, batch, input]) as nabla's lstm op. Gates are stored in
// the order i, o, f, c, PyTorch's are i, f, g, o: the weights are reordered once at import
// into new parameters (W, R and B's halves per direction). Y [seq, dirs, batch, hidden].
void Importer::lstm(const Node& n) {
  const int64_t hidden = attr_int(n, "hidden_size", 0);
  const auto* direction = attr(n, "direction");
  const std::string dir = direction ? direction->s() : "forward";
  if (dir == "reverse" || attr(n, "activations") || attr(n, "clip") ||
      attr_int(n, "input_forget", 0) || attr_int(n, "layout", 0))
    fail(n,
         "only forward or bidirectional LSTMs with the default activations, no clip and "
         "layout 0 are mapped");
  if (has_input(n, 4)) fail(n, "sequence_lens is not mapped yet");
  const bool bidirectional = dir == "bidirectional";
  const int64_t dirs = bidirectional ? 2 : 1;
  const auto x_shape = shape_of(n, 0);
  if (x_shape.size() != 3) fail(n, "X must have 3 dimensions");
  const Tensor w = constant(n, 1), r = constant(n, 2);
  const Tensor b =
      has_input(n, 3) ? constant(n, 3) : zeros({dirs, 8 * hidden}, TensorOptions(w.scalar_type()));
  auto reorder = [](const Tensor& t) {
    const auto g = t.chunk(4, 0);
    return cat({g[0], g[2], g[3], g[1]}, 0).contiguous();
  };
  std::vector<Value> in = {input(n, 0)};
  for (int i : {5, 6}) {
    if (has_input(n, i)) {
      in.push_back(input(n, i));
    } else {
      in.push_back(g_.constant(zeros({dirs, x_shape[1], hidden}, TensorOptions(w.scalar_type()))));
    }
  }
  for (int64_t d = 0; d < dirs; ++d) {
    const std::string at = n.name() + (d ? ".reverse" : "");
    in.push_back(g_.parameter(at + ".weight_ih", reorder(w[d])));
    in.push_back(g_.parameter(at + ".weight_hh", reorder(r[d])));
    in.push_back(g_.parameter(at + ".bias_ih", reorder(b[d].slice(0, 0, 4 * hidden))));
    in.push_back(g_.parameter(at + ".bias_hh", reorder(b[d].slice(0, 4 * hidden, 8 * hidden))));
  }
  Value out = g_.call("lstm", std::move(in),
                      {{"has_biases", true},
                       {"num_layers", int64_t{1}},
                       {"dropout", 0.0},
                       {"train", false},
                       {"bidirectional", bidirectional},
                       {"batch_first", false}});
  // [seq, batch, dirs * hidden] -> [seq, dirs, batch, hidden]
  Value y = call(n, "reshape", {out.output(0)},
                 {{"shape", std::vector<int64_t>{x_shape[0], x_shape[1], dirs, hidden}}}, false);
  values_[n.output(0)] = call(n, "transpose", {y}, {{"dim0", int64_t{1}}, {"dim1", int64_t{2}}});
  for (int i = 1; i < std::min(n.output_size(), 3); ++i)
    if (!n.output(i).empty()) values_[n.output(i)] = out.output(i);
  for (const auto& o : n.output()) dynamic_.insert(o);
}

}  // namespace nabla::graph::onnx_import

#endif
