// save_onnx's table, part 3: ops ONNX has no operator for, written as the operators their
// definitions compose (activations, statistics, attention, group norm), and sorting and
// resampling (Note [ONNX export], src/graph/onnx/exporter.h).
#include <cmath>
#include <limits>

#include "graph/onnx/exporter.h"
#include "nabla/ops/factories.h"

#if NABLA_HAVE_ONNX

namespace nabla::graph::onnx_export {

namespace {

using Table = std::unordered_map<std::string, OpExport>;
using Proto = onnx::NodeProto;

ScalarType out_dtype(OpWriter& w) { return w.out_value().scalar_type(); }

void add_composed_activations(Table& t) {
  t["relu6"] = [](OpWriter& w) {
    const ScalarType d = out_dtype(w);
    w.emit("Clip", {w.in(0, d), w.scalar(0, d), w.scalar(6, d)}, {w.out()});
  };
  t["clamp_min"] = [](OpWriter& w) {
    w.emit("Max", {w.in(0, out_dtype(w)), w.scalar(w.attrs().d("min"), out_dtype(w))}, {w.out()});
  };
  t["clamp_max"] = [](OpWriter& w) {
    w.emit("Min", {w.in(0, out_dtype(w)), w.scalar(w.attrs().d("max"), out_dtype(w))}, {w.out()});
  };
  t["log_sigmoid"] = [](OpWriter& w) {  // -softplus(-x)
    w.emit("Neg", {w.emit("Softplus", {w.emit("Neg", {w.in(0)})})}, {w.out()});
  };
  t["mish"] = [](OpWriter& w) {  // x tanh(softplus(x))
    w.emit("Mul", {w.in(0), w.emit("Tanh", {w.emit("Softplus", {w.in(0)})})}, {w.out()});
  };
  t["glu"] = [](OpWriter& w) {  // a * sigmoid(b), the halves along dim
    const std::string a = w.fresh("a"), b = w.fresh("b");
    w.emit("Split", {w.in(0)}, {a, b}, [&](Proto& n) { set_int(n, "axis", w.attrs().i("dim")); });
    w.emit("Mul", {a, w.emit("Sigmoid", {b})}, {w.out()});
  };
  t["hardshrink"] = t["softshrink"] = [](OpWriter& w) {
    const double lambd = w.attrs().d("lambd");
    w.emit("Shrink", {w.in(0)}, {w.out()}, [&](Proto& n) {
      set_float(n, "lambd", lambd);
      set_float(n, "bias", w.op() == "softshrink" ? lambd : 0.0);
    });
  };
  t["threshold"] = [](OpWriter& w) {  // x where x > threshold, else value
    const ScalarType d = out_dtype(w);
    const std::string x = w.in(0, d);
    const std::string above = w.emit("Greater", {x, w.scalar(w.attrs().d("threshold"), d)});
    w.emit("Where", {above, x, w.scalar(w.attrs().d("value"), d)}, {w.out()});
  };
  t["softmin"] = [](OpWriter& w) {
    w.emit("Softmax", {w.emit("Neg", {w.in(0, out_dtype(w))})}, {w.out()},
           [&](Proto& n) { set_int(n, "axis", w.attrs().i("dim")); });
  };
  t["floor_divide"] = [](OpWriter& w) {  // (a - a mod b) / b, the remainder b's sign
    const ScalarType d = out_dtype(w);
    const std::string a = w.in(0, d);
    const std::string b = w.inputs() > 1 ? w.in(1, d) : w.scalar(w.attrs().d("other"), d);
    if (isFloatingType(d)) return (void)w.emit("Floor", {w.emit("Div", {a, b})}, {w.out()});
    w.emit("Div", {w.emit("Sub", {a, w.emit("Mod", {a, b})}), b}, {w.out()});
  };
}

void add_statistics(Table& t) {
  t["var"] = t["std"] = [](OpWriter& w) {  // sum((x - mean)^2) / (n - unbiased)
    const ScalarType d = out_dtype(w);
    const auto dims = w.reduced_dims();
    int64_t n = 1;
    for (int64_t k : dims) n *= w.in_value(0).size(k);
    const std::string x = w.in(0, d);
    const std::string dev = w.emit("Sub", {x, w.reduce("ReduceMean", x, dims, true)});
    const std::string sum =
        w.reduce("ReduceSum", w.emit("Mul", {dev, dev}), dims, w.attrs().b("keepdim"));
    const double count = static_cast<double>(n - (w.attrs().b("unbiased") ? 1 : 0));
    if (w.op() == "var") return (void)w.emit("Div", {sum, w.scalar(count, d)}, {w.out()});
    w.emit("Sqrt", {w.emit("Div", {sum, w.scalar(count, d)})}, {w.out()});
  };
  t["norm"] = [](OpWriter& w) {
    const double p = w.attrs().d("p");
    if (p != 1.0 && p != 2.0) w.fail("only the 1- and 2-norms have ONNX operators");
    w.reduce(p == 1.0 ? "ReduceL1" : "ReduceL2", w.in(0), w.reduced_dims(), w.attrs().b("keepdim"),
             w.out());
  };
  t["group_norm"] = [](OpWriter& w) {  // normalized per group of channels, then scaled
    const ScalarType d = out_dtype(w);
    const Tensor& x = w.in_value(0);
    const int64_t groups = w.attrs().i("num_groups"), c = x.size(1);
    const std::string grouped = w.emit("Reshape", {w.in(0, d), w.ints({x.size(0), groups, -1})});
    const std::string dev = w.emit("Sub", {grouped, w.reduce("ReduceMean", grouped, {2}, true)});
    const std::string var = w.reduce("ReduceMean", w.emit("Mul", {dev, dev}), {2}, true);
    const std::string std = w.emit("Sqrt", {w.emit("Add", {var, w.scalar(w.attrs().d("eps"), d)})});
    std::string y = w.emit("Reshape", {w.emit("Div", {dev, std}), w.ints(x.sizes().vec())});
    std::vector<int64_t> per_channel(static_cast<size_t>(x.dim() - 1), 1);
    per_channel[0] = c;
    if (w.inputs() > 1 && !w.in(1).empty())
      y = w.emit("Mul", {y, w.emit("Reshape", {w.in(1, d), w.ints(per_channel)})});
    if (w.inputs() > 2 && !w.in(2).empty())
      y = w.emit("Add", {y, w.emit("Reshape", {w.in(2, d), w.ints(per_channel)})});
    w.emit("Identity", {y}, {w.out()});
  };
}

// softmax(q k' * scale + mask) v; is_causal masks the keys after each query.
void add_attention(Table& t) {
  t["scaled_dot_product_attention"] = [](OpWriter& w) {
    if (w.attrs().d("dropout_p") != 0.0) w.fail("dropout in attention has no ONNX form");
    const ScalarType d = out_dtype(w);
    const Tensor& q = w.in_value(0);
    const int64_t L = q.size(-2), S = w.in_value(1).size(-2), rank = w.in_value(1).dim();
    const double scale = w.attrs().has("scale") ? w.attrs().d("scale")
                                                : 1.0 / std::sqrt(static_cast<double>(q.size(-1)));
    std::vector<int64_t> perm;
    for (int64_t k = 0; k < rank; ++k) perm.push_back(k);
    std::swap(perm[static_cast<size_t>(rank - 1)], perm[static_cast<size_t>(rank - 2)]);
    const std::string kt =
        w.emit("Transpose", {w.in(1, d)}, {}, [&](Proto& n) { set_ints(n, "perm", perm); });
    std::string s = w.emit("Mul", {w.emit("MatMul", {w.in(0, d), kt}), w.scalar(scale, d)});
    const std::string minus_inf = w.scalar(-std::numeric_limits<double>::infinity(), d);
    if (w.attrs().b("is_causal"))
      s = w.emit("Where", {w.constant(ones({L, S}, TensorOptions(kBool)).tril()), s, minus_inf});
    if (w.inputs() > 3 && !w.in(3).empty())
      s = w.in_value(3).scalar_type() == kBool ? w.emit("Where", {w.in(3), s, minus_inf})
                                               : w.emit("Add", {s, w.in(3, d)});
    const std::string p = w.emit("Softmax", {s}, {}, [](Proto& n) { set_int(n, "axis", -1); });
    w.emit("MatMul", {p, w.in(2, d)}, {w.out()});
  };
}

void add_sorting_and_resampling(Table& t) {
  // topk, sort, argsort: TopK (sort: every element, in order)
  t["topk"] = t["sort"] = t["argsort"] = [](OpWriter& w) {
    const auto& a = w.attrs();
    const bool topk = w.op() == "topk";
    int64_t dim = a.i("dim");
    if (dim < 0) dim += w.in_value(0).dim();
    const int64_t k = topk ? a.i("k") : w.in_value(0).size(dim);
    const bool largest = topk ? a.b("largest") : a.b("descending");  // else the smallest first
    const std::string values = w.op() == "argsort" ? w.fresh("values") : w.out(0);
    const std::string indices = w.op() == "argsort" ? w.out(0) : w.out(1);
    w.emit("TopK", {w.in(0), w.ints({k})}, {values, indices}, [&](Proto& n) {
      set_int(n, "axis", dim);
      set_int(n, "largest", largest);
      set_int(n, "sorted", 1);
    });
  };
  // Resize to the output's size: nearest as LibTorch's (floor of x / scale), bilinear
  // with its align_corners, else half pixels.
  t["upsample_nearest2d"] = t["upsample_bilinear2d"] = [](OpWriter& w) {
    const bool nearest = w.op() == "upsample_nearest2d";
    const bool corners = !nearest && w.attrs().b("align_corners");
    w.emit("Resize", {w.in(0), "", "", w.ints(w.out_value().sizes().vec())}, {w.out()},
           [&](Proto& n) {
             set_string(n, "mode", nearest ? "nearest" : "linear");
             set_string(n, "coordinate_transformation_mode",
                        nearest   ? "asymmetric"
                        : corners ? "align_corners"
                                  : "pytorch_half_pixel");
             if (nearest) set_string(n, "nearest_mode", "floor");
           });
  };
}

}  // namespace

void add_composed_exports(Table& t) {
  add_composed_activations(t);
  add_statistics(t);
  add_attention(t);
  add_sorting_and_resampling(t);
}

}  // namespace nabla::graph::onnx_export

#endif
