// NonMaxSuppression: greedy selection per batch and class, computed on the host (its output
// is indices, which have no gradient).
#include "graph/onnx/importer.h"

#include <array>
#include <numeric>

#include "nabla/ops/factories.h"

#if NABLA_HAVE_ONNX

namespace nabla::graph::onnx_import {

namespace {

struct Box {
  double y1, x1, y2, x2;
};

// Corners (any two opposite ones, ONNX's center_point_box=0) or centre and size (1).
Box box_at(const double* b, bool center) {
  if (center) return {b[1] - b[3] / 2, b[0] - b[2] / 2, b[1] + b[3] / 2, b[0] + b[2] / 2};
  return {std::min(b[0], b[2]), std::min(b[1], b[3]), std::max(b[0], b[2]), std::max(b[1], b[3])};
}

double iou(const Box& a, const Box& b) {
  const double h = std::min(a.y2, b.y2) - std::max(a.y1, b.y1);
  const double w = std::min(a.x2, b.x2) - std::max(a.x1, b.x1);
  if (h <= 0 || w <= 0) return 0;
  const double inter = h * w;
  const double uni = (a.y2 - a.y1) * (a.x2 - a.x1) + (b.y2 - b.y1) * (b.x2 - b.x1) - inter;
  return uni <= 0 ? 0 : inter / uni;
}

Tensor host_doubles(const Tensor& t) { return t.to(kCPU).to(kDouble).contiguous(); }

// selected_indices [k, 3]: (batch, class, box) of each kept box, by batch, class, score.
Tensor non_max_suppression(const std::vector<Tensor>& x, const std::array<int, 5>& at,
                           bool center) {
  auto get = [&](size_t k) { return at[k] < 0 ? Tensor() : x[static_cast<size_t>(at[k])]; };
  const Tensor boxes = host_doubles(get(0)), scores = host_doubles(get(1));
  NABLA_CHECK(boxes.dim() == 3 && boxes.size(2) == 4 && scores.dim() == 3 &&
                  scores.size(0) == boxes.size(0) && scores.size(2) == boxes.size(1),
              "NonMaxSuppression: boxes [batches, boxes, 4] and scores [batches, classes, boxes] "
              "wanted, got ",
              boxes.sizes(), " and ", scores.sizes());
  auto number = [&](size_t k, double fallback) {
    const Tensor t = get(k);
    return t.defined() && t.numel() > 0 ? host_doubles(t).reshape({-1})[0].item<double>()
                                        : fallback;
  };
  const auto max_out = static_cast<int64_t>(number(2, 0));
  const double iou_threshold = number(3, 0);
  const bool has_score_threshold = get(4).defined() && get(4).numel() > 0;
  const double score_threshold = number(4, 0);
  const int64_t batches = boxes.size(0), classes = scores.size(1), count = boxes.size(1);
  const double* bp = boxes.data_ptr<double>();
  const double* sp = scores.data_ptr<double>();
  std::vector<int64_t> out;
  for (int64_t b = 0; b < batches; ++b)
    for (int64_t c = 0; c < classes; ++c) {
      const double* s = sp + (b * classes + c) * count;
      std::vector<int64_t> order;
      for (int64_t i = 0; i < count; ++i)
        if (!has_score_threshold || s[i] > score_threshold) order.push_back(i);
      std::stable_sort(order.begin(), order.end(),
                       [&](int64_t i, int64_t j) { return s[i] > s[j]; });
      std::vector<Box> kept;
      for (int64_t i : order) {
        if (static_cast<int64_t>(kept.size()) >= max_out) break;
        const Box box = box_at(bp + (b * count + i) * 4, center);
        if (std::any_of(kept.begin(), kept.end(),
                        [&](const Box& k) { return iou(k, box) > iou_threshold; }))
          continue;
        kept.push_back(box);
        out.insert(out.end(), {b, c, i});
      }
    }
  const auto rows = static_cast<int64_t>(out.size() / 3);
  return tensor(out, TensorOptions(kLong)).view({rows, 3}).to(get(0).device());
}

}  // namespace

void Importer::non_max_suppression(const Node& n) {
  std::array<int, 5> at{};
  std::vector<Value> in;
  for (int k = 0; k < 5; ++k) {
    at[static_cast<size_t>(k)] = has_input(n, k) ? static_cast<int>(in.size()) : -1;
    if (has_input(n, k)) in.push_back(input(n, k));
  }
  define(n, function_node(n, n.op_type(), std::move(in),
                          [at, center = attr_int(n, "center_point_box", 0) !=
                                        0](const std::vector<Tensor>& x) {
                            return onnx_import::non_max_suppression(x, at, center);
                          }));
}

}  // namespace nabla::graph::onnx_import

#endif
