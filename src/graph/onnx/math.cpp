// Reductions, Softmax/LogSoftmax, ArgMax/ArgMin and the variadic Max/Min/Sum/Mean.
#include "graph/onnx/importer.h"

#include "nabla/ops/activation.h"
#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"

#if NABLA_HAVE_ONNX

namespace nabla::graph::onnx_import {

namespace {

// The Reduce operators without an op of their own (a node computing them from sums,
// products and logsumexp, with the gradients those give).
Tensor reduce_other(const std::string& op, Tensor x, std::vector<int64_t> axes, bool keep) {
  for (int64_t& a : axes) a = a < 0 ? a + x.dim() : a;
  if (op == "ReduceLogSumExp") return x.logsumexp(axes, keep);
  if (op == "ReduceProd") {
    std::sort(axes.rbegin(), axes.rend());  // dims from the last, so the others keep their place
    for (int64_t a : axes) x = x.prod(a, keep);
    return x;
  }
  if (op == "ReduceL1") return x.abs().sum(axes, keep);
  if (op == "ReduceL2") return x.square().sum(axes, keep).sqrt();
  if (op == "ReduceSumSquare") return x.square().sum(axes, keep);
  return x.sum(axes, keep).log();  // ReduceLogSum
}

}  // namespace

// ReduceSum's axes are an input from opset 13, the others' from opset 18; no axes: all
// of them, unless noop_with_empty_axes.
void Importer::reduce(const Node& n) {
  static const std::unordered_map<std::string, std::string> ops = {
      {"ReduceMean", "mean"}, {"ReduceSum", "sum"}, {"ReduceMax", "amax"}, {"ReduceMin", "amin"}};
  auto axes = has_input(n, 1) ? constant_ints(n, 1) : attr_ints(n, "axes", {});
  if (axes.empty()) {
    if (attr_int(n, "noop_with_empty_axes", 0)) return define(n, input(n, 0));
    for (int64_t d = 0; d < static_cast<int64_t>(shape_of(n, 0).size()); ++d) axes.push_back(d);
  }
  const bool keep = attr_int(n, "keepdims", 1) != 0;
  if (auto it = ops.find(n.op_type()); it != ops.end())
    return define(n, call(n, it->second, {input(n, 0)}, {{"dim", axes}, {"keepdim", keep}}));
  static const std::unordered_set<std::string> others = {
      "ReduceProd", "ReduceL1", "ReduceL2", "ReduceSumSquare", "ReduceLogSum", "ReduceLogSumExp"};
  if (!others.count(n.op_type())) fail(n, "the operator is not supported by nabla's importer yet");
  define(n, function_node(n, n.op_type(), {input(n, 0)},
                          [op = n.op_type(), axes, keep](const std::vector<Tensor>& x) {
                            return reduce_other(op, x[0], axes, keep);
                          }));
}

// Softmax and LogSoftmax: along `axis` (default -1) from opset 13; before, the input is
// seen as a matrix of its dims before `axis` (default 1) by those from it on, and the
// rows are normalized: the same along the last dim, a normalization over every dim from
// `axis` on otherwise (a node of its own, which flattens and restores the shape).
void Importer::softmax(const Node& n, const std::string& op) {
  if (opset_ >= 13)
    return define(n, call(n, op, {input(n, 0)}, {{"dim", attr_int(n, "axis", -1)}}));
  const int64_t axis = attr_int(n, "axis", 1);
  const bool log = op == "log_softmax";
  define(n, function_node(n, op, {input(n, 0)}, [axis, log](const std::vector<Tensor>& x) {
           const int64_t a = axis < 0 ? axis + x[0].dim() : axis;
           const Tensor rows = x[0].flatten(a);
           const Tensor out = log ? nabla::log_softmax(rows, -1) : nabla::softmax(rows, -1);
           return out.view(x[0].sizes());
         }));
}

// ArgMax/ArgMin along `axis` (default 0), keepdims (default 1); the last of equal extremes
// (select_last_index) through the input reversed along the axis.
void Importer::arg_extreme(const Node& n, const std::string& op) {
  const int64_t axis = attr_int(n, "axis", 0);
  const bool keep = attr_int(n, "keepdims", 1) != 0;
  if (!attr_int(n, "select_last_index", 0))
    return define(n, call(n, op, {input(n, 0)}, {{"dim", axis}, {"keepdim", keep}}));
  // The last of equal extremes: the first one of the input reversed along the axis.
  define(n, function_node(n, op, {input(n, 0)},
                          [axis, keep, max = op == "argmax"](const std::vector<Tensor>& x) {
                            const Tensor r = x[0].flip({axis});
                            const Tensor first = max ? r.argmax(axis, keep) : r.argmin(axis, keep);
                            return (x[0].size(axis) - 1) - first;
                          }));
}

// The determinant of each matrix of x [..., n, n]: Gaussian elimination with partial
// pivoting as eager ops over the whole batch (so its gradient flows), the product of the
// pivots times the sign of the row swaps; a zero pivot (a singular matrix) gives 0.
Tensor determinant(const Tensor& x) {
  NABLA_CHECK(x.dim() >= 2 && x.size(-1) == x.size(-2), "Det: square matrices wanted, got ",
              x.sizes());
  const int64_t n = x.size(-1);
  std::vector<int64_t> batch(x.sizes().begin(), x.sizes().end() - 2);
  Tensor a = x.reshape({-1, n, n});
  Tensor det = ones({a.size(0)}, x.options());
  const Tensor rows = arange(n, TensorOptions(kLong)).to(x.device());
  for (int64_t k = 0; k < n; ++k) {
    // swap row k with the row of the largest |a[., i, k]|, i >= k
    const Tensor p = a.narrow(1, k, n - k).select(2, k).abs().argmax(1) + k;  // [B]
    const Tensor is_k = rows.eq(k).unsqueeze(0), is_p = rows.unsqueeze(0).eq(p.unsqueeze(1));
    const Tensor order =
        where(is_k, p.unsqueeze(1), where(is_p, full_like(p.unsqueeze(1), k), rows.unsqueeze(0)));
    a = a.gather(1, order.unsqueeze(2).expand({-1, n, n}));
    det = where(p.eq(k), det, -det);
    const Tensor pivot = a.select(1, k).select(1, k);  // [B]
    det = det * pivot;
    if (k + 1 == n) break;
    const Tensor safe = where(pivot.eq(0), ones_like(pivot), pivot);
    const Tensor factors = a.narrow(1, k + 1, n - k - 1).select(2, k) / safe.unsqueeze(1);
    const Tensor below = a.narrow(1, k + 1, n - k - 1) - factors.unsqueeze(2) * a.narrow(1, k, 1);
    a = nabla::cat({a.narrow(1, 0, k + 1), below}, 1);
  }
  return det.reshape(batch);
}

// Max, Min, Sum, Mean of any number of inputs, broadcast together.
void Importer::variadic(const Node& n, const std::string& op) {
  const std::string pairwise = op == "Max" ? "maximum" : op == "Min" ? "minimum" : "add";
  if (n.input_size() == 0) fail(n, "no inputs");
  Value acc = input(n, 0);
  for (int i = 1; i < n.input_size(); ++i)
    acc = call(n, pairwise, {acc, input(n, i)}, {}, /*final=*/false);
  if (op == "Mean")
    acc = call(n, "div", {acc, g_.constant(scalar_tensor(n.input_size()), n.output(0) + ".count")},
               {}, false);
  define(n, acc);
}

}  // namespace nabla::graph::onnx_import

#endif
