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
  // Dropout in training mode (its third input true): elements zeroed with probability
  // `ratio` by nabla's generator, the others scaled by 1 / (1 - ratio); the mask is an output.
  if (op == "Dropout" && has_input(n, 2) &&
      (!is_constant(n, 2) || constant(n, 2).to(kBool).item<bool>())) {
    std::vector<Value> in = {input(n, 0), has_input(n, 1) ? input(n, 1) : g_.constant({}),
                             input(n, 2)};
    Value v = g_.custom(
        op,
        [](const std::vector<Tensor>& x) {
          const double ratio = x[1].defined() ? x[1].to(kCPU).to(kDouble).item<double>() : 0.5;
          if (!x[2].to(kCPU).to(kBool).item<bool>() || ratio == 0)
            return std::vector<Tensor>{x[0], ones_like(x[0], TensorOptions(kBool))};
          const Tensor keep = rand_like(x[0], TensorOptions(kFloat)).ge(ratio);
          return std::vector<Tensor>{x[0] * keep.to(x[0].scalar_type()) / (1 - ratio), keep};
        },
        std::move(in), n.output(0));
    return define(n, v.output(0), {v.output(1)});
  }
  if (op == "Dropout" && wants_output(n, 1)) {  // inference: the mask is all true
    Value x = input(n, 0);
    return define(n, x, {call(n, "ones_like", {x}, {{"dtype", kBool}}, false)});
  }
  if (op == "Identity" || op == "Dropout") {
    if (!has_input(n, 0)) fail(n, "input 0 is missing");
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
  if (op == "LSTM" || op == "GRU" || op == "RNN") return recurrent(n);
  if (op.rfind("Reduce", 0) == 0) return reduce(n);
  if (op == "Split") return split(n);
  if (op == "Cast") return cast(n);
  if (op == "Where") return define(n, call(n, "where", {input(n, 0), input(n, 1), input(n, 2)}));
  if (op == "Constant") {
    // value (a tensor), or value_float(s) / value_int(s): a scalar or a 1-d tensor
    const onnx::AttributeProto* v = nullptr;
    for (const char* name : {"value", "value_float", "value_floats", "value_int", "value_ints"})
      if (!v) v = attr(n, name);
    if (v == nullptr) fail(n, "its value is not a tensor or numbers (sparse and string forms)");
    Tensor c;
    if (v->name() == "value") c = tensor_of(v->t(), "Constant '" + n.output(0) + "'");
    if (v->name() == "value_float") c = scalar_tensor(v->f(), TensorOptions(kFloat));
    if (v->name() == "value_int") c = scalar_tensor(v->i(), TensorOptions(kLong));
    if (v->name() == "value_floats")
      c = tensor(std::vector<float>(v->floats().begin(), v->floats().end()), TensorOptions(kFloat));
    if (v->name() == "value_ints")
      c = tensor(std::vector<int64_t>(v->ints().begin(), v->ints().end()), TensorOptions(kLong));
    constants_[n.output(0)] = c;
    return;
  }
  if (op == "Conv") return conv(n);
  if (op == "ConvTranspose") return conv_transpose(n);
  if (op == "Resize" || op == "Upsample") return resize(n);
  if (op == "NonMaxSuppression") return non_max_suppression(n);
  if (op == "TfIdfVectorizer") return tfidf(n);
  if (op == "RoiAlign") return roi_align(n);
  if (op == "MaxPool" || op == "AveragePool") return pool(n, op == "MaxPool");
  if (op == "GlobalMaxPool" || op == "GlobalAveragePool") {  // over every spatial dim, kept
    const bool max = op == "GlobalMaxPool";
    if (const int64_t rank = rank_of(n, 0); rank >= 0) {
      std::vector<int64_t> dims;
      for (int64_t d = 2; d < rank; ++d) dims.push_back(d);
      return define(
          n, call(n, max ? "amax" : "mean", {input(n, 0)}, {{"dim", dims}, {"keepdim", true}}));
    }
    return define(n, function_node(n, op, {input(n, 0)}, [max](const std::vector<Tensor>& x) {
                    std::vector<int64_t> dims;
                    for (int64_t d = 2; d < x[0].dim(); ++d) dims.push_back(d);
                    return max ? x[0].amax(dims, true) : x[0].mean(dims, true);
                  }));
  }
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
  if (op == "ScatterElements" ||
      op == "Scatter") {  // Scatter: its name before opset 11           // negative indices count
                          // from the end; duplicates add up
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
  if (op == "Trilu") {
    const int64_t k = has_input(n, 1) ? static_cast<int64_t>(constant_scalar(n, 1)) : 0;
    return define(
        n, call(n, attr_int(n, "upper", 1) ? "triu" : "tril", {input(n, 0)}, {{"diagonal", k}}));
  }
  if (op == "GatherElements")  // negative indices count from the end
    return define(n, function_node(n, op, {input(n, 0), input(n, 1)},
                                   [axis = attr_int(n, "axis", 0)](const std::vector<Tensor>& x) {
                                     const int64_t a = axis < 0 ? axis + x[0].dim() : axis;
                                     const Tensor i = x[1].to(kLong);
                                     return x[0].gather(a, i.where(i.ge(0), i + x[0].size(a)));
                                   }));
  if (op == "Tile")
    return define(n, call(n, "tile", {input(n, 0)}, {{"dims", constant_ints(n, 1)}}));
  if (op == "CumSum") {  // reverse: from the end; exclusive: each element's own left out
    const bool exclusive = attr_int(n, "exclusive", 0) != 0,
               reverse = attr_int(n, "reverse", 0) != 0;
    if (!exclusive && !reverse)
      return define(n, call(n, "cumsum", {input(n, 0)},
                            {{"dim", static_cast<int64_t>(constant_scalar(n, 1))}}));
    return define(n, function_node(n, op, {input(n, 0), input(n, 1)},
                                   [exclusive, reverse](const std::vector<Tensor>& x) {
                                     const int64_t a = first_long(x[1], "CumSum's axis");
                                     const Tensor in = reverse ? x[0].flip({a}) : x[0];
                                     Tensor sum = in.cumsum(a);
                                     if (exclusive) sum = sum - in;
                                     return reverse ? sum.flip({a}) : sum;
                                   }));
  }
  if (op == "BitShift") {  // x * 2^y or x / 2^y, in x's (unsigned) type: the high bits drop
    const auto* d = attr(n, "direction");
    if (!d || (d->s() != "LEFT" && d->s() != "RIGHT")) fail(n, "direction must be LEFT or RIGHT");
    return define(n,
                  function_node(n, op, {input(n, 0), input(n, 1)},
                                [left = d->s() == "LEFT"](const std::vector<Tensor>& x) {
                                  const Tensor a = x[0].to(kLong), s = x[1].to(kLong);
                                  const Tensor p = full_like(s, 2).pow(s);
                                  return (left ? a * p : a.floor_divide(p)).to(x[0].scalar_type());
                                }));
  }
  if (op == "Det")
    return define(n, function_node(n, op, {input(n, 0)},
                                   [](const std::vector<Tensor>& x) { return determinant(x[0]); }));
  if (op == "Einsum") {
    const auto* e = attr(n, "equation");
    if (!e) fail(n, "it has no equation");
    std::vector<Value> in;
    for (int i = 0; i < n.input_size(); ++i) in.push_back(input(n, i));
    return define(
        n, function_node(n, op, std::move(in),
                         [eq = e->s()](const std::vector<Tensor>& x) { return einsum(eq, x); }));
  }
  if (op == "Concat") {
    std::vector<Value> in;
    for (int i = 0; i < n.input_size(); ++i) in.push_back(input(n, i));
    return define(n, call(n, "cat", std::move(in), {{"dim", attr_int(n, "axis", 0)}}));
  }
  if (op == "Transpose") {
    auto perm = attr_ints(n, "perm", {});
    if (perm.empty() && rank_of(n, 0) < 0)  // the dims reversed, however many
      return define(n, function_node(n, op, {input(n, 0)}, [](const std::vector<Tensor>& x) {
                      std::vector<int64_t> dims;
                      for (int64_t d = x[0].dim(); d-- > 0;) dims.push_back(d);
                      return x[0].permute(dims);
                    }));
    if (perm.empty())
      for (int64_t d = rank_of(n, 0); d-- > 0;) perm.push_back(d);
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
  if (op == "Pow" && has_input(n, 1) && constants_.count(n.input(1)))
    return define(n, call(n, "pow", {input(n, 0)}, {{"exponent", constant_scalar(n, 1)}}));
  if (op == "Pow")  // the result has the base's type (an integer base truncates)
    return define(
        n, function_node(n, "Pow", {input(n, 0), input(n, 1)}, [](const std::vector<Tensor>& x) {
          return x[0].pow(x[1]).to(x[0].scalar_type());
        }));
  if (op == "Mod")  // fmod=1: the sign of the dividend (C's fmod); else of the divisor
    return define(
        n, call(n, attr_int(n, "fmod", 0) ? "fmod" : "remainder", {input(n, 0), input(n, 1)}));
  if (map_activation(n) || map_indexing(n) || map_signal(n) || map_nn(n)) return;
  fail(n, "the operator is not supported by nabla's importer yet");
}

}  // namespace nabla::graph::onnx_import

#endif
