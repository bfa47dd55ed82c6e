// save_onnx's table, part 2: network ops (Note [ONNX export], src/graph/onnx/exporter.h).
#include <cmath>
#include <numbers>

#include "graph/onnx/exporter.h"
#include "nabla/ops/factories.h"

#if NABLA_HAVE_ONNX

namespace nabla::graph::onnx_export {

namespace {

using Table = std::unordered_map<std::string, OpExport>;
using Proto = onnx::NodeProto;

// An int-list attribute of `dims` values (one value stands for all of them).
std::vector<int64_t> per_dim(const std::vector<int64_t>& v, size_t dims, int64_t fallback) {
  if (v.empty()) return std::vector<int64_t>(dims, fallback);
  if (v.size() == 1) return std::vector<int64_t>(dims, v[0]);
  return v;
}

std::vector<int64_t> twice(const std::vector<int64_t>& v) {
  std::vector<int64_t> out = v;
  out.insert(out.end(), v.begin(), v.end());
  return out;
}

void add_convolutions(Table& t) {
  for (int d = 1; d <= 3; ++d) {
    t["conv" + std::to_string(d) + "d"] = [d](OpWriter& w) {
      const auto dims = static_cast<size_t>(d);
      const auto& a = w.attrs();
      const auto stride = per_dim(a.ints("stride"), dims, 1);
      const auto dilation = per_dim(a.ints("dilation"), dims, 1);
      std::vector<int64_t> pads;
      if (a.type("padding") == ops::AttrType::String) {  // "same" or "valid", as LibTorch's
        pads.assign(2 * dims, 0);
        if (a.s("padding") == "same")
          for (size_t k = 0; k < dims; ++k) {
            const int64_t total =
                dilation[k] * (w.in_value(1).size(static_cast<int64_t>(k + 2)) - 1);
            pads[k] = total / 2;
            pads[k + dims] = total - total / 2;
          }
      } else {
        pads = twice(per_dim(a.ints("padding"), dims, 0));
      }
      const ScalarType dtype = w.out_value().scalar_type();
      std::vector<std::string> in = {w.in(0, dtype), w.in(1, dtype)};
      if (w.inputs() > 2 && !w.in(2).empty()) in.push_back(w.in(2, dtype));
      w.emit("Conv", in, {w.out()}, [&](Proto& n) {
        set_ints(n, "strides", stride);
        set_ints(n, "pads", pads);
        set_ints(n, "dilations", dilation);
        set_int(n, "group", a.i("groups"));
      });
    };
    t["conv_transpose" + std::to_string(d) + "d"] = [d](OpWriter& w) {
      const auto dims = static_cast<size_t>(d);
      const auto& a = w.attrs();
      const ScalarType dtype = w.out_value().scalar_type();
      std::vector<std::string> in = {w.in(0, dtype), w.in(1, dtype)};
      if (w.inputs() > 2 && !w.in(2).empty()) in.push_back(w.in(2, dtype));
      w.emit("ConvTranspose", in, {w.out()}, [&](Proto& n) {
        set_ints(n, "strides", per_dim(a.ints("stride"), dims, 1));
        set_ints(n, "pads", twice(per_dim(a.ints("padding"), dims, 0)));
        set_ints(n, "output_padding", per_dim(a.ints("output_padding"), dims, 0));
        set_ints(n, "dilations", per_dim(a.ints("dilation"), dims, 1));
        set_int(n, "group", a.i("groups"));
      });
    };
  }
  t["linear"] = [](OpWriter& w) {  // x W' + b: Gemm for a matrix, else MatMul and Add
    const ScalarType dtype = w.out_value().scalar_type();
    const std::string x = w.in(0, dtype), wt = w.in(1, dtype);
    const bool bias = w.inputs() > 2 && !w.in(2).empty();
    if (w.in_value(0).dim() == 2) {
      std::vector<std::string> in = {x, wt};
      if (bias) in.push_back(w.in(2, dtype));
      return (void)w.emit("Gemm", in, {w.out()}, [](Proto& n) { set_int(n, "transB", 1); });
    }
    const std::string t = w.emit("Transpose", {wt}, {}, [](Proto& n) {
      set_ints(n, "perm", {1, 0});
    });
    if (!bias) return (void)w.emit("MatMul", {x, t}, {w.out()});
    w.emit("Add", {w.emit("MatMul", {x, t}), w.in(2, dtype)}, {w.out()});
  };
  for (const char* op : {"matmul", "mm", "bmm"})
    t[op] = [](OpWriter& w) {
      const ScalarType dtype = w.out_value().scalar_type();
      w.emit("MatMul", {w.in(0, dtype), w.in(1, dtype)}, {w.out()});
    };
  // beta * input + alpha * (m1 @ m2): Gemm for matrices, else MatMul, Mul and Add
  t["addmm"] = t["baddbmm"] = [](OpWriter& w) {
    const ScalarType dtype = w.out_value().scalar_type();
    const double alpha = w.attrs().d("alpha"), beta = w.attrs().d("beta");
    if (w.op() == "addmm")
      return (void)w.emit("Gemm", {w.in(1, dtype), w.in(2, dtype), w.in(0, dtype)}, {w.out()},
                          [&](Proto& n) {
                            set_float(n, "alpha", alpha);
                            set_float(n, "beta", beta);
                          });
    std::string p = w.emit("MatMul", {w.in(1, dtype), w.in(2, dtype)});
    if (alpha != 1.0) p = w.emit("Mul", {p, w.scalar(alpha, dtype)});
    std::string c = w.in(0, dtype);
    if (beta != 1.0) c = w.emit("Mul", {c, w.scalar(beta, dtype)});
    w.emit("Add", {c, p}, {w.out()});
  };
}

void add_pooling(Table& t) {
  for (int d = 1; d <= 3; ++d) {
    for (const bool max : {true, false}) {
      t[std::string(max ? "max_pool" : "avg_pool") + std::to_string(d) + "d"] = [d,
                                                                                 max](OpWriter& w) {
        const auto dims = static_cast<size_t>(d);
        const auto& a = w.attrs();
        const auto kernel = per_dim(a.ints("kernel_size"), dims, 1);
        auto stride = a.ints("stride");
        stride = stride.empty() ? kernel : per_dim(stride, dims, 1);
        if (!max && a.has("divisor_override")) w.fail("divisor_override has no ONNX form");
        w.emit(max ? "MaxPool" : "AveragePool", {w.in(0)}, {w.out()}, [&](Proto& n) {
          set_ints(n, "kernel_shape", kernel);
          set_ints(n, "strides", stride);
          set_ints(n, "pads", twice(per_dim(a.ints("padding"), dims, 0)));
          set_int(n, "ceil_mode", a.b("ceil_mode"));
          if (max) set_ints(n, "dilations", per_dim(a.ints("dilation"), dims, 1));
          if (!max) set_int(n, "count_include_pad", a.b("count_include_pad"));
        });
      };
    }
  }
  t["adaptive_avg_pool2d"] = [](OpWriter& w) {  // global, or windows that tile the input
    const auto out = per_dim(w.attrs().ints("output_size"), 2, 1);
    const Tensor& x = w.in_value(0);
    const int64_t h = x.size(-2), wd = x.size(-1);
    if (out[0] == 1 && out[1] == 1) return (void)w.emit("GlobalAveragePool", {w.in(0)}, {w.out()});
    if (h % out[0] != 0 || wd % out[1] != 0)
      w.fail("adaptive pooling to a size that does not divide the input's has no ONNX form");
    const std::vector<int64_t> k = {h / out[0], wd / out[1]};
    w.emit("AveragePool", {w.in(0)}, {w.out()}, [&](Proto& n) {
      set_ints(n, "kernel_shape", k);
      set_ints(n, "strides", k);
    });
  };
}

void add_norms(Table& t) {
  // Absent weights: ones; absent statistics: those of the batch (training_mode).
  t["batch_norm"] = [](OpWriter& w) {
    const ScalarType dtype = w.out_value().scalar_type();
    const int64_t c = w.in_value(0).size(1);
    auto given = [&](size_t i, double fill) {
      return w.inputs() > i && !w.in(i).empty() ? w.in(i, dtype)
                                                : w.constant(full({c}, fill, TensorOptions(dtype)));
    };
    const bool training = w.attrs().b("training");
    const bool stats = w.inputs() > 3 && !w.in(3).empty();
    if (!training && !stats) w.fail("inference without running statistics");
    w.emit("BatchNormalization",
           {w.in(0, dtype), given(1, 1.0), given(2, 0.0), given(3, 0.0), given(4, 1.0)}, {w.out()},
           [&](Proto& n) {
             set_float(n, "epsilon", w.attrs().d("eps"));
             set_float(n, "momentum", 1 - w.attrs().d("momentum"));
             if (training) set_int(n, "training_mode", 1);
           });
  };
  t["instance_norm"] = [](OpWriter& w) {
    if (!w.attrs().b("use_input_stats")) w.fail("use_input_stats=false has no ONNX form");
    const ScalarType dtype = w.out_value().scalar_type();
    const int64_t c = w.in_value(0).size(1);
    auto given = [&](size_t i, double fill) {
      return w.inputs() > i && !w.in(i).empty() ? w.in(i, dtype)
                                                : w.constant(full({c}, fill, TensorOptions(dtype)));
    };
    w.emit("InstanceNormalization", {w.in(0, dtype), given(1, 1.0), given(2, 0.0)}, {w.out()},
           [&](Proto& n) { set_float(n, "epsilon", w.attrs().d("eps")); });
  };
  t["layer_norm"] = [](OpWriter& w) {
    const auto shape = w.attrs().ints("normalized_shape");
    const ScalarType dtype = w.out_value().scalar_type();
    std::vector<std::string> in = {w.in(0, dtype)};
    in.push_back(w.inputs() > 1 && !w.in(1).empty()
                     ? w.in(1, dtype)
                     : w.constant(ones(shape, TensorOptions(dtype))));
    if (w.inputs() > 2 && !w.in(2).empty()) in.push_back(w.in(2, dtype));
    auto axis = -static_cast<int64_t>(shape.size());
    if (w.opset() < 17) w.fail("LayerNormalization needs opset 17");
    w.emit("LayerNormalization", in, {w.out()}, [&](Proto& n) {
      set_int(n, "axis", axis);
      set_float(n, "epsilon", w.attrs().d("eps"));
    });
  };
}

void add_nn_activations(Table& t) {
  t["leaky_relu"] = [](OpWriter& w) {
    w.emit("LeakyRelu", {w.in(0)}, {w.out()},
           [&](Proto& n) { set_float(n, "alpha", w.attrs().d("negative_slope")); });
  };
  t["celu"] = [](OpWriter& w) {
    w.emit("Celu", {w.in(0)}, {w.out()},
           [&](Proto& n) { set_float(n, "alpha", w.attrs().d("alpha")); });
  };
  t["elu"] = [](OpWriter& w) {
    const double alpha = w.attrs().d("alpha"), scale = w.attrs().d("scale"),
                 input_scale = w.attrs().d("input_scale");
    if (scale == 1.0 && input_scale == 1.0)
      return (void)w.emit("Elu", {w.in(0)}, {w.out()},
                          [&](Proto& n) { set_float(n, "alpha", alpha); });
    // ATen's general form: scale (relu(x) + alpha (exp(input_scale min(x, 0)) - 1)).
    const ScalarType dtype = w.out_value().scalar_type();
    const std::string neg = w.emit("Min", {w.in(0), w.scalar(0, dtype)});
    const std::string e = w.emit("Exp", {w.emit("Mul", {neg, w.scalar(input_scale, dtype)})});
    const std::string tail =
        w.emit("Mul", {w.emit("Sub", {e, w.scalar(1, dtype)}), w.scalar(alpha, dtype)});
    w.emit("Mul", {w.emit("Add", {w.emit("Relu", {w.in(0)}), tail}), w.scalar(scale, dtype)},
           {w.out()});
  };
  t["hardsigmoid"] = [](OpWriter& w) {
    w.emit("HardSigmoid", {w.in(0)}, {w.out()}, [](Proto& n) {
      set_float(n, "alpha", 1.0 / 6);
      set_float(n, "beta", 0.5);
    });
  };
  // log(1 + exp(beta x)) / beta, x itself where beta x > threshold. ONNX's Softplus has no
  // threshold: at the default (20) the cut-off changes the value by less than exp(-20) / beta,
  // so it is written plain (as PyTorch's exporter writes it); another threshold is a Where.
  t["softplus"] = [](OpWriter& w) {
    const double beta = w.attrs().d("beta"), threshold = w.attrs().d("threshold");
    const ScalarType dtype = w.out_value().scalar_type();
    const bool cut = threshold != 20.0;
    if (beta == 1.0 && !cut) return (void)w.emit("Softplus", {w.in(0)}, {w.out()});
    const std::string bx = beta == 1.0 ? w.in(0) : w.emit("Mul", {w.in(0), w.scalar(beta, dtype)});
    const std::string soft = w.emit("Softplus", {bx});
    if (!cut) return (void)w.emit("Div", {soft, w.scalar(beta, dtype)}, {w.out()});
    const std::string value = beta == 1.0 ? soft : w.emit("Div", {soft, w.scalar(beta, dtype)});
    const std::string over = w.emit("Greater", {bx, w.scalar(threshold, dtype)});
    w.emit("Where", {over, w.in(0), value}, {w.out()});
  };
  t["silu"] = [](OpWriter& w) {
    w.emit("Mul", {w.in(0), w.emit("Sigmoid", {w.in(0)})}, {w.out()});
  };
  t["gelu"] = [](OpWriter& w) {
    const ScalarType dtype = w.out_value().scalar_type();
    const std::string x = w.in(0);
    std::string inner;
    if (w.attrs().s("approximate") == "tanh") {  // tanh(sqrt(2 / pi) (x + 0.044715 x^3))
      const std::string cube = w.emit("Mul", {x, w.emit("Mul", {x, x})});
      const std::string sum = w.emit("Add", {x, w.emit("Mul", {cube, w.scalar(0.044715, dtype)})});
      inner =
          w.emit("Tanh", {w.emit("Mul", {sum, w.scalar(std::sqrt(2 / std::numbers::pi), dtype)})});
    } else {  // erf(x / sqrt(2))
      inner = w.emit("Erf", {w.emit("Mul", {x, w.scalar(1 / std::numbers::sqrt2, dtype)})});
    }
    const std::string half = w.emit("Mul", {x, w.scalar(0.5, dtype)});
    w.emit("Mul", {half, w.emit("Add", {inner, w.scalar(1.0, dtype)})}, {w.out()});
  };
  t["dropout"] = [](OpWriter& w) {
    if (!w.attrs().b("train")) return (void)w.emit("Identity", {w.in(0)}, {w.out()});
    w.emit("Dropout",
           {w.in(0), w.scalar(w.attrs().d("p"), w.out_value().scalar_type()),
            w.constant(scalar_tensor(true, TensorOptions(kBool)))},
           {w.out()});
  };
}

// Negative log-likelihood over class indices, alone or after a log-softmax.
void class_index_loss(OpWriter& w, const char* onnx_op) {
  static const char* reductions[] = {"none", "mean", "sum"};
  std::vector<std::string> in = {w.in(0), w.in(1, kLong)};
  if (w.inputs() > 2 && !w.in(2).empty()) in.push_back(w.in(2));
  w.emit(onnx_op, in, {w.out()}, [&](Proto& n) {
    set_string(n, "reduction", reductions[w.attrs().i("reduction")]);
    set_int(n, "ignore_index", w.attrs().i("ignore_index"));
  });
}

void add_nn_losses(Table& t) {
  t["nll_loss_nd"] = [](OpWriter& w) { class_index_loss(w, "NegativeLogLikelihoodLoss"); };
  t["cross_entropy_loss"] = [](OpWriter& w) {
    if (w.attrs().d("label_smoothing") != 0.0) w.fail("label smoothing has no ONNX form");
    if (w.in_value(1).is_floating_point()) w.fail("probabilities as targets have no ONNX form");
    class_index_loss(w, "SoftmaxCrossEntropyLoss");
  };
  t["mse_loss"] = [](OpWriter& w) {
    const ScalarType dtype = w.out_value().scalar_type();
    const std::string d = w.emit("Sub", {w.in(0, dtype), w.in(1, dtype)});
    w.reduce_loss(w.emit("Mul", {d, d}));
  };
  t["l1_loss"] = [](OpWriter& w) {
    const ScalarType dtype = w.out_value().scalar_type();
    w.reduce_loss(w.emit("Abs", {w.emit("Sub", {w.in(0, dtype), w.in(1, dtype)})}));
  };
}

}  // namespace

void add_nn_exports(Table& t) {
  add_convolutions(t);
  add_pooling(t);
  add_norms(t);
  add_nn_activations(t);
  add_nn_losses(t);
}

}  // namespace nabla::graph::onnx_export

#endif
