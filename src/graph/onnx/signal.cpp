// Signal operators of opset 17: HannWindow, HammingWindow, BlackmanWindow, DFT, STFT,
// MelWeightMatrix.
// Complex values are ONNX's: a last dim of 2 (real, imaginary); a real input may have a
// last dim of 1. The transforms are products with cosine and sine matrices (O(n^2) per
// signal, eager ops: gradients reach the signal and the window).
#include "graph/onnx/importer.h"

#include <array>
#include <cmath>
#include <numbers>

#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"

#if NABLA_HAVE_ONNX

namespace nabla::graph::onnx_import {

namespace {

using In = const std::vector<Tensor>&;

// cos and sin of 2 pi k n / length for n < rows, k < cols, in `like`'s dtype and device.
std::pair<Tensor, Tensor> dft_matrices(int64_t rows, int64_t cols, int64_t length,
                                       const Tensor& like) {
  const Tensor n = arange(rows, TensorOptions(kDouble)).view({-1, 1});
  const Tensor k = arange(cols, TensorOptions(kDouble)).view({1, -1});
  const Tensor angle = n * k * (2 * std::numbers::pi / static_cast<double>(length));
  auto place = [&](const Tensor& t) { return t.to(like.scalar_type()).to(like.device()); };
  return {place(angle.cos()), place(angle.sin())};
}

// A DFT along the last dim of re/im (im may be undefined: a real signal) of `length`
// points (the signal cut or padded with zeros), `bins` of them kept.
std::pair<Tensor, Tensor> dft_last(Tensor re, Tensor im, int64_t length, int64_t bins,
                                   bool inverse) {
  const int64_t n = re.size(-1);
  if (n > length) {
    re = re.narrow(-1, 0, length);
    if (im.defined()) im = im.narrow(-1, 0, length);
  }
  const int64_t rows = std::min(n, length);  // the zeros past the signal add nothing
  const auto [c, s] = dft_matrices(rows, bins, length, re);
  Tensor out_re = re.matmul(c), out_im = re.matmul(s) * (inverse ? 1.0 : -1.0);
  if (im.defined()) {
    out_re = out_re + im.matmul(s) * (inverse ? -1.0 : 1.0);
    out_im = out_im + im.matmul(c);
  }
  if (inverse) {
    out_re = out_re / static_cast<double>(length);
    out_im = out_im / static_cast<double>(length);
  }
  return {out_re, out_im};
}

// The real and imaginary parts of an ONNX complex-or-real tensor [..., 1 | 2].
std::pair<Tensor, Tensor> parts(const Tensor& x) {
  const int64_t last = x.dim() - 1;
  NABLA_CHECK(x.size(last) == 1 || x.size(last) == 2,
              "the signal's last dim must be 1 (real) or 2 (complex), got ", x.size(last));
  return {x.select(last, 0), x.size(last) == 2 ? x.select(last, 1) : Tensor()};
}

// Triangular filters at mel-spaced frequencies, as columns of a [dft_length / 2 + 1, bins]
// matrix: x = num_mel_bins, dft_length, sample_rate, lower and upper edge (hertz).
Tensor mel_weights(const std::vector<Tensor>& x, ScalarType dtype) {
  auto number = [&](size_t i) { return first_double(x[i], "MelWeightMatrix"); };
  const auto bins = static_cast<int64_t>(number(0)), length = static_cast<int64_t>(number(1));
  const double rate = number(2);
  NABLA_CHECK(bins > 0 && length > 0 && rate > 0, "MelWeightMatrix: ", bins, " bins, length ",
              length, ", sample rate ", rate);
  auto mel = [](double hz) { return 2595 * std::log10(1 + hz / 700); };
  const double low = mel(number(3)), step = (mel(number(4)) - low) / static_cast<double>(bins + 2);
  std::vector<int64_t> at(static_cast<size_t>(bins + 2));  // each filter's spectrogram bins
  for (int64_t k = 0; k < bins + 2; ++k) {
    const double hz = 700 * (std::pow(10.0, (static_cast<double>(k) * step + low) / 2595) - 1);
    at[static_cast<size_t>(k)] =
        static_cast<int64_t>(std::floor(static_cast<double>(length + 1) * hz / rate));
  }
  const int64_t rows = length / 2 + 1;
  std::vector<double> w(static_cast<size_t>(rows * bins), 0.0);
  auto set = [&](int64_t j, int64_t i, double v) {
    NABLA_CHECK(j >= 0 && j < rows, "MelWeightMatrix: a filter reaches bin ", j, " of ", rows);
    w[static_cast<size_t>(j * bins + i)] = v;
  };
  for (int64_t i = 0; i < bins; ++i) {
    const int64_t left = at[static_cast<size_t>(i)], center = at[static_cast<size_t>(i + 1)],
                  right = at[static_cast<size_t>(i + 2)];
    if (center == left) set(center, i, 1);
    for (int64_t j = left; center > left && j <= center; ++j)
      set(j, i, static_cast<double>(j - left) / static_cast<double>(center - left));
    for (int64_t j = center; j < right; ++j)
      set(j, i, static_cast<double>(right - j) / static_cast<double>(right - center));
  }
  return tensor(w, TensorOptions(kDouble)).view({rows, bins}).to(dtype);
}

}  // namespace

bool Importer::map_signal(const Node& n) {
  const std::string& op = n.op_type();
  auto done = [&](auto f) {
    define(n, function_node(n, op, present_inputs(n), f));
    return true;
  };
  if (op == "HannWindow" || op == "HammingWindow" || op == "BlackmanWindow") {
    bool known = false;
    const ScalarType dtype =
        dtype_of(static_cast<int32_t>(attr_int(n, "output_datatype", 1)), known);
    if (!known) fail(n, "output_datatype " + std::to_string(attr_int(n, "output_datatype", 1)));
    // a0 - a1 cos(2 pi i / N) + a2 cos(4 pi i / N); N = size (periodic) or size - 1
    const double a0 = op == "HannWindow" ? 0.5 : op == "HammingWindow" ? 25.0 / 46 : 0.42;
    const double a2 = op == "BlackmanWindow" ? 0.08 : 0.0;
    const double a1 = op == "BlackmanWindow" ? 0.5 : 1 - a0;
    return done([a0, a1, a2, dtype, periodic = attr_int(n, "periodic", 1) != 0](In x) {
      const int64_t size = first_long(x[0], "the window's size");
      const double period = static_cast<double>(periodic ? size : size - 1);
      const Tensor i = arange(size, TensorOptions(kDouble)) * (2 * std::numbers::pi / period);
      return ((i.cos() * -a1 + a0) + (i * 2).cos() * a2).to(dtype);
    });
  }
  if (op == "MelWeightMatrix") {
    bool known = false;
    const ScalarType dtype =
        dtype_of(static_cast<int32_t>(attr_int(n, "output_datatype", 1)), known);
    if (!known) fail(n, "output_datatype " + std::to_string(attr_int(n, "output_datatype", 1)));
    return done([dtype](In x) { return mel_weights(x, dtype); });
  }
  if (op == "DFT") {  // along `axis` (default 1), of dft_length points (an optional input)
    const bool dft_length = has_input(n, 1);
    return done([axis = attr_int(n, "axis", 1), inverse = attr_int(n, "inverse", 0) != 0,
                 onesided = attr_int(n, "onesided", 0) != 0, dft_length](In x) {
      auto [re, im] = parts(x[0]);
      const int64_t a = axis < 0 ? axis + re.dim() : axis;
      re = re.movedim(a, -1);
      if (im.defined()) im = im.movedim(a, -1);
      const int64_t length = dft_length ? first_long(x[1], "DFT's dft_length") : re.size(-1);
      auto [out_re, out_im] = dft_last(re, im, length, onesided ? length / 2 + 1 : length, inverse);
      return nabla::stack({out_re.movedim(-1, a), out_im.movedim(-1, a)}, -1);
    });
  }
  if (op == "STFT") {         // signal [batch, length, 1 | 2], frame_step, window, frame_length
    std::array<int, 4> at{};  // where each input is in `in` (-1: absent)
    for (int i = 0, k = 0; i < 4; ++i) at[static_cast<size_t>(i)] = has_input(n, i) ? k++ : -1;
    return done([at, onesided = attr_int(n, "onesided", 1) != 0](In x) {
      auto [re, im] = parts(x[0]);
      const int64_t step = first_long(x[static_cast<size_t>(at[1])], "STFT's frame_step");
      const Tensor window = at[2] >= 0 ? x[static_cast<size_t>(at[2])] : Tensor();
      const int64_t frame = at[3] >= 0
                                ? first_long(x[static_cast<size_t>(at[3])], "STFT's frame_length")
                                : window.size(0);
      const int64_t frames = (re.size(1) - frame) / step + 1;
      auto framed = [&](const Tensor& t) {  // [batch, frames, frame], windowed
        if (!t.defined()) return t;
        std::vector<Tensor> f;
        for (int64_t k = 0; k < frames; ++k) f.push_back(t.narrow(1, k * step, frame));
        const Tensor s = stack(f, 1);
        return window.defined() ? s * window.to(s.scalar_type()) : s;
      };
      auto [out_re, out_im] =
          dft_last(framed(re), framed(im), frame, onesided ? frame / 2 + 1 : frame, false);
      return nabla::stack({out_re, out_im}, -1);
    });
  }
  return false;
}

}  // namespace nabla::graph::onnx_import

#endif
