// Activations and elementwise tests: each either an op-table node or a function node
// (Importer::function_node) of the ops ONNX's definition composes.
#include "graph/onnx/importer.h"

#include "nabla/ops/activation.h"
#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"

#if NABLA_HAVE_ONNX

namespace nabla::graph::onnx_import {

bool Importer::map_activation(const Node& n) {
  const std::string& op = n.op_type();
  auto done = [&](Value v) {
    define(n, v);
    return true;
  };
  // A function node of the first input only.
  auto unary = [&](auto f) { return done(function_node(n, op, {input(n, 0)}, f)); };
  using In = const std::vector<Tensor>&;
  if (op == "Softplus") return done(call(n, "softplus", {input(n, 0)}));
  if (op == "Selu")  // gamma * elu(x, alpha); LibTorch's selu is the default alpha and gamma
    return done(call(n, "mul",
                     {call(n, "elu", {input(n, 0)},
                           {{"alpha", attr_float(n, "alpha", 1.67326319217681884765625)}}, false)},
                     {{"other", attr_float(n, "gamma", 1.05070102214813232421875)}}));
  if (op == "PRelu")  // the slope broadcasts to the input; before opset 7, one per channel
    return done(
        function_node(n, "PRelu", {input(n, 0), input(n, 1)}, [per_channel = opset_ < 7](In x) {
          Tensor slope = x[1];
          if (per_channel && slope.dim() == 1 && x[0].dim() >= 2) {
            std::vector<int64_t> s(static_cast<size_t>(x[0].dim() - 1), 1);
            s[0] = slope.numel();
            slope = slope.view(s);
          }
          return x[0].where(x[0].ge(0), x[0] * slope);
        }));
  if (op == "LeakyRelu")
    return done(
        call(n, "leaky_relu", {input(n, 0)}, {{"negative_slope", attr_float(n, "alpha", 0.01)}}));
  if (op == "Elu" || op == "Celu")
    return done(call(n, op == "Elu" ? "elu" : "celu", {input(n, 0)},
                     {{"alpha", attr_float(n, "alpha", 1.0)}}));
  if (op == "HardSigmoid")  // max(0, min(1, alpha * x + beta))
    return unary([alpha = attr_float(n, "alpha", 0.2), beta = attr_float(n, "beta", 0.5)](In x) {
      return (x[0] * alpha + beta).clamp(0.0, 1.0);
    });
  if (op == "HardSwish") return done(call(n, "hardswish", {input(n, 0)}));
  if (op == "Softsign") return unary([](In x) { return x[0] / (x[0].abs() + 1); });
  if (op == "ThresholdedRelu")  // x where x > alpha, else 0
    return unary([alpha = attr_float(n, "alpha", 1.0)](In x) {
      return x[0].where(x[0].gt(alpha), zeros_like(x[0]));
    });
  if (op == "Shrink")  // x + bias below -lambd, x - bias above lambd, 0 between
    return unary([lambd = attr_float(n, "lambd", 0.5), bias = attr_float(n, "bias", 0.0)](In x) {
      const Tensor& v = x[0];
      const Tensor zero = zeros_like(v);
      return where(v.lt(-lambd), v + bias, where(v.gt(lambd), v - bias, zero)).to(v.scalar_type());
    });
  if (op == "IsInf")
    return unary([neg = attr_int(n, "detect_negative", 1) != 0,
                  pos = attr_int(n, "detect_positive", 1) != 0](In x) {
      if (neg && pos) return x[0].isinf();
      if (neg) return x[0].isneginf();
      if (pos) return x[0].isposinf();
      return zeros_like(x[0], TensorOptions(kBool));
    });
  return false;
}

}  // namespace nabla::graph::onnx_import

#endif
