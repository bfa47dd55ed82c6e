#pragma once
// The registry entries of the ops declared by schema rows (Note [Op schemas],
// include/nabla/ops/schema.h): a row's schema is built by a SchemaRow chain, its function
// reads the call's inputs and attributes through an ArgCursor, in argument order, and
// add_row files it, as an overload when an earlier row has its name.
#include <string>
#include <tuple>
#include <vector>

#include "nabla/ops/registry.h"
#include "nabla/ops/schema.h"

namespace nabla::ops::registry {

class SchemaRow {
 public:
  explicit SchemaRow(const char* name);
  SchemaRow& input(const char* name);
  SchemaRow& optional_input(const char* name);
  SchemaRow& input_list(const char* name);
  /// An attribute without a default (required, unless an earlier row of the op gives one).
  SchemaRow& attr(const char* name, AttrType type);
  SchemaRow& attr(const char* name, AttrType type, AttrValue default_value);
  SchemaRow& optional_attr(const char* name, AttrType type);
  /// The schema, running `fn`.
  OpSchema take(OpFn fn);

 private:
  OpSchema schema_;
};

/// Files `row` in `table`: a new entry, or one more overload of the entry of its name.
void add_row(std::vector<OpSchema>& table, OpSchema row);

/// A call's inputs and attributes, read in argument order.
struct ArgCursor {
  const std::vector<Tensor>& inputs;
  const AttrReader& attrs;
  size_t next = 0;

  /// The next input (ops::call checked that the required ones are there).
  const Tensor& input() { return inputs.at(next++); }
  /// The next input, or an undefined tensor when the caller gave no more.
  Tensor optional_input() { return next < inputs.size() ? inputs[next++] : Tensor(); }
  /// The next input as an optional: empty when the caller gave no more or an undefined one.
  optional<Tensor> maybe_input() {
    Tensor t = optional_input();
    return t.defined() ? optional<Tensor>(std::move(t)) : nullopt;
  }
  /// A factory's options: the attribute `dtype` when given.
  TensorOptions options() const {
    return attrs.has("dtype") ? TensorOptions(attrs.dtype("dtype")) : TensorOptions();
  }
  /// The remaining inputs.
  std::vector<Tensor> input_list() {
    std::vector<Tensor> out(inputs.begin() + static_cast<std::ptrdiff_t>(next), inputs.end());
    next = inputs.size();
    return out;
  }
};

inline std::vector<Tensor> outputs_of(Tensor t) { return {std::move(t)}; }
inline std::vector<Tensor> outputs_of(std::vector<Tensor> v) { return v; }
template <class... T>
std::vector<Tensor> outputs_of(std::tuple<T...> t) {
  return std::apply([](auto&... x) { return std::vector<Tensor>{x...}; }, t);
}

}  // namespace nabla::ops::registry

/// A row's registry entry, added to `table`: the public function called with the
/// arguments read from the call, as the row types them.
#define NABLA_OP_REGISTER(name, result, ...)                                                      \
  ::nabla::ops::registry::add_row(                                                                \
      table, ::nabla::ops::registry::SchemaRow(#name) NABLA_SCHEMA_EACH(SPEC, __VA_ARGS__)        \
                 .take([](const std::vector<::nabla::Tensor>& x,                                  \
                          const ::nabla::ops::AttrReader& a) -> std::vector<::nabla::Tensor> {    \
                   ::nabla::ops::registry::ArgCursor c{x, a};                                     \
                   using Fn = NABLA_PP_UNPAREN(result) (*)(NABLA_SCHEMA_ARGS(TYPE, __VA_ARGS__)); \
                   return ::nabla::ops::registry::outputs_of(                                     \
                       std::apply(static_cast<Fn>(&::nabla::name),                                \
                                  std::tuple<NABLA_SCHEMA_ARGS(STORE, __VA_ARGS__)>{              \
                                      NABLA_SCHEMA_ARGS(READ, __VA_ARGS__)}));                    \
                 }));
