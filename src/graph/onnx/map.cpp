// Importer::map: each ONNX operator to the Importer method or op-table node computing it.
#include "graph/onnx/importer.h"

#include "nabla/ops/activation.h"
#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"

#if NABLA_HAVE_ONNX

namespace nabla::graph::onnx_import {

void Importer::map(const Node& n) {
  static const std::unordered_map<std::string, std::string> unary = {
      {"Relu", "relu"},       {"Sigmoid", "sigmoid"}, {"Tanh", "tanh"},
      {"Erf", "erf"},         {"Sqrt", "sqrt"},       {"Exp", "exp"},
      {"Log", "log"},         {"Neg", "neg"},         {"Abs", "abs"},
      {"Sin", "sin"},         {"Cos", "cos"},         {"Tan", "tan"},
      {"Asin", "asin"},       {"Acos", "acos"},       {"Atan", "atan"},
      {"Sinh", "sinh"},       {"Cosh", "cosh"},       {"Asinh", "asinh"},
      {"Acosh", "acosh"},     {"Atanh", "atanh"},     {"Ceil", "ceil"},
      {"Floor", "floor"},     {"Round", "round"},     {"Sign", "sign"},
      {"Not", "logical_not"}, {"IsNaN", "isnan"},     {"Reciprocal", "reciprocal"}};
  static const std::unordered_map<std::string, std::string> binary = {
      {"Add", "add"},         {"Sub", "sub"},        {"Mul", "mul"},
      {"MatMul", "matmul"},   {"Equal", "eq"},       {"Less", "lt"},
      {"Greater", "gt"},      {"LessOrEqual", "le"}, {"GreaterOrEqual", "ge"},
      {"And", "logical_and"}, {"Or", "logical_or"},  {"Xor", "logical_xor"}};
  const std::string& op = n.op_type();
  if (!n.domain().empty() && n.domain() != "ai.onnx") fail(n, "domain '" + n.domain() + "'");
  if (auto u = unary.find(op); u != unary.end())
    return define(n, call(n, u->second, {input(n, 0)}));
  // Integer arithmetic on constants (shape arithmetic) is done now.
  if ((op == "Add" || op == "Sub" || op == "Mul" || op == "Div") && is_constant(n, 0) &&
      is_constant(n, 1) && !constant(n, 0).is_floating_point())
    return fold(n);
  if (auto b = binary.find(op); b != binary.end())
    return define(n, call(n, b->second, {input(n, 0), input(n, 1)}));
  // Div with a floating constant operand (a model's `x / scale`) is the op table's div;
  // otherwise the types are known only when the graph runs.
  auto floating_constant = [&](int i) {
    return is_constant(n, i) && constant(n, i).is_floating_point();
  };
  if (op == "Div" && (floating_constant(0) || floating_constant(1)))
    return define(n, call(n, "div", {input(n, 0), input(n, 1)}));
  if (op == "Div")  // integers divide to integers, rounded toward zero, as ONNX's Div
    return define(
        n, function_node(n, "Div", {input(n, 0), input(n, 1)}, [](const std::vector<Tensor>& x) {
          const Tensor &a = x[0], &b = x[1];
          if (a.is_floating_point() || b.is_floating_point()) return a.div(b);
          // floor division, moved up by one where it rounded a negative
          // inexact quotient down
          const Tensor up = a.remainder(b).ne(0).logical_and(a.lt(0).ne(b.lt(0)));
          return a.floor_divide(b) + up.to(a.scalar_type());
        }));
  // Dropout: inference, its mask output unused. torch's exporter replaces an initializer
  // equal to another by an Identity of it: a copy, so that the two train apart.
  if (op == "Identity" || op == "Dropout") {
    if (auto c = constants_.find(n.input(0)); c != constants_.end() && !values_.count(n.input(0))) {
      constants_[n.output(0)] = c->second.clone();
      if (initializers_.count(n.input(0))) initializers_.insert(n.output(0));
      return;
    }
    return define(n, input(n, 0));
  }
  if (op == "Shape") return shape_op(n);
  if (op == "ConstantOfShape") {  // `value` (one element; float 0 by default) in that shape
    const auto shape = constant_ints(n, 0);
    Tensor value = zeros({1}, TensorOptions(kFloat));
    if (const auto* v = attr(n, "value"); v && v->has_t())
      value = tensor_of(v->t(), "ConstantOfShape '" + n.output(0) + "' value");
    if (value.numel() != 1) fail(n, "its value must hold one element");
    constants_[n.output(0)] = value.reshape({}).expand(shape).contiguous();
    return;
  }
  if (op == "Size") {  // the number of elements, from the shape (Note [Import shapes])
    const auto shape = shape_of(n, 0);
    int64_t numel = 1;
    for (int64_t d : shape) numel *= d;
    constants_[n.output(0)] = scalar_tensor(numel, TensorOptions(kLong));
    return;
  }
  if (op == "Gather") return gather(n);
  if (op == "Unsqueeze" || op == "Squeeze") return unsqueeze(n, op == "Squeeze");
  if (op == "Slice") return slice(n);
  if (op == "LayerNormalization") return layer_norm(n);
  if (op == "Expand") return expand(n);
  if (op == "LSTM") return lstm(n);
  if (op.rfind("Reduce", 0) == 0) return reduce(n);
  if (op == "Split") return split(n);
  if (op == "Cast") return cast(n);
  if (op == "Where") return define(n, call(n, "where", {input(n, 0), input(n, 1), input(n, 2)}));
  if (op == "Constant") {
    const auto* v = attr(n, "value");
    if (v == nullptr || !v->has_t()) fail(n, "only the tensor form (value=) is supported");
    constants_[n.output(0)] = tensor_of(v->t(), "Constant '" + n.output(0) + "'");
    return;
  }
  if (op == "Conv") return conv(n);
  if (op == "ConvTranspose") return conv_transpose(n);
  if (op == "MaxPool" || op == "AveragePool") return pool(n, op == "MaxPool");
  if (op == "GlobalAveragePool")
    return define(n, call(n, "adaptive_avg_pool2d", {input(n, 0)},
                          {{"output_size", std::vector<int64_t>{1, 1}}}));
  if (op == "Gemm") return gemm(n);
  if (op == "Flatten") return flatten(n);
  if (op == "BatchNormalization") return batch_norm(n);
  if (op == "Clip" && opset_ < 11) {  // bounds were float attributes then
    Attrs a;
    if (attr(n, "min")) a.push_back({"min", attr_float(n, "min", 0)});
    if (attr(n, "max")) a.push_back({"max", attr_float(n, "max", 0)});
    if (a.empty()) return define(n, input(n, 0));
    return define(n, call(n, "clamp", {input(n, 0)}, std::move(a)));
  }
  if (op == "Clip") {  // bounds of an integer type keep an integer input's type
    Attrs a;
    auto bound = [&](int i, const char* name) {
      if (!has_input(n, i)) return;
      const Tensor& c = constant(n, i);
      if (c.is_floating_point())
        a.push_back({name, constant_scalar(n, i)});
      else
        a.push_back({name, c.to(kLong).item<int64_t>()});
    };
    bound(1, "min");
    bound(2, "max");
    if (a.empty()) return define(n, input(n, 0));  // no bounds: the input as it is
    return define(n, call(n, "clamp", {input(n, 0)}, std::move(a)));
  }
  if (op == "Softmax" || op == "LogSoftmax")
    return softmax(n, op == "Softmax" ? "softmax" : "log_softmax");
  if (op == "NegativeLogLikelihoodLoss" || op == "SoftmaxCrossEntropyLoss")
    return class_loss(n, op == "SoftmaxCrossEntropyLoss");
  if (op == "ArgMax" || op == "ArgMin") return arg_extreme(n, op == "ArgMax" ? "argmax" : "argmin");
  if (op == "Max" || op == "Min" || op == "Sum" || op == "Mean") return variadic(n, op);
  if (op == "Pad") return pad(n);
  if (op == "InstanceNormalization")
    return define(n, call(n, "instance_norm", {input(n, 0), input(n, 1), input(n, 2)},
                          {{"use_input_stats", true}, {"eps", attr_float(n, "epsilon", 1e-5)}}));
  if (op == "ScatterElements") {           // negative indices count from the end; duplicates add up
    const auto* r = attr(n, "reduction");  // with reduction "add" (else one of them wins)
    const std::string reduction = r ? r->s() : "none";
    if (reduction != "none" && reduction != "add") fail(n, "reduction '" + reduction + "'");
    return define(n, function_node(n, "ScatterElements", {input(n, 0), input(n, 1), input(n, 2)},
                                   [axis = attr_int(n, "axis", 0),
                                    add = reduction == "add"](const std::vector<Tensor>& x) {
                                     const int64_t a = axis < 0 ? axis + x[0].dim() : axis;
                                     const Tensor idx = x[1].to(kLong);
                                     const Tensor i = idx.where(idx.ge(0), idx + x[0].size(a));
                                     return add ? x[0].scatter_add(a, i, x[2])
                                                : x[0].scatter(a, i, x[2]);
                                   }));
  }
  if (op == "CastLike")  // input 0 in input 1's type
    return define(
        n, function_node(n, "CastLike", {input(n, 0), input(n, 1)},
                         [](const std::vector<Tensor>& x) { return x[0].to(x[1].scalar_type()); }));
  if (op == "Range") {  // start, limit, delta: known at import, or read each run
    const Tensor &start = constant(n, 0), &limit = constant(n, 1), &delta = constant(n, 2);
    const ScalarType t = start.scalar_type();
    constants_[n.output(0)] =
        start.is_floating_point()
            ? arange(start.item<double>(), limit.item<double>(), delta.item<double>(),
                     TensorOptions(kDouble))
                  .to(t)
            : arange(start.to(kLong).item<int64_t>(), limit.to(kLong).item<int64_t>(),
                     delta.to(kLong).item<int64_t>(), TensorOptions(kLong))
                  .to(t);
    return;
  }
  if (op == "Hardmax")  // 1 at the first largest value along the axis (before opset 13:
                        // over every dim from `axis` on, as Softmax then), 0 elsewhere
    return define(n, function_node(n, "Hardmax", {input(n, 0)},
                                   [axis = attr_int(n, "axis", opset_ >= 13 ? -1 : 1),
                                    coerce = opset_ < 13](const std::vector<Tensor>& x) {
                                     const int64_t a = axis < 0 ? axis + x[0].dim() : axis;
                                     const Tensor rows = coerce ? x[0].flatten(a) : x[0];
                                     const int64_t d = coerce ? rows.dim() - 1 : a;
                                     const Tensor at = rows.argmax(d, true);
                                     const Tensor out = zeros_like(rows).scatter(d, at, 1);
                                     return out.view(x[0].sizes());
                                   }));
  if (op == "Softplus") return define(n, call(n, "softplus", {input(n, 0)}));
  if (op == "Selu")  // gamma * elu(x, alpha); LibTorch's selu is the default alpha and gamma
    return define(
        n, call(n, "mul",
                {call(n, "elu", {input(n, 0)},
                      {{"alpha", attr_float(n, "alpha", 1.67326319217681884765625)}}, false)},
                {{"other", attr_float(n, "gamma", 1.05070102214813232421875)}}));
  if (op == "PRelu")  // the slope broadcasts to the input; before opset 7, one per channel
    return define(n, function_node(n, "PRelu", {input(n, 0), input(n, 1)},
                                   [per_channel = opset_ < 7](const std::vector<Tensor>& x) {
                                     Tensor slope = x[1];
                                     if (per_channel && slope.dim() == 1 && x[0].dim() >= 2) {
                                       std::vector<int64_t> s(static_cast<size_t>(x[0].dim() - 1),
                                                              1);
                                       s[0] = slope.numel();
                                       slope = slope.view(s);
                                     }
                                     return x[0].where(x[0].ge(0), x[0] * slope);
                                   }));
  if (op == "LeakyRelu")
    return define(n, call(n, "leaky_relu", {input(n, 0)},
                          {{"negative_slope", attr_float(n, "alpha", 0.01)}}));
  if (op == "Elu" || op == "Celu")
    return define(n, call(n, op == "Elu" ? "elu" : "celu", {input(n, 0)},
                          {{"alpha", attr_float(n, "alpha", 1.0)}}));
  if (op == "Trilu") {
    const int64_t k = has_input(n, 1) ? static_cast<int64_t>(constant_scalar(n, 1)) : 0;
    return define(
        n, call(n, attr_int(n, "upper", 1) ? "triu" : "tril", {input(n, 0)}, {{"diagonal", k}}));
  }
  if (op == "GatherElements")
    return define(n,
                  call(n, "gather", {input(n, 0), input(n, 1)}, {{"dim", attr_int(n, "axis", 0)}}));
  if (op == "Tile")
    return define(n, call(n, "tile", {input(n, 0)}, {{"dims", constant_ints(n, 1)}}));
  if (op == "CumSum") {
    if (attr_int(n, "exclusive", 0) || attr_int(n, "reverse", 0))
      fail(n, "exclusive or reverse sums are not mapped yet");
    return define(n, call(n, "cumsum", {input(n, 0)},
                          {{"dim", static_cast<int64_t>(constant_scalar(n, 1))}}));
  }
  if (op == "Concat") {
    std::vector<Value> in;
    for (int i = 0; i < n.input_size(); ++i) in.push_back(input(n, i));
    return define(n, call(n, "cat", std::move(in), {{"dim", attr_int(n, "axis", 0)}}));
  }
  if (op == "Transpose") {
    const auto perm = attr_ints(n, "perm", {});
    if (perm.empty()) fail(n, "a Transpose without perm is not mapped yet");
    return define(n, call(n, "permute", {input(n, 0)}, {{"dims", perm}}));
  }
  if (op == "Reshape") {
    auto shape = constant_ints(n, 1);
    if (std::count(shape.begin(), shape.end(), 0) && !attr_int(n, "allowzero", 0)) {
      const auto in = shape_of(n, 0);  // 0: copy the input's dimension
      for (size_t d = 0; d < shape.size(); ++d)
        if (shape[d] == 0) {
          if (d >= in.size()) fail(n, "a 0 in the shape past the input's rank");
          shape[d] = in[d];
        }
    }
    return define(n, call(n, "reshape", {input(n, 0)}, {{"shape", shape}}));
  }
  if (op == "Pow" && constants_.count(n.input(1)))
    return define(n, call(n, "pow", {input(n, 0)}, {{"exponent", constant_scalar(n, 1)}}));
  if (op == "Pow")  // the result has the base's type (an integer base truncates)
    return define(
        n, function_node(n, "Pow", {input(n, 0), input(n, 1)}, [](const std::vector<Tensor>& x) {
          return x[0].pow(x[1]).to(x[0].scalar_type());
        }));
  if (op == "Mod")  // fmod=1: the sign of the dividend (C's fmod); else of the divisor
    return define(
        n, call(n, attr_int(n, "fmod", 0) ? "fmod" : "remainder", {input(n, 0), input(n, 1)}));
  fail(n, "the operator is not supported by nabla's importer yet");
}

}  // namespace nabla::graph::onnx_import

#endif
