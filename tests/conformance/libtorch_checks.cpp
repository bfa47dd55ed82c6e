// The LibTorch half of the driver's checks (libtorch_checks.h): each case's outputs and
// errors against LibTorch's, and each float64 sample's gradients and grad_fn names.
#include "libtorch_checks.h"

#include <ATen/Parallel.h>
#include <c10/util/Logging.h>
#include <torch/csrc/autograd/function.h>

#include <algorithm>
#include <sstream>

#include "grad_checks.h"
#include "libtorch_side.h"

namespace conform {

namespace {

std::pair<double, double> tolerance(const Tol& t, at::ScalarType want) {
  if (want == at::kFloat) return {t.rtol32, t.atol32};
  if (want == at::kDouble) return {t.rtol64, t.atol64};
  return {0, 0};
}

// Strides of dims of size 1 do not matter; the others and the offset must match.
std::string layout_diff(const at::Tensor& want, const nabla::Tensor& got) {
  if (want.numel() <= 1) return "";
  std::ostringstream os;
  bool same = want.storage_offset() == got.storage_offset();
  for (int64_t d = 0; d < want.dim(); ++d)
    if (want.size(d) > 1 && want.stride(d) != got.stride(d)) same = false;
  if (same) return "";
  os << "view layout differs: LibTorch strides " << want.strides() << " offset "
     << want.storage_offset() << ", nabla strides " << got.strides() << " offset "
     << got.storage_offset();
  return os.str();
}

class TorchCaseImpl : public TorchCase {
 public:
  TorchCaseImpl(const OpEntry& e, const Sample& s) : e_(e) {
    std::vector<at::Tensor> tin;
    for (const auto& t : s.inputs) tin.push_back(to_torch(t));
    try {
      want_ = (*e.torch_fn)(tin).list;
    } catch (const c10::Error& err) {
      error_ = err.what_without_backtrace();
    } catch (const std::exception& err) {  // a few ATen checks throw std::runtime_error
      error_ = err.what();
    }
  }

  const std::string& error() const override { return error_; }

  void compare(const std::vector<nabla::Tensor>& got, const std::string& where,
               const FailFn& fail) const override {
    if (want_.size() != got.size())
      return fail(where, "LibTorch gave " + std::to_string(want_.size()) + " outputs, nabla " +
                             std::to_string(got.size()));
    for (size_t i = 0; i < want_.size(); ++i) {
      auto [rtol, atol] = tolerance(e_.tol, want_[i].scalar_type());
      std::string diff = conform::compare(want_[i], got[i], rtol, atol);
      if (!diff.empty()) fail(where, "output " + std::to_string(i) + ": " + diff);
      if (e_.check_strides && diff.empty()) {
        std::string layout = layout_diff(want_[i], got[i]);
        if (!layout.empty()) fail(where, "output " + std::to_string(i) + ": " + layout);
      }
    }
  }

 private:
  const OpEntry& e_;
  std::vector<at::Tensor> want_;
  std::string error_;
};

// grad_fn()->name() of every output against LibTorch's: a difference fails the entry
// unless it is marked node_name_differs(why), which lists it in the coverage summary.
void check_node_names(const OpEntry& e, const std::vector<nabla::Tensor>& nout,
                      const std::vector<at::Tensor>& tout, const std::string& where,
                      const FailFn& fail) {
  for (size_t i = 0; i < nout.size(); ++i) {
    const bool tn = tout[i].grad_fn() != nullptr, nn = nout[i].grad_fn() != nullptr;
    if (!tn && !nn) continue;
    std::string want = tn ? tout[i].grad_fn()->name() : "(none)";
    std::string got = nn ? nout[i].grad_fn()->name() : "(none)";
    ++coverage().node_name_checks;
    if (want == got) continue;
    std::string what = "output " + std::to_string(i) + " grad_fn " + got + ", LibTorch " + want;
    const std::string entry = e.group + "." + e.name;
    if (!e.node_name_difference.empty()) {
      coverage().marked_node_names.emplace(entry, what + " (" + e.node_name_difference + ")");
      continue;
    }
    coverage().node_name_differences.emplace(entry, what);
    fail(where, what);
  }
}

bool contains(const std::vector<size_t>& v, size_t i) {
  return std::find(v.begin(), v.end(), i) != v.end();
}

}  // namespace

std::unique_ptr<TorchCase> run_libtorch(const OpEntry& e, const Sample& s) {
  return std::make_unique<TorchCaseImpl>(e, s);
}

bool compare_gradients(const OpEntry& e, const Sample& s, const std::vector<size_t>& diff_pos,
                       const std::vector<nabla::Tensor>& nin,
                       const std::vector<nabla::Tensor>& nout, const std::vector<nabla::Tensor>& gs,
                       const nabla::Tensor& nloss, const std::string& where, const FailFn& fail) {
  std::vector<at::Tensor> tin;
  for (size_t i = 0; i < s.inputs.size(); ++i)
    tin.push_back(to_torch(s.inputs[i]).detach().requires_grad_(contains(diff_pos, i)));
  std::vector<at::Tensor> tout = (*e.torch_fn)(tin).list;
  if (nout.size() != tout.size()) {
    fail(where, "output counts differ");
    return false;
  }
  check_node_names(e, nout, tout, where, fail);
  at::Tensor tloss = weighted_sum(tout, [&](size_t i) { return to_torch(gs[i]); });
  if (nloss.defined() != tloss.defined()) {
    fail(where, std::string("only ") + (nloss.defined() ? "nabla" : "LibTorch") +
                    " has a differentiable output");
    return false;
  }
  if (!nloss.defined()) return false;
  ++coverage().grad_cases;
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
  return true;
}

bool libtorch_accepts_grad(const OpEntry& e, const std::vector<nabla::Tensor>& inputs,
                           const std::vector<size_t>& wanted) {
  std::vector<at::Tensor> tin;
  for (size_t i = 0; i < inputs.size(); ++i)
    tin.push_back(to_torch(inputs[i]).detach().requires_grad_(contains(wanted, i)));
  try {
    (*e.torch_fn)(tin);
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

void setup_libtorch() {
  at::set_num_threads(1);
  c10::SetStackTraceFetcher([] { return std::string(); });
}

}  // namespace conform
