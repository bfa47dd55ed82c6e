// save_onnx's table, part 4: the recurrent ops (lstm, gru, rnn_tanh, rnn_relu) as one ONNX
// LSTM/GRU/RNN node per layer. LibTorch's flat parameters (per layer and direction: w_ih,
// w_hh, b_ih, b_hh) are written as ONNX's W, R and B initializers of each layer (named
// after the node: "<node>.l0.W"), their gates reordered from PyTorch's (LSTM i, f, g, o; GRU
// r, z, n) to ONNX's (i, o, f, c; z, r, h): the inverse of what load_onnx does (Note [ONNX
// recurrences]), which reads them back as as many trainable parameters.
#include "graph/onnx/exporter.h"
#include "nabla/ops/functions.h"

#if NABLA_HAVE_ONNX

namespace nabla::graph::onnx_export {

namespace {

using Proto = onnx::NodeProto;

void write_recurrent(OpWriter& w) {
  const std::string& op = w.op();
  const bool lstm = op == "lstm", gru = op == "gru";
  const auto& a = w.attrs();
  if (a.b("train") && a.d("dropout") > 0 && a.i("num_layers") > 1)
    w.fail("dropout between layers in training has no ONNX form");
  const int64_t layers = a.i("num_layers"), dirs = a.b("bidirectional") ? 2 : 1;
  const size_t states = lstm ? 2 : 1, per = a.b("has_biases") ? 4 : 2;
  const size_t first_param = 1 + states;
  if (w.inputs() != first_param + per * static_cast<size_t>(layers * dirs))
    w.fail("its parameters are not " + std::to_string(per) + " per layer and direction");
  const int64_t gates = lstm ? 4 : gru ? 3 : 1;
  const Tensor& w_hh = w.in_value(first_param + 1);
  const int64_t hidden = w_hh.size(1);
  const std::vector<int64_t> order = lstm  ? std::vector<int64_t>{0, 3, 1, 2}
                                     : gru ? std::vector<int64_t>{1, 0, 2}
                                           : std::vector<int64_t>{0};
  auto param = [&](int64_t layer, int64_t dir, size_t k) {
    return first_param + static_cast<size_t>(layer * dirs + dir) * per + k;
  };
  // LibTorch's matrix or bias vector `k` of each direction, in ONNX's gate order, stacked.
  auto regated = [&](int64_t layer, size_t k) {
    std::vector<Tensor> per_dir;
    for (int64_t d = 0; d < dirs; ++d) {
      const Tensor t = w.in_value(param(layer, d, k)).detach();
      const auto parts = t.chunk(gates, 0);
      std::vector<Tensor> ordered;
      for (int64_t g : order) ordered.push_back(parts[static_cast<size_t>(g)]);
      per_dir.push_back(cat(ordered, 0));
    }
    return stack(per_dir, 0);
  };
  auto stacked = [&](const std::vector<std::string>& per_layer, int64_t axis) {
    if (per_layer.size() == 1) return per_layer[0];
    return w.emit("Concat", per_layer, {}, [&](Proto& n) { set_int(n, "axis", axis); });
  };
  std::string x = w.in(0);
  const int64_t batch_dim = a.b("batch_first") ? 0 : 1;
  if (a.b("batch_first"))
    x = w.emit("Transpose", {x}, {}, [](Proto& n) { set_ints(n, "perm", {1, 0, 2}); });
  const int64_t seq = w.in_value(0).size(1 - batch_dim), batch = w.in_value(0).size(batch_dim);
  std::vector<std::string> hs, cs;
  for (int64_t l = 0; l < layers; ++l) {
    const std::string at = str("l", l, ".");  // (GCC 12 warns, wrongly, on "l" + string)
    const std::string W = w.initializer(regated(l, 0), at + "W");
    const std::string R = w.initializer(regated(l, 1), at + "R");
    const std::string B =
        per == 4 ? w.initializer(nabla::cat({regated(l, 2), regated(l, 3)}, 1), at + "B") : "";
    // the layer's slice of the initial states (absent: zeros)
    auto initial = [&](size_t input) -> std::string {
      if (w.in(input).empty()) return "";
      return w.emit("Slice",
                    {w.in(input), w.ints({l * dirs}), w.ints({(l + 1) * dirs}), w.ints({0})});
    };
    std::vector<std::string> in = {x, W, R, B, "", initial(1)};
    if (lstm) in.push_back(initial(2));
    const std::string y = w.fresh("Y"), yh = w.fresh("Y_h"), yc = w.fresh("Y_c");
    std::vector<std::string> outs = {y, yh};
    if (lstm) outs.push_back(yc);
    w.emit(lstm  ? "LSTM"
           : gru ? "GRU"
                 : "RNN",
           in, outs, [&](Proto& n) {
             set_int(n, "hidden_size", hidden);
             set_string(n, "direction", dirs == 2 ? "bidirectional" : "forward");
             if (gru) set_int(n, "linear_before_reset", 1);
             if (op == "rnn_relu") {
               auto* acts = n.add_attribute();
               acts->set_name("activations");
               acts->set_type(onnx::AttributeProto::STRINGS);
               for (int64_t d = 0; d < dirs; ++d) acts->add_strings("Relu");
             }
           });
    hs.push_back(yh);
    cs.push_back(yc);
    // [seq, dirs, batch, hidden] -> [seq, batch, dirs * hidden], the next layer's input
    const std::string t = w.emit("Transpose", {y}, {}, [](Proto& n) {
      set_ints(n, "perm", {0, 2, 1, 3});
    });
    x = w.emit("Reshape", {t, w.ints({seq, batch, dirs * hidden})});
  }
  if (a.b("batch_first"))
    x = w.emit("Transpose", {x}, {}, [](Proto& n) { set_ints(n, "perm", {1, 0, 2}); });
  w.emit("Identity", {x}, {w.out(0)});
  w.emit("Identity", {stacked(hs, 0)}, {w.out(1)});
  if (lstm) w.emit("Identity", {stacked(cs, 0)}, {w.out(2)});
}

}  // namespace

void add_recurrent_exports(std::unordered_map<std::string, OpExport>& t) {
  for (const char* op : {"lstm", "gru", "rnn_tanh", "rnn_relu"}) t[op] = write_recurrent;
}

}  // namespace nabla::graph::onnx_export

#endif
