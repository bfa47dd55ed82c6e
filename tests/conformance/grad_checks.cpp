// Gradient checks of the op table (every entry but the error entries): for every float64
// sample of an entry, the gradients of sum_i (out_i * g_i) with the same random g_i in
// both libraries must agree (libtorch_checks.cpp; without LibTorch, nabla's backward runs
// alone), and nabla's must match central finite differences (gradcheck) and, for gradgrad
// entries, second derivatives too (gradgradcheck).
#include "grad_checks.h"

#include <algorithm>
#include <cmath>
#include <iostream>

#include <nabla/autograd/gradcheck.h>

#include "exact.h"
#include "libtorch_checks.h"

namespace conform {

namespace {

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

// Without a reference, under NABLA_POISON_NEW_MEMORY: forward and backward again on
// zero-filled new memory must give exactly the same gradients (see the harness's forward
// check of the same name).
void check_new_memory_unread(
    const OpEntry& e, const Sample& s, const std::vector<size_t>& diff_pos,
    const std::vector<nabla::Tensor>& nin, const std::vector<nabla::Tensor>& gs,
    const std::string& where,
    const std::function<void(const std::string&, const std::string&)>& fail) {
  if (nabla::new_memory_fill() < 0) return;
  ++coverage().zero_fill_grads;
  ScopedNewMemoryFill zeros(0);
  std::vector<nabla::Tensor> again;
  for (size_t i = 0; i < nin.size(); ++i)
    again.push_back(s.inputs[i].detach().requires_grad_(nin[i].requires_grad()));
  weighted_sum(e.nabla_fn(again).list, [&](size_t i) { return gs[i]; }).backward();
  for (size_t i : diff_pos) {
    std::string diff = exact_diff(again[i].grad(), nin[i].grad());
    if (!diff.empty())
      fail(where, "gradient of input " + std::to_string(i) +
                      " reads new memory (zero-filled: want, NaN-filled: got): " + diff);
  }
}

}  // namespace

void run_grad_checks(const OpEntry& e,
                     const std::function<void(const std::string&, const std::string&)>& fail) {
  const long names_before = coverage().node_name_checks;
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
      for (size_t i = 0; i < s.inputs.size(); ++i)
        nin.push_back(s.inputs[i].detach().requires_grad_(wanted(i)));
      std::vector<nabla::Tensor> nout = e.nabla_fn(nin).list;
      std::vector<nabla::Tensor> gs;
      for (const auto& o : nout) gs.push_back(make(rng, o.sizes().vec(), nabla::kDouble));
      nabla::Tensor nloss = weighted_sum(nout, [&](size_t i) { return gs[i]; });
      if (nloss.defined()) {
        ++coverage().backward_cases;
        nloss.backward();
      }
      if constexpr (kWithLibTorch) {
        if (!compare_gradients(e, s, diff_pos, nin, nout, gs, nloss, where, fail)) continue;
      } else {
        if (!nloss.defined()) continue;
        // Without a reference, each gradient must at least have its input's sizes and dtype.
        for (size_t i : diff_pos) {
          const nabla::Tensor& g = nin[i].grad();
          if (g.defined() &&
              (g.sizes() != nin[i].sizes() || g.scalar_type() != nin[i].scalar_type()))
            fail(where, "gradient of input " + std::to_string(i) + " is " + describe(g) +
                            ", the input " + describe(nin[i]));
        }
        check_new_memory_unread(e, s, diff_pos, nin, gs, where, fail);
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
  const std::string entry = e.group + "." + e.name;
  if (!e.node_name_difference.empty() && coverage().node_name_checks > names_before &&
      !coverage().marked_node_names.count(entry))
    std::cout << "[conformance] " << e.name
              << " has LibTorch's node names now: drop its node_name_differs() marker\n";
}

}  // namespace conform
