// Einsum: the equation's operands contracted pairwise, left to right, each pair as one
// batched matrix product (labels shared and still needed are the batch, labels shared and
// not needed are summed by the product, the others are rows and columns); labels used by
// one operand only and not needed later are summed first, a repeated label within one
// operand takes its diagonal. Eager ops, so gradients reach every operand.
#include "graph/onnx/importer.h"

#include <map>

#include "nabla/ops/functions.h"

#if NABLA_HAVE_ONNX

namespace nabla::graph::onnx_import {

namespace {

using Labels = std::vector<int>;  // letters as themselves, the ellipsis's dims as 1000 + k

struct Operand {
  Tensor t;
  Labels labels;
};

bool has(const Labels& l, int x) { return std::find(l.begin(), l.end(), x) != l.end(); }

int64_t position(const Labels& l, int x) { return std::find(l.begin(), l.end(), x) - l.begin(); }

// The labels of one term; "..." stands for `dims` broadcast dims of the `ellipsis` in all.
Labels parse_term(const std::string& term, int64_t rank, int64_t ellipsis) {
  Labels l;
  const size_t dots = term.find("...");
  const int64_t letters = static_cast<int64_t>(term.size()) - (dots == std::string::npos ? 0 : 3);
  for (size_t i = 0; i < term.size(); ++i) {
    if (i == dots) {
      const int64_t dims = rank < 0 ? ellipsis : rank - letters;
      NABLA_CHECK(dims >= 0, "Einsum: the term '", term, "' has more labels than dims");
      for (int64_t k = ellipsis - dims; k < ellipsis; ++k) l.push_back(1000 + static_cast<int>(k));
      i += 2;
      continue;
    }
    const char c = term[i];
    NABLA_CHECK(std::isalpha(static_cast<unsigned char>(c)), "Einsum: '", c, "' in '", term,
                "' is not a label");
    l.push_back(c);
  }
  NABLA_CHECK(rank < 0 || static_cast<int64_t>(l.size()) == rank, "Einsum: the term '", term,
              "' names ", l.size(), " dims of an operand with ", rank);
  return l;
}

// Repeated labels of one operand: their diagonal.
Operand take_diagonals(Operand o) {
  for (size_t i = 0; i < o.labels.size(); ++i)
    for (size_t j = i + 1; j < o.labels.size(); ++j)
      if (o.labels[i] == o.labels[j]) {
        o.t = o.t.diagonal(0, static_cast<int64_t>(i), static_cast<int64_t>(j));  // to the end
        const int label = o.labels[i];
        o.labels.erase(o.labels.begin() + static_cast<int64_t>(j));
        o.labels.erase(o.labels.begin() + static_cast<int64_t>(i));
        o.labels.push_back(label);
        return take_diagonals(std::move(o));
      }
  return o;
}

// Sums the labels of o that `keep` does not list.
Operand sum_unused(Operand o, const Labels& keep) {
  std::vector<int64_t> dims;
  Labels left;
  for (size_t i = 0; i < o.labels.size(); ++i) {
    if (has(keep, o.labels[i]))
      left.push_back(o.labels[i]);
    else
      dims.push_back(static_cast<int64_t>(i));
  }
  if (!dims.empty()) o.t = o.t.sum(dims);
  o.labels = left;
  return o;
}

Operand contract(Operand a, Operand b, const Labels& keep) {
  Labels both_or_keep = keep;
  both_or_keep.insert(both_or_keep.end(), b.labels.begin(), b.labels.end());
  a = sum_unused(std::move(a), both_or_keep);
  Labels a_or_keep = keep;
  a_or_keep.insert(a_or_keep.end(), a.labels.begin(), a.labels.end());
  b = sum_unused(std::move(b), a_or_keep);
  Labels batch, rows, inner, cols;
  for (int l : a.labels) (has(b.labels, l) ? (has(keep, l) ? batch : inner) : rows).push_back(l);
  for (int l : b.labels)
    if (!has(a.labels, l)) cols.push_back(l);
  auto size = [&](int l) {  // a batch label may broadcast (size 1 in one operand)
    const int64_t sa = has(a.labels, l) ? a.t.size(position(a.labels, l)) : 1;
    const int64_t sb = has(b.labels, l) ? b.t.size(position(b.labels, l)) : 1;
    return std::max(sa, sb);
  };
  auto arrange = [&](const Operand& o, const std::vector<Labels>& groups) {
    std::vector<int64_t> perm, shape, merged;
    for (const Labels& g : groups) {
      int64_t n = 1;
      for (int l : g) {
        perm.push_back(position(o.labels, l));
        shape.push_back(size(l));
        n *= size(l);
      }
      merged.push_back(n);
    }
    return o.t.permute(perm).expand(shape).reshape(merged);
  };
  const Tensor product = arrange(a, {batch, rows, inner}).bmm(arrange(b, {batch, inner, cols}));
  Operand out;
  out.labels = batch;
  out.labels.insert(out.labels.end(), rows.begin(), rows.end());
  out.labels.insert(out.labels.end(), cols.begin(), cols.end());
  std::vector<int64_t> shape;
  for (int l : out.labels) shape.push_back(size(l));
  out.t = product.reshape(shape);
  return out;
}

}  // namespace

Tensor einsum(std::string equation, const std::vector<Tensor>& xs) {
  equation.erase(std::remove(equation.begin(), equation.end(), ' '), equation.end());
  const size_t arrow = equation.find("->");
  const std::string lhs = equation.substr(0, arrow);
  std::vector<std::string> terms;
  for (size_t start = 0;;) {
    const size_t comma = lhs.find(',', start);
    terms.push_back(lhs.substr(start, comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  NABLA_CHECK(terms.size() == xs.size(), "Einsum: '", equation, "' has ", terms.size(),
              " terms for ", xs.size(), " inputs");
  int64_t ellipsis = 0;  // the most dims any "..." stands for
  for (size_t i = 0; i < terms.size(); ++i)
    if (terms[i].find("...") != std::string::npos)
      ellipsis = std::max(ellipsis, xs[i].dim() - static_cast<int64_t>(terms[i].size() - 3));
  std::vector<Operand> ops;
  std::map<int, int> count;
  for (size_t i = 0; i < terms.size(); ++i) {
    ops.push_back(take_diagonals({xs[i], parse_term(terms[i], xs[i].dim(), ellipsis)}));
    for (int l : parse_term(terms[i], xs[i].dim(), ellipsis)) ++count[l];
  }
  Labels out;
  if (arrow != std::string::npos) {
    out = parse_term(equation.substr(arrow + 2), -1, ellipsis);
  } else {  // implicit: the ellipsis's dims, then the labels used once, in alphabetical order
    for (const auto& [l, c] : count)
      if (l >= 1000) out.push_back(l);
    for (const auto& [l, c] : count)
      if (l < 1000 && c == 1) out.push_back(l);
  }
  Operand acc = ops[0];
  for (size_t i = 1; i < ops.size(); ++i) {
    Labels keep = out;  // needed by the output or a later operand
    for (size_t j = i + 1; j < ops.size(); ++j)
      keep.insert(keep.end(), ops[j].labels.begin(), ops[j].labels.end());
    acc = contract(std::move(acc), ops[i], keep);
  }
  acc = sum_unused(std::move(acc), out);
  std::vector<int64_t> perm;
  for (int l : out) {
    NABLA_CHECK(has(acc.labels, l), "Einsum: the output label '", static_cast<char>(l),
                "' is not an input's");
    perm.push_back(position(acc.labels, l));
  }
  return acc.t.permute(perm);
}

}  // namespace nabla::graph::onnx_import

#endif
