// The thread's tracer (include/nabla/ops/trace.h).
#include "nabla/ops/trace.h"

#include "nabla/core/error.h"

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

std::vector<Tensor> call_inputs(std::initializer_list<Tensor> inputs) {
  std::vector<Tensor> out(inputs);
  while (!out.empty() && !out.back().defined()) out.pop_back();
  return out;
}

AttrValue scalar_attr(const Scalar& s) {
  if (s.isIntegral(false)) return s.toLong();
  return s.toDouble();
}

Attributes traced_attrs(std::initializer_list<TracedAttr> attrs) {
  Attributes out;
  out.reserve(attrs.size());
  for (const TracedAttr& a : attrs)
    if (a.value) out.emplace_back(a.name, *a.value);
  return out;
}

void refuse_while_tracing(const char* op, const char* why) {
  NABLA_CHECK(active_tracer() == nullptr, "graph::trace: ", op, " ", why);
}

}  // namespace nabla::ops
