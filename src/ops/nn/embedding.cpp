// embedding as one index_select, with its own node so that padding_idx and
// scale_grad_by_freq shape the weight gradient (written with differentiable ops:
// index_put with accumulation is linear in the gradient); embedding_bag, the same with
// the looked-up rows reduced per bag; embedding_renorm_; one_hot.
#include <algorithm>
#include <limits>
#include <tuple>
#include <vector>

#include "nabla/autograd/grad_sink.h"
#include "nabla/autograd/record.h"
#include "nabla/ops/detail/op_impls.h"
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
    Tensor counts = zeros({s.num_weights}, g2.options());
    counts.index_put_({optional<Tensor>(idx)}, ones({idx.numel()}, g2.options()), true);
    g2 = g2 / counts.index_select(0, idx).unsqueeze(1);
  }
  if (s.padding_idx >= 0) g2 = g2 * (idx != s.padding_idx).to(g2.scalar_type()).unsqueeze(1);
  // Into the weight's .grad when the engine allows (Note [Gradient sinks]), else in place
  // into fresh zeros: the out-of-place index_put would copy the whole [num_weights, dim]
  // matrix once more (154 MB for GPT-2's token embedding).
  const bool added = autograd::detail::add_to_leaf_grad(
      n.next_edge(0), /*through=*/false, [&](const Tensor& weight_grad) {
        if (weight_grad.sizes() != IntArrayRef{s.num_weights, s.embedding_dim} ||
            weight_grad.scalar_type() != g2.scalar_type())
          return false;
        weight_grad.index_put_({optional<Tensor>(idx)}, g2, true);
        return true;
      });
  if (added) return {Tensor()};
  Tensor grad = zeros({s.num_weights, s.embedding_dim}, g2.options());
  grad.index_put_({optional<Tensor>(idx)}, g2, true);
  return {grad};
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

Tensor ops::embedding_impl(const Tensor& weight, const Tensor& indices, int64_t padding_idx,
                           bool scale_grad_by_freq, bool sparse) {
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

// ---- embedding_bag ------------------------------------------------------------------------------

namespace {

enum EmbeddingBagMode : int64_t { kBagSum = 0, kBagMean = 1, kBagMax = 2 };

/// Which bag each index belongs to, and which indices count (not padding_idx).
struct Bags {
  int64_t count = 0;
  std::vector<int64_t> bag_of;     // [L]
  std::vector<int64_t> bag_size;   // [B]: the indices that count
  std::vector<bool> kept;          // [L]
  std::vector<int64_t> frequency;  // [V]: every index's count, for scale_grad_by_freq
};

Bags make_bags(const char* op, const Tensor& idx, const Tensor& offsets, bool include_last_offset,
               int64_t padding_idx, int64_t num_weights) {
  const Tensor host_idx = ops::host_values(idx);
  const int64_t* ip = ops::host_ptr<int64_t>(host_idx);
  const int64_t length = idx.numel();
  const Tensor host_off = ops::host_values(offsets.to(kLong).contiguous());
  const int64_t* op_ = ops::host_ptr<int64_t>(host_off);
  const int64_t n_off = offsets.numel();
  Bags b;
  b.count = include_last_offset ? std::max<int64_t>(n_off - 1, 0) : n_off;
  if (n_off > 0)
    NABLA_CHECK(op_[0] == 0, op,
                ": offsets[0] has to be 0, i.e., the first sequence in the "
                "mini-batch has to start from position 0. However, got ",
                op_[0]);
  for (int64_t i = 0; i < n_off; ++i) {
    NABLA_CHECK(op_[i] >= 0 && op_[i] <= length && (i == 0 || op_[i] >= op_[i - 1]), op,
                ": offsets must be non-decreasing and within [0, ", length,
                "] (the number of indices), got offsets[", i, "] = ", op_[i]);
  }
  b.bag_of.assign(static_cast<size_t>(length), 0);
  b.kept.assign(static_cast<size_t>(length), false);
  b.bag_size.assign(static_cast<size_t>(b.count), 0);
  b.frequency.assign(static_cast<size_t>(num_weights), 0);
  for (int64_t bag = 0; bag < b.count; ++bag) {
    const int64_t start = op_[bag], end = bag + 1 < n_off ? op_[bag + 1] : length;
    for (int64_t i = start; i < end; ++i) {
      const auto u = static_cast<size_t>(i);
      b.bag_of[u] = bag;
      b.kept[u] = ip[i] != padding_idx;
      if (b.kept[u]) ++b.bag_size[static_cast<size_t>(bag)];
    }
  }
  for (int64_t i = 0; i < length; ++i) ++b.frequency[static_cast<size_t>(ip[i])];
  return b;
}

// scale_grad_by_freq's factor per index, as LibTorch's CPU kernel computes it (its sum /
// mean backward, also in 2.x): with the indices sorted, the i-th distinct value's gradient
// is divided by the count of the value at sorted position i, which is its own count only
// while the values before it are distinct. LibTorch's CUDA kernel and plain embedding
// divide by the index's own count.
Tensor frequency_scale(const Tensor& idx, const Bags& bags, const Tensor& weight) {
  const Tensor host_idx = ops::host_values(idx);
  const int64_t* ip = ops::host_ptr<int64_t>(host_idx);
  std::vector<int64_t> sorted(ip, ip + idx.numel());
  std::sort(sorted.begin(), sorted.end());
  std::vector<int64_t> distinct = sorted;
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  std::vector<double> f(static_cast<size_t>(idx.numel()));
  for (int64_t i = 0; i < idx.numel(); ++i) {
    const auto rank = static_cast<size_t>(
        std::lower_bound(distinct.begin(), distinct.end(), ip[i]) - distinct.begin());
    f[static_cast<size_t>(i)] =
        1.0 / static_cast<double>(bags.frequency[static_cast<size_t>(sorted[rank])]);
  }
  return tensor(f, TensorOptions(kDouble).device(weight.device())).to(weight.scalar_type());
}

struct EmbeddingBagState {
  SavedVariable indices, bag_of, scale, max_indices;
  SavedVariable weight, per_sample_weights, kept;  // with per_sample_weights
  int64_t num_weights = 0, mode = kBagSum;
  auto saved() {
    return std::tie(indices, bag_of, scale, max_indices, weight, per_sample_weights, kept);
  }
};

// EmbeddingBagBackward0. Sum and mean: each index's row of the weight gradient gets its
// bag's gradient times its scale (per_sample_weight, 1 / bag size, 1 / frequency, 0 for
// padding); per_sample_weights gets the bag gradient . the row it weighted. Max: each
// (bag, feature) gradient goes to the row that held the maximum.
variable_list embedding_bag_backward(OpNode<EmbeddingBagState>& n, const variable_list& grads) {
  const EmbeddingBagState& s = n.state;
  const Tensor g = grads[0];  // [B, D]
  const int64_t dim = g.size(1);
  Tensor gw, gp;
  if (s.mode == kBagMax) {
    if (n.needs_input_grad(0)) {
      const Tensor at = n.get(s.max_indices);  // [B, D], -1 for empty bags
      const Tensor found = at >= 0;
      gw = zeros({s.num_weights, dim}, g.options())
               .scatter_add(0, at.clamp_min(0), g * found.to(g.scalar_type()));
    }
    return {gw, gp};
  }
  const Tensor idx = n.get(s.indices), bag_of = n.get(s.bag_of);
  Tensor scale = n.get(s.scale);
  if (s.per_sample_weights.defined()) scale = scale * n.get(s.per_sample_weights);
  const Tensor rows = g.index_select(0, bag_of);  // [L, D]
  if (n.needs_input_grad(0))
    gw = zeros({s.num_weights, dim}, g.options()).index_put({idx}, rows * scale.unsqueeze(1), true);
  if (n.needs_input_grad(1)) {
    const Tensor w = n.get(s.weight);
    gp = (rows * w.index_select(0, idx)).sum(1) * n.get(s.kept);
  }
  return {gw, gp};
}
constexpr NodeType<EmbeddingBagState> kEmbeddingBag{"EmbeddingBagBackward0",
                                                    embedding_bag_backward};

}  // namespace

std::tuple<Tensor, Tensor, Tensor, Tensor> embedding_bag(
    const Tensor& weight, const Tensor& indices, const Tensor& offsets, bool scale_grad_by_freq,
    int64_t mode, bool sparse, const optional<Tensor>& per_sample_weights, bool include_last_offset,
    optional<int64_t> padding_idx) {
  const char* op = "embedding_bag";
  ops::check_defined(weight, op);
  ops::check_defined(offsets, op);
  NABLA_CHECK(weight.dim() == 2, op,
              ": weight must be 2-D [num_embeddings, embedding_dim], got sizes ", weight.sizes());
  NABLA_CHECK(weight.is_floating_point(), op, ": weight must be floating, got ",
              weight.scalar_type());
  NABLA_CHECK(indices.defined() && indices.dim() == 1, op,
              ": input (indices) has to be a 1D Tensor, got ",
              indices.defined() ? indices.dim() : 0, " dims");
  NABLA_CHECK(offsets.dim() == 1, op, ": offsets has to be a 1D Tensor, got ", offsets.dim(),
              " dims");
  NABLA_CHECK(offsets.scalar_type() == kLong || offsets.scalar_type() == kInt, op,
              ": expected offsets of scalar type Long or Int, got ", offsets.scalar_type());
  NABLA_CHECK(mode >= kBagSum && mode <= kBagMax, op,
              ": mode has to be 0 (sum), 1 (mean) or 2 (max), got ", mode);
  NABLA_CHECK(!sparse, op,
              ": sparse gradients are not supported (nabla has no sparse tensors); "
              "use sparse = false");
  NABLA_CHECK(!include_last_offset || offsets.numel() >= 1, op,
              ": include_last_offset needs at least one offset");
  const Tensor psw = per_sample_weights.has_value() && per_sample_weights->defined()
                         ? *per_sample_weights
                         : Tensor();
  if (psw.defined()) {
    NABLA_CHECK(mode == kBagSum, op,
                ": per_sample_weights is only supported for mode='sum' (mode 0), got mode ", mode);
    NABLA_CHECK(psw.sizes() == indices.sizes(), op, ": per_sample_weights (", psw.sizes(),
                ") must have the same shape as the input (", indices.sizes(), ")");
    NABLA_CHECK(psw.scalar_type() == weight.scalar_type(), op, ": per_sample_weights (",
                psw.scalar_type(), ") and weight (", weight.scalar_type(),
                ") must have the same dtype");
  }
  const int64_t num_weights = weight.size(0), dim = weight.size(1);
  int64_t pad = -1;
  if (padding_idx.has_value()) {
    pad = *padding_idx;
    NABLA_CHECK(pad >= -num_weights && pad < num_weights, op, ": padding_idx (", pad,
                ") must be within num_embeddings (", num_weights, ")");
    if (pad < 0) pad += num_weights;
  }
  const Tensor idx = checked_indices(indices, num_weights, op);
  const Bags bags = make_bags(op, idx, offsets, include_last_offset, pad, num_weights);
  const TensorOptions long_options = TensorOptions(kLong).device(weight.device());
  const Tensor bag_of = tensor(bags.bag_of, long_options);
  const Tensor bag_size = tensor(bags.bag_size, long_options);
  const int64_t length = idx.numel();
  Tensor out, scale, max_indices, kept;
  {
    NoGradGuard no_grad;
    if (mode == kBagMax) {
      // Each bag's kept rows, padded with -inf to the longest bag: [B, longest, D].
      int64_t longest = 0;
      for (int64_t size : bags.bag_size) longest = std::max(longest, size);
      std::vector<int64_t> slots(static_cast<size_t>(bags.count * longest), -1),
          filled(static_cast<size_t>(bags.count), 0);
      const Tensor host_idx = ops::host_values(idx);
      const int64_t* ip = ops::host_ptr<int64_t>(host_idx);
      for (int64_t i = 0; i < length; ++i) {
        const auto u = static_cast<size_t>(i);
        if (!bags.kept[u]) continue;
        const auto bag = static_cast<size_t>(bags.bag_of[u]);
        slots[bag * static_cast<size_t>(longest) + static_cast<size_t>(filled[bag]++)] = ip[i];
      }
      const Tensor slot = tensor(slots, long_options).view({bags.count, longest});
      const Tensor empty_slot = (slot < 0).unsqueeze(2);
      Tensor rows = weight.index_select(0, slot.clamp_min(0).reshape({-1}))
                        .view({bags.count, longest, dim})
                        .masked_fill(empty_slot, -std::numeric_limits<double>::infinity());
      if (longest == 0) {
        out = zeros({bags.count, dim}, weight.options());
        max_indices = full({bags.count, dim}, -1, long_options);
      } else {
        auto [values, arg] = rows.max(1);
        const Tensor empty_bag = (bag_size == 0).unsqueeze(1);
        out = values.masked_fill(empty_bag, 0);
        max_indices = slot.gather(1, arg).masked_fill(empty_bag, -1);
      }
    } else {
      std::vector<double> w(static_cast<size_t>(length));
      for (int64_t i = 0; i < length; ++i) {
        const auto u = static_cast<size_t>(i);
        const int64_t size = bags.bag_size[static_cast<size_t>(bags.bag_of[u])];
        w[u] = bags.kept[u] ? (mode == kBagMean ? 1.0 / static_cast<double>(size) : 1.0) : 0.0;
      }
      scale = tensor(w, TensorOptions(kDouble).device(weight.device())).to(weight.scalar_type());
      if (psw.defined()) kept = scale;  // sum mode: 1 or 0
      out = zeros({bags.count, dim}, weight.options())
                .index_add(0, bag_of,
                           weight.index_select(0, idx) *
                               (psw.defined() ? scale * psw : scale).unsqueeze(1));
      // Only the gradient divides by the frequencies.
      if (scale_grad_by_freq) scale = scale * frequency_scale(idx, bags, weight);
      max_indices = zeros({bags.count}, long_options);
    }
  }
  if (auto node = autograd::record_node(kEmbeddingBag, {&weight, &psw})) {
    EmbeddingBagState& st = node->state;
    st.num_weights = num_weights;
    st.mode = mode;
    if (mode == kBagMax) {
      st.max_indices = autograd::save(max_indices);
    } else {
      st.indices = autograd::save(idx);
      st.bag_of = autograd::save(bag_of);
      st.scale = autograd::save(scale);
      if (psw.defined()) {
        st.weight = autograd::save(weight);
        st.per_sample_weights = autograd::save(psw);
        st.kept = autograd::save(kept);
      }
    }
    autograd::set_history(out, node);
  }
  return {out, bag_of, bag_size, max_indices};
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

Tensor ops::one_hot_impl(const Tensor& self, int64_t num_classes) {
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

}  // namespace nabla
