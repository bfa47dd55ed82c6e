// Gradient checks of the op table (every entry but the error entries): for every float64
// sample of an entry, the gradients of sum_i (out_i * g_i) with the same random g_i in
// both libraries must agree, and nabla's must match central finite differences
// (gradcheck) and, for gradgrad entries, second derivatives too (gradgradcheck).
#include "grad_checks.h"

#include <algorithm>
#include <cmath>
#include <iostream>

#include <nabla/autograd/gradcheck.h>
#include <torch/csrc/autograd/function.h>

namespace conform {

namespace {

template <class T, class G>
T weighted_sum(const std::vector<T>& outs, G&& g_for) {
  T loss;
  for (size_t i = 0; i < outs.size(); ++i) {
    if (!outs[i].is_floating_point() || !outs[i].requires_grad()) continue;
    T term = (outs[i] * g_for(i)).sum();
    loss = loss.defined() ? loss + term : term;
  }
  return loss;
}

bool all_finite(const nabla::Tensor& t) {
  return !t.is_floating_point() || t.numel() == 0 || nabla::isfinite(t).all().template item<bool>();
}

// True when no value repeats within any floating input (ties are where max, min and sort
// have no derivative, so finite differences there measure a one-sided slope).
bool distinct_values(const std::vector<nabla::Tensor>& inputs) {
  for (const auto& t : inputs) {
    if (!t.is_floating_point() || t.numel() < 2) continue;
    nabla::Tensor v = std::get<0>(t.detach().reshape({-1}).sort());
    if ((v.narrow(0, 1, v.numel() - 1) == v.narrow(0, 0, v.numel() - 1))
            .any()
            .template item<bool>())
      return false;
  }
  return true;
}

// grad_fn()->name() of every output against LibTorch's: a difference fails the entry
// unless it is marked node_name_differs(why). Returns whether the names differed.
bool check_node_names(const OpEntry& e, const std::vector<nabla::Tensor>& nout,
                      const std::vector<at::Tensor>& tout, const std::string& where,
                      const std::function<void(const std::string&, const std::string&)>& fail) {
  bool differs = false;
  for (size_t i = 0; i < nout.size(); ++i) {
    const bool tn = tout[i].grad_fn() != nullptr, nn = nout[i].grad_fn() != nullptr;
    if (!tn && !nn) continue;
    std::string want = tn ? tout[i].grad_fn()->name() : "(none)";
    std::string got = nn ? nout[i].grad_fn()->name() : "(none)";
    ++coverage().node_name_checks;
    if (want == got) continue;
    differs = true;
    std::string what = "output " + std::to_string(i) + " grad_fn " + got + ", LibTorch " + want;
    const std::string entry = e.group + "." + e.name;
    if (!e.node_name_difference.empty()) {
      coverage().marked_node_names.emplace(entry, what + " (" + e.node_name_difference + ")");
      continue;
    }
    coverage().node_name_differences.emplace(entry, what);
    fail(where, what);
  }
  return differs;
}

}  // namespace

void run_grad_checks(const OpEntry& e,
                     const std::function<void(const std::string&, const std::string&)>& fail) {
  const long names_before = coverage().node_name_checks;
  bool names_differ = false;
  for (int seed = 1; seed <= 2; ++seed) {
    Rng rng(static_cast<uint64_t>(seed) * 104729u + std::hash<std::string>{}(e.name));
    for (const Sample& s : e.gen(rng, nabla::kDouble)) {
      const std::string where =
          "[gradient, seed " + std::to_string(seed) + ", inputs " + s.what + "]";
      bool finite = true;
      for (const auto& t : s.inputs) finite = finite && all_finite(t);
      if (!finite) continue;
      const std::vector<size_t> diff_pos = differentiable_inputs(e, s.inputs);
      int64_t float_elems = 0;
      for (size_t i : diff_pos) float_elems += s.inputs[i].numel();
      if (float_elems == 0) continue;
      auto wanted = [&](size_t i) {
        return std::find(diff_pos.begin(), diff_pos.end(), i) != diff_pos.end();
      };
      std::vector<nabla::Tensor> nin;
      std::vector<at::Tensor> tin;
      for (size_t i = 0; i < s.inputs.size(); ++i) {
        nin.push_back(s.inputs[i].detach().requires_grad_(wanted(i)));
        tin.push_back(to_torch(s.inputs[i]).detach().requires_grad_(wanted(i)));
      }
      std::vector<at::Tensor> tout = e.torch_fn(tin).list;
      std::vector<nabla::Tensor> nout = e.nabla_fn(nin).list;
      if (nout.size() != tout.size()) return fail(where, "output counts differ");
      names_differ = check_node_names(e, nout, tout, where, fail) || names_differ;
      std::vector<nabla::Tensor> gs;
      for (const auto& o : nout) gs.push_back(make(rng, o.sizes().vec(), nabla::kDouble));
      nabla::Tensor nloss = weighted_sum(nout, [&](size_t i) { return gs[i]; });
      at::Tensor tloss = weighted_sum(tout, [&](size_t i) { return to_torch(gs[i]); });
      if (nloss.defined() != tloss.defined()) {
        fail(where, std::string("only ") + (nloss.defined() ? "nabla" : "LibTorch") +
                        " has a differentiable output");
        continue;
      }
      if (!nloss.defined()) continue;
      ++coverage().grad_cases;
      nloss.backward();
      tloss.backward();
      for (size_t i : diff_pos) {
        at::Tensor want = tin[i].grad().defined() ? tin[i].grad() : at::zeros_like(tin[i]);
        nabla::Tensor got = nin[i].grad().defined() ? nin[i].grad() : nabla::zeros_like(nin[i]);
        // Gradients compare at 1e-9, or at the entry's float64 tolerance when looser.
        std::string diff =
            compare(want, got, std::max(1e-9, e.tol.rtol64), std::max(1e-11, e.tol.atol64));
        if (!diff.empty())
          fail(where, "gradient of input " + std::to_string(i) + " vs LibTorch: " + diff);
      }
      if (float_elems > kGradcheckMaxElems || !e.no_finite_differences.empty()) continue;
      if (e.fd_distinct && !distinct_values(s.inputs)) continue;
      // A non-finite output (a mean over an empty batch) has no finite differences.
      bool finite_out = true;
      for (const auto& o : nout) finite_out = finite_out && all_finite(o.detach());
      if (!finite_out) continue;
      // Finite differences: a function of the differentiated inputs only.
      nabla::autograd::variable_list fd_inputs;
      for (size_t i : diff_pos) fd_inputs.push_back(s.inputs[i].detach().clone().requires_grad_());
      auto fn = [&](const nabla::autograd::variable_list& xs) {
        std::vector<nabla::Tensor> all = s.inputs;
        for (size_t k = 0; k < diff_pos.size(); ++k) all[diff_pos[k]] = xs[k];
        nabla::autograd::variable_list outs;
        for (auto& o : e.nabla_fn(all).list)
          if (o.is_floating_point() && o.requires_grad()) outs.push_back(o);
        return outs;
      };
      try {
        ++coverage().gradcheck_cases;
        nabla::autograd::gradcheck(fn, fd_inputs);
        if (e.gradgrad && float_elems <= kGradcheckMaxElems / 2) {
          ++coverage().gradgrad_cases;
          nabla::autograd::gradgradcheck(fn, fd_inputs);
        }
      } catch (const nabla::Error& err) {
        fail(where, std::string("finite differences: ") + err.what());
      }
    }
  }
  if (!e.node_name_difference.empty() && coverage().node_name_checks > names_before &&
      !names_differ)
    std::cout << "[conformance] " << e.name
              << " has LibTorch's node names now: drop its node_name_differs() marker\n";
}

}  // namespace conform
