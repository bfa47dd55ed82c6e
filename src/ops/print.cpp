// Tensor printing: operator<< and Tensor::toString() (docs/printing.md).
//
// Format rules (docs/printing.md has examples):
// - Undefined tensor: `[ Tensor (undefined) ]`, nothing else.
// - Body, by dimension:
//   0-d   `(1.5)`
//   1-d   `[1, 2, 3]`                  elements joined by ", ", no padding
//   2-d   `[[1, 2, 3],\n [4, 5, 6]]`   every element right-aligned to the widest element
//   >=3-d 2-d slices in memory order (last leading index fastest). Each slice starts with a
//         header line `(i,j,.,.) = ` (0-based, one index per leading dim, trailing space),
//         then its rows: cells of width max(6, widest element), right-aligned, joined by
//         two spaces. An empty line follows the last slice.
//   empty (numel 0, any dim) `[]`
// - Trailer on the next line: ` Tensor(shape=[2, 3], dtype=float32, device=cpu)` (leading
//   space, shape=[] for 0-d). No newline after it; Tensor::print() adds std::endl.
// - Elements: bool as true/false; integer dtypes as integers. Floating tensors choose ONE
//   mode for all their shown finite values, so columns align:
//     all integral and max|x| < 1e8            -> integer form `12`, `-3`, `-0`
//     max|x| >= 1e8 or min nonzero |x| < 1e-4  -> scientific `1.2346e+08` (4 decimals)
//     otherwise                                -> fixed `1.5000` (4 decimals)
//   nan/inf print as `nan`, `inf`, `-inf`. A 0-d tensor has no column to align, so its
//   fixed form drops trailing zeros (`(1.5)`, not `(1.5000)`).
// - Summarization (as PyTorch): when numel > 1000, every dim longer than 6 shows only its
//   first 3 and last 3 indices; the gap prints as `...`:
//     1-d     `[0, 1, 2, ..., 997, 998, 999]`
//     2-d     a `...` column inside each row and a ` ...,` line between row groups
//     >=3-d   inside slices like 2-d but cell-aligned; skipped slices of a leading dim
//             become one `...` line per gap.
//   The float mode and the widths are computed from the shown elements only.
#include <cmath>
#include <cstdio>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "nabla/core/tensor.h"

namespace nabla {
namespace {

constexpr int64_t kSummarizeThreshold = 1000;
constexpr int64_t kEdgeItems = 3;
constexpr int64_t kGap = -1;  // marks the elided middle of a summarized dim
constexpr size_t kMinSliceCell = 6;

// The indices of one dim that are printed, with kGap where the middle is skipped.
std::vector<int64_t> shown_indices(int64_t size, bool summarize) {
  std::vector<int64_t> idx;
  if (summarize && size > 2 * kEdgeItems) {
    for (int64_t i = 0; i < kEdgeItems; ++i) idx.push_back(i);
    idx.push_back(kGap);
    for (int64_t i = size - kEdgeItems; i < size; ++i) idx.push_back(i);
  } else {
    for (int64_t i = 0; i < size; ++i) idx.push_back(i);
  }
  return idx;
}

std::string printf_double(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

enum class FloatMode { Integral, Fixed, Scientific };

// Turns one element of a contiguous tensor into text; for floats the mode is fixed at
// construction from the values that will be shown.
class ElementFormatter {
 public:
  ElementFormatter(const Tensor& c, const std::vector<int64_t>& offsets, bool trim_zeros)
      : dtype_(c.scalar_type()), data_(c.data_ptr()), trim_zeros_(trim_zeros) {
    if (isFloatingType(dtype_)) mode_ = choose_mode(offsets);
  }

  std::string operator()(int64_t off) const {
    switch (dtype_) {
      case kBool:
        return static_cast<const bool*>(data_)[off] ? "true" : "false";
      case kByte:
        return std::to_string(unsigned{static_cast<const uint8_t*>(data_)[off]});
      case kChar:
        return std::to_string(int{static_cast<const int8_t*>(data_)[off]});
      case kShort:
        return std::to_string(int{static_cast<const int16_t*>(data_)[off]});
      case kInt:
        return std::to_string(static_cast<const int32_t*>(data_)[off]);
      case kLong:
        return std::to_string(static_cast<const int64_t*>(data_)[off]);
      case kFloat:
      case kDouble:
        return format_float(read_float(off));
      default:
        break;  // 16-bit floats are printed through float32 (render)
    }
    return "?";
  }

 private:
  double read_float(int64_t off) const {
    return dtype_ == kFloat ? static_cast<const float*>(data_)[off]
                            : static_cast<const double*>(data_)[off];
  }

  FloatMode choose_mode(const std::vector<int64_t>& offsets) const {
    bool integral = true;
    double max_abs = 0, min_nonzero = INFINITY;
    for (int64_t off : offsets) {
      double v = read_float(off);
      if (!std::isfinite(v)) continue;
      double a = std::fabs(v);
      integral = integral && v == std::nearbyint(v);
      max_abs = std::max(max_abs, a);
      if (a != 0) min_nonzero = std::min(min_nonzero, a);
    }
    if (integral && max_abs < 1e8) return FloatMode::Integral;
    if (max_abs >= 1e8 || min_nonzero < 1e-4) return FloatMode::Scientific;
    return FloatMode::Fixed;
  }

  std::string format_float(double v) const {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    switch (mode_) {
      case FloatMode::Integral:
        return printf_double("%.0f", v);
      case FloatMode::Scientific:
        return printf_double("%.4e", v);
      case FloatMode::Fixed:
        break;
    }
    std::string s = printf_double("%.4f", v);
    if (trim_zeros_) {
      // Keep at least one digit after the point: "1.5000" -> "1.5".
      while (s.size() >= 2 && s.back() == '0' && s[s.size() - 2] != '.') s.pop_back();
    }
    return s;
  }

  ScalarType dtype_;
  const void* data_;
  bool trim_zeros_;
  FloatMode mode_ = FloatMode::Integral;
};

void pad_left(std::string& out, const std::string& s, size_t width) {
  if (s.size() < width) out.append(width - s.size(), ' ');
  out += s;
}

// Renders the body of a defined, non-empty tensor of at least one dim.
class BodyPrinter {
 public:
  explicit BodyPrinter(const Tensor& t)
      : c_(t.contiguous()),
        strides_(c_.strides().vec()),
        shown_(make_shown(c_)),
        format_(c_, shown_offsets(), false) {
    for (int64_t off : shown_offsets()) width_ = std::max(width_, format_(off).size());
  }

  void render(std::string& out) const {
    int64_t nd = c_.dim();
    if (nd == 1) {
      out += '[';
      append_row(out, 0, 0, ", ", 0);
      out += ']';
    } else if (nd == 2) {
      render_matrix(out);
    } else {
      std::vector<int64_t> lead;
      render_slices(out, 0, 0, lead);
    }
  }

 private:
  static std::vector<std::vector<int64_t>> make_shown(const Tensor& c) {
    bool summarize = c.numel() > kSummarizeThreshold;
    std::vector<std::vector<int64_t>> shown;
    for (int64_t s : c.sizes()) shown.push_back(shown_indices(s, summarize));
    return shown;
  }

  // Offsets of every shown element, visited like an odometer over the shown indices.
  std::vector<int64_t> shown_offsets() const {
    std::vector<int64_t> offsets;
    collect(0, 0, offsets);
    return offsets;
  }
  void collect(size_t d, int64_t base, std::vector<int64_t>& offsets) const {
    if (d == shown_.size()) {
      offsets.push_back(base);
      return;
    }
    for (int64_t i : shown_[d])
      if (i != kGap) collect(d + 1, base + i * strides_[d], offsets);
  }

  // One row along the last dim starting at `base`; cells padded to `width`.
  void append_row(std::string& out, int64_t base, size_t width, const char* sep,
                  size_t gap_width) const {
    const auto& cols = shown_.back();
    int64_t step = strides_.back();
    for (size_t k = 0; k < cols.size(); ++k) {
      if (k) out += sep;
      if (cols[k] == kGap)
        pad_left(out, "...", gap_width);
      else
        pad_left(out, format_(base + cols[k] * step), width);
    }
  }

  void render_matrix(std::string& out) const {
    out += '[';
    bool first = true;
    for (int64_t i : shown_[0]) {
      if (!first) out += ",\n ";
      first = false;
      if (i == kGap) {
        out += "...";
        continue;
      }
      out += '[';
      append_row(out, i * strides_[0], width_, ", ", 0);
      out += ']';
    }
    out += ']';
  }

  // Recurses over the leading dims; `lead` holds the indices chosen so far.
  void render_slices(std::string& out, size_t d, int64_t base, std::vector<int64_t>& lead) const {
    size_t nd = shown_.size();
    if (d + 2 == nd) {
      render_slice(out, base, lead);
      return;
    }
    for (int64_t i : shown_[d]) {
      if (i == kGap) {
        out += "...\n";
        continue;
      }
      lead.push_back(i);
      render_slices(out, d + 1, base + i * strides_[d], lead);
      lead.pop_back();
    }
  }

  void render_slice(std::string& out, int64_t base, const std::vector<int64_t>& lead) const {
    out += '(';
    for (int64_t i : lead) out += std::to_string(i) + ',';
    out += ".,.) = \n";
    size_t cell = std::max(kMinSliceCell, width_);
    int64_t row_stride = strides_[strides_.size() - 2];
    for (int64_t r : shown_[shown_.size() - 2]) {
      if (r == kGap)
        pad_left(out, "...", cell);
      else
        append_row(out, base + r * row_stride, cell, "  ", cell);
      out += '\n';
    }
  }

  Tensor c_;
  std::vector<int64_t> strides_;
  std::vector<std::vector<int64_t>> shown_;
  ElementFormatter format_;
  size_t width_ = 0;
};

void append_trailer(std::string& out, const Tensor& t) {
  out += " Tensor(shape=[";
  auto sizes = t.sizes();
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(sizes[i]);
  }
  out += "], dtype=";
  out += dtype_name(t.scalar_type());
  out += ", device=" + t.device().str() + ")";
}

std::string render(const Tensor& t) {
  if (!t.defined()) return "[ Tensor (undefined) ]";
  // 16-bit floats print their values as float32, and a GPU tensor its host copy (the
  // trailer keeps their dtype and device).
  if (isReducedFloatingType(t.scalar_type()) || !t.is_cpu()) {
    const ScalarType printed = isReducedFloatingType(t.scalar_type()) ? kFloat : t.scalar_type();
    std::string body = render(t.detach().to(Device(kCPU), printed));
    std::string trailer;
    append_trailer(trailer, t);
    return body.substr(0, body.rfind(" Tensor(")) + trailer;
  }
  std::string out;
  if (t.numel() == 0) {
    out += "[]\n";
  } else if (t.dim() == 0) {
    ElementFormatter format(t, {0}, /*trim_zeros=*/true);
    out += '(' + format(0) + ")\n";
  } else {
    // Slices end their last row with a newline, so this makes the empty line for >=3-d.
    BodyPrinter(t).render(out);
    out += '\n';
  }
  append_trailer(out, t);
  return out;
}

}  // namespace

std::string Tensor::toString() const { return render(*this); }

std::ostream& operator<<(std::ostream& os, const std::vector<Tensor>& tensors) {
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (i == 100) return os << " ...";
    if (i > 0) os << ' ';
    os << tensors[i];
  }
  return os;
}

std::ostream& operator<<(std::ostream& os, const Tensor& t) {
  // write() rather than <<, so a width left on the stream does not pad the whole text.
  std::string s = render(t);
  return os.write(s.data(), static_cast<std::streamsize>(s.size()));
}

}  // namespace nabla
