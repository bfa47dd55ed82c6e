// save_onnx's table, part 1: elementwise ops, shapes and indexing, reductions (Note [ONNX
// export], src/graph/onnx/exporter.h). Each entry writes one op-table op as ONNX nodes of
// opsets 13-17.
#include <cmath>
#include <limits>

#include "graph/onnx/exporter.h"
#include "graph/onnx/importer.h"
#include "nabla/ops/factories.h"

#if NABLA_HAVE_ONNX

namespace nabla::graph::onnx_export {

void add_nn_exports(std::unordered_map<std::string, OpExport>& t);         // export_nn.cpp
void add_composed_exports(std::unordered_map<std::string, OpExport>& t);   // export_compose.cpp
void add_recurrent_exports(std::unordered_map<std::string, OpExport>& t);  // export_recurrent.cpp

namespace {

using Table = std::unordered_map<std::string, OpExport>;
using Proto = onnx::NodeProto;

std::vector<int64_t> shape_of(const Tensor& t) { return t.sizes().vec(); }

// The second operand of a binary op: its input, or the scalar attribute `scalar`.
std::string second(OpWriter& w, const char* scalar, ScalarType dtype) {
  if (w.inputs() > 1) return w.in(1, dtype);
  if (!w.attrs().has(scalar)) w.fail(std::string("no second operand and no ") + scalar);
  return w.scalar(w.attrs().d(scalar), dtype);
}

ScalarType operand_dtype(OpWriter& w, const char* scalar) {
  const ScalarType a = w.in_value(0).scalar_type();
  if (w.inputs() > 1) return promoteTypes(a, w.in_value(1).scalar_type());
  // a Python-style scalar: floating beats an integer tensor, not a floating one
  const double v = w.attrs().has(scalar) ? w.attrs().d(scalar) : 0;
  return isFloatingType(a) || v == std::floor(v) ? a : kFloat;
}

void add_elementwise(Table& t) {
  static const std::pair<const char*, const char*> unary[] = {{"relu", "Relu"},
                                                              {"sigmoid", "Sigmoid"},
                                                              {"tanh", "Tanh"},
                                                              {"exp", "Exp"},
                                                              {"log", "Log"},
                                                              {"neg", "Neg"},
                                                              {"abs", "Abs"},
                                                              {"sqrt", "Sqrt"},
                                                              {"erf", "Erf"},
                                                              {"sin", "Sin"},
                                                              {"cos", "Cos"},
                                                              {"tan", "Tan"},
                                                              {"asin", "Asin"},
                                                              {"acos", "Acos"},
                                                              {"atan", "Atan"},
                                                              {"sinh", "Sinh"},
                                                              {"cosh", "Cosh"},
                                                              {"asinh", "Asinh"},
                                                              {"acosh", "Acosh"},
                                                              {"atanh", "Atanh"},
                                                              {"ceil", "Ceil"},
                                                              {"floor", "Floor"},
                                                              {"round", "Round"},
                                                              {"sign", "Sign"},
                                                              {"reciprocal", "Reciprocal"},
                                                              {"hardswish", "HardSwish"},
                                                              {"softsign", "Softsign"}};
  for (const auto& [op, onnx_op] : unary)
    t[op] = [onnx_op = std::string(onnx_op)](OpWriter& w) {
      w.emit(onnx_op, {w.in(0, w.out_value().scalar_type())}, {w.out()});
    };
  t["logical_not"] = [](OpWriter& w) { w.emit("Not", {w.in(0, kBool)}, {w.out()}); };
  t["isnan"] = [](OpWriter& w) { w.emit("IsNaN", {w.in(0)}, {w.out()}); };
  t["isinf"] = [](OpWriter& w) { w.emit("IsInf", {w.in(0)}, {w.out()}); };
  t["square"] = [](OpWriter& w) {
    const std::string x = w.in(0, w.out_value().scalar_type());
    w.emit("Mul", {x, x}, {w.out()});
  };
  t["rsqrt"] = [](OpWriter& w) {
    w.emit("Reciprocal", {w.emit("Sqrt", {w.in(0, w.out_value().scalar_type())})}, {w.out()});
  };
  // Arithmetic: both operands in the result's dtype (ONNX promotes nothing).
  static const std::pair<const char*, const char*> arithmetic[] = {
      {"add", "Add"},     {"sub", "Sub"},     {"mul", "Mul"}, {"div", "Div"},
      {"maximum", "Max"}, {"minimum", "Min"}, {"fmod", "Mod"}};
  for (const auto& [op, onnx_op] : arithmetic)
    t[op] = [onnx_op = std::string(onnx_op)](OpWriter& w) {
      const ScalarType dtype = w.out_value().scalar_type();
      const std::string a = w.in(0, dtype);
      std::string b = second(w, "other", dtype);
      if ((onnx_op == "Add" || onnx_op == "Sub") && w.attrs().d("alpha") != 1.0)
        b = w.emit("Mul", {b, w.scalar(w.attrs().d("alpha"), dtype)});
      w.emit(onnx_op, {a, b}, {w.out()}, [&](Proto& n) {
        if (onnx_op == "Mod") set_int(n, "fmod", 1);
      });
    };
  // remainder: the sign of the divisor; ONNX's Mod has it for integers only
  t["remainder"] = [](OpWriter& w) {
    const ScalarType dtype = w.out_value().scalar_type();
    const std::string a = w.in(0, dtype), b = second(w, "other", dtype);
    if (!isFloatingType(dtype)) return (void)w.emit("Mod", {a, b}, {w.out()});
    const std::string q = w.emit("Floor", {w.emit("Div", {a, b})});
    w.emit("Sub", {a, w.emit("Mul", {q, b})}, {w.out()});
  };
  // pow(x, e), or pow(2, x): a number base is the attribute `self`.
  t["pow"] = [](OpWriter& w) {
    const ScalarType dtype = w.out_value().scalar_type();
    if (w.attrs().has("self"))
      return (void)w.emit("Pow", {w.scalar(w.attrs().d("self"), dtype), w.in(0, dtype)}, {w.out()});
    w.emit("Pow", {w.in(0, dtype), second(w, "exponent", dtype)}, {w.out()});
  };
  static const std::pair<const char*, const char*> comparisons[] = {
      {"eq", "Equal"},   {"lt", "Less"},           {"le", "LessOrEqual"},
      {"gt", "Greater"}, {"ge", "GreaterOrEqual"}, {"ne", "Equal"}};
  for (const auto& [op, onnx_op] : comparisons)
    t[op] = [onnx_op = std::string(onnx_op), negate = std::string(op) == "ne"](OpWriter& w) {
      const ScalarType dtype = operand_dtype(w, "other");
      const std::string a = w.in(0, dtype), b = second(w, "other", dtype);
      if (!negate) return (void)w.emit(onnx_op, {a, b}, {w.out()});
      w.emit("Not", {w.emit(onnx_op, {a, b})}, {w.out()});
    };
  for (const auto& [op, onnx_op] : {std::pair{"logical_and", "And"}, std::pair{"logical_or", "Or"},
                                    std::pair{"logical_xor", "Xor"}})
    t[op] = [onnx_op = std::string(onnx_op)](OpWriter& w) {
      w.emit(onnx_op, {w.in(0, kBool), w.in(1, kBool)}, {w.out()});
    };
  // where(condition, self, other): a number operand is the attribute `self` or `other`.
  t["where"] = [](OpWriter& w) {
    const ScalarType dtype = w.out_value().scalar_type();
    const bool self_number = w.attrs().has("self");
    const std::string self = self_number ? w.scalar(w.attrs().d("self"), dtype) : w.in(1, dtype);
    const std::string other = w.attrs().has("other") ? w.scalar(w.attrs().d("other"), dtype)
                                                     : w.in(self_number ? 1 : 2, dtype);
    w.emit("Where", {w.in(0, kBool), self, other}, {w.out()});
  };
  t["masked_fill"] = [](OpWriter& w) {
    const ScalarType dtype = w.out_value().scalar_type();
    const std::string value =
        w.inputs() > 2 ? w.in(2, dtype) : w.scalar(w.attrs().d("value"), dtype);
    w.emit("Where", {w.in(1, kBool), value, w.in(0, dtype)}, {w.out()});
  };
  auto clip = [](const char* lo, const char* hi) {
    return [lo, hi](OpWriter& w) {
      const ScalarType dtype = w.out_value().scalar_type();
      auto bound = [&](const char* name, size_t input) -> std::string {
        if (w.inputs() > input && !w.in(input).empty()) return "";  // a tensor bound: below
        if (!w.attrs().has(name)) return "";
        return w.scalar(w.attrs().d(name), dtype);
      };
      std::string y = w.emit("Clip", {w.in(0, dtype), bound(lo, 1), bound(hi, 2)});
      if (w.inputs() > 1 && !w.in(1).empty()) y = w.emit("Max", {y, w.in(1, dtype)});
      if (w.inputs() > 2 && !w.in(2).empty()) y = w.emit("Min", {y, w.in(2, dtype)});
      w.emit("Identity", {y}, {w.out()});
    };
  };
  t["clamp"] = clip("min", "max");
  t["hardtanh"] = clip("min_val", "max_val");
  t["to"] = [](OpWriter& w) {
    w.emit("Cast", {w.in(0)}, {w.out()}, [&](Proto& n) {
      set_int(n, "to", onnx_import::onnx_type_of(w.out_value().scalar_type()));
    });
  };
  for (const char* op : {"contiguous", "clone", "detach"})
    t[op] = [](OpWriter& w) { w.emit("Identity", {w.in(0)}, {w.out()}); };
  for (const char* op : {"ones_like", "zeros_like", "full_like"})
    t[op] = [](OpWriter& w) {
      const Tensor& y = w.out_value();
      const Tensor value = y.numel() > 0 ? y.reshape({-1}).slice(0, 0, 1).contiguous()
                                         : zeros({1}, TensorOptions(y.scalar_type()));
      w.emit("ConstantOfShape", {w.ints(shape_of(y))}, {w.out()}, [&](Proto& n) {
        auto* a = n.add_attribute();
        a->set_name("value");
        a->set_type(onnx::AttributeProto::TENSOR);
        *a->mutable_t() = tensor_proto(value, "value");
      });
    };
}

void add_shapes(Table& t) {
  // View-like ops: a Reshape to the shape they gave (Note [ONNX export]).
  for (const char* op :
       {"reshape", "view", "flatten", "squeeze", "unsqueeze", "unflatten", "view_as", "reshape_as"})
    t[op] = [](OpWriter& w) {
      w.emit("Reshape", {w.in(0), w.ints(shape_of(w.out_value()))}, {w.out()});
    };
  t["expand"] = [](OpWriter& w) {
    w.emit("Expand", {w.in(0), w.ints(shape_of(w.out_value()))}, {w.out()});
  };
  auto transpose = [](OpWriter& w, std::vector<int64_t> perm) {
    w.emit("Transpose", {w.in(0)}, {w.out()}, [&](Proto& n) { set_ints(n, "perm", perm); });
  };
  t["permute"] = [transpose](OpWriter& w) {
    auto perm = w.attrs().ints("dims");
    for (auto& d : perm) d = d < 0 ? d + w.in_value(0).dim() : d;
    transpose(w, perm);
  };
  t["transpose"] = [transpose](OpWriter& w) {
    const int64_t rank = w.in_value(0).dim();
    std::vector<int64_t> perm(static_cast<size_t>(rank));
    for (int64_t d = 0; d < rank; ++d) perm[static_cast<size_t>(d)] = d;
    int64_t a = w.attrs().i("dim0"), b = w.attrs().i("dim1");
    a = a < 0 ? a + rank : a;
    b = b < 0 ? b + rank : b;
    std::swap(perm[static_cast<size_t>(a)], perm[static_cast<size_t>(b)]);
    transpose(w, perm);
  };
  t["t"] = [transpose](OpWriter& w) {
    if (w.in_value(0).dim() < 2) return (void)w.emit("Identity", {w.in(0)}, {w.out()});
    transpose(w, {1, 0});
  };
  t["slice"] = [](OpWriter& w) {
    const auto& a = w.attrs();
    const int64_t start = a.has("start") ? a.i("start") : 0;
    const int64_t end = a.has("end") ? a.i("end") : std::numeric_limits<int64_t>::max();
    w.emit("Slice",
           {w.in(0), w.ints({start}), w.ints({end}), w.ints({a.i("dim")}), w.ints({a.i("step")})},
           {w.out()});
  };
  t["flip"] = [](OpWriter& w) {
    const auto dims = w.attrs().ints("dims");
    const std::vector<int64_t> starts(dims.size(), -1), steps(dims.size(), -1),
        ends(dims.size(), std::numeric_limits<int64_t>::min());
    w.emit("Slice", {w.in(0), w.ints(starts), w.ints(ends), w.ints(dims), w.ints(steps)},
           {w.out()});
  };
  t["select"] = [](OpWriter& w) {
    const Tensor index = scalar_tensor(w.attrs().i("index"), TensorOptions(kLong));
    w.emit("Gather", {w.in(0), w.constant(index)}, {w.out()},
           [&](Proto& n) { set_int(n, "axis", w.attrs().i("dim")); });
  };
  t["index_select"] = [](OpWriter& w) {
    w.emit("Gather", {w.in(0), w.in(1, kLong)}, {w.out()},
           [&](Proto& n) { set_int(n, "axis", w.attrs().i("dim")); });
  };
  t["embedding"] = [](OpWriter& w) {
    w.emit("Gather", {w.in(0), w.in(1, kLong)}, {w.out()}, [](Proto& n) { set_int(n, "axis", 0); });
  };
  t["gather"] = [](OpWriter& w) {
    w.emit("GatherElements", {w.in(0), w.in(1, kLong)}, {w.out()},
           [&](Proto& n) { set_int(n, "axis", w.attrs().i("dim")); });
  };
  t["scatter_add"] = [](OpWriter& w) {
    if (w.inputs() < 3) w.fail("scatter_add needs its source tensor");
    const ScalarType dtype = w.out_value().scalar_type();
    w.emit("ScatterElements", {w.in(0, dtype), w.in(1, kLong), w.in(2, dtype)}, {w.out()},
           [&](Proto& n) {
             set_int(n, "axis", w.attrs().i("dim"));
             set_string(n, "reduction", "add");
           });
  };
  t["cat"] = [](OpWriter& w) {
    const ScalarType dtype = w.out_value().scalar_type();
    std::vector<std::string> in;
    for (size_t i = 0; i < w.inputs(); ++i) in.push_back(w.in(i, dtype));
    w.emit("Concat", in, {w.out()}, [&](Proto& n) { set_int(n, "axis", w.attrs().i("dim")); });
  };
  t["stack"] = [](OpWriter& w) {
    const ScalarType dtype = w.out_value().scalar_type();
    int64_t dim = w.attrs().i("dim");
    if (dim < 0) dim += w.out_value().dim();
    std::vector<std::string> in;
    for (size_t i = 0; i < w.inputs(); ++i)
      in.push_back(w.emit("Unsqueeze", {w.in(i, dtype), w.ints({dim})}));
    w.emit("Concat", in, {w.out()}, [&](Proto& n) { set_int(n, "axis", dim); });
  };
  t["split_with_sizes"] = [](OpWriter& w) {
    std::vector<std::string> outs;
    for (size_t k = 0; k < w.attrs().ints("split_sizes").size(); ++k) outs.push_back(w.out(k));
    w.emit("Split", {w.in(0), w.ints(w.attrs().ints("split_sizes"))}, outs,
           [&](Proto& n) { set_int(n, "axis", w.attrs().i("dim")); });
  };
  // Ops of several outputs along `dim`: a Split by the sizes they gave (unbind's each
  // reshaped without the dim).
  for (const char* op : {"chunk", "split", "tensor_split", "unbind"})
    t[op] = [](OpWriter& w) {
      int64_t dim = w.attrs().i("dim");
      if (dim < 0) dim += w.in_value(0).dim();
      const bool unbind = w.op() == "unbind";
      std::vector<int64_t> sizes;
      std::vector<std::string> outs;
      for (size_t k = 0; k < w.outputs(); ++k) {
        sizes.push_back(unbind ? 1 : w.out_value(k).size(dim));
        outs.push_back(unbind ? w.fresh("part") : w.out(k));
      }
      w.emit("Split", {w.in(0), w.ints(sizes)}, outs, [&](Proto& n) { set_int(n, "axis", dim); });
      if (unbind)
        for (size_t k = 0; k < w.outputs(); ++k)
          w.emit("Reshape", {outs[k], w.ints(shape_of(w.out_value(k)))}, {w.out(k)});
    };
  t["narrow"] = [](OpWriter& w) {
    const auto& a = w.attrs();
    w.emit("Slice",
           {w.in(0), w.ints({a.i("start")}), w.ints({a.i("start") + a.i("length")}),
            w.ints({a.i("dim")})},
           {w.out()});
  };
  t["expand_as"] = [](OpWriter& w) {
    w.emit("Expand", {w.in(0), w.ints(shape_of(w.out_value()))}, {w.out()});
  };
  t["tile"] = t["repeat"] = [](OpWriter& w) {
    auto reps = w.attrs().ints(w.op() == "tile" ? "dims" : "repeats");
    std::string x = w.in(0);
    auto shape = shape_of(w.in_value(0));
    if (reps.size() < shape.size()) reps.insert(reps.begin(), shape.size() - reps.size(), 1);
    if (shape.size() < reps.size()) {
      shape.insert(shape.begin(), reps.size() - shape.size(), 1);
      x = w.emit("Reshape", {x, w.ints(shape)});
    }
    w.emit("Tile", {x, w.ints(reps)}, {w.out()});
  };
  t["constant_pad_nd"] = [](OpWriter& w) {
    const auto pad = w.attrs().ints("pad");  // LibTorch's order: the last dim's pair first
    const auto rank = static_cast<size_t>(w.in_value(0).dim());
    std::vector<int64_t> pads(2 * rank, 0);
    for (size_t k = 0; 2 * k + 1 < pad.size(); ++k) {
      pads[rank - 1 - k] = pad[2 * k];
      pads[2 * rank - 1 - k] = pad[2 * k + 1];
    }
    const ScalarType dtype = w.out_value().scalar_type();
    w.emit("Pad", {w.in(0), w.ints(pads), w.scalar(w.attrs().d("value"), dtype)}, {w.out()});
  };
  t["tril"] = t["triu"] = [](OpWriter& w) {
    w.emit("Trilu",
           {w.in(0), w.constant(scalar_tensor(w.attrs().i("diagonal"), TensorOptions(kLong)))},
           {w.out()}, [&](Proto& n) { set_int(n, "upper", w.op() == "triu" ? 1 : 0); });
  };
  t["cumsum"] = [](OpWriter& w) {
    const ScalarType dtype = w.out_value().scalar_type();
    w.emit("CumSum",
           {w.in(0, dtype), w.constant(scalar_tensor(w.attrs().i("dim"), TensorOptions(kLong)))},
           {w.out()});
  };
}

void add_reductions(Table& t) {
  static const std::pair<const char*, const char*> reductions[] = {
      {"sum", "ReduceSum"},  {"mean", "ReduceMean"},           {"amax", "ReduceMax"},
      {"amin", "ReduceMin"}, {"logsumexp", "ReduceLogSumExp"}, {"prod", "ReduceProd"}};
  for (const auto& [op, onnx_op] : reductions)
    t[op] = [onnx_op = std::string(onnx_op)](OpWriter& w) {
      w.reduce(onnx_op, w.in(0, w.out_value().scalar_type()), w.reduced_dims(),
               w.attrs().b("keepdim"), w.out());
    };
  for (const auto& [op, onnx_op] : {std::pair{"argmax", "ArgMax"}, std::pair{"argmin", "ArgMin"}})
    t[op] = [onnx_op = std::string(onnx_op)](OpWriter& w) {
      std::string x = w.in(0);
      int64_t dim = 0;
      if (w.attrs().has("dim"))
        dim = w.attrs().i("dim");
      else
        x = w.emit("Reshape", {x, w.ints({-1})});  // over every element
      w.emit(onnx_op, {x}, {w.out()}, [&](Proto& n) {
        set_int(n, "axis", dim);
        set_int(n, "keepdims", w.attrs().has("dim") && w.attrs().b("keepdim"));
      });
    };
  t["max"] = [](OpWriter& w) {  // over everything, or along dim with the indices too
    if (!w.attrs().has("dim"))
      return (void)w.emit("ReduceMax", {w.in(0)}, {w.out()},
                          [](Proto& n) { set_int(n, "keepdims", 0); });
    const int64_t dim = w.attrs().i("dim");
    const bool keep = w.attrs().b("keepdim");
    w.emit("ReduceMax", {w.in(0)}, {w.out(0)}, [&](Proto& n) {
      set_ints(n, "axes", {dim});
      set_int(n, "keepdims", keep);
    });
    w.emit("ArgMax", {w.in(0)}, {w.out(1)}, [&](Proto& n) {
      set_int(n, "axis", dim);
      set_int(n, "keepdims", keep);
    });
  };
  for (const auto& [op, onnx_op] :
       {std::pair{"softmax", "Softmax"}, std::pair{"log_softmax", "LogSoftmax"}})
    t[op] = [onnx_op = std::string(onnx_op)](OpWriter& w) {
      w.emit(onnx_op, {w.in(0, w.out_value().scalar_type())}, {w.out()},
             [&](Proto& n) { set_int(n, "axis", w.attrs().i("dim")); });
    };
}

}  // namespace

// An op of no inputs (zeros, arange, ...): its value, as an initializer.
void write_factory(OpWriter& w) { w.emit("Identity", {w.constant(w.out_value())}, {w.out()}); }

const std::unordered_map<std::string, OpExport>& op_exports() {
  static const Table table = [] {
    Table t;
    add_elementwise(t);
    add_shapes(t);
    add_reductions(t);
    add_nn_exports(t);
    add_composed_exports(t);
    add_recurrent_exports(t);
    for (const char* op : {"zeros", "ones", "full", "arange", "empty", "eye", "linspace"})
      t[op] = write_factory;
    return t;
  }();
  return table;
}

}  // namespace nabla::graph::onnx_export

#endif
