// The op table on CUDA (test_conformance_cuda, ctest label `cuda`): every entry runs on its
// samples twice — on the CPU and with the same inputs on a GPU (the same strides and
// storage offsets) — and the GPU's outputs and float64 gradients must match the CPU's
// (float32 within 1e-5 relative, float64 within 1e-10, or the entry's own looser
// tolerance; integers and bools exactly). Error entries must raise on the GPU as on the
// CPU. An entry that draws random numbers (the run moves a generator) compares only its
// shapes, dtypes and bool outputs: the CPU's stream is LibTorch's mt19937 and a GPU's is
// Philox (Note [Random streams]), so one seed draws different numbers on the two devices,
// and the table's random entries return verdicts on properties of their draws, which hold
// on either. Without a GPU the executable skips as a whole (exit 77) and says why.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <sstream>

#include "conformance.h"
#include "grad_checks.h"

namespace conform {
namespace {

constexpr int kSeeds = 2;
constexpr int kMaxReports = 3;

// The same layout on the GPU: the whole storage moves, then the view is taken again.
nabla::Tensor on_gpu(const nabla::Tensor& t) {
  if (!t.defined()) return t;
  const int64_t storage_elems =
      static_cast<int64_t>(t.impl()->storage()->nbytes() / t.element_size());
  if (storage_elems == 0) return t.to(nabla::kCUDA);
  nabla::Tensor whole = t.detach().as_strided({storage_elems}, {1}, 0);
  return whole.to(nabla::kCUDA).as_strided(t.sizes(), t.strides(), t.storage_offset());
}

std::string compare(const nabla::Tensor& want, const nabla::Tensor& got_gpu, const Tol& tol) {
  if (want.defined() != got_gpu.defined()) return "one side undefined";
  if (!want.defined()) return "";
  if (got_gpu.is_cpu() != want.is_cpu() && !got_gpu.is_cuda())
    return "GPU result is on " + got_gpu.device().str();
  const nabla::Tensor got = got_gpu.cpu();
  std::ostringstream m;
  if (got.sizes() != want.sizes() || got.scalar_type() != want.scalar_type()) {
    m << "got " << got.sizes() << " " << got.scalar_type() << ", want " << want.sizes() << " "
      << want.scalar_type();
    return m.str();
  }
  if (want.numel() == 0) return "";
  if (!want.is_floating_point()) {
    if (!nabla::equal(got, want)) return "integer values differ";
    return "";
  }
  const bool f64 = want.scalar_type() == nabla::kDouble;
  const double rtol = f64 ? std::max(1e-10, tol.rtol64) : std::max(1e-5, tol.rtol32);
  const double atol = f64 ? std::max(1e-12, tol.atol64) : std::max(1e-6, tol.atol32);
  const nabla::Tensor w = want.to(nabla::kDouble), g = got.to(nabla::kDouble);
  const nabla::Tensor both_nan = w.isnan().logical_and(g.isnan());
  const nabla::Tensor same_inf = w.isinf().logical_and(w == g);
  const nabla::Tensor close =
      ((g - w).abs() <= atol + rtol * w.abs()).logical_or(both_nan).logical_or(same_inf);
  if (close.all().item<bool>()) return "";
  const nabla::Tensor err = (g - w).abs().nan_to_num(1e300).reshape({-1});
  const int64_t at = err.argmax().item<int64_t>();
  m << "max difference at flat index " << at << ": GPU " << g.reshape({-1})[at].item<double>()
    << ", CPU " << w.reshape({-1})[at].item<double>();
  return m.str();
}

// An entry that drew random numbers: only what holds for any draw compares (see the top).
std::string compare_drawn(const nabla::Tensor& want, const nabla::Tensor& got_gpu) {
  if (want.defined() != got_gpu.defined()) return "one side undefined";
  if (!want.defined()) return "";
  const nabla::Tensor got = got_gpu.cpu();
  std::ostringstream m;
  if (got.sizes() != want.sizes() || got.scalar_type() != want.scalar_type()) {
    m << "got " << got.sizes() << " " << got.scalar_type() << ", want " << want.sizes() << " "
      << want.scalar_type();
    return m.str();
  }
  if (want.scalar_type() == nabla::kBool && !nabla::equal(got, want))
    return "a property of the random draws holds on one device only";
  return "";
}

struct Outcome {
  std::vector<nabla::Tensor> out;
  std::string error;  // what() of a nabla::Error, empty when the entry returned
  bool drew = false;  // the run moved the CPU's or the GPU's generator
};

uint64_t gpu_generator_offset() {
  return nabla::cuda::is_available() ? nabla::default_generator(nabla::kCUDA).get_offset() : 0;
}

Outcome run(const OpEntry& e, const std::vector<nabla::Tensor>& inputs, uint64_t seed) {
  Outcome r;
  nabla::manual_seed(seed);  // the CPU's and every GPU's generator
  const nabla::Tensor cpu_state = nabla::default_generator().get_state();
  const uint64_t gpu_offset = gpu_generator_offset();
  try {
    r.out = e.nabla_fn(inputs).list;
    // A GPU's index checks raise at the next wait (Note [Deferred device checks]).
    if (nabla::cuda::is_available()) nabla::cuda::synchronize();
  } catch (const nabla::Error& err) {
    r.error = err.what();
  }
  r.drew = !nabla::equal(cpu_state, nabla::default_generator().get_state()) ||
           gpu_generator_offset() != gpu_offset;
  return r;
}

class CudaEntryTest : public ::testing::Test {
 public:
  explicit CudaEntryTest(const OpEntry* e) : e_(e) {}

  void TestBody() override {
    int failures = 0;
    auto fail = [&](const std::string& where, const std::string& what) {
      if (++failures <= kMaxReports) ADD_FAILURE() << e_->name << " " << where << ": " << what;
    };
    for (nabla::ScalarType dtype : e_->dtypes)
      for (int seed = 1; seed <= kSeeds; ++seed) {
        Rng rng(static_cast<uint64_t>(seed) * 7919u + std::hash<std::string>{}(e_->name));
        for (const Sample& s : e_->gen(rng, dtype)) {
          const std::string where = "[" + std::string(nabla::dtype_name(dtype)) + ", seed " +
                                    std::to_string(seed) + ", inputs " + s.what + "]";
          check_values(s, where, static_cast<uint64_t>(seed), fail);
        }
      }
    if (e_->grad && e_->error_fragment.empty()) check_gradients(fail);
    if (failures > kMaxReports)
      ADD_FAILURE() << e_->name << ": " << failures - kMaxReports << " more differences";
  }

 private:
  template <class Fail>
  void check_values(const Sample& s, const std::string& where, uint64_t seed, Fail& fail) {
    std::vector<nabla::Tensor> gpu_in;
    for (const auto& t : s.inputs) gpu_in.push_back(on_gpu(t));
    const Outcome cpu = run(*e_, s.inputs, seed), gpu = run(*e_, gpu_in, seed);
    if (!cpu.error.empty() || !gpu.error.empty()) {
      if (cpu.error.empty()) fail(where, "the GPU raised: " + gpu.error);
      if (gpu.error.empty()) fail(where, "the CPU raised, the GPU did not: " + cpu.error);
      return;
    }
    if (cpu.out.size() != gpu.out.size()) {
      fail(where, "different numbers of outputs");
      return;
    }
    const bool drew = cpu.drew || gpu.drew;
    for (size_t i = 0; i < cpu.out.size(); ++i) {
      const std::string d =
          drew ? compare_drawn(cpu.out[i], gpu.out[i]) : compare(cpu.out[i], gpu.out[i], e_->tol);
      if (!d.empty()) fail(where + " output " + std::to_string(i), d);
    }
  }

  // float64: the gradients of sum_i (out_i * g_i) with the same random g_i on both devices.
  template <class Fail>
  void check_gradients(Fail& fail) {
    if (std::find(e_->dtypes.begin(), e_->dtypes.end(), nabla::kDouble) == e_->dtypes.end() &&
        std::find(e_->dtypes.begin(), e_->dtypes.end(), nabla::kFloat) == e_->dtypes.end())
      return;
    Rng rng(104729u + std::hash<std::string>{}(e_->name));
    for (const Sample& s : e_->gen(rng, nabla::kDouble)) {
      const std::string where = "[gradient, inputs " + s.what + "]";
      const std::vector<size_t> diff_pos = differentiable_inputs(*e_, s.inputs);
      std::vector<nabla::Tensor> cin, gin;
      for (size_t i = 0; i < s.inputs.size(); ++i) {
        const bool diff = std::find(diff_pos.begin(), diff_pos.end(), i) != diff_pos.end();
        cin.push_back(s.inputs[i].detach().requires_grad_(diff));
        gin.push_back(on_gpu(s.inputs[i]).detach().requires_grad_(diff));
      }
      const Outcome cpu = run(*e_, cin, 1), gpu = run(*e_, gin, 1);
      if (!cpu.error.empty()) continue;
      if (cpu.drew || gpu.drew) continue;  // gradients through different draws
      if (!gpu.error.empty()) {
        fail(where, "the GPU raised: " + gpu.error);
        continue;
      }
      std::vector<nabla::Tensor> gs;
      for (const auto& o : cpu.out) gs.push_back(make(rng, o.sizes().vec(), o.scalar_type()));
      const nabla::Tensor closs = weighted_sum(cpu.out, [&](size_t i) { return gs[i]; });
      if (!closs.defined()) continue;
      const nabla::Tensor gloss =
          weighted_sum(gpu.out, [&](size_t i) { return gs[i].to(nabla::kCUDA); });
      try {
        closs.backward();
        gloss.backward();
      } catch (const nabla::Error& err) {
        fail(where, std::string("backward raised: ") + err.what());
        continue;
      }
      for (size_t i = 0; i < cin.size(); ++i) {
        if (!cin[i].requires_grad()) continue;
        const nabla::Tensor& gg = gin[i].grad();
        if (gg.defined() && !gg.is_cuda()) {
          fail(where, "the gradient of input " + std::to_string(i) + " is on " + gg.device().str());
          continue;
        }
        const std::string d = compare(cin[i].grad(), gg, e_->tol);
        if (!d.empty()) fail(where + " gradient of input " + std::to_string(i), d);
      }
    }
  }

  const OpEntry* e_;
};

void register_tests() {
  for (const OpEntry& e : registry()) {
    const OpEntry* p = &e;
    ::testing::RegisterTest(("Cuda_" + e.group).c_str(), e.name.c_str(), nullptr, nullptr, __FILE__,
                            __LINE__, [p]() -> ::testing::Test* { return new CudaEntryTest(p); });
  }
}

}  // namespace
}  // namespace conform

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (!nabla::cuda::is_available()) {
    std::printf("skipped: no CUDA device (nabla::cuda::is_available() is false; CUDA: %s)\n",
                nabla::show_config().find("CUDA: not built") != std::string::npos
                    ? "not built"
                    : "built, no GPU or driver");
    return 77;
  }
  std::printf("%s", nabla::show_config().c_str());
  // Full float32 convolutions (cuDNN's TF32 default would round operands to 10 bits).
  nabla::globalContext().setAllowTF32CuDNN(false);
  conform::register_tests();
  return RUN_ALL_TESTS();
}
