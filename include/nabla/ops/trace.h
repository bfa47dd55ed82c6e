#pragma once
// Tracing ops into a static graph (graph::trace, docs/graph.md "Tracing"). While a tracer
// is installed on a thread, each traced op called at the top level of the traced code
// hands its name, inputs and attributes (as ops::call takes them) to the tracer, which
// computes the outputs one level down, where ops run untraced, and records a node.
// An op opts in with one line at its entry: NABLA_TRACED(name, inputs, attrs).
#include <string_view>
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

/// The defined tensors of `inputs`, in order (optional inputs such as a bias are left out,
/// as ops::call takes them).
std::vector<Tensor> defined_inputs(std::initializer_list<Tensor> inputs);
/// A Scalar as an attribute: Int when integral, else Double.
AttrValue scalar_attr(const Scalar& s);

}  // namespace nabla::ops

/// At a traced op's entry: while tracing, record the op and return its first output.
/// `inputs` is one expression (ops::defined_inputs({...})); the attributes follow, each
/// {"name", value}.
#define NABLA_TRACED(name, inputs, ...)                                    \
  if (::nabla::ops::Tracer* nabla_tracer_ = ::nabla::ops::active_tracer()) \
  return nabla_tracer_->record(name, inputs, ::nabla::ops::Attributes{__VA_ARGS__})[0]
