#pragma once
// SVG line charts of training curves, written atomically:
//   utils::plot_svg("curves.svg", {{"train loss", losses}, {"test accuracy", accs}},
//                   utils::PlotOptions().title("Fashion-MNIST").x_label("epoch"));
// Each series gets its own colour and a legend entry; x defaults to 1, 2, 3, ...
// Series whose ranges differ widely can go on a second y axis (right side).
#include <string>
#include <vector>

#include "nabla/nn/options/arg.h"

namespace nabla::utils {

struct Series {
  Series(std::string name, std::vector<double> y, bool right_axis = false)
      : name(std::move(name)), y(std::move(y)), right_axis(right_axis) {}
  Series(std::string name, std::vector<double> x, std::vector<double> y, bool right_axis = false)
      : name(std::move(name)), x(std::move(x)), y(std::move(y)), right_axis(right_axis) {}
  std::string name;
  std::vector<double> x, y;
  bool right_axis = false;
};

struct PlotOptions {
  NABLA_ARG(std::string, title) = "";
  NABLA_ARG(std::string, x_label) = "";
  NABLA_ARG(std::string, y_label) = "";
  NABLA_ARG(std::string, right_label) = "";
  NABLA_ARG(int, width) = 720;
  NABLA_ARG(int, height) = 420;
};

/// The SVG document as a string.
std::string render_svg(const std::vector<Series>& series, const PlotOptions& options = {});
/// Writes it to `path` (temporary file + rename).
void plot_svg(const std::string& path, const std::vector<Series>& series,
              const PlotOptions& options = {});

}  // namespace nabla::utils
