// Overload parity: the calls in overload_calls.inc are compiled twice, once against
// LibTorch (lib = torch) and once against nabla (lib = nabla), and must mean the same
// thing in both: the same result dtype, sizes and values, or an error in both. A call
// that binds another overload in nabla (x.var(1) reducing everything instead of dim 1)
// shows as a difference here; a call that does not compile against nabla stops the build.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include <nabla/nabla.h>

namespace parity {

/// One recorded value: a tensor (dtype, sizes, values), a number, or an error.
struct Rec {
  std::string dtype;
  std::vector<int64_t> sizes;
  std::vector<double> values;
  bool error = false;
};
using Record = std::map<std::string, std::vector<Rec>>;

struct Recorder {
  Record record;
  std::vector<std::string> order;
};

template <class T>
std::vector<Rec> number_rec(T value) {
  Rec r;
  r.dtype = std::is_same_v<T, bool> ? "bool" : std::is_integral_v<T> ? "int" : "double";
  r.values = {static_cast<double>(value)};
  return {r};
}

}  // namespace parity

// The per-library half: `lib` names the library, to_recs flattens its results.
#define PARITY_LIBRARY(ns, library)                                                           \
  namespace ns {                                                                              \
  namespace lib = library;                                                                    \
  using parity::Rec;                                                                          \
  using parity::Recorder;                                                                     \
  inline std::string dtype_name(const lib::Tensor& t) {                                       \
    const auto s = t.scalar_type();                                                           \
    if (s == lib::kFloat) return "float32";                                                   \
    if (s == lib::kDouble) return "float64";                                                  \
    if (s == lib::kLong) return "int64";                                                      \
    if (s == lib::kInt) return "int32";                                                       \
    if (s == lib::kByte) return "uint8";                                                      \
    if (s == lib::kBool) return "bool";                                                       \
    return "other";                                                                           \
  }                                                                                           \
  inline std::vector<Rec> to_recs(const lib::Tensor& t) {                                     \
    Rec r;                                                                                    \
    if (!t.defined()) {                                                                       \
      r.dtype = "undefined";                                                                  \
      return {r};                                                                             \
    }                                                                                         \
    r.dtype = dtype_name(t);                                                                  \
    for (int64_t d = 0; d < t.dim(); ++d) r.sizes.push_back(t.size(d));                       \
    lib::Tensor c = t.detach().to(lib::kDouble).contiguous();                                 \
    const double* p = c.template data_ptr<double>();                                          \
    r.values.assign(p, p + c.numel());                                                        \
    return {r};                                                                               \
  }                                                                                           \
  template <class T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>                      \
  std::vector<Rec> to_recs(T v) {                                                             \
    return parity::number_rec(v);                                                             \
  }                                                                                           \
  inline std::vector<Rec> to_recs(const std::vector<lib::Tensor>& ts) {                       \
    std::vector<Rec> out;                                                                     \
    for (const auto& t : ts) out.push_back(to_recs(t)[0]);                                    \
    return out;                                                                               \
  }                                                                                           \
  template <class... Ts>                                                                      \
  std::vector<Rec> to_recs(const std::tuple<Ts...>& tup) {                                    \
    std::vector<Rec> out;                                                                     \
    auto add = [&](const std::vector<Rec>& v) { out.insert(out.end(), v.begin(), v.end()); }; \
    std::apply([&](const auto&... e) { (add(to_recs(e)), ...); }, tup);                       \
    return out;                                                                               \
  }                                                                                           \
  template <class F>                                                                          \
  void record(Recorder& r, const char* expr, F&& f) {                                         \
    r.order.push_back(expr);                                                                  \
    try {                                                                                     \
      r.record[expr] = to_recs(f());                                                          \
    } catch (const std::exception&) {                                                         \
      Rec e;                                                                                  \
      e.error = true;                                                                         \
      r.record[expr] = {e};                                                                   \
    }                                                                                         \
  }                                                                                           \
  inline lib::Tensor first_tensor(const lib::Tensor& t) { return t; }                         \
  template <class T>                                                                          \
  lib::Tensor first_tensor(const T&) {                                                        \
    return {};                                                                                \
  }                                                                                           \
  template <class... Ts>                                                                      \
  lib::Tensor first_tensor(const std::tuple<Ts...>& tup) {                                    \
    return first_tensor(std::get<0>(tup));                                                    \
  }                                                                                           \
  /* A module: parameter names and shapes; then, with every parameter set to the same */      \
  /* deterministic values in both libraries, its eval-mode forward and the gradients of */    \
  /* a weighted sum of its first output with respect to the parameters. */                    \
  template <class F, class... In>                                                             \
  void record_module(Recorder& r, const char* expr, F&& make, const In&... in) {              \
    r.order.push_back(expr);                                                                  \
    try {                                                                                     \
      auto m = make();                                                                        \
      m->eval();                                                                              \
      std::vector<Rec> recs;                                                                  \
      const auto params = m->named_parameters();                                              \
      double phase = 0;                                                                       \
      for (const auto& p : params) {                                                          \
        Rec q;                                                                                \
        q.dtype = "parameter " + p.key();                                                     \
        for (int64_t d = 0; d < p.value().dim(); ++d) q.sizes.push_back(p.value().size(d));   \
        recs.push_back(q);                                                                    \
        lib::NoGradGuard no_grad;                                                             \
        p.value().copy_(lib::arange(p.value().numel(), lib::kDouble)                          \
                            .mul(0.73)                                                        \
                            .add(phase += 1)                                                  \
                            .sin()                                                            \
                            .mul(0.3)                                                         \
                            .view(p.value().sizes()));                                        \
      }                                                                                       \
      const auto out = m->forward(in...);                                                     \
      for (const Rec& o : to_recs(out)) recs.push_back(o);                                    \
      const lib::Tensor first = first_tensor(out);                                            \
      if (first.defined() && first.requires_grad()) {                                         \
        const auto w = lib::arange(first.numel(), lib::kDouble).cos().view(first.sizes());    \
        (first * w.to(first.scalar_type())).sum().backward();                                 \
        for (const auto& p : params) {                                                        \
          Rec g = to_recs(p.value().grad())[0];                                               \
          g.dtype = "grad " + p.key() + " " + g.dtype;                                        \
          recs.push_back(g);                                                                  \
        }                                                                                     \
      }                                                                                       \
      r.record[expr] = recs;                                                                  \
    } catch (const std::exception&) {                                                         \
      Rec e;                                                                                  \
      e.error = true;                                                                         \
      r.record[expr] = {e};                                                                   \
    }                                                                                         \
  }                                                                                           \
  }

PARITY_LIBRARY(with_torch, torch)
PARITY_LIBRARY(with_nabla, nabla)

#define CALL(expr) record(r, #expr, [&] { return (expr); })
#define MODULE(holder, ...) \
  record_module(            \
      r, #holder " <- " #__VA_ARGS__, [&] { return holder; }, __VA_ARGS__)
namespace with_torch {
#include "module_forms.inc"
#include "overload_calls.inc"
}  // namespace with_torch
namespace with_nabla {
#include "module_forms.inc"
#include "overload_calls.inc"
}  // namespace with_nabla
#undef MODULE
#undef CALL

namespace {

std::string describe(const parity::Rec& r) {
  std::ostringstream s;
  if (r.error) return "an error";
  s << r.dtype << " [";
  for (size_t i = 0; i < r.sizes.size(); ++i) s << (i ? ", " : "") << r.sizes[i];
  s << "] {";
  for (size_t i = 0; i < r.values.size() && i < 6; ++i) s << (i ? ", " : "") << r.values[i];
  if (r.values.size() > 6) s << ", ...";
  return s.str() + "}";
}

bool same(const parity::Rec& a, const parity::Rec& b) {
  if (a.error || b.error) return a.error == b.error;
  if (a.dtype != b.dtype || a.sizes != b.sizes || a.values.size() != b.values.size()) return false;
  for (size_t i = 0; i < a.values.size(); ++i) {
    const double x = a.values[i], y = b.values[i];
    if (std::isnan(x) || std::isnan(y)) {
      if (std::isnan(x) != std::isnan(y)) return false;
      continue;
    }
    if (std::abs(x - y) > 1e-5 + 1e-5 * std::abs(x)) return false;
  }
  return true;
}

}  // namespace

namespace {

// Calls where nabla deliberately differs from LibTorch 1.13, with the reason (also in
// docs/compat.md). They must still differ: one that starts to agree is reported, so the
// list cannot go stale.
const std::map<std::string, std::string> kKnownDifferences = {
    {"F::smooth_l1_loss(m,m.flip(0),F::SmoothL1LossFuncOptions().beta(0.5))",
     "LibTorch 1.13's F::smooth_l1_loss ignores options.beta() (uses its extra `beta` argument, "
     "default 1); "
     "nabla honours the option, as later LibTorch releases do"},
    {"nn::MultiheadAttention(4,2)<-rnn_in,rnn_in,rnn_in,pad,true,causal",
     "LibTorch 1.13's C++ multi_head_attention_forward adds a bool attn_mask to the scores "
     "(true adds 1); nabla masks where true, as PyTorch documents and its Python API does"},
};

// The key of a call in kKnownDifferences: its text without spaces (the formatter may
// break a call over lines).
std::string without_spaces(std::string s) {
  s.erase(std::remove_if(s.begin(), s.end(), [](unsigned char c) { return std::isspace(c); }),
          s.end());
  return s;
}

// Runs both records and reports every call whose results differ.
void compare(const parity::Recorder& t, const parity::Recorder& n, const char* what) {
  ASSERT_EQ(t.order, n.order);
  int differences = 0, torch_errors = 0;
  for (const auto& expr : t.order) {
    const auto& a = t.record.at(expr);
    const auto& b = n.record.at(expr);
    torch_errors += a.size() == 1 && a[0].error;
    bool ok = a.size() == b.size();
    for (size_t i = 0; ok && i < a.size(); ++i) ok = same(a[i], b[i]);
    if (auto known = kKnownDifferences.find(without_spaces(expr));
        known != kKnownDifferences.end()) {
      EXPECT_FALSE(ok) << expr << " is listed as a known difference (" << known->second
                       << ") but now agrees with LibTorch: drop it from the list";
      continue;
    }
    if (!ok) {
      ++differences;
      std::ostringstream msg;
      msg << expr << ":\n";
      for (size_t i = 0; i < std::max(a.size(), b.size()); ++i)
        msg << "  LibTorch " << (i < a.size() ? describe(a[i]) : "-") << "\n  nabla    "
            << (i < b.size() ? describe(b[i]) : "-") << "\n";
      ADD_FAILURE() << msg.str();
    }
  }
  std::cout << t.order.size() << " " << what << " compared, " << differences << " differ\n";
  // Every entry is meant to succeed: one that throws in LibTorch is a mistake in the list.
  EXPECT_EQ(torch_errors, 0)
      << "an entry throws in LibTorch: the list should hold valid calls only";
}

}  // namespace

TEST(OverloadParity, SameCallSameMeaning) {
  torch::manual_seed(0);
  nabla::manual_seed(0);
  parity::Recorder t, n;
  with_torch::run_calls(t);
  with_nabla::run_calls(n);
  compare(t, n, "calls");
}

TEST(OverloadParity, ModuleConstructionForms) {
  torch::manual_seed(0);
  nabla::manual_seed(0);
  parity::Recorder t, n;
  with_torch::run_modules(t);
  with_nabla::run_modules(n);
  compare(t, n, "module forms");
}
