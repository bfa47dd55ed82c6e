#pragma once
// The conformance table: one entry per op (STYLE.md item 8) drives a value check against
// LibTorch. An entry is written once, as a generic lambda over the inputs, and runs on
// both libraries: nabla's API spells ops as LibTorch does, so `x[0].add(x[1], 2)` or
// `matmul(x[0], x[1])` (found by argument-dependent lookup) compiles for nabla::Tensor
// and at::Tensor alike. See docs/testing.md.
//
// This header is ATen-free, so the driver compiles fast and builds without libtorch-dev.
// Table files include table.h, which adds the LibTorch side (libtorch_side.h) in a build
// with NABLA_CONFORMANCE_LIBTORCH, and compiles it away without (Note [Table without
// LibTorch], table.h). nabla and at stay in their namespaces.
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <nabla/ops/registry.h>

#include "samples.h"

#ifndef NABLA_CONFORMANCE_LIBTORCH
#error "NABLA_CONFORMANCE_LIBTORCH must be 0 or 1 (tests/conformance/CMakeLists.txt sets it)"
#endif

namespace conform {

using NTensor = nabla::Tensor;

/// True in a build that compares the table with LibTorch; without it, the driver runs
/// nabla's side of every check that needs no reference (Note [Table without LibTorch]).
inline constexpr bool kWithLibTorch = NABLA_CONFORMANCE_LIBTORCH;

/// `t` spelled for the library of the tensor argument, so a generic lambda can write
/// `x[0].to(dtype_for(x[0], nabla::kDouble))`. (The at::Tensor overloads of dtype_for,
/// index_tensor and bool_tensor are in libtorch_side.h.)
inline nabla::ScalarType dtype_for(const NTensor&, nabla::ScalarType t) { return t; }
/// A constant int64 tensor of the library of `like`.
inline NTensor index_tensor(const NTensor& like, std::vector<int64_t> v) {
  return nabla::tensor(v, like.options().dtype(nabla::kLong));
}

/// A 0-d bool tensor of the library that T belongs to (for ops returning bool).
template <class T>
T bool_tensor(bool b);
template <>
inline NTensor bool_tensor<NTensor>(bool b) {
  return nabla::scalar_tensor(b, nabla::kBool);
}

/// An op's outputs, normalised to a list: one tensor, a (values, indices) tuple or a
/// vector (split, chunk, unbind) all compare element by element.
template <class T>
struct Outputs {
  std::vector<T> list;
  Outputs(T t) : list{std::move(t)} {}
  Outputs(bool b) : list{bool_tensor<T>(b)} {}
  Outputs(std::tuple<T, T> t) : list{std::get<0>(t), std::get<1>(t)} {}
  Outputs(std::vector<T> v) : list(std::move(v)) {}
};
using NFn = std::function<Outputs<NTensor>(const std::vector<NTensor>&)>;
/// The entry's function for at::Tensor (libtorch_side.h).
struct TorchFn;

/// Tolerances for float32 and float64 results: |got - want| <= atol + rtol * |want|.
/// Integer and bool results always compare exactly.
struct Tol {
  double rtol32 = 1e-5, atol32 = 1e-6;
  double rtol64 = 1e-10, atol64 = 1e-12;
  /// 16-bit runs (reduced_checks.cpp): allowed error in units of one rounding, for an
  /// entry that rounds more than once (a composite of several ops).
  double scale16 = 1;
};

struct OpEntry {
  std::string group;  // "elementwise", "views", "reductions", ...
  std::string name;   // unique within the group; becomes the test name
  Gen gen;
  NFn nabla_fn;
  /// The LibTorch side; null in a build without LibTorch.
  std::shared_ptr<const TorchFn> torch_fn;
  std::vector<nabla::ScalarType> dtypes = kFloats;
  Tol tol = {};
  /// Error entries: every sample must make LibTorch throw, and nabla must throw a
  /// nabla::Error whose message contains this fragment (the op's name).
  std::string error_fragment;
  /// A known, reported difference from LibTorch (why, and whose area). The entry still
  /// runs; a mismatch is reported as a skip with its first difference rather than a
  /// failure, so the suite stays green until the owner fixes it and drops the marker.
  std::string known_difference;
  /// Views: also compare strides and storage offset (a view must alias like LibTorch's).
  bool check_strides = false;
  /// Gradient checks in float64 on the entry's samples, on for every entry that is not
  /// an error entry (floating tensor inputs are differentiated; integer inputs such as
  /// targets pass through): every input's gradient against LibTorch's for the same random
  /// output gradients, and against central finite differences (gradcheck) on samples of
  /// at most kGradcheckMaxElems input elements; `gradgrad` adds gradgradcheck (second
  /// derivatives). An op without a differentiable output in either library is skipped.
  bool grad = true;
  bool gradgrad = false;
  /// Why finite differences cannot check this entry (e.g. it computes through float32,
  /// or its samples sit on a jump), empty when they can. The LibTorch comparison still runs.
  std::string no_finite_differences;
  /// Finite differences only on samples whose floating inputs hold no repeated value:
  /// for max/min/sort-like ops, ties are points where the op has no derivative.
  bool fd_distinct = false;
  /// The same op through ops::call(call_name, inputs, call_attrs): the harness checks
  /// that it gives exactly the direct call's outputs (or the same error). Empty: the
  /// entry is not checked by name (it composes several ops, or is not in the registry).
  std::string call_name;
  nabla::ops::Attributes call_attrs;
  /// Why the 16-bit runs (reduced_checks.cpp) leave this entry out, empty when they check it.
  std::string no16;
  /// Why this entry's grad_fn names may differ from LibTorch's, empty when they must match
  /// (a difference is then a failure, even in an entry with a known value difference).
  std::string node_name_difference;
  /// Inputs worth timing for bench/bench_ops.cpp (a training-sized sample, e.g. W3's
  /// shapes); empty: the benchmark times the largest of gen's samples.
  Gen bench;
};

/// Optional settings of an entry, chained: `Opt().dtypes(kFloatsAndLong).tol32(1e-4, 1e-5)`.
struct Opt {
  std::vector<nabla::ScalarType> types = kFloats;
  Tol t;
  std::string error_fragment;
  std::string known;
  bool strides = false;
  Opt& dtypes(std::vector<nabla::ScalarType> d) {
    types = std::move(d);
    return *this;
  }
  Opt& tol32(double r, double a) {
    t.rtol32 = r;
    t.atol32 = a;
    return *this;
  }
  Opt& tol64(double r, double a) {
    t.rtol64 = r;
    t.atol64 = a;
    return *this;
  }
  /// The entry's 16-bit results may be `scale` roundings off (see Tol::scale16).
  Opt& tol16(double scale) {
    t.scale16 = scale;
    return *this;
  }
  /// Leave the entry out of the 16-bit runs, saying why (see OpEntry::no16).
  Opt& no16(std::string why) {
    no16_reason = std::move(why);
    return *this;
  }
  std::string no16_reason;
  Opt& throws(std::string fragment) {
    error_fragment = std::move(fragment);
    return *this;
  }
  Opt& differs(std::string why) {
    known = std::move(why);
    return *this;
  }
  Opt& view() {
    strides = true;
    return *this;
  }
  bool gradgrad_checks = false, distinct = false;
  std::string no_fd_reason;
  Gen bench_gen;
  std::string by_name;
  nabla::ops::Attributes by_name_attrs;
  std::string node_names_why;
  /// The entry's grad_fn names may differ from LibTorch's, for the reason given (see
  /// OpEntry::node_name_difference).
  Opt& node_name_differs(std::string why) {
    node_names_why = std::move(why);
    return *this;
  }
  /// Also run the entry as ops::call(name, inputs, attrs) and require the direct call's
  /// outputs exactly (see OpEntry::call_name).
  Opt& call(std::string name, nabla::ops::Attributes attrs = {}) {
    by_name = std::move(name);
    by_name_attrs = std::move(attrs);
    return *this;
  }
  /// The sample bench_ops times (see OpEntry::bench).
  Opt& bench(Gen g) {
    bench_gen = std::move(g);
    return *this;
  }
  /// Also check second derivatives (gradgradcheck).
  Opt& gradgrad() {
    gradgrad_checks = true;
    return *this;
  }
  /// Skip finite differences for this entry, saying why.
  Opt& no_fd(std::string why) {
    no_fd_reason = std::move(why);
    return *this;
  }
  /// Finite differences only where the sample has no ties (see OpEntry::fd_distinct).
  Opt& fd_distinct() {
    distinct = true;
    return *this;
  }
};

/// Reasons the 16-bit runs leave an entry out (Opt::no16), used by several tables.
inline constexpr const char* kIscloseRounded =
    "the tolerances meet rounded differences: elements near the tolerance flip";
inline constexpr const char* kFloat32Verdict =
    "its verdict compares values with a float32 tolerance; 16-bit values are rounded";

/// The LibTorch side of an entry from its lambda for at::Tensor: defined in
/// libtorch_side.h, or (without LibTorch) in table.h to drop the lambda uninstantiated.
template <class F>
std::shared_ptr<const TorchFn> torch_side(const F& ft);

/// An entry whose two sides must be spelled differently (factories: nabla::zeros and
/// at::zeros take no tensor argument for lookup to find). The LibTorch lambda is wrapped
/// in LIBTORCH(...) so that a build without LibTorch drops it (table.h).
template <class FN, class FT>
OpEntry op2(std::string group, std::string name, Gen gen, FN fn, FT ft, const Opt& o = {}) {
  OpEntry e;
  e.group = std::move(group);
  e.name = std::move(name);
  e.gen = std::move(gen);
  e.nabla_fn = [fn](const std::vector<NTensor>& x) -> Outputs<NTensor> { return fn(x); };
  e.torch_fn = torch_side(ft);
  e.dtypes = o.types;
  e.tol = o.t;
  e.error_fragment = o.error_fragment;
  e.known_difference = o.known;
  e.check_strides = o.strides;
  e.grad = o.error_fragment.empty();
  e.gradgrad = o.gradgrad_checks;
  e.no_finite_differences = o.no_fd_reason;
  e.fd_distinct = o.distinct;
  e.bench = o.bench_gen;
  e.call_name = o.by_name;
  e.call_attrs = o.by_name_attrs;
  e.node_name_difference = o.node_names_why;
  e.no16 = o.no16_reason;
  return e;
}

/// An entry from one generic lambda, instantiated for both libraries (for nabla::Tensor
/// only in a build without LibTorch).
template <class F>
OpEntry op(std::string group, std::string name, Gen gen, F f, const Opt& o = {}) {
  return op2(std::move(group), std::move(name), std::move(gen), f, f, o);
}

/// The table. Each table file adds its entries at static-initialisation time:
///   static const bool registered = conform::add_entries({ op(...), ... });
std::vector<OpEntry>& registry();
bool add_entries(std::vector<OpEntry> entries);

/// The inputs (by position) of a sample to differentiate: all floating ones, or, when
/// LibTorch refuses to differentiate some (nll_loss's weight, the target of
/// binary_cross_entropy_with_logits), those it accepts one at a time. Empty when the
/// sample is an error case for LibTorch.
std::vector<size_t> differentiable_inputs(const OpEntry& e,
                                          const std::vector<nabla::Tensor>& inputs);

/// Counters for the coverage summary printed at the end of the run.
struct Coverage {
  int entries_run = 0;
  long cases = 0;            // (sample, dtype, seed) triples compared
  long expected_errors = 0;  // cases where LibTorch threw and nabla threw nabla::Error
  long unjudged_errors = 0;  // without LibTorch: cases nabla rejected (no reference to agree)
  long promotion_cases = 0;
  long error_cases = 0;
  long grad_cases = 0;       // samples whose gradients were compared with LibTorch's
  long backward_cases = 0;   // samples whose backward ran in nabla (with or without LibTorch)
  long gradcheck_cases = 0;  // samples checked against finite differences
  long gradgrad_cases = 0;
  long by_name_cases = 0;    // cases run again through ops::call
  long zero_fill_cases = 0;  // without LibTorch: forwards rerun on zero-filled new memory
  long zero_fill_grads = 0;  // without LibTorch: backwards rerun on zero-filled new memory
  std::set<std::string> called_by_name;  // registry ops some entry calls by name
  long traced_cases = 0;                 // cases whose direct call ran again as a traced graph
  std::set<std::string> traced_as_node;  // registry ops some entry traced into one node of theirs
  std::map<std::string, std::string> untraced;  // registry op -> an entry's trace error
  long node_name_checks = 0;                    // outputs whose grad_fn name was compared
  std::map<std::string, std::string> node_name_differences;  // entry -> difference (fails)
  std::map<std::string, std::string> marked_node_names;      // entry -> difference (why)
  std::vector<std::string> known_differences;                // entries that still differ
};
Coverage& coverage();

}  // namespace conform
