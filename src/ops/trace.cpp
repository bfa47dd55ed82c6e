// The thread's tracer (include/nabla/ops/trace.h).
#include "nabla/ops/trace.h"

namespace nabla::ops {

namespace {
thread_local Tracer* t_tracer = nullptr;
thread_local int t_untraced = 0;
}  // namespace

Tracer* active_tracer() { return t_untraced == 0 ? t_tracer : nullptr; }

TracerScope::TracerScope(Tracer* tracer) : previous_(t_tracer) { t_tracer = tracer; }
TracerScope::~TracerScope() { t_tracer = previous_; }

UntracedScope::UntracedScope() { ++t_untraced; }
UntracedScope::~UntracedScope() { --t_untraced; }

std::vector<Tensor> defined_inputs(std::initializer_list<Tensor> inputs) {
  std::vector<Tensor> out;
  for (const Tensor& t : inputs)
    if (t.defined()) out.push_back(t);
  return out;
}

AttrValue scalar_attr(const Scalar& s) {
  if (s.isIntegral(false)) return s.toLong();
  return s.toDouble();
}

}  // namespace nabla::ops
