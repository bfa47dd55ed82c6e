// The driver: registers one GoogleTest test per table entry, runs it on several seeds
// and dtypes against LibTorch, and prints a coverage summary at the end.
#include <ATen/Parallel.h>
#include <c10/util/Logging.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include "bridge.h"
#include "conformance.h"
#include "grad_checks.h"
#include "nabla/backend/isa.h"

namespace conform {

namespace {

constexpr int kSeeds = 3;
constexpr int kMaxReports = 3;  // failures printed per entry; the rest are counted

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

class EntryTest : public ::testing::Test {
 public:
  explicit EntryTest(const OpEntry* e) : e_(e) {}

  void TestBody() override {
    ++coverage().entries_run;
    int failures = 0;
    std::string first;
    const bool known = !e_->known_difference.empty();
    auto fail = [&](const std::string& where, const std::string& what) {
      if (failures++ == 0) first = where + ": " + what;
      if (!known && failures <= kMaxReports)
        ADD_FAILURE() << e_->name << " " << where << ": " << what;
    };
    for (nabla::ScalarType dtype : e_->dtypes) {
      for (int seed = 1; seed <= kSeeds; ++seed) {
        Rng rng(static_cast<uint64_t>(seed) * 7919u + std::hash<std::string>{}(e_->name));
        Samples samples = e_->gen(rng, dtype);
        for (const Sample& s : samples) {
          std::string where = "[" + std::string(nabla::dtype_name(dtype)) + ", seed " +
                              std::to_string(seed) + ", inputs " + s.what + "]";
          run_case(s, where, fail);
        }
      }
    }
    if (e_->grad) {
      try {
        run_grad_checks(*e_, fail);
      } catch (const std::exception& err) {
        fail("[gradient]", std::string("threw: ") + err.what());
      }
    }
    // A node-name difference fails even an entry whose values are known to differ.
    const auto names = coverage().node_name_differences.find(e_->group + "." + e_->name);
    if (known && names != coverage().node_name_differences.end())
      ADD_FAILURE() << e_->name << ": " << names->second;
    if (known) {
      if (failures == 0) {
        std::cout << "[conformance] " << e_->name << " conforms now: drop its differs() marker\n";
        return;
      }
      coverage().known_differences.push_back(e_->group + "." + e_->name);
      GTEST_SKIP() << "known difference (" << e_->known_difference << "), " << failures
                   << " cases; first: " << first;
    }
    if (failures > kMaxReports)
      ADD_FAILURE() << e_->name << ": " << failures - kMaxReports << " more failing cases";
  }

 private:
  template <class Fail>
  void run_case(const Sample& s, const std::string& where, Fail& fail) {
    ++coverage().cases;
    std::vector<at::Tensor> tin;
    for (const auto& t : s.inputs) tin.push_back(to_torch(t));
    std::vector<at::Tensor> want;
    std::string torch_error;
    try {
      want = e_->torch_fn(tin).list;
    } catch (const c10::Error& err) {
      torch_error = err.what_without_backtrace();
    } catch (const std::exception& err) {  // a few ATen checks throw std::runtime_error
      torch_error = err.what();
    }
    std::vector<nabla::Tensor> got;
    bool nabla_threw = false;
    std::string nabla_error;
    try {
      got = e_->nabla_fn(s.inputs).list;
    } catch (const nabla::Error& err) {
      nabla_threw = true;
      nabla_error = err.what();
      if (torch_error.empty())
        return fail(where, std::string("nabla threw, LibTorch did not: ") + err.what());
    } catch (const std::exception& err) {
      return fail(where, std::string("nabla threw a non-nabla::Error exception: ") + err.what());
    }
    if (!e_->call_name.empty()) check_by_name(s, got, nabla_threw, where, fail);
    if (!e_->error_fragment.empty()) {
      ++coverage().error_cases;
      if (torch_error.empty()) return fail(where, "error entry, but LibTorch accepted the input");
      if (nabla_threw && nabla_error.find(e_->error_fragment) == std::string::npos)
        return fail(where, "nabla's message lacks '" + e_->error_fragment + "': " + nabla_error);
    }
    if (!torch_error.empty()) {
      if (!nabla_threw)
        return fail(where, "LibTorch threw, nabla did not: " + torch_error.substr(0, 200));
      ++coverage().expected_errors;
      return;
    }
    if (want.size() != got.size())
      return fail(where, "LibTorch gave " + std::to_string(want.size()) + " outputs, nabla " +
                             std::to_string(got.size()));
    for (size_t i = 0; i < want.size(); ++i) {
      auto [rtol, atol] = tolerance(e_->tol, want[i].scalar_type());
      std::string diff = compare(want[i], got[i], rtol, atol);
      if (!diff.empty()) fail(where, "output " + std::to_string(i) + ": " + diff);
      if (e_->check_strides && diff.empty()) {
        std::string layout = layout_diff(want[i], got[i]);
        if (!layout.empty()) fail(where, "output " + std::to_string(i) + ": " + layout);
      }
    }
    // Out-of-place ops must leave their inputs alone (in-place entries clone first).
    for (size_t i = 0; i < tin.size(); ++i) {
      std::string diff = compare(tin[i], s.inputs[i], 0, 0);
      if (!diff.empty()) fail(where, "input " + std::to_string(i) + " changed: " + diff);
    }
  }

  // ops::call(name, inputs, attrs) must give exactly the direct call's outputs, or
  // throw where it threw.
  template <class Fail>
  void check_by_name(const Sample& s, const std::vector<nabla::Tensor>& direct, bool direct_threw,
                     const std::string& where, Fail& fail) {
    ++coverage().by_name_cases;
    coverage().called_by_name.insert(e_->call_name);
    std::vector<nabla::Tensor> got;
    try {
      got = nabla::ops::call(e_->call_name, s.inputs, e_->call_attrs);
    } catch (const nabla::Error& err) {
      if (!direct_threw)
        fail(where, std::string("ops::call threw, the direct call did not: ") + err.what());
      return;
    }
    if (direct_threw) return fail(where, "the direct call threw, ops::call did not");
    if (got.size() != direct.size())
      return fail(where, "ops::call gave " + std::to_string(got.size()) +
                             " outputs, the direct call " + std::to_string(direct.size()));
    for (size_t i = 0; i < got.size(); ++i) {
      std::string diff = compare(to_torch(direct[i]), got[i], 0, 0);
      if (!diff.empty()) fail(where, "ops::call output " + std::to_string(i) + ": " + diff);
    }
  }

  const OpEntry* e_;
};

class CoverageReport : public ::testing::Environment {
 public:
  void TearDown() override {
    std::map<std::string, int> groups;
    for (const auto& e : registry()) ++groups[e.group];
    const Coverage& c = coverage();
    std::cout << "\n[conformance] " << registry().size() << " ops in the table:";
    for (const auto& [g, n] : groups) std::cout << " " << g << "=" << n;
    std::cout << "\n[conformance] ran " << c.entries_run << " entries, " << c.cases
              << " value cases (" << c.expected_errors
              << " where both LibTorch and nabla rejected the input), " << c.promotion_cases
              << " dtype-promotion cases, " << c.error_cases << " error cases\n";
    std::cout << "[conformance] gradients: " << c.grad_cases << " samples against LibTorch, "
              << c.gradcheck_cases << " against finite differences, " << c.gradgrad_cases
              << " second-derivative checks\n";
    std::cout << "[conformance] ops::call: " << c.by_name_cases << " cases by name, "
              << c.called_by_name.size() << " of " << nabla::ops::all_schemas().size()
              << " registered ops\n";
    std::cout << "[conformance] node names: " << c.node_name_checks << " grad_fn names compared, "
              << c.node_name_differences.size() << " entries differ from LibTorch's (failures), "
              << c.marked_node_names.size() << " marked node_name_differs\n";
    for (const auto& [entry, what] : c.node_name_differences)
      std::cout << "[conformance]   " << entry << ": " << what << "\n";
    for (const auto& [entry, what] : c.marked_node_names)
      std::cout << "[conformance]   marked " << entry << ": " << what << "\n";
    if (!c.known_differences.empty()) {
      std::cout << "[conformance] " << c.known_differences.size() << " known differences:";
      for (const auto& k : c.known_differences) std::cout << " " << k;
      std::cout << "\n";
    }
  }
};

void register_tests() {
  std::set<std::string> seen;
  for (const OpEntry& e : registry()) {
    if (!seen.insert(e.group + "." + e.name).second) {
      std::cerr << "conformance: duplicate entry " << e.group << "." << e.name << "\n";
      std::abort();
    }
    const OpEntry* p = &e;
    ::testing::RegisterTest(e.group.c_str(), e.name.c_str(), nullptr, nullptr, __FILE__, __LINE__,
                            [p]() -> ::testing::Test* { return new EntryTest(p); });
  }
}

}  // namespace
}  // namespace conform

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  // The runs under a lower ISA path (tests/conformance/CMakeLists.txt) are skipped, with
  // ctest's code 77, on a CPU that does not have that path.
  try {
    (void)nabla::active_isa();
  } catch (const nabla::Error& e) {
    std::printf("skipped: %s\n", e.what());
    return 77;
  }
  at::set_num_threads(1);  // LibTorch is the reference, not the subject: keep it quiet
  // Thousands of cases expect LibTorch to throw; a backtrace per c10::Error costs
  // milliseconds, and the messages are all the table reads.
  c10::SetStackTraceFetcher([] { return std::string(); });
  conform::register_tests();
  ::testing::AddGlobalTestEnvironment(new conform::CoverageReport);
  return RUN_ALL_TESTS();
}
