// TfIdfVectorizer over integer tokens: counts of the n-grams of a pool (sizes min_gram_length
// to max_gram_length, the items of an n-gram max_skip_count apart at most; unigrams counted
// once), weighted as TF, IDF or TFIDF. Counted on the host: its output has no gradient.
#include <map>

#include "graph/onnx/importer.h"
#include "nabla/ops/factories.h"

#if NABLA_HAVE_ONNX

namespace nabla::graph::onnx_import {

namespace {

struct NgramPool {
  int64_t min_n = 1, max_n = 1, max_skip = 0, out_size = 0;
  std::string mode;
  std::map<std::vector<int64_t>, int64_t> slot;  // an n-gram -> its output position
  std::vector<float> weights;
};

Tensor vectorize(const NgramPool& p, const Tensor& x) {
  NABLA_CHECK(x.dim() <= 2, "TfIdfVectorizer: the input must be [C] or [B, C], got ", x.sizes());
  const Tensor rows = x.to(kCPU).to(kLong).reshape({x.dim() == 2 ? x.size(0) : 1, -1}).contiguous();
  const int64_t batch = rows.size(0), width = rows.size(1);
  std::vector<float> counts(static_cast<size_t>(batch * p.out_size), 0.0f);
  const int64_t* data = rows.data_ptr<int64_t>();
  for (int64_t b = 0; b < batch; ++b) {
    const int64_t* row = data + b * width;
    float* out = counts.data() + b * p.out_size;
    for (int64_t skip = 0; skip <= p.max_skip; ++skip) {
      const int64_t step = skip + 1;
      // unigrams do not depend on the skip: counted at the first distance only
      const int64_t shortest = skip > 0 ? std::max<int64_t>(p.min_n, 2) : p.min_n;
      for (int64_t start = 0; start < width; ++start) {
        std::vector<int64_t> gram;
        for (int64_t k = 0; k < p.max_n && start + k * step < width; ++k) {
          gram.push_back(row[start + k * step]);
          if (static_cast<int64_t>(gram.size()) < shortest) continue;
          if (auto it = p.slot.find(gram); it != p.slot.end()) out[it->second] += 1;
        }
      }
    }
    for (int64_t i = 0; i < p.out_size; ++i) {
      float& c = out[i];
      const float w = p.weights.empty() ? 1.0f : p.weights[static_cast<size_t>(i)];
      if (p.mode == "IDF") c = c > 0 ? w : 0;
      if (p.mode == "TFIDF") c *= w;
    }
  }
  Tensor y = tensor(counts, TensorOptions(kFloat)).to(x.device());
  return x.dim() == 2 ? y.view({batch, p.out_size}) : y.view({p.out_size});
}

}  // namespace

void Importer::tfidf(const Node& n) {
  NgramPool p;
  p.min_n = attr_int(n, "min_gram_length", 1);
  p.max_n = attr_int(n, "max_gram_length", 1);
  p.max_skip = attr_int(n, "max_skip_count", 0);
  const auto* mode = attr(n, "mode");
  p.mode = mode ? mode->s() : "";
  if (p.mode != "TF" && p.mode != "IDF" && p.mode != "TFIDF") fail(n, "mode '" + p.mode + "'");
  if (p.min_n < 1 || p.max_n < p.min_n || p.max_skip < 0)
    fail(n, "gram lengths or skip count out of range");
  if (attr(n, "pool_strings")) fail(n, "a pool of strings (nabla has no string tensors)");
  const auto pool = attr_ints(n, "pool_int64s", {});
  const auto counts = attr_ints(n, "ngram_counts", {});
  const auto indexes = attr_ints(n, "ngram_indexes", {});
  if (const auto* w = attr(n, "weights")) p.weights.assign(w->floats().begin(), w->floats().end());
  for (int64_t i : indexes) {
    if (i < 0) fail(n, "a negative ngram index");
    p.out_size = std::max(p.out_size, i + 1);
  }
  if (!p.weights.empty() && static_cast<int64_t>(p.weights.size()) < p.out_size)
    fail(n, "fewer weights than outputs");
  // ngram_counts[k]: where the (k + 1)-grams start in the pool; ids number every n-gram
  size_t id = 0;
  for (size_t k = 0; k < counts.size(); ++k) {
    const auto gram = static_cast<int64_t>(k + 1);
    const int64_t begin = counts[k];
    const int64_t end = k + 1 < counts.size() ? counts[k + 1] : static_cast<int64_t>(pool.size());
    if (begin < 0 || end < begin || end > static_cast<int64_t>(pool.size()) || (end - begin) % gram)
      fail(n, "ngram_counts does not cut pool_int64s into n-grams");
    for (int64_t at = begin; at < end; at += gram, ++id) {
      if (id >= indexes.size()) fail(n, "fewer ngram_indexes than n-grams in the pool");
      if (gram < p.min_n || gram > p.max_n) continue;
      p.slot[std::vector<int64_t>(pool.begin() + at, pool.begin() + at + gram)] = indexes[id];
    }
  }
  define(n, function_node(
                n, n.op_type(), {input(n, 0)},
                [p = std::move(p)](const std::vector<Tensor>& x) { return vectorize(p, x[0]); }));
}

}  // namespace nabla::graph::onnx_import

#endif
