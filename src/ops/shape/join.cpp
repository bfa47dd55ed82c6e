// Shape ops over a list of tensors: cat/stack (and the h/v forms) copy the inputs into one
// output; broadcast_tensors and meshgrid return expanded views. g is the output's gradient.
#include <algorithm>

#include "nabla/autograd/record.h"
#include "nabla/ops/detail/op_impls.h"
#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"
#include "ops/op_utils.h"

namespace nabla {

using ops::empty_tensor;
using ops::wrap_dim;

namespace {

using Dtypes = SmallVector<ScalarType, 6>;

Dtypes dtypes_of(TensorList ts) {
  Dtypes d;
  for (const Tensor& t : ts) d.push_back(t.scalar_type());
  return d;
}

// cat skips 1-d tensors of size 0 whatever `dim` is: LibTorch keeps accepting
// torch::empty({0}) as "nothing" next to tensors of any rank.
bool is_legacy_empty(const Tensor& t) { return t.dim() == 1 && t.size(0) == 0; }

// ---- Backward nodes -----------------------------------------------------------------------

// Input i gets its slice of g along dim, in its own dtype (cat promotes).
struct CatState {
  int64_t dim = 0;
  DimVector sizes;  // each input's size at dim; -1 for a 1-d empty input cat skipped
  Dtypes dtypes;
};
variable_list cat_backward(OpNode<CatState>& n, const variable_list& g) {
  const CatState& s = n.state;
  variable_list out(s.sizes.size());
  int64_t offset = 0;
  for (size_t i = 0; i < s.sizes.size(); ++i) {
    const int64_t size = s.sizes[i];
    if (size < 0) {
      if (n.needs_input_grad(i)) out[i] = zeros({0}, g[0].options().dtype(s.dtypes[i]));
      continue;
    }
    if (n.needs_input_grad(i)) out[i] = g[0].narrow(s.dim, offset, size).to(s.dtypes[i]);
    offset += size;
  }
  return out;
}
constexpr NodeType<CatState> kCatBackward{"CatBackward0", cat_backward};

struct StackState {
  int64_t dim = 0;
  Dtypes dtypes;
};
variable_list stack_backward(OpNode<StackState>& n, const variable_list& g) {
  variable_list out(n.state.dtypes.size());
  for (size_t i = 0; i < out.size(); ++i)
    if (n.needs_input_grad(i))
      out[i] = g[0].select(n.state.dim, static_cast<int64_t>(i)).to(n.state.dtypes[i]);
  return out;
}
constexpr NodeType<StackState> kStackBackward{"StackBackward0", stack_backward};

Tensor atleast_nd(const Tensor& t, int64_t n) {
  if (t.dim() >= n) return t;
  if (t.dim() == 0) return n == 1 ? t.reshape({1}) : t.reshape({1, 1});
  return t.unsqueeze(0);  // 1-d to 2-d: [n] -> [1, n]
}
// hstack and vstack's parts: each tensor with at least n dims; raises for an empty list or
// an undefined tensor, naming `op`.
std::vector<Tensor> atleast_nd_each(TensorList tensors, int64_t n, const char* op) {
  NABLA_CHECK(!tensors.empty(), op, " expects a non-empty TensorList");
  std::vector<Tensor> parts;
  parts.reserve(tensors.size());
  for (const Tensor& t : tensors) {
    ops::check_defined(t, op);
    parts.push_back(atleast_nd(t, n));
  }
  return parts;
}

}  // namespace

// ---- Forwards -----------------------------------------------------------------------------

Tensor ops::cat_impl(TensorList tensors, int64_t dim) {
  NABLA_CHECK(!tensors.empty(), "cat(): expected a non-empty list of Tensors");
  ScalarType dtype = kBool;
  size_t valid = tensors.size();
  for (size_t i = 0; i < tensors.size(); ++i) {
    NABLA_CHECK(tensors[i].defined(), "cat(): expected a defined tensor at position ", i);
    ops::check_same_device(tensors[0], tensors[i], "cat()");
    dtype = i == 0 ? tensors[i].scalar_type() : promoteTypes(dtype, tensors[i].scalar_type());
    if (valid == tensors.size() && !is_legacy_empty(tensors[i])) valid = i;
  }
  auto record_cat = [&](const Tensor& out, int64_t d) {
    auto node = autograd::record_node(kCatBackward, tensors);
    if (!node) return;
    node->state.dim = d;
    for (const Tensor& t : tensors)
      node->state.sizes.push_back(is_legacy_empty(t) ? -1 : t.size(d));
    node->state.dtypes = dtypes_of(tensors);
    autograd::set_history(out, node);
  };
  if (valid == tensors.size()) {
    Tensor out = empty_tensor({0}, dtype, tensors[0].device());
    record_cat(out, 0);
    return out;
  }
  const Tensor& ref = tensors[valid];
  NABLA_CHECK(ref.dim() > 0, "cat(): zero-dimensional tensor (at position ", valid,
              ") cannot be concatenated");
  int64_t d = wrap_dim(dim, ref.dim(), "cat()");
  int64_t total = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (is_legacy_empty(t)) continue;
    NABLA_CHECK(t.dim() > 0, "cat(): zero-dimensional tensor (at position ", i,
                ") cannot be concatenated");
    NABLA_CHECK(t.dim() == ref.dim(), "cat(): Tensors must have same number of dimensions: got ",
                ref.dim(), " and ", t.dim(), " (sizes ", ref.sizes(), " and ", t.sizes(), ")");
    for (int64_t k = 0; k < t.dim(); ++k)
      NABLA_CHECK(k == d || t.size(k) == ref.size(k),
                  "cat(): Sizes of tensors must match except in dimension ", d, ". Expected size ",
                  ref.size(k), " but got size ", t.size(k), " for tensor number ", i,
                  " in the list.");
    total += t.size(d);
  }
  DimVector shape(ref.sizes().begin(), ref.sizes().end());
  shape[d] = total;
  Tensor out = empty_tensor(shape, dtype, ref.device());
  {
    NoGradGuard no_grad;  // the narrows of `out` are internal
    int64_t offset = 0;
    for (const Tensor& t : tensors) {
      if (is_legacy_empty(t)) continue;
      Tensor dst = out.narrow(d, offset, t.size(d));
      if (dst.numel() > 0) backend_for(dst).copy(dst, t);
      offset += t.size(d);
    }
  }
  record_cat(out, d);
  return out;
}

Tensor concat(TensorList tensors, int64_t dim) { return cat(tensors, dim); }

Tensor ops::stack_impl(TensorList tensors, int64_t dim) {
  NABLA_CHECK(!tensors.empty(), "stack expects a non-empty TensorList");
  for (size_t i = 0; i < tensors.size(); ++i)
    NABLA_CHECK(tensors[i].defined(), "stack: expected a defined tensor at entry ", i);
  int64_t d = wrap_dim(dim, tensors[0].dim() + 1, "stack");
  std::vector<Tensor> parts;
  for (size_t i = 0; i < tensors.size(); ++i) {
    NABLA_CHECK(tensors[i].sizes() == tensors[0].sizes(),
                "stack expects each tensor to be equal size, but got ", tensors[0].sizes(),
                " at entry 0 and ", tensors[i].sizes(), " at entry ", i);
  }
  Tensor out;
  {
    NoGradGuard no_grad;  // one StackBackward0, not cat over unsqueezes
    for (const Tensor& t : tensors) parts.push_back(t.unsqueeze(d));
    out = cat(parts, d);
  }
  if (auto node = autograd::record_node(kStackBackward, tensors)) {
    node->state = {d, dtypes_of(tensors)};
    autograd::set_history(out, node);
  }
  return out;
}

Tensor ops::hstack_impl(TensorList tensors) {
  std::vector<Tensor> parts = atleast_nd_each(tensors, 1, "hstack");
  return cat(parts, parts[0].dim() == 1 ? 0 : 1);
}

Tensor ops::vstack_impl(TensorList tensors) {
  return cat(atleast_nd_each(tensors, 2, "vstack"), 0);
}

std::vector<Tensor> ops::broadcast_tensors_impl(TensorList tensors) {
  DimVector shape;
  for (size_t i = 0; i < tensors.size(); ++i) {
    ops::check_defined(tensors[i], "broadcast_tensors");
    shape = i == 0 ? DimVector(tensors[i].sizes().begin(), tensors[i].sizes().end())
                   : ops::broadcast_shapes(shape, tensors[i].sizes(), "broadcast_tensors");
  }
  std::vector<Tensor> out;
  // As LibTorch, a tensor that already has the shape is returned itself.
  for (const Tensor& t : tensors)
    out.push_back(t.sizes() == IntArrayRef(shape) ? t : t.expand(shape));
  return out;
}

std::vector<Tensor> ops::meshgrid_impl(TensorList tensors, std::string_view indexing) {
  NABLA_CHECK(!tensors.empty(), "meshgrid expects a non-empty TensorList");
  NABLA_CHECK(indexing == "ij" || indexing == "xy",
              "meshgrid: indexing must be one of \"xy\" or \"ij\", but received: ", indexing);
  for (const Tensor& t : tensors) {
    ops::check_defined(t, "meshgrid");
    NABLA_CHECK(t.dim() <= 1,
                "meshgrid: Expected 0D or 1D tensor in the tensor list but got a tensor of sizes ",
                t.sizes());
    NABLA_CHECK(t.scalar_type() == tensors[0].scalar_type(),
                "meshgrid expects all tensors to have the same dtype, got ",
                tensors[0].scalar_type(), " and ", t.scalar_type());
    ops::check_same_device(tensors[0], t, "meshgrid");
  }
  // "xy" is "ij" over the inputs with the first two swapped, outputs swapped back.
  const bool swap = indexing == "xy" && tensors.size() >= 2;
  std::vector<Tensor> in(tensors.begin(), tensors.end());
  if (swap) std::swap(in[0], in[1]);
  const size_t n = in.size();
  DimVector shape(n);
  for (size_t i = 0; i < n; ++i) shape[i] = in[i].numel();
  std::vector<Tensor> out;
  for (size_t i = 0; i < n; ++i) {
    DimVector v(n, 1);
    v[i] = shape[i];
    out.push_back(in[i].reshape(v).expand(shape));
  }
  if (swap) std::swap(out[0], out[1]);
  return out;
}

}  // namespace nabla
