// Indexing and rearranging operators: GatherND, ScatterND, OneHot, NonZero, Compress, TopK,
// Unique, ReverseSequence, EyeLike, DepthToSpace, SpaceToDepth. Those whose settings are
// tensors (TopK's K, OneHot's depth, the indices) read them inside their function node,
// so they may depend on the model's inputs.
#include "graph/onnx/importer.h"

#include <map>
#include <numeric>

#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"

#if NABLA_HAVE_ONNX

namespace nabla::graph::onnx_import {

namespace {

using In = const std::vector<Tensor>&;

int64_t product(const std::vector<int64_t>& v, size_t from, size_t to) {
  int64_t p = 1;
  for (size_t i = from; i < to; ++i) p *= v[i];
  return p;
}

// The flat position of each index tuple of `index` [..., k] in the first k dims of
// `shape` (negative entries counted from the end), as a tensor of index's leading shape.
Tensor linear_index(const Tensor& index, const std::vector<int64_t>& shape, size_t first) {
  const auto k = static_cast<size_t>(index.size(-1));
  NABLA_CHECK(first + k <= shape.size(), "the index tuples have ", k, " entries for ",
              shape.size() - first, " dims");
  std::vector<int64_t> sizes(shape.begin() + static_cast<int64_t>(first),
                             shape.begin() + static_cast<int64_t>(first + k));
  std::vector<int64_t> strides(k, 1);
  for (size_t i = k; i-- > 1;) strides[i - 1] = strides[i] * sizes[i];
  const Tensor s = tensor(sizes, TensorOptions(kLong)).to(index.device());
  const Tensor i = index.to(kLong);
  const Tensor wrapped = i.where(i.ge(0), i + s);
  return (wrapped * tensor(strides, TensorOptions(kLong)).to(index.device())).sum(-1);
}

// GatherND(data, indices) with `batch` leading batch dims.
Tensor gather_nd(const Tensor& data, const Tensor& index, int64_t batch) {
  const auto shape = data.sizes().vec();
  const auto b = static_cast<size_t>(batch);
  const auto k = static_cast<size_t>(index.size(-1));
  const int64_t batches = product(shape, 0, b), block = product(shape, b, b + k);
  Tensor lin = linear_index(index, shape, b).reshape({batches, -1});
  lin = lin + arange(batches, TensorOptions(kLong)).to(data.device()).view({batches, 1}) * block;
  std::vector<int64_t> flat = {batches * block},
                       out(index.sizes().begin(), index.sizes().end() - 1);
  for (size_t d = b + k; d < shape.size(); ++d) {
    flat.push_back(shape[d]);
    out.push_back(shape[d]);
  }
  return data.reshape(flat).index_select(0, lin.reshape({-1})).reshape(out);
}

// ScatterND(data, indices, updates): reduction none, add or mul.
Tensor scatter_nd(const Tensor& data, const Tensor& index, const Tensor& updates,
                  const std::string& reduction) {
  const auto shape = data.sizes().vec();
  const auto k = static_cast<size_t>(index.size(-1));
  std::vector<int64_t> flat = {product(shape, 0, k)}, rows = {-1};
  for (size_t d = k; d < shape.size(); ++d) {
    flat.push_back(shape[d]);
    rows.push_back(shape[d]);
  }
  const Tensor lin = linear_index(index, shape, 0).reshape({-1});
  const Tensor x = data.reshape(flat), u = updates.reshape(rows);
  Tensor out;
  if (reduction == "add") {
    out = x.index_add(0, lin, u);
  } else if (reduction == "mul") {  // one update at a time: a position may repeat
    out = x;
    const auto at = long_values(lin);
    for (size_t l = 0; l < at.size(); ++l) {
      const Tensor one = tensor(std::vector<int64_t>{at[l]}, TensorOptions(kLong)).to(x.device());
      const auto row = static_cast<int64_t>(l);
      out = out.index_copy(0, one, out.index_select(0, one) * u.narrow(0, row, 1));
    }
  } else {
    out = x.index_copy(0, lin, u);
  }
  return out.reshape(shape);
}

// Unique rows of `rows` [n, m] (compared as doubles): the first occurrence of each, in
// sorted or first-seen order, each row's group, and the groups' sizes.
struct UniqueRows {
  std::vector<int64_t> first, inverse, counts;
};

UniqueRows unique_rows(const Tensor& rows, bool sorted) {
  const Tensor r = rows.to(kCPU).to(kDouble).contiguous();
  const int64_t n = r.size(0), m = r.size(1);
  const double* p = r.data_ptr<double>();
  auto less = [&](int64_t a, int64_t b) {
    return std::lexicographical_compare(p + a * m, p + a * m + m, p + b * m, p + b * m + m);
  };
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), less);
  UniqueRows u;
  u.inverse.assign(static_cast<size_t>(n), 0);
  std::vector<int64_t> group_of(static_cast<size_t>(n));  // in sorted order
  for (size_t i = 0; i < order.size(); ++i) {
    if (i == 0 || less(order[i - 1], order[i])) {
      u.first.push_back(order[i]);
      u.counts.push_back(0);
    }
    group_of[static_cast<size_t>(order[i])] = static_cast<int64_t>(u.first.size() - 1);
    ++u.counts.back();
  }
  std::vector<int64_t> position(u.first.size());  // a group's place in the output
  std::iota(position.begin(), position.end(), 0);
  if (!sorted) {  // by first occurrence
    std::vector<int64_t> by_first(u.first.size());
    std::iota(by_first.begin(), by_first.end(), 0);
    std::sort(by_first.begin(), by_first.end(), [&](int64_t a, int64_t b) {
      return u.first[static_cast<size_t>(a)] < u.first[static_cast<size_t>(b)];
    });
    UniqueRows s;
    for (size_t i = 0; i < by_first.size(); ++i) {
      position[static_cast<size_t>(by_first[i])] = static_cast<int64_t>(i);
      s.first.push_back(u.first[static_cast<size_t>(by_first[i])]);
      s.counts.push_back(u.counts[static_cast<size_t>(by_first[i])]);
    }
    u.first = std::move(s.first);
    u.counts = std::move(s.counts);
  }
  for (int64_t i = 0; i < n; ++i)
    u.inverse[static_cast<size_t>(i)] =
        position[static_cast<size_t>(group_of[static_cast<size_t>(i)])];
  return u;
}

}  // namespace

bool Importer::map_indexing(const Node& n) {
  const std::string& op = n.op_type();
  auto done = [&](Value v, std::vector<Value> more = {}) {
    define(n, v, std::move(more));
    return true;
  };
  auto inputs = [&] { return present_inputs(n); };
  if (op == "GatherND")
    return done(function_node(n, op, inputs(), [b = attr_int(n, "batch_dims", 0)](In x) {
      return gather_nd(x[0], x[1], b);
    }));
  if (op == "ScatterND") {
    const auto* r = attr(n, "reduction");
    const std::string reduction = r ? r->s() : "none";
    if (reduction != "none" && reduction != "add" && reduction != "mul")
      fail(n, "reduction '" + reduction + "'");
    return done(function_node(
        n, op, inputs(), [reduction](In x) { return scatter_nd(x[0], x[1], x[2], reduction); }));
  }
  if (op == "OneHot")  // depth classes along `axis`; values = [off, on]; negative indices wrap
    return done(function_node(n, op, inputs(), [axis = attr_int(n, "axis", -1)](In x) {
      const auto depth = static_cast<int64_t>(first_double(x[1], "OneHot's depth"));
      const Tensor i = x[0].to(kLong);
      const Tensor idx = i.where(i.ge(0), i + depth);
      const int64_t rank = idx.dim() + 1, a = axis < 0 ? axis + rank : axis;
      std::vector<int64_t> shape(static_cast<size_t>(rank), 1);
      shape[static_cast<size_t>(a)] = depth;
      const Tensor classes = arange(depth, TensorOptions(kLong)).to(idx.device()).view(shape);
      const Tensor values = x[2].reshape({-1});
      return where(idx.unsqueeze(a).eq(classes), values[1], values[0]);
    }));
  if (op == "NonZero")
    return done(
        function_node(n, op, {input(n, 0)}, [](In x) { return x[0].nonzero().t().contiguous(); }));
  if (op == "Compress")  // the slices along `axis` (else of the flattened input) where true
    return done(function_node(
        n, op, inputs(), [axis = attr(n, "axis") ? attr_int(n, "axis", 0) : INT64_MIN](In x) {
          const Tensor keep = x[1].to(kBool).reshape({-1}).nonzero().reshape({-1});
          if (axis == INT64_MIN) return x[0].reshape({-1}).index_select(0, keep);
          return x[0].index_select(axis < 0 ? axis + x[0].dim() : axis, keep);
        }));
  if (op == "TopK") {  // K an input from opset 10; the smaller index first among equals
    const int64_t k_attr = attr_int(n, "k", -1);
    Value v = g_.custom(
        op,
        [axis = attr_int(n, "axis", -1), largest = attr_int(n, "largest", 1) != 0,
         sorted = attr_int(n, "sorted", 1) != 0, k_attr](In x) {
          const int64_t k = x.size() > 1 ? long_values(x[1]).at(0) : k_attr;
          auto [values, indices] = x[0].topk(k, axis, largest, sorted);
          return std::vector<Tensor>{values, indices};
        },
        inputs(), n.output(0));
    return done(v.output(0), {v.output(1)});
  }
  if (op == "Unique") {
    const auto* a = attr(n, "axis");
    Value v = g_.custom(
        op,
        [axis = a ? a->i() : INT64_MIN, sorted = attr_int(n, "sorted", 1) != 0](In x) {
          const Tensor data = axis == INT64_MIN ? x[0].reshape({-1}) : x[0];
          const int64_t d = axis == INT64_MIN ? 0 : axis < 0 ? axis + data.dim() : axis;
          const Tensor rows = data.movedim(d, 0).reshape({data.size(d), -1});
          const UniqueRows u = unique_rows(rows, sorted);
          auto longs = [&](const std::vector<int64_t>& v) {
            return tensor(v, TensorOptions(kLong)).to(data.device());
          };
          const Tensor first = longs(u.first);
          return std::vector<Tensor>{data.index_select(d, first), first, longs(u.inverse),
                                     longs(u.counts)};
        },
        {input(n, 0)}, n.output(0));
    return done(v.output(0), {v.output(1), v.output(2), v.output(3)});
  }
  if (op == "ReverseSequence")  // the first sequence_lens[b] steps of each batch reversed
    return done(function_node(
        n, op, inputs(),
        [time = attr_int(n, "time_axis", 0), batch = attr_int(n, "batch_axis", 1)](In x) {
          const auto lens = long_values(x[1]);
          const int64_t steps = x[0].size(time), batches = x[0].size(batch);
          std::vector<int64_t> at(static_cast<size_t>(steps * batches));
          for (int64_t t = 0; t < steps; ++t)
            for (int64_t b = 0; b < batches; ++b) {
              const int64_t len = lens.at(static_cast<size_t>(b));
              at[static_cast<size_t>(t * batches + b)] = t < len ? len - 1 - t : t;
            }
          std::vector<int64_t> shape(static_cast<size_t>(x[0].dim()), 1);
          shape[static_cast<size_t>(time)] = steps;
          shape[static_cast<size_t>(batch)] = batches;
          Tensor idx = tensor(at, TensorOptions(kLong)).view({steps, batches});
          if (time > batch) idx = idx.t();
          idx = idx.contiguous().view(shape).expand(x[0].sizes()).to(x[0].device());
          return x[0].gather(time, idx);
        }));
  if (op == "EyeLike") {  // ones on the k-th diagonal, in `dtype` (else the input's)
    const auto shape = shape_of(n, 0);
    if (shape.size() != 2) fail(n, "the input must have 2 dims");
    bool known = true;
    const auto* dt = attr(n, "dtype");
    const ScalarType dtype =
        dt ? dtype_of(static_cast<int32_t>(dt->i()), known) : example(n, 0).scalar_type();
    if (!known) fail(n, "dtype " + std::to_string(dt->i()));
    const Tensor rows = arange(shape[0], TensorOptions(kLong)).view({-1, 1});
    const Tensor cols = arange(shape[1], TensorOptions(kLong)).view({1, -1});
    constants_[n.output(0)] = (cols - rows).eq(attr_int(n, "k", 0)).to(dtype);
    return true;
  }
  if (op == "DepthToSpace" || op == "SpaceToDepth") {
    const auto s = shape_of(n, 0);
    const int64_t b = attr_int(n, "blocksize", 0);
    if (s.size() != 4 || b <= 0) fail(n, "it needs a 4-d input and a positive blocksize");
    const int64_t N = s[0], C = s[1], H = s[2], W = s[3];
    std::vector<int64_t> split, perm, out;
    if (op == "SpaceToDepth") {
      split = {N, C, H / b, b, W / b, b};
      perm = {0, 3, 5, 1, 2, 4};
      out = {N, C * b * b, H / b, W / b};
    } else if (const auto* m = attr(n, "mode"); m && m->s() == "CRD") {
      split = {N, C / (b * b), b, b, H, W};
      perm = {0, 1, 4, 2, 5, 3};
      out = {N, C / (b * b), H * b, W * b};
    } else {  // DCR
      split = {N, b, b, C / (b * b), H, W};
      perm = {0, 3, 4, 1, 5, 2};
      out = {N, C / (b * b), H * b, W * b};
    }
    Value v = call(n, "reshape", {input(n, 0)}, {{"shape", split}}, false);
    v = call(n, "permute", {v}, {{"dims", perm}}, false);
    return done(call(n, "reshape", {v}, {{"shape", out}}));
  }
  return false;
}

}  // namespace nabla::graph::onnx_import

#endif
