// Shapes and indexing: Flatten, Shape, Gather, (Un)squeeze, Slice, Expand, Split, Cast,
// Pad, and the integer shape arithmetic computed at import.
#include "graph/onnx/importer.h"

#include "nabla/autograd/grad_mode.h"
#include "nabla/ops/factories.h"
#include "nabla/ops/padding.h"

#if NABLA_HAVE_ONNX

namespace nabla::graph::onnx_import {

// [d0, ..., dk-1, dk, ...] -> [d0 * ... * dk-1, dk * ...]: the tail merged, then the head.
void Importer::flatten(const Node& n) {
  const int64_t rank = rank_of(n, 0);  // -1: unknown at import, axis < rank assumed
  int64_t axis = attr_int(n, "axis", 1);
  if (axis < 0 && rank < 0)
    fail(n, "a negative axis needs the input's shape: pass the input shapes to load_onnx");
  if (axis < 0) axis += rank;
  if (axis < 0 || (rank >= 0 && axis > rank))
    fail(n, "axis " + std::to_string(attr_int(n, "axis", 1)) + " out of range");
  if (axis == 0 || axis == rank)  // one row, or one column
    return define(
        n,
        call(n, "reshape", {input(n, 0)},
             {{"shape", axis == 0 ? std::vector<int64_t>{1, -1} : std::vector<int64_t>{-1, 1}}}));
  Value tail = call(n, "flatten", {input(n, 0)}, {{"start_dim", axis}, {"end_dim", -1}}, axis == 1);
  if (axis == 1) return define(n, tail);
  define(n, call(n, "flatten", {tail}, {{"start_dim", 0}, {"end_dim", axis - 1}}));
}

// Shape arithmetic on integers (ONNX's Div truncates them), computed at import.
void Importer::fold(const Node& n) {
  const Tensor a = constant(n, 0), b = constant(n, 1);
  const std::string& op = n.op_type();
  constants_[n.output(0)] = op == "Add"   ? a + b
                            : op == "Sub" ? a - b
                            : op == "Mul"
                                ? a * b
                                : (a.to(kDouble) / b.to(kDouble)).trunc().to(a.scalar_type());
}

// The example shapes are the file's: Shape of a value is known at import.
void Importer::shape_op(const Node& n) {
  std::vector<int64_t> shape = shape_of(n, 0);
  const auto rank = static_cast<int64_t>(shape.size());
  int64_t start = attr_int(n, "start", 0), end = attr_int(n, "end", rank);
  start = std::clamp(start < 0 ? start + rank : start, int64_t{0}, rank);
  end = std::clamp(end < 0 ? end + rank : end, int64_t{0}, rank);
  shape = std::vector<int64_t>(shape.begin() + start, shape.begin() + std::max(start, end));
  constants_[n.output(0)] =
      tensor(shape, TensorOptions(kLong)).view({static_cast<int64_t>(shape.size())});
}

// Gather(data, indices) along `axis`, negative indices counted from the end (ONNX's rule).
void Importer::gather(const Node& n) {
  const auto shape = shape_of(n, 0);
  const int64_t axis = axis_of(n, static_cast<int64_t>(shape.size()), 0);
  // An embedding: a table (an initializer) indexed by the model's input.
  if (axis == 0 && !is_constant(n, 1) && initializers_.count(n.input(0)))
    return define(n, call(n, "embedding", {input(n, 0), input(n, 1)}));
  Tensor idx = constant(n, 1).to(kLong);
  const int64_t size = shape[static_cast<size_t>(axis)];
  idx = idx + idx.lt(0).to(kLong) * size;
  Value data = input(n, 0);
  if (idx.dim() > 1) {  // index_select by the flat indices, then the indices' shape restored
    std::vector<int64_t> out(shape.begin(), shape.begin() + axis);
    for (int64_t d : idx.sizes()) out.push_back(d);
    out.insert(out.end(), shape.begin() + axis + 1, shape.end());
    Value flat =
        call(n, "index_select", {data, g_.constant(idx.reshape({-1}))}, {{"dim", axis}}, false);
    return define(n, call(n, "reshape", {flat}, {{"shape", out}}));
  }
  if (idx.dim() == 0)
    return define(n, call(n, "select", {data}, {{"dim", axis}, {"index", idx.item<int64_t>()}}));
  define(n, call(n, "index_select", {data, g_.constant(idx)}, {{"dim", axis}}));
}

// Unsqueeze: each axis of the output, ascending; Squeeze: each axis of the input, descending.
void Importer::unsqueeze(const Node& n, bool squeeze) {
  std::vector<int64_t> axes = has_input(n, 1) ? constant_ints(n, 1) : attr_ints(n, "axes", {});
  const auto in_rank = static_cast<int64_t>(shape_of(n, 0).size());
  if (squeeze && axes.empty()) {
    const auto shape = shape_of(n, 0);
    for (int64_t d = 0; d < in_rank; ++d)
      if (shape[d] == 1) axes.push_back(d);
  }
  const int64_t rank = squeeze ? in_rank : in_rank + static_cast<int64_t>(axes.size());
  for (auto& a : axes) a = a < 0 ? a + rank : a;
  std::sort(axes.begin(), axes.end());
  if (squeeze) std::reverse(axes.begin(), axes.end());
  Value v = input(n, 0);
  for (size_t k = 0; k < axes.size(); ++k)
    v = call(n, squeeze ? "squeeze" : "unsqueeze", {v}, {{"dim", axes[k]}}, k + 1 == axes.size());
  define(n, v);
}

// Slice(data, starts, ends[, axes[, steps]]), bounds clamped as ONNX's (INT64_MAX: the end).
void Importer::slice(const Node& n) {
  const auto shape = shape_of(n, 0);
  const bool by_attributes = opset_ < 10;  // starts, ends and axes were attributes then
  const auto starts = by_attributes ? attr_ints(n, "starts", {}) : constant_ints(n, 1);
  const auto ends = by_attributes ? attr_ints(n, "ends", {}) : constant_ints(n, 2);
  std::vector<int64_t> axes(starts.size()), steps(starts.size(), 1);
  for (size_t k = 0; k < axes.size(); ++k) axes[k] = static_cast<int64_t>(k);
  if (by_attributes && attr(n, "axes")) axes = attr_ints(n, "axes", {});
  if (!by_attributes && has_input(n, 3)) axes = constant_ints(n, 3);
  if (!by_attributes && has_input(n, 4)) steps = constant_ints(n, 4);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
    fail(n, "starts, ends, axes and steps differ in length");
  Value v = input(n, 0);
  for (size_t k = 0; k < starts.size(); ++k) {
    const auto rank = static_cast<int64_t>(shape.size());
    const int64_t axis = axes[k] < 0 ? axes[k] + rank : axes[k];
    if (axis < 0 || axis >= rank) fail(n, "axis " + std::to_string(axes[k]) + " out of range");
    if (steps[k] == 0) fail(n, "a step of 0");
    const int64_t size = shape[static_cast<size_t>(axis)];
    if (steps[k] < 0) {  // from start down to end (exclusive), clamped to [-1, size - 1]
      auto clampn = [&](int64_t x) {
        return std::clamp(x < 0 ? x + size : x, int64_t{-1}, size - 1);
      };
      std::vector<int64_t> at;
      for (int64_t i = clampn(starts[k]); i > clampn(ends[k]); i += steps[k]) at.push_back(i);
      v = call(n, "index_select",
               {v, g_.constant(
                       tensor(at, TensorOptions(kLong)).view({static_cast<int64_t>(at.size())}))},
               {{"dim", axis}}, k + 1 == starts.size());
      continue;
    }
    auto clampi = [&](int64_t x) { return std::clamp(x < 0 ? x + size : x, int64_t{0}, size); };
    v = call(
        n, "slice", {v},
        {{"dim", axis}, {"start", clampi(starts[k])}, {"end", clampi(ends[k])}, {"step", steps[k]}},
        k + 1 == starts.size());
  }
  define(n, v);
}

// Expand broadcasts both ways: the result's shape is that of x and `shape` broadcast.
void Importer::expand(const Node& n) {
  std::vector<int64_t> x = shape_of(n, 0), to = constant_ints(n, 1);
  const size_t in_rank = x.size(), rank = std::max(x.size(), to.size());
  x.insert(x.begin(), rank - x.size(), 1);
  to.insert(to.begin(), rank - to.size(), 1);
  for (size_t d = 0; d < rank; ++d) {
    if (x[d] != 1 && to[d] != 1 && x[d] != to[d]) fail(n, "shapes that do not broadcast");
    to[d] = x[d] == 1 ? to[d] : x[d];
  }
  Value v = input(n, 0);
  if (in_rank < rank) v = call(n, "reshape", {v}, {{"shape", x}}, false);
  define(n, call(n, "expand", {v}, {{"size", to}}));
}

// Split(input[, split]) along `axis`: the sizes from the input (opset 13), the attribute
// (before), or equal parts, one per output.
void Importer::split(const Node& n) {
  const auto shape = shape_of(n, 0);
  const int64_t axis = axis_of(n, static_cast<int64_t>(shape.size()), 0);
  std::vector<int64_t> sizes = has_input(n, 1) ? constant_ints(n, 1) : attr_ints(n, "split", {});
  const int64_t parts = n.output_size(), size = shape[static_cast<size_t>(axis)];
  if (sizes.empty()) {
    if (size % parts != 0) fail(n, "the axis does not split into equal parts");
    sizes.assign(static_cast<size_t>(parts), size / parts);
  }
  if (static_cast<int64_t>(sizes.size()) != parts)
    fail(n, "split sizes and outputs differ in number");
  Value v = call(n, "split_with_sizes", {input(n, 0)}, {{"split_sizes", sizes}, {"dim", axis}});
  for (int i = 0; i < n.output_size(); ++i) {
    values_[n.output(i)] = v.output(i);
    if (dynamic_.count(n.input(0))) dynamic_.insert(n.output(i));
  }
}

// Cast to `to`: computed at import on constants (shape arithmetic), else a node.
void Importer::cast(const Node& n) {
  bool known = false;
  const ScalarType dtype = dtype_of(static_cast<int32_t>(attr_int(n, "to", 0)), known);
  if (!known) fail(n, "a cast to ONNX type " + std::to_string(attr_int(n, "to", 0)));
  if (is_constant(n, 0)) {
    constants_[n.output(0)] = constant(n, 0).to(dtype);
    return;
  }
  define(n, call(n, "to", {input(n, 0)}, {{"dtype", dtype}}));
}

// Pad: `pads` (an attribute before opset 11, then an input) as [begin of each dim..., end
// of each dim...]; modes constant (value: an attribute, then an optional input), reflect
// and edge (LibTorch's replication) over the last one to three dims.
void Importer::pad(const Node& n) {
  const bool by_attributes = opset_ < 11;
  const auto pads = by_attributes ? attr_ints(n, "pads", {}) : constant_ints(n, 1);
  const auto* m = attr(n, "mode");
  const std::string mode = m ? m->s() : "constant";
  const size_t rank = pads.size() / 2;
  if (pads.size() % 2 != 0) fail(n, "pads holds an odd number of values");
  // LibTorch's order: the last dim's (begin, end) first.
  std::vector<int64_t> torch_pad;
  for (size_t d = rank; d-- > 0;) {
    torch_pad.push_back(pads[d]);
    torch_pad.push_back(pads[d + rank]);
  }
  if (mode == "constant") {
    const double value = by_attributes     ? attr_float(n, "value", 0.0)
                         : has_input(n, 2) ? constant_scalar(n, 2)
                                           : 0.0;
    return define(
        n, call(n, "constant_pad_nd", {input(n, 0)}, {{"pad", torch_pad}, {"value", value}}));
  }
  if (mode != "reflect" && mode != "edge") fail(n, "mode '" + mode + "'");
  // Only the trailing dims may be padded: drop the leading zero pairs.
  while (torch_pad.size() > 2 && torch_pad[torch_pad.size() - 1] == 0 &&
         torch_pad[torch_pad.size() - 2] == 0)
    torch_pad.resize(torch_pad.size() - 2);
  const size_t dims = torch_pad.size() / 2;
  if (dims > 3) fail(n, mode + " padding of more than the last three dims");
  define(n, g_.custom(
                "Pad",
                [torch_pad, dims, reflect = mode == "reflect"](const std::vector<Tensor>& x) {
                  using PadFn = Tensor (*)(const Tensor&, IntArrayRef);
                  static const PadFn reflect_fns[] = {
                      nabla::reflection_pad1d, nabla::reflection_pad2d, nabla::reflection_pad3d};
                  static const PadFn edge_fns[] = {
                      nabla::replication_pad1d, nabla::replication_pad2d, nabla::replication_pad3d};
                  const PadFn fn = (reflect ? reflect_fns : edge_fns)[dims - 1];
                  // LibTorch's forms take a batch dim and a channel dim before the padded ones.
                  Tensor in = x[0];
                  const int64_t lead = in.dim() - static_cast<int64_t>(dims);
                  const auto shape = in.sizes().vec();
                  in = in.reshape([&] {
                    std::vector<int64_t> s = {1, -1};
                    s.insert(s.end(), shape.end() - static_cast<int64_t>(dims), shape.end());
                    return s;
                  }());
                  Tensor out = fn(in, torch_pad);
                  std::vector<int64_t> out_shape(shape.begin(), shape.begin() + lead);
                  for (int64_t d = out.dim() - static_cast<int64_t>(dims); d < out.dim(); ++d)
                    out_shape.push_back(out.size(d));
                  return std::vector<Tensor>{out.reshape(out_shape)};
                },
                {input(n, 0)}, n.output(0)));
}

}  // namespace nabla::graph::onnx_import

#endif
