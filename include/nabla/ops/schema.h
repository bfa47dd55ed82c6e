#pragma once
// The contexts of the schema rows (Note [Op schemas], nabla/core/op_list/schema_macros.h)
// that reach ops: the implementations' declarations, the public bodies (tracing), the
// registry entries and the graph builders; and the C++ they use (OpArgs, schema_default).
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "nabla/core/op_list/schema_macros.h"
#include "nabla/core/optional.h"
#include "nabla/core/tensor.h"
#include "nabla/ops/autocast.h"
#include "nabla/ops/trace.h"

// The same for a graph builder: tensors are graph::Values.
#define NABLA_ARG_GRAPH_DECL(cat, type, store, get, atype, n, ...) \
  NABLA_GRAPH_TYPE_##cat(type) n NABLA_DEFAULT_ASSIGN(__VA_ARGS__)
#define NABLA_ARG_GRAPH_PARAM(cat, type, store, get, atype, n, ...) NABLA_GRAPH_TYPE_##cat(type) n
#define NABLA_GRAPH_TYPE_IN(type) const ::nabla::graph::Value&
#define NABLA_GRAPH_TYPE_OPT_IN(type) const ::nabla::graph::Value&
#define NABLA_GRAPH_TYPE_OPT_TENSOR(type) const ::nabla::graph::Value&
#define NABLA_GRAPH_TYPE_LIST(type) const std::vector<::nabla::graph::Value>&
#define NABLA_GRAPH_TYPE_ATTR(type) type
#define NABLA_GRAPH_TYPE_OPT_ATTR(type) type
#define NABLA_GRAPH_TYPE_OPTIONS(type) type
#define NABLA_GRAPH_TYPE_MEMORY_FORMAT(type) type
// A call's inputs and attributes as ops::call takes them (OpArgs).
#define NABLA_ARG_CALL(cat, type, store, get, atype, n, ...) NABLA_CALL_##cat(n)
#define NABLA_CALL_IN(n) .in(n)
#define NABLA_CALL_OPT_IN(n) .in(n)
#define NABLA_CALL_OPT_TENSOR(n) .in(n)
#define NABLA_CALL_LIST(n) .list(n)
#define NABLA_CALL_ATTR(n) .attr(#n, n)
#define NABLA_CALL_OPT_ATTR(n) .attr(#n, n)
#define NABLA_CALL_OPTIONS(n) .options(n)
#define NABLA_CALL_MEMORY_FORMAT(n) .memory_format(n)
// The registry entry: its schema (SchemaRow), the type an argument is read into and the
// read itself, from the cursor `c` over the call's inputs and attributes (ArgCursor).
#define NABLA_ARG_SPEC(cat, type, store, get, atype, n, ...) \
  NABLA_SPEC_##cat(type, atype, n __VA_OPT__(, ) __VA_ARGS__)
#define NABLA_SPEC_IN(type, atype, n) .input(#n)
#define NABLA_SPEC_OPT_IN(type, atype, n, ...) .optional_input(#n)
#define NABLA_SPEC_OPT_TENSOR(type, atype, n, ...) .optional_input(#n)
#define NABLA_SPEC_LIST(type, atype, n) .input_list(#n)
// The registry's default of an attribute: its by-name default, else its C++ default.
#define NABLA_DEFAULT_VALUE(type, ...) __VA_OPT__(NABLA_DEFAULT_VALUE_(type, __VA_ARGS__))
#define NABLA_DEFAULT_VALUE_(type, cpp, ...) \
  NABLA_DEFAULT_VALUE__(type, NABLA_PP_FIRST(__VA_ARGS__ __VA_OPT__(, ) NABLA_PP_UNPAREN((cpp))))
#define NABLA_DEFAULT_VALUE__(type, ...) \
  __VA_OPT__(, ::nabla::ops::schema_default<type>(__VA_ARGS__))
#define NABLA_SPEC_ATTR(type, atype, n, ...) \
  .attr(#n, ::nabla::ops::AttrType::atype NABLA_DEFAULT_VALUE(type, __VA_ARGS__))
#define NABLA_SPEC_OPT_ATTR(type, atype, n, ...) .optional_attr(#n, ::nabla::ops::AttrType::atype)
#define NABLA_SPEC_OPTIONS(type, atype, n, ...) \
  .optional_attr("dtype", ::nabla::ops::AttrType::Dtype)
#define NABLA_SPEC_MEMORY_FORMAT(type, atype, n, ...)
#define NABLA_ARG_STORE(cat, type, store, get, atype, n, ...) store
#define NABLA_ARG_READ(cat, type, store, get, atype, n, ...) NABLA_READ_##cat(store, get, n)
#define NABLA_READ_IN(store, get, n) c.input()
#define NABLA_READ_OPT_IN(store, get, n) c.optional_input()
#define NABLA_READ_OPT_TENSOR(store, get, n) c.maybe_input()
#define NABLA_READ_LIST(store, get, n) c.input_list()
#define NABLA_READ_ATTR(store, get, n) c.attrs.get(#n)
#define NABLA_READ_OPT_ATTR(store, get, n) (c.attrs.has(#n) ? store(c.attrs.get(#n)) : store())
#define NABLA_READ_OPTIONS(store, get, n) c.options()
#define NABLA_READ_MEMORY_FORMAT(store, get, n) store()

// ---- What a row becomes beyond its declaration -----------------------------------------------
// Each file that expands every row (include/nabla/ops/schema/all.def) defines both
// NABLA_OP and NABLA_METHOD_OP; for all but the method's own definition, an op with a
// method is an op.

/// The public declaration again, without defaults (for a file that wants every op).
#define NABLA_OP_REDECLARE(name, result, ...) \
  NABLA_PP_UNPAREN(result) name(NABLA_SCHEMA_ARGS(PARAM, __VA_ARGS__));
/// The hand-written implementation's declaration (ops/detail/op_impls.h), and its
/// in-place kernel's for an INPLACE_IMPL row.
#define NABLA_OP_DECLARE_IMPL(name, result, ...)                                            \
  NABLA_PP_UNPAREN(result) name##_impl(NABLA_SCHEMA_ARGS(PARAM, __VA_ARGS__));              \
  NABLA_WITH_INPLACE_IMPL(NABLA_PP_FIRST(__VA_ARGS__), NABLA_OP_DECLARE_INPLACE_IMPL, name, \
                          __VA_ARGS__)
#define NABLA_OP_DECLARE_INPLACE_IMPL(name, ...) \
  const ::nabla::Tensor& name##_inplace_impl(NABLA_SCHEMA_ARGS(PARAM, __VA_ARGS__));
/// The public function: recorded while tracing, else the implementation; in a family
/// whose kernels compute 16-bit floats, an op without a 16-bit kernel of its own computes
/// a Half or BFloat16 tensor through float32 (ops::detail::computes_through_float32).
#define NABLA_OP_DEFINE(name, result, ...)                                                \
  NABLA_PP_UNPAREN(result) name(NABLA_SCHEMA_ARGS(PARAM, __VA_ARGS__)) {                  \
    NABLA_AUTOCAST_HOOK(name, result, __VA_ARGS__)                                        \
    if (::nabla::ops::Tracer* nabla_tracer_ = ::nabla::ops::active_tracer())              \
      return ::nabla::ops::OpArgs<::nabla::Tensor>() NABLA_SCHEMA_EACH(CALL, __VA_ARGS__) \
          .record(*nabla_tracer_, #name);                                                 \
    if (::nabla::ops::detail::any_reduced(NABLA_SCHEMA_ARGS(NAME, __VA_ARGS__)) &&        \
        ::nabla::ops::detail::computes_through_float32(#name)) [[unlikely]]               \
      return NABLA_THROUGH_FLOAT32(name, result, __VA_ARGS__);                            \
    return ::nabla::ops::name##_impl(NABLA_SCHEMA_ARGS(NAME, __VA_ARGS__));               \
  }
/// In an autocast region, an op on one of its lists runs on its arguments cast by its
/// policy (ops::detail::autocast_call, src/ops/autocast/autocast_call.h; Note [Autocast]).
#define NABLA_AUTOCAST_HOOK(name, result, ...)                                        \
  if (::nabla::autocast::detail::active()) [[unlikely]] {                             \
    static const auto nabla_policy_ = ::nabla::ops::detail::autocast_policy(#name);   \
    if (nabla_policy_ != ::nabla::ops::detail::CastPolicy::None)                      \
      return ::nabla::ops::detail::autocast_call<NABLA_PP_UNPAREN(result)>(           \
          #name, nabla_policy_, [](const auto&... a) { return ::nabla::name(a...); }, \
          NABLA_SCHEMA_ARGS(NAME, __VA_ARGS__));                                      \
  }
#define NABLA_THROUGH_FLOAT32(name, result, ...)                        \
  ::nabla::ops::detail::through_float32<NABLA_PP_UNPAREN(result)>(      \
      [](const auto&... a) { return ::nabla::ops::name##_impl(a...); }, \
      NABLA_SCHEMA_ARGS(NAME, __VA_ARGS__))

/// The public function of an op whose kernels have no 16-bit path: as NABLA_OP_DEFINE,
/// and given a Half or BFloat16 tensor, the implementation on float32 copies with its
/// results rounded back once (ops::detail::through_float32, src/ops/registry/through_float32.h).
#define NABLA_OP_DEFINE_F32(name, result, ...)                                                \
  NABLA_PP_UNPAREN(result) name(NABLA_SCHEMA_ARGS(PARAM, __VA_ARGS__)) {                      \
    NABLA_AUTOCAST_HOOK(name, result, __VA_ARGS__)                                            \
    if (::nabla::ops::Tracer* nabla_tracer_ = ::nabla::ops::active_tracer())                  \
      return ::nabla::ops::OpArgs<::nabla::Tensor>() NABLA_SCHEMA_EACH(CALL, __VA_ARGS__)     \
          .record(*nabla_tracer_, #name);                                                     \
    if (::nabla::ops::detail::any_reduced(NABLA_SCHEMA_ARGS(NAME, __VA_ARGS__))) [[unlikely]] \
      return NABLA_THROUGH_FLOAT32(name, result, __VA_ARGS__);                                \
    return ::nabla::ops::name##_impl(NABLA_SCHEMA_ARGS(NAME, __VA_ARGS__));                   \
  }

/// A factory's function (nabla/ops/schema/factories.def): the implementation; while tracing
/// its result is a constant of the graph, as any tensor made without traced inputs.
#define NABLA_FACTORY_DEFINE(name, result, ...)                             \
  NABLA_PP_UNPAREN(result) name(NABLA_SCHEMA_ARGS(PARAM, __VA_ARGS__)) {    \
    return ::nabla::ops::name##_impl(NABLA_SCHEMA_ARGS(NAME, __VA_ARGS__)); \
  }

/// The variants of a row (Note [Op schemas], "Variants"): the `_out` forms write the
/// function's result into `out`; the in-place form writes it into self.
#define NABLA_VARIANTS_DEFINE(name, result, ...)              \
  NABLA_WITH_OUT(result, NABLA_OUT_DEFINE, name, __VA_ARGS__) \
  NABLA_WITH_INPLACE(NABLA_PP_FIRST(__VA_ARGS__), NABLA_INPLACE_DEFINE, name, __VA_ARGS__)
#define NABLA_OUT_DEFINE(name, ...)                                                              \
  ::nabla::Tensor& name##_out(::nabla::Tensor& out, NABLA_SCHEMA_ARGS(PARAM, __VA_ARGS__)) {     \
    return ::nabla::detail::assign_out(out, ::nabla::name(NABLA_SCHEMA_ARGS(NAME, __VA_ARGS__)), \
                                       #name "_out");                                            \
  }                                                                                              \
  ::nabla::Tensor& name##_outf(NABLA_SCHEMA_ARGS(PARAM, __VA_ARGS__), ::nabla::Tensor& out) {    \
    return ::nabla::name##_out(out, NABLA_SCHEMA_ARGS(NAME, __VA_ARGS__));                       \
  }
#define NABLA_INPLACE_DEFINE(name, first, ...)                                                 \
  const ::nabla::Tensor& name##_(NABLA_SCHEMA_ARGS(PARAM, first __VA_OPT__(, ) __VA_ARGS__)) { \
    NABLA_PP_CAT(NABLA_INPLACE_BODY_, NABLA_HAS_INPLACE_IMPL(first))(name, first, __VA_ARGS__) \
  }
// INPLACE(self): the function's result written back; INPLACE_IMPL(self): the kernel.
#define NABLA_INPLACE_BODY_0(name, first, ...)                                      \
  return ::nabla::ops::inplace_from(                                                \
      NABLA_SCHEMA_ARG(NAME, first), #name "_", [&](const ::nabla::Tensor& self_) { \
        return ::nabla::name(self_ NABLA_SCHEMA_EACH(COMMA_NAME, __VA_ARGS__));     \
      });
#define NABLA_INPLACE_BODY_1(name, first, ...) \
  return ::nabla::ops::name##_inplace_impl(    \
      NABLA_SCHEMA_ARGS(NAME, first __VA_OPT__(, ) __VA_ARGS__));

/// The Tensor method of a NABLA_METHOD_OP row: the function called on *this (and its
/// in-place form's method).
#define NABLA_METHOD_DEFINE(name, result, self, ...)                                   \
  NABLA_PP_UNPAREN(result) Tensor::name(NABLA_SCHEMA_ARGS(PARAM, __VA_ARGS__)) const { \
    return ::nabla::name(*this NABLA_SCHEMA_EACH(COMMA_NAME, __VA_ARGS__));            \
  }                                                                                    \
  NABLA_WITH_INPLACE(self, NABLA_INPLACE_METHOD_DEFINE, name, __VA_ARGS__)
#define NABLA_INPLACE_METHOD_DEFINE(name, ...)                                 \
  const Tensor& Tensor::name##_(NABLA_SCHEMA_ARGS(PARAM, __VA_ARGS__)) const { \
    return ::nabla::name##_(*this NABLA_SCHEMA_EACH(COMMA_NAME, __VA_ARGS__)); \
  }

/// The graph builder (nabla/graph/graph.h): one node calling the op by name.
#define NABLA_OP_GRAPH_DECLARE(name, result, ...) \
  Value name(NABLA_SCHEMA_ARGS(GRAPH_DECL, __VA_ARGS__));
#define NABLA_OP_GRAPH_DEFINE(name, result, ...)                                    \
  Value name(NABLA_SCHEMA_ARGS(GRAPH_PARAM, __VA_ARGS__)) {                         \
    return detail::add_schema_node(                                                 \
        #name, ::nabla::ops::OpArgs<Value>() NABLA_SCHEMA_EACH(CALL, __VA_ARGS__)); \
  }

namespace nabla::graph {
class Value;
}  // namespace nabla::graph

namespace nabla::ops {

/// A schema default as an attribute value, read as the C++ parameter type T reads it
/// (INTS(stride, 1): IntArrayRef(1), the list {1}).
template <class T>
AttrValue schema_default(std::type_identity_t<T> v) {
  using U = std::remove_cvref_t<T>;
  if constexpr (std::is_same_v<U, IntArrayRef>)
    return v.vec();
  else if constexpr (std::is_same_v<U, std::string_view>)
    return std::string(v);
  else if constexpr (std::is_same_v<U, Scalar>)
    return scalar_attr(v);
  else if constexpr (std::is_same_v<U, bool> || std::is_same_v<U, ScalarType> ||
                     std::is_same_v<U, double>)
    return v;
  else
    return static_cast<int64_t>(v);
}

/// One call's inputs and attributes, as ops::call takes them, gathered in argument
/// order: In is Tensor (a traced call) or graph::Value (a graph builder). Undefined
/// inputs at the end (optional inputs not given) are left out; an attribute whose
/// optional is empty is left out.
template <class In>
class OpArgs {
 public:
  OpArgs& in(const In& v) {
    inputs_.push_back(v);
    return *this;
  }
  /// An optional input as LibTorch types it: absent is an undefined input.
  OpArgs& in(const optional<In>& v) {
    inputs_.push_back(v ? *v : In());
    return *this;
  }
  /// A factory's options: their dtype, the attribute `dtype` (what the registry reads);
  /// options it cannot hold (requires_grad) are refused while tracing.
  OpArgs& options(const TensorOptions& o) {
    if (o.requires_grad())
      refused_ = "with requires_grad in its options: the schema has no such attribute";
    if (o.has_memory_format() && *o.memory_format_opt() != MemoryFormat::Preserve)
      refused_ = "with a memory_format other than Preserve: the schema has no such attribute";
    return attr("dtype", o.dtype_opt());
  }
  /// A *_like factory's layout: only Preserve (or none) can be recorded.
  OpArgs& memory_format(optional<MemoryFormat> f) {
    if (f && *f != MemoryFormat::Preserve)
      refused_ = "with a memory_format other than Preserve: the schema has no such attribute";
    return *this;
  }
  /// Why the call cannot be recorded, or null.
  const char* refused() const { return refused_; }
  template <class List>
  OpArgs& list(const List& l) {
    for (const auto& v : l) inputs_.push_back(v);
    return *this;
  }
  template <class T>
  OpArgs& attr(const char* name, const T& value) {
    TracedAttr a(name, value);
    if (a.value) attrs_.emplace_back(std::move(a.name), std::move(*a.value));
    return *this;
  }
  /// The inputs without the trailing undefined ones.
  std::vector<In> inputs() const {
    std::vector<In> out = inputs_;
    while (!out.empty() && !out.back().defined()) out.pop_back();
    return out;
  }
  const Attributes& attrs() const { return attrs_; }
  /// Records op `op` on `tracer`; converts to the op's result type.
  TracedOutputs record(Tracer& tracer, const char* op) const {
    if (refused_) refuse_while_tracing(op, refused_);
    return TracedOutputs{tracer.record(op, inputs(), attrs_)};
  }

 private:
  std::vector<In> inputs_;
  Attributes attrs_;
  const char* refused_ = nullptr;
};

}  // namespace nabla::ops
