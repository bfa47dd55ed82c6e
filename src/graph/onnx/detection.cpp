// NonMaxSuppression: greedy selection per batch and class, computed on the host (its output
// is indices, which have no gradient). RoiAlign: bilinear samples of each region, their
// positions and weights computed on the host, the features gathered by eager ops (so the
// gradient reaches X).
#include "graph/onnx/importer.h"

#include <array>
#include <cmath>
#include <numeric>

#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"

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
    return t.defined() && t.numel() > 0 ? first_double(t, "NonMaxSuppression") : fallback;
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

struct RoiSettings {
  bool half_pixel = true, max = false;
  int64_t height = 1, width = 1, sampling = 0;
  double scale = 1.0;
};

// Each region's bins sampled as ONNX's RoiAlign: X [N, C, H, W], rois [R, 4] (x1, y1, x2,
// y2), batch_indices [R] -> [R, C, height, width].
Tensor align_regions(const RoiSettings& s, const Tensor& x, const Tensor& rois_in,
                     const Tensor& batch_in) {
  NABLA_CHECK(x.dim() == 4, "RoiAlign: X must be [N, C, H, W], got ", x.sizes());
  const Tensor rois = host_doubles(rois_in), batch = batch_in.to(kCPU).to(kLong).contiguous();
  NABLA_CHECK(rois.dim() == 2 && rois.size(1) == 4 && batch.numel() == rois.size(0),
              "RoiAlign: rois [R, 4] and batch_indices [R] wanted, got ", rois.sizes(), " and ",
              batch.sizes());
  const int64_t C = x.size(1), H = x.size(2), W = x.size(3);
  const double offset = s.half_pixel ? 0.5 : 0.0;
  std::vector<Tensor> out;
  for (int64_t r = 0; r < rois.size(0); ++r) {
    const double* box = rois.data_ptr<double>() + r * 4;
    const int64_t b = batch.data_ptr<int64_t>()[r];
    NABLA_CHECK(b >= 0 && b < x.size(0), "RoiAlign: batch index ", b, " of ", x.size(0));
    const double x0 = box[0] * s.scale - offset, y0 = box[1] * s.scale - offset;
    double rw = box[2] * s.scale - offset - x0, rh = box[3] * s.scale - offset - y0;
    if (!s.half_pixel) rw = std::max(rw, 1.0), rh = std::max(rh, 1.0);
    const double bh = rh / static_cast<double>(s.height), bw = rw / static_cast<double>(s.width);
    const int64_t gh = s.sampling > 0 ? s.sampling : static_cast<int64_t>(std::ceil(bh));
    const int64_t gw = s.sampling > 0 ? s.sampling : static_cast<int64_t>(std::ceil(bw));
    const int64_t samples = std::max<int64_t>(gh * gw, 1), bins = s.height * s.width;
    std::array<std::vector<int64_t>, 4> pos;
    std::array<std::vector<double>, 4> weight;
    for (int64_t ph = 0; ph < s.height; ++ph)
      for (int64_t pw = 0; pw < s.width; ++pw)
        for (int64_t iy = 0; iy < gh; ++iy)
          for (int64_t ix = 0; ix < gw; ++ix) {
            double yy = y0 + static_cast<double>(ph) * bh +
                        (static_cast<double>(iy) + 0.5) * bh / static_cast<double>(gh);
            double xx = x0 + static_cast<double>(pw) * bw +
                        (static_cast<double>(ix) + 0.5) * bw / static_cast<double>(gw);
            std::array<int64_t, 4> p{0, 0, 0, 0};
            std::array<double, 4> w{0, 0, 0, 0};
            if (yy >= -1.0 && yy <= static_cast<double>(H) && xx >= -1.0 &&
                xx <= static_cast<double>(W)) {
              yy = std::max(yy, 0.0);
              xx = std::max(xx, 0.0);
              int64_t ylo = static_cast<int64_t>(yy), xlo = static_cast<int64_t>(xx), yhi = ylo + 1,
                      xhi = xlo + 1;
              if (ylo >= H - 1) yhi = ylo = H - 1, yy = static_cast<double>(ylo);
              if (xlo >= W - 1) xhi = xlo = W - 1, xx = static_cast<double>(xlo);
              const double ly = yy - static_cast<double>(ylo), lx = xx - static_cast<double>(xlo);
              p = {ylo * W + xlo, ylo * W + xhi, yhi * W + xlo, yhi * W + xhi};
              w = {(1 - ly) * (1 - lx), (1 - ly) * lx, ly * (1 - lx), ly * lx};
            }
            for (size_t k = 0; k < 4; ++k) {
              pos[k].push_back(p[k]);
              weight[k].push_back(w[k]);
            }
          }
    const Tensor plane = x[b].reshape({C, H * W});
    Tensor acc;
    for (size_t k = 0; k < 4; ++k) {
      const Tensor idx = tensor(pos[k], TensorOptions(kLong)).to(x.device());
      const Tensor w = tensor(weight[k], TensorOptions(kDouble)).to(x.scalar_type()).to(x.device());
      const Tensor term = plane.index_select(1, idx) * w;
      acc = !acc.defined() ? term : s.max ? maximum(acc, term) : acc + term;
    }
    const Tensor per_bin = acc.view({C, bins, gh * gw});
    const Tensor v =
        s.max ? std::get<0>(per_bin.max(2)) : per_bin.sum(2) / static_cast<double>(samples);
    out.push_back(v.view({C, s.height, s.width}));
  }
  if (out.empty()) return zeros({0, C, s.height, s.width}, x.options());
  return stack(out, 0);
}

}  // namespace

void Importer::roi_align(const Node& n) {
  RoiSettings s;
  const auto* t = attr(n, "coordinate_transformation_mode");
  s.half_pixel = t ? t->s() == "half_pixel" : opset_ >= 16;  // before 16: output_half_pixel
  const auto* m = attr(n, "mode");
  s.max = m && m->s() == "max";
  s.height = attr_int(n, "output_height", 1);
  s.width = attr_int(n, "output_width", 1);
  s.sampling = attr_int(n, "sampling_ratio", 0);
  s.scale = attr_float(n, "spatial_scale", 1.0);
  if (s.height < 1 || s.width < 1 || s.sampling < 0)
    fail(n, "output size or sampling ratio out of range");
  define(n, function_node(
                n, n.op_type(), {input(n, 0), input(n, 1), input(n, 2)},
                [s](const std::vector<Tensor>& x) { return align_regions(s, x[0], x[1], x[2]); }));
}

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
