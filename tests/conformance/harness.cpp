// The driver: registers one GoogleTest test per table entry, runs it on several seeds
// and dtypes against LibTorch (or, in a build without it, nabla's side of every check:
// Note [Table without LibTorch], table.h), and prints a coverage summary at the end.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include "conformance.h"
#include "exact.h"
#include "grad_checks.h"
#include "libtorch_checks.h"
#include "nabla/backend/isa.h"
#include "nabla/graph.h"
#include "nabla/ops/trace.h"

namespace conform {

namespace {

constexpr int kSeeds = 3;
constexpr int kMaxReports = 3;  // failures printed per entry; the rest are counted

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
          run_case(s, where, seed == 1, fail);
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
        // Without LibTorch nothing says whether the difference is gone.
        if constexpr (kWithLibTorch)
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
  void run_case(const Sample& s, const std::string& where, bool first_seed, Fail& fail) {
    ++coverage().cases;
    // LibTorch runs first, on its own copy: whatever nabla does to the inputs cannot reach it.
    std::unique_ptr<TorchCase> want;
    if constexpr (kWithLibTorch) want = run_libtorch(*e_, s);
    const std::string torch_error = want ? want->error() : "";
    const StorageSnapshot inputs_before(s.inputs);
    std::vector<nabla::Tensor> got;
    bool nabla_threw = false;
    std::string nabla_error;
    try {
      got = e_->nabla_fn(s.inputs).list;
    } catch (const nabla::Error& err) {
      nabla_threw = true;
      nabla_error = err.what();
      if (want && torch_error.empty())
        return fail(where, std::string("nabla threw, LibTorch did not: ") + err.what());
    } catch (const std::exception& err) {
      return fail(where, std::string("nabla threw a non-nabla::Error exception: ") + err.what());
    }
    if (!e_->call_name.empty()) {
      check_by_name(s, got, nabla_threw, where, fail);
      if (!nabla_threw && first_seed) check_traced(s, where, fail);
    }
    if (!e_->error_fragment.empty()) {
      ++coverage().error_cases;
      if (want && torch_error.empty())
        return fail(where, "error entry, but LibTorch accepted the input");
      if (!want && !nabla_threw) return fail(where, "error entry, but nabla accepted the input");
      if (nabla_threw && nabla_error.find(e_->error_fragment) == std::string::npos)
        return fail(where, "nabla's message lacks '" + e_->error_fragment + "': " + nabla_error);
    }
    if (!torch_error.empty()) {
      if (!nabla_threw)
        return fail(where, "LibTorch threw, nabla did not: " + torch_error.substr(0, 200));
      ++coverage().expected_errors;
      return;
    }
    // Without a reference, a nabla::Error cannot be judged (LibTorch rejects many of the
    // table's inputs too: bool to a float op, a view of a transposed tensor).
    if (nabla_threw) {
      if (e_->error_fragment.empty()) ++coverage().unjudged_errors;
      return;
    }
    if (want) want->compare(got, where, fail);
    if constexpr (!kWithLibTorch) check_new_memory_unread(s, got, where, fail);
    // Out-of-place ops must leave their inputs alone (in-place entries clone first).
    for (size_t i = 0; i < s.inputs.size(); ++i) {
      std::string diff = inputs_before.changed(s.inputs, i);
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
      std::string diff = exact_diff(direct[i], got[i]);
      if (!diff.empty()) fail(where, "ops::call output " + std::to_string(i) + ": " + diff);
    }
  }

  // The direct call traced into a static graph (graph::trace) must give exactly its
  // outputs when the graph runs; the graph's node for an entry called by name should be
  // one node of that op (Registry.EveryRegisteredOpIsTraced counts them). Random ops see
  // the same seed both times.
  template <class Fail>
  void check_traced(const Sample& s, const std::string& where, Fail& fail) {
    ++coverage().traced_cases;
    constexpr uint64_t kSeed = 20261125;
    auto fn = [this](const std::vector<nabla::Tensor>& in) { return e_->nabla_fn(in).list; };
    nabla::graph::Graph graph;
    try {
      graph = nabla::graph::trace(fn, s.inputs);
    } catch (const nabla::Error& err) {
      // A random factory is refused by design (ops::kRandomFactory).
      if (std::string(err.what()).find(nabla::ops::kRandomFactory) != std::string::npos)
        coverage().traced_as_node.insert(e_->call_name);
      else
        coverage().untraced.emplace(e_->call_name, e_->group + "." + e_->name + ": " + err.what());
      return;
    }
    const std::vector<nabla::graph::Value>& outs = graph.outputs();
    // A factory without tensor inputs (zeros, arange) is a constant of the graph.
    const bool factory = nabla::ops::schema(e_->call_name).max_inputs == 0;
    // Else one node of the op whose inputs are leaves; detach nodes around it do not count
    // (entries of ops LibTorch cannot differentiate detach their inputs or outputs).
    auto skip_detach = [this](nabla::graph::Value v) {
      while (v.op() == "detach" && e_->call_name != "detach") v = v.inputs()[0];
      return v;
    };
    bool own_node = !outs.empty();
    if (own_node && factory) own_node = outs[0].op().empty();
    if (own_node && !factory) {
      nabla::graph::Value node = skip_detach(outs[0]);
      own_node = node.op() == e_->call_name;
      for (const nabla::graph::Value& in : node.inputs())
        own_node = own_node && skip_detach(in).op().empty();
    }
    if (own_node) coverage().traced_as_node.insert(e_->call_name);
    std::vector<nabla::Tensor> direct, got;
    try {
      nabla::manual_seed(kSeed);
      direct = fn(s.inputs);
      nabla::manual_seed(kSeed);
      got = graph.forward(outs);
    } catch (const std::exception& err) {
      return fail(where, std::string("traced graph: threw ") + err.what());
    }
    if (got.size() != direct.size())
      return fail(where, "traced graph gave " + std::to_string(got.size()) +
                             " outputs, the direct call " + std::to_string(direct.size()));
    for (size_t i = 0; i < got.size(); ++i) {
      std::string diff = exact_diff(direct[i], got[i]);
      if (!diff.empty()) fail(where, "traced graph output " + std::to_string(i) + ": " + diff);
    }
  }

  // Without a reference, NaN from poisoned new memory (Note [Poisoned new memory]) would
  // pass unseen: the forward runs again on zero-filled new memory and must give exactly the
  // same outputs. A kernel that adds into its output, or leaves part of it unwritten, does not.
  template <class Fail>
  void check_new_memory_unread(const Sample& s, const std::vector<nabla::Tensor>& got,
                               const std::string& where, Fail& fail) {
    if (nabla::new_memory_fill() < 0) return;
    ++coverage().zero_fill_cases;
    std::vector<nabla::Tensor> again;
    try {
      ScopedNewMemoryFill zeros(0);
      again = e_->nabla_fn(s.inputs).list;
    } catch (const std::exception& err) {
      return fail(where, std::string("threw on zero-filled new memory: ") + err.what());
    }
    if (again.size() != got.size()) return fail(where, "output count depends on new memory");
    for (size_t i = 0; i < got.size(); ++i) {
      std::string diff = exact_diff(again[i], got[i]);
      if (!diff.empty())
        fail(where, "output " + std::to_string(i) +
                        " reads new memory (zero-filled: want, NaN-filled: got): " + diff);
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
    if constexpr (kWithLibTorch) {
      std::cout << "\n[conformance] ran " << c.entries_run << " entries, " << c.cases
                << " value cases (" << c.expected_errors
                << " where both LibTorch and nabla rejected the input), " << c.promotion_cases
                << " dtype-promotion cases, " << c.error_cases << " error cases\n";
      std::cout << "[conformance] gradients: " << c.grad_cases << " samples against LibTorch, "
                << c.gradcheck_cases << " against finite differences, " << c.gradgrad_cases
                << " second-derivative checks\n";
    } else {
      std::cout << "\n[conformance] built without LibTorch: nabla's side only, no value "
                   "comparisons (Note [Table without LibTorch])";
      std::cout << "\n[conformance] ran " << c.entries_run << " entries, " << c.cases
                << " forward cases (" << c.unjudged_errors
                << " where nabla rejected the input, not judged without LibTorch), "
                << c.error_cases << " error cases\n";
      std::cout << "[conformance] gradients: " << c.backward_cases << " samples' backward, "
                << c.gradcheck_cases << " against finite differences, " << c.gradgrad_cases
                << " second-derivative checks\n";
    }
    std::cout << "[conformance] ops::call: " << c.by_name_cases << " cases by name, "
              << c.called_by_name.size() << " of " << nabla::ops::all_schemas().size()
              << " registered ops\n";
    std::cout << "[conformance] graph::trace: " << c.traced_cases << " cases traced, "
              << c.traced_as_node.size() << " of " << nabla::ops::all_schemas().size()
              << " registered ops traced as one node of their own\n";
    if constexpr (!kWithLibTorch)
      std::cout << "[conformance] poisoned new memory: " << c.zero_fill_cases << " forwards and "
                << c.zero_fill_grads << " backwards rerun on zero-filled memory"
                << (nabla::new_memory_fill() < 0 ? " (NABLA_POISON_NEW_MEMORY not set)" : "")
                << "\n";
    if constexpr (kWithLibTorch) {
      std::cout << "[conformance] node names: " << c.node_name_checks << " grad_fn names compared, "
                << c.node_name_differences.size() << " entries differ from LibTorch's (failures), "
                << c.marked_node_names.size() << " marked node_name_differs\n";
      for (const auto& [entry, what] : c.node_name_differences)
        std::cout << "[conformance]   " << entry << ": " << what << "\n";
      for (const auto& [entry, what] : c.marked_node_names)
        std::cout << "[conformance]   marked " << entry << ": " << what << "\n";
    }
    if (!c.known_differences.empty()) {
      std::cout << "[conformance] " << c.known_differences.size() << " known differences:";
      for (const auto& k : c.known_differences) std::cout << " " << k;
      std::cout << "\n";
    }
  }
};

// Runs after every entry: each registered op must have been traced (graph::trace) into one
// node of its own by some entry called by name (a factory without tensor inputs: into a
// constant, or refused if it draws random numbers). Skipped when a filter left entries out.
class EveryRegisteredOpIsTraced : public ::testing::Test {
 public:
  void TestBody() override {
    const Coverage& c = coverage();
    if (c.entries_run != static_cast<int>(registry().size()))
      GTEST_SKIP() << "only " << c.entries_run << " of " << registry().size() << " entries ran";
    std::string missing;
    int n = 0;
    for (const nabla::ops::OpSchema* op : nabla::ops::all_schemas()) {
      if (c.traced_as_node.count(op->name)) continue;
      ++n;
      auto why = c.untraced.find(op->name);
      missing += "\n  " + op->name + ": " +
                 (why != c.untraced.end() ? why->second : "traced, but not as one node of its own");
    }
    EXPECT_EQ(n, 0) << n << " registered ops not traced as a node of their own:" << missing;
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
  ::testing::RegisterTest("TraceCoverage", "EveryRegisteredOpIsTraced", nullptr, nullptr, __FILE__,
                          __LINE__,
                          []() -> ::testing::Test* { return new EveryRegisteredOpIsTraced; });
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
  if constexpr (conform::kWithLibTorch) conform::setup_libtorch();
  conform::register_tests();
  ::testing::AddGlobalTestEnvironment(new conform::CoverageReport);
  return RUN_ALL_TESTS();
}
