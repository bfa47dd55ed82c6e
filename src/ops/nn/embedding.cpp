// embedding as one index_select, with its own node so that padding_idx and
// scale_grad_by_freq shape the weight gradient (written with differentiable ops:
// index_put with accumulation is linear in the gradient); embedding_renorm_; one_hot.
#include <algorithm>
#include <tuple>
#include <vector>

#include "nabla/autograd/record.h"
#include "nabla/ops/embedding.h"
#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"
#include "nabla/ops/trace.h"
#include "ops/nn/nn_registry.h"
#include "ops/op_utils.h"

namespace nabla {

namespace {

struct EmbeddingState {
  SavedVariable indices;  // flat int64
  int64_t num_weights = 0, embedding_dim = 0, padding_idx = -1;
  bool scale_grad_by_freq = false;
  auto saved() { return std::tie(indices); }
};

// grad_weight [V, D] = the rows of grad [*, D] summed into their indices' rows (scaled by
// 1 / count with scale_grad_by_freq; none into padding_idx's row).
variable_list embedding_backward(OpNode<EmbeddingState>& n, const variable_list& g) {
  const EmbeddingState& s = n.state;
  Tensor idx = n.get(s.indices);
  Tensor g2 = g[0].reshape({idx.numel(), s.embedding_dim});
  if (s.scale_grad_by_freq) {
    Tensor counts = zeros({s.num_weights}, g2.options())
                        .index_put({idx}, ones({idx.numel()}, g2.options()), true);
    g2 = g2 / counts.index_select(0, idx).unsqueeze(1);
  }
  if (s.padding_idx >= 0) g2 = g2 * (idx != s.padding_idx).to(g2.scalar_type()).unsqueeze(1);
  return {zeros({s.num_weights, s.embedding_dim}, g2.options()).index_put({idx}, g2, true)};
}
constexpr NodeType<EmbeddingState> kEmbedding{"EmbeddingBackward0", embedding_backward};

// Flat int64 copy of integer indices, checked against [0, bound).
Tensor checked_indices(const Tensor& indices, int64_t bound, const char* op) {
  ops::check_defined(indices, op);
  NABLA_CHECK(indices.scalar_type() == kLong || indices.scalar_type() == kInt, op,
              ": expected indices of scalar type Long or Int, got ", indices.scalar_type());
  Tensor idx = indices.reshape({-1}).to(kLong).contiguous();
  ops::check_index_range(idx, 0, bound,
                         {op, "index", str(bound, " rows (expected 0 <= index < ", bound, ")")});
  return idx;
}

}  // namespace

Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t padding_idx,
                 bool scale_grad_by_freq, bool sparse) {
  NABLA_TRACED("embedding", ops::call_inputs({weight, indices}), {"padding_idx", padding_idx},
               {"scale_grad_by_freq", scale_grad_by_freq}, {"sparse", sparse});
  const char* op = "embedding";
  ops::check_defined(weight, op);
  NABLA_CHECK(weight.dim() == 2, op,
              ": weight must be 2-D [num_embeddings, embedding_dim], got sizes ", weight.sizes());
  NABLA_CHECK(!sparse, op,
              ": sparse gradients are not supported (nabla has no sparse tensors); "
              "use sparse = false");
  const int64_t V = weight.size(0), D = weight.size(1);
  Tensor idx = checked_indices(indices, V, op);
  std::vector<int64_t> shape = indices.sizes().vec();
  shape.push_back(D);
  Tensor out;
  {
    NoGradGuard no_grad;
    out = weight.index_select(0, idx).view(shape);
  }
  if (auto node = autograd::record_node(kEmbedding, {&weight})) {
    node->state = {autograd::save(idx), V, D, padding_idx, scale_grad_by_freq};
    autograd::set_history(out, node);
  }
  return out;
}

const Tensor& embedding_renorm_(const Tensor& self, const Tensor& indices, double max_norm,
                                double norm_type) {
  const char* op = "embedding_renorm_";
  ops::check_defined(self, op);
  NABLA_CHECK(self.dim() == 2, op, ": weight must be 2-D, got sizes ", self.sizes());
  Tensor idx = checked_indices(indices, self.size(0), op);
  // Each named row once.
  const Tensor host = ops::host_values(idx);
  const int64_t* hp = ops::host_ptr<int64_t>(host);
  std::vector<int64_t> rows(hp, hp + host.numel());
  std::sort(rows.begin(), rows.end());
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  if (rows.empty()) return self;
  NoGradGuard no_grad;
  Tensor r = tensor(rows, TensorOptions(kLong).device(self.device()));
  Tensor sub = self.index_select(0, r);
  Tensor norms = sub.norm(norm_type, {1}, true);
  Tensor scale = where(norms > max_norm, max_norm / (norms + 1e-7), ones_like(norms));
  self.index_put_({optional<Tensor>(r)}, sub * scale);
  return self;
}

Tensor one_hot(const Tensor& self, int64_t num_classes) {
  NABLA_TRACED("one_hot", ops::call_inputs({self}), {"num_classes", num_classes});
  const char* op = "one_hot";
  ops::check_defined(self, op);
  NABLA_CHECK(self.scalar_type() == kLong, op,
              ": one_hot is only applicable to index tensors "
              "(int64), got ",
              self.scalar_type());
  if (self.numel() == 0) {
    NABLA_CHECK(num_classes > 0, op, ": can not infer total number of classes from empty tensor");
  } else {
    const int64_t lo = self.min().item<int64_t>(), hi = self.max().item<int64_t>();
    NABLA_CHECK(lo >= 0, op, ": class values must be non-negative, got ", lo);
    if (num_classes == -1) num_classes = hi + 1;
    NABLA_CHECK(hi < num_classes, op, ": class values must be smaller than num_classes (",
                num_classes, "), got ", hi);
  }
  std::vector<int64_t> shape = self.sizes().vec();
  shape.push_back(num_classes);
  Tensor out = zeros(shape, TensorOptions(kLong).device(self.device()));
  if (self.numel() == 0) return out;
  return out.scatter_(-1, self.unsqueeze(-1), 1);
}

// ---- Registry -------------------------------------------------------------------------------

void ops::registry::add_nn_embedding_ops(std::vector<OpSchema>& t) {
  t.push_back(
      op("embedding", 2, 2,
         {attr("padding_idx", AttrType::Int, int64_t(-1)),
          attr("scale_grad_by_freq", AttrType::Bool, false), attr("sparse", AttrType::Bool, false)},
         [](const Inputs& x, const AttrReader& a) -> Inputs {
           return {
               embedding(x[0], x[1], a.i("padding_idx"), a.b("scale_grad_by_freq"), a.b("sparse"))};
         }));
  t.push_back(op("one_hot", 1, 1, {attr("num_classes", AttrType::Int, int64_t(-1))},
                 [](const Inputs& x, const AttrReader& a) -> Inputs {
                   return {one_hot(x[0], a.i("num_classes"))};
                 }));
}

}  // namespace nabla
