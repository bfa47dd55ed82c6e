#pragma once
// Tracing ops into a static graph (graph::trace, docs/graph.md "Tracing"). While a tracer
// is installed on a thread, each traced op called at the top level of the traced code
// hands its name, inputs and attributes (as ops::call takes them) to the tracer, which
// computes the outputs one level down, where ops run untraced, and records a node.
// An op opts in with one line at its entry: NABLA_TRACED(name, inputs, attrs).
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "nabla/core/tensor.h"
#include "nabla/ops/registry.h"

namespace nabla::ops {

class Tracer {
 public:
  virtual ~Tracer() = default;
  /// Records op `op` and returns its outputs (computed by ops::call, untraced).
  virtual std::vector<Tensor> record(std::string_view op, const std::vector<Tensor>& inputs,
                                     const Attributes& attrs) = 0;
};

/// This thread's tracer, or null: none is installed, or an op is already being recorded.
Tracer* active_tracer();

/// Installs `tracer` on this thread while alive.
class TracerScope {
 public:
  explicit TracerScope(Tracer* tracer);
  ~TracerScope();
  TracerScope(const TracerScope&) = delete;
  TracerScope& operator=(const TracerScope&) = delete;

 private:
  Tracer* previous_;
};

/// While alive, ops on this thread run untraced (a tracer computing an op's outputs).
class UntracedScope {
 public:
  UntracedScope();
  ~UntracedScope();
  UntracedScope(const UntracedScope&) = delete;
  UntracedScope& operator=(const UntracedScope&) = delete;
};

/// `inputs` as ops::call takes them: undefined tensors at the end (optional inputs not
/// given, such as a bias) are left out; an undefined tensor before a defined one stays, as
/// an absent optional input that the op reads by position (batch_norm's weight before its
/// running stats), and the graph holds it as a constant without a value.
std::vector<Tensor> call_inputs(std::initializer_list<Tensor> inputs);
/// A Scalar as an attribute: Int when integral, else Double.
AttrValue scalar_attr(const Scalar& s);

/// One attribute of a traced call, as NABLA_TRACED takes it: {"name", value}, where the
/// value is anything an op's C++ signature holds for it (bool, an integer, double, a
/// string, IntArrayRef, ScalarType, Scalar, an AttrValue) or an optional of one; an empty
/// optional leaves the attribute out, as ops::call's caller would.
struct TracedAttr {
  template <class T>
  TracedAttr(std::string n, const T& v) : name(std::move(n)), value(to_value(v)) {}
  TracedAttr(std::string n, const char* v) : name(std::move(n)), value(AttrValue(std::string(v))) {}

  std::string name;
  optional<AttrValue> value;

 private:
  template <class T>
  static optional<AttrValue> to_value(const optional<T>& v) {
    if (!v) return nullopt;
    return to_value(*v);
  }
  static optional<AttrValue> to_value(const AttrValue& v) { return v; }
  static optional<AttrValue> to_value(bool v) { return AttrValue(v); }
  static optional<AttrValue> to_value(double v) { return AttrValue(v); }
  static optional<AttrValue> to_value(const std::string& v) { return AttrValue(v); }
  static optional<AttrValue> to_value(std::string_view v) { return AttrValue(std::string(v)); }
  static optional<AttrValue> to_value(IntArrayRef v) { return AttrValue(v.vec()); }
  static optional<AttrValue> to_value(const std::vector<int64_t>& v) { return AttrValue(v); }
  static optional<AttrValue> to_value(ScalarType v) { return AttrValue(v); }
  static optional<AttrValue> to_value(const Scalar& v) { return scalar_attr(v); }
  template <class T, class = std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>>>
  static optional<AttrValue> to_value(T v) {
    return AttrValue(static_cast<int64_t>(v));
  }
};

/// The attributes of a traced call, without those left out (TracedAttr).
Attributes traced_attrs(std::initializer_list<TracedAttr> attrs);

/// Throws if a tracer is recording on this thread, saying "graph::trace: <op> <why>": for
/// a call a static graph cannot hold, as a random factory (a graph would keep one draw as
/// a constant) or an explicit Generator (not an attribute).
void refuse_while_tracing(const char* op, const char* why);
/// `why` for the random factories.
inline constexpr const char* kRandomFactory =
    "draws random numbers from no input tensor; a static graph would keep one draw as a "
    "constant (make the noise outside and pass it as an input)";

/// A traced op's outputs, returned as the op's own result type: a Tensor (the first
/// output), a std::vector<Tensor> (split, chunk) or a std::tuple of tensors (max(dim),
/// sort).
struct TracedOutputs {
  std::vector<Tensor> list;
  operator Tensor() && { return std::move(list.at(0)); }
  operator std::vector<Tensor>() && { return std::move(list); }
  template <class... T>
  operator std::tuple<T...>() && {
    return take<T...>(std::index_sequence_for<T...>{});
  }

 private:
  template <class... T, size_t... I>
  std::tuple<T...> take(std::index_sequence<I...>) {
    return std::tuple<T...>(std::move(list.at(I))...);
  }
};

}  // namespace nabla::ops

/// At a traced op's entry: while tracing, record the op and return its outputs as the
/// op's result type (TracedOutputs). `inputs` is one expression (ops::call_inputs({...})
/// or a TensorList); the attributes follow, each {"name", value} (TracedAttr), named and
/// typed as the op's registry schema has them.
#define NABLA_TRACED(name, inputs, ...)                                              \
  if (::nabla::ops::Tracer* nabla_tracer_ = ::nabla::ops::active_tracer())           \
    return ::nabla::ops::TracedOutputs {                                             \
      nabla_tracer_->record(name, inputs, ::nabla::ops::traced_attrs({__VA_ARGS__})) \
    }
