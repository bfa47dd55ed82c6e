// SVG line charts.
#include "nabla/utils/plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

#include "nabla/core/detail/atomic_file.h"
#include "nabla/core/error.h"

namespace nabla::utils {

namespace {

const char* kColours[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b"};

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '&')
      out += "&amp;";
    else if (c == '"')
      out += "&quot;";
    else
      out += c;
  }
  return out;
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

struct Range {
  double lo = std::numeric_limits<double>::infinity(),
         hi = -std::numeric_limits<double>::infinity();
  void add(double v) {
    if (!std::isfinite(v)) return;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  void finish() {
    if (!(lo <= hi)) lo = 0, hi = 1;
    if (hi - lo < 1e-12) lo -= 0.5, hi += 0.5;
  }
};

}  // namespace

std::string render_svg(const std::vector<Series>& series, const PlotOptions& o) {
  const double w = o.width(), h = o.height();
  const double left = 70, right = 70, top = 40, bottom = 50;
  Range xr, yl, yr;
  bool any_right = false;
  for (const auto& s : series) {
    NABLA_CHECK(s.x.empty() || s.x.size() == s.y.size(), "plot_svg: series '", s.name, "' has ",
                s.x.size(), " x values and ", s.y.size(), " y values");
    for (size_t i = 0; i < s.y.size(); ++i) {
      xr.add(s.x.empty() ? static_cast<double>(i + 1) : s.x[i]);
      (s.right_axis ? yr : yl).add(s.y[i]);
    }
    any_right |= s.right_axis;
  }
  xr.finish();
  yl.finish();
  yr.finish();
  auto px = [&](double x) { return left + (x - xr.lo) / (xr.hi - xr.lo) * (w - left - right); };
  auto py = [&](double y, const Range& r) {
    return h - bottom - (y - r.lo) / (r.hi - r.lo) * (h - top - bottom);
  };
  std::ostringstream svg;
  svg << R"(<svg xmlns="http://www.w3.org/2000/svg" width=")" << w << R"(" height=")" << h
      << R"(" font-family="sans-serif" font-size="12">)"
      << "\n";
  svg << R"(<rect width="100%" height="100%" fill="white"/>)"
      << "\n";
  if (!o.title().empty())
    svg << R"(<text x=")" << w / 2 << R"(" y="22" text-anchor="middle" font-size="15">)"
        << escape(o.title()) << "</text>\n";
  // Axes with five ticks each.
  svg << R"(<g stroke="#444">)"
      << "<line x1=\"" << left << "\" y1=\"" << h - bottom << "\" x2=\"" << w - right << "\" y2=\""
      << h - bottom << "\"/>"
      << "<line x1=\"" << left << "\" y1=\"" << top << "\" x2=\"" << left << "\" y2=\""
      << h - bottom << "\"/>";
  if (any_right)
    svg << "<line x1=\"" << w - right << "\" y1=\"" << top << "\" x2=\"" << w - right << "\" y2=\""
        << h - bottom << "\"/>";
  svg << "</g>\n";
  for (int t = 0; t <= 4; ++t) {
    const double fx = xr.lo + (xr.hi - xr.lo) * t / 4, fy = yl.lo + (yl.hi - yl.lo) * t / 4;
    svg << "<text x=\"" << px(fx) << "\" y=\"" << h - bottom + 16 << "\" text-anchor=\"middle\">"
        << num(fx) << "</text>";
    svg << "<text x=\"" << left - 6 << "\" y=\"" << py(fy, yl) + 4 << "\" text-anchor=\"end\">"
        << num(fy) << "</text>";
    svg << "<line x1=\"" << left << "\" y1=\"" << py(fy, yl) << "\" x2=\"" << w - right
        << "\" y2=\"" << py(fy, yl) << "\" stroke=\"#ddd\"/>";
    if (any_right) {
      const double fr = yr.lo + (yr.hi - yr.lo) * t / 4;
      svg << "<text x=\"" << w - right + 6 << "\" y=\"" << py(fr, yr) + 4 << "\">" << num(fr)
          << "</text>";
    }
    svg << "\n";
  }
  if (!o.x_label().empty())
    svg << "<text x=\"" << (left + w - right) / 2 << "\" y=\"" << h - 12
        << "\" text-anchor=\"middle\">" << escape(o.x_label()) << "</text>\n";
  if (!o.y_label().empty())
    svg << "<text transform=\"translate(16," << (top + h - bottom) / 2
        << ") rotate(-90)\" text-anchor=\"middle\">" << escape(o.y_label()) << "</text>\n";
  if (any_right && !o.right_label().empty())
    svg << "<text transform=\"translate(" << w - 14 << "," << (top + h - bottom) / 2
        << ") rotate(90)\" text-anchor=\"middle\">" << escape(o.right_label()) << "</text>\n";
  for (size_t k = 0; k < series.size(); ++k) {
    const auto& s = series[k];
    const char* colour = kColours[k % (sizeof kColours / sizeof *kColours)];
    const Range& r = s.right_axis ? yr : yl;
    svg << "<polyline fill=\"none\" stroke=\"" << colour << "\" stroke-width=\"2\" points=\"";
    for (size_t i = 0; i < s.y.size(); ++i) {
      if (!std::isfinite(s.y[i])) continue;
      svg << px(s.x.empty() ? static_cast<double>(i + 1) : s.x[i]) << "," << py(s.y[i], r) << " ";
    }
    svg << "\"/>\n";
    const double ly = top + 14 + 16 * static_cast<double>(k);
    svg << "<line x1=\"" << left + 10 << "\" y1=\"" << ly - 4 << "\" x2=\"" << left + 30
        << "\" y2=\"" << ly - 4 << "\" stroke=\"" << colour << "\" stroke-width=\"2\"/><text x=\""
        << left + 36 << "\" y=\"" << ly << "\">" << escape(s.name)
        << (s.right_axis ? " (right axis)" : "") << "</text>\n";
  }
  svg << "</svg>\n";
  return svg.str();
}

void plot_svg(const std::string& path, const std::vector<Series>& series,
              const PlotOptions& options) {
  nabla::detail::write_file_atomically(path, render_svg(series, options), "plot_svg");
}

}  // namespace nabla::utils
