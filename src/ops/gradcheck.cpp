// Declared in nabla/autograd/gradcheck.h; defined here, in the ops layer, because it runs ops
// (docs/architecture.md, "Layers").
#include "nabla/autograd/gradcheck.h"

#include <cmath>
#include <vector>

#include "nabla/autograd/autograd.h"

namespace nabla::autograd {
namespace {

bool fail(const GradcheckOptions& o, const std::string& msg) {
  NABLA_CHECK(!o.raise_exception, msg);
  return false;
}

variable_list run(const TensorFn& fn, const variable_list& inputs) {
  variable_list outs = fn(inputs);
  for (const Tensor& t : outs)
    NABLA_CHECK(t.defined(), "gradcheck: the function returned an undefined tensor");
  return outs;
}

}  // namespace

bool gradcheck(const TensorFn& fn, const variable_list& inputs, GradcheckOptions o) {
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].defined() || !inputs[i].requires_grad()) continue;
    NABLA_CHECK(inputs[i].scalar_type() == kDouble, "gradcheck: input ", i,
                " requires grad but is ", inputs[i].scalar_type(),
                "; gradcheck needs float64 inputs for precision");
  }
  variable_list outputs = run(fn, inputs);
  // Analytical Jacobian rows: one backward per output element.
  for (size_t oi = 0; oi < outputs.size(); ++oi) {
    // The perturbations of the previous output's check bumped the inputs' version
    // counters, which the graphs saved at the start would refuse: take fresh outputs.
    if (oi > 0) outputs = run(fn, inputs);
    const Tensor& out = outputs[oi];
    if (!out.requires_grad() || !out.is_floating_point()) continue;
    int64_t n_out = out.numel();
    // analytic[i][k][j]: d out[k] / d input_i[j]
    std::vector<std::vector<std::vector<double>>> analytic(inputs.size());
    variable_list diff_inputs;
    std::vector<size_t> diff_index;
    for (size_t i = 0; i < inputs.size(); ++i)
      if (inputs[i].defined() && inputs[i].requires_grad()) {
        diff_inputs.push_back(inputs[i]);
        diff_index.push_back(i);
        analytic[i].assign(n_out, std::vector<double>(inputs[i].numel(), 0.0));
      }
    if (diff_inputs.empty()) continue;
    for (int64_t k = 0; k < n_out; ++k) {
      Tensor go = out.new_zeros(out.sizes());  // row-major, so element k is go.view(-1)[k]
      go.view({-1})[k].fill_(1.0);
      variable_list g =
          grad({out}, diff_inputs, {go}, /*retain_graph=*/true, false, /*allow_unused=*/true);
      for (size_t d = 0; d < g.size(); ++d) {
        if (!g[d].defined()) continue;
        Tensor gd = g[d].to(kDouble).contiguous();
        const double* p = gd.data_ptr<double>();
        auto& row = analytic[diff_index[d]][k];
        for (size_t j = 0; j < row.size(); ++j) row[j] = p[j];
      }
    }
    // Numerical Jacobian by central differences, perturbing each input element in place.
    for (size_t d = 0; d < diff_index.size(); ++d) {
      size_t i = diff_index[d];
      const Tensor base = inputs[i].detach();
      for (int64_t j = 0; j < base.numel(); ++j) {
        // Element j in row-major order, as a 0-d view (the input may have any strides).
        std::vector<int64_t> index(static_cast<size_t>(base.dim()));
        for (int64_t d = base.dim() - 1, rest = j; d >= 0; --d) {
          index[static_cast<size_t>(d)] = rest % base.size(d);
          rest /= base.size(d);
        }
        Tensor elem = base;
        for (int64_t idx : index) elem = elem.select(0, idx);
        double orig = elem.item<double>();
        // fn may itself use autograd (gradgradcheck), so it runs with grad mode on; the
        // perturbation writes through a detached alias.
        elem.fill_(orig + o.eps);
        // Copied at once: an output may alias the perturbed input.
        Tensor plus_oi = run(fn, inputs)[oi].detach().to(kDouble, false, true);
        elem.fill_(orig - o.eps);
        Tensor minus_oi = run(fn, inputs)[oi].detach().to(kDouble, false, true);
        elem.fill_(orig);
        Tensor num = (plus_oi - minus_oi) / (2 * o.eps);
        Tensor numc = num.contiguous();
        const double* np = numc.data_ptr<double>();
        for (int64_t k = 0; k < n_out; ++k) {
          double a = analytic[i][k][j], nv = np[k];
          if (std::isnan(a) != std::isnan(nv) ||
              std::fabs(a - nv) > o.atol + o.rtol * std::fabs(nv)) {
            return fail(
                o, str("gradcheck: Jacobian mismatch for output ", oi, " with respect to input ", i,
                       ": d out[", k, "] / d in[", j, "] numerical ", nv, " vs analytical ", a,
                       " (", outputs[oi].grad_fn() ? outputs[oi].grad_fn()->name() : "leaf", ")"));
          }
        }
      }
    }
  }
  return true;
}

bool gradgradcheck(const TensorFn& fn, const variable_list& inputs,
                   const variable_list& grad_outputs, GradcheckOptions o) {
  variable_list outputs = run(fn, inputs);
  variable_list vs = grad_outputs;
  if (vs.empty()) {
    for (const Tensor& out : outputs)
      vs.push_back(empty_contiguous(out.sizes(), kDouble).normal_());
  }
  for (auto& v : vs) v = v.detach().to(kDouble).requires_grad_(true);
  size_t n_in = inputs.size();
  variable_list all = inputs;
  all.insert(all.end(), vs.begin(), vs.end());
  TensorFn first_grad = [&](const variable_list& xs) {
    variable_list in(xs.begin(), xs.begin() + static_cast<long>(n_in));
    variable_list v(xs.begin() + static_cast<long>(n_in), xs.end());
    variable_list outs = fn(in);
    variable_list diff;
    for (const Tensor& t : in)
      if (t.defined() && t.requires_grad()) diff.push_back(t);
    variable_list g = grad(outs, diff, v, true, /*create_graph=*/true, /*allow_unused=*/true);
    variable_list res;
    for (size_t k = 0; k < g.size(); ++k)
      res.push_back(g[k].defined() ? g[k] : diff[k].new_zeros(diff[k].sizes()));
    return res;
  };
  return gradcheck(first_grad, all, o);
}

}  // namespace nabla::autograd
