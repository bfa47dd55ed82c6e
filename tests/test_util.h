#pragma once
// Small helpers shared by the test executables.
#include <gtest/gtest.h>
#include <nabla/nabla.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

// NABLA_TEST_ASAN: built with AddressSanitizer (GCC says so with __SANITIZE_ADDRESS__,
// clang 14 only through __has_feature).
#if defined(__SANITIZE_ADDRESS__)
#define NABLA_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NABLA_TEST_ASAN 1
#endif
#endif

namespace nabla::testing {

/// The elements of `t` in row-major order, as doubles.
inline std::vector<double> values(const Tensor& t) {
  Tensor d = t.to(kDouble).contiguous();
  const double* p = d.data_ptr<double>();
  return std::vector<double>(p, p + d.numel());
}

inline std::vector<int64_t> shape(const Tensor& t) { return t.sizes().vec(); }

/// Runs `fn`, expects a nabla::Error whose message contains every fragment.
template <class F>
void expect_error(F&& fn, std::initializer_list<std::string> fragments) {
  try {
    fn();
    ADD_FAILURE() << "expected nabla::Error";
  } catch (const nabla::Error& e) {
    std::string msg = e.what();
    for (const auto& f : fragments)
      EXPECT_NE(msg.find(f), std::string::npos) << "message lacks '" << f << "': " << msg;
  }
}

/// A fixture for tests that ctest runs again under NABLA_ISA=avx2 and scalar: skipped on
/// a CPU that lacks the path asked for (the library refuses it with a nabla::Error).
class IsaPathTest : public ::testing::Test {
 protected:
  void SetUp() override {
    try {
      (void)active_isa();
    } catch (const Error& e) {
      GTEST_SKIP() << e.what();
    }
  }
};

/// A float64 leaf that requires grad, uniform in [lo, hi) (gradcheck input).
inline Tensor rnd(IntArrayRef shape, double lo = -1, double hi = 1) {
  return (rand(shape, kDouble) * (hi - lo) + lo).requires_grad_();
}

/// Expects t's elements (row-major) to be `want`, each within `tol`.
inline void expect_values(const Tensor& t, const std::vector<double>& want, double tol = 1e-6) {
  std::vector<double> got = values(t);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "at " << i;
}

/// `name` in this process's own scratch directory (made on first use) under the temp dir.
inline std::string temp_path(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("nabla_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

/// The whole file at `p` as text ("" if it cannot be read).
inline std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// A python3 that imports torch (Debian's python3-torch, which the test command installs;
/// /usr/bin/python3 first, as a pyenv or venv python3 on PATH may lack it), or "" if none.
inline const std::string& torch_python() {
  static const std::string found = [] {
    for (std::string python : {"/usr/bin/python3", "python3"})
      if (std::system((python + " -c 'import torch' >/dev/null 2>&1").c_str()) == 0) return python;
    return std::string();
  }();
  return found;
}

/// Skips the calling test when no python3 imports torch, or fails it when
/// NABLA_REQUIRE_TORCH_PYTHON is set (the README's test command sets it, so CI cannot
/// pass by skipping).
#define NABLA_REQUIRE_TORCH_PYTHON()                                                     \
  do {                                                                                   \
    if (!::nabla::testing::torch_python().empty()) break;                                \
    if (std::getenv("NABLA_REQUIRE_TORCH_PYTHON")) FAIL() << "no python3 imports torch"; \
    GTEST_SKIP() << "no python3 imports torch (apt-get install python3-torch)";          \
  } while (0)

/// The PyTorch name of t's grad_fn, or "none".
inline std::string name_of(const Tensor& t) { return t.grad_fn() ? t.grad_fn()->name() : "none"; }

}  // namespace nabla::testing
