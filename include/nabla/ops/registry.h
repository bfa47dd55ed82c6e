#pragma once
// Ops by name: `ops::call("conv2d", {x, w, b}, {{"stride", {2, 2}}, {"padding", {1, 1}}})`
// runs the same function as `conv2d(x, w, b, {2, 2}, {1, 1})`. The static graph, model
// import and tests reach every op through this one door. Each op's schema lists its
// inputs and its attributes with their types and defaults; an unknown op, a wrong number
// of inputs, an unknown attribute or one of the wrong type is a nabla::Error naming the
// op (docs/architecture.md, "Adding an op").
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "nabla/core/optional.h"
#include "nabla/core/scalar_type.h"
#include "nabla/core/tensor.h"

namespace nabla::ops {

/// The value of one attribute. An integer literal is an Int, a floating literal a Double,
/// a braced list of integers an IntList; a Double attribute also accepts an Int.
using AttrValue =
    std::variant<bool, int64_t, double, std::string, std::vector<int64_t>, ScalarType>;
/// Attributes by name, in any order: {{"dim", 1}, {"keepdim", true}}.
using Attributes = std::vector<std::pair<std::string, AttrValue>>;

enum class AttrType : uint8_t { Bool, Int, Double, String, IntList, Dtype };
const char* to_string(AttrType t);

/// One attribute of an op: its name, type and default. Without a default it is either
/// required or optional (the op reads whether it was given: clamp's min and max).
struct AttrSpec {
  std::string name;
  AttrType type;
  optional<AttrValue> default_value;
  bool required = false;
  /// A second type the attribute takes (conv's padding: an int list or "same"/"valid");
  /// the op asks AttrReader::type which one it got.
  optional<AttrType> also;
};

/// The attributes of one call, checked against the op's schema; getters read a value
/// given by the caller or the default.
class AttrReader {
 public:
  AttrReader(const std::string& op, const std::vector<AttrSpec>& specs, const Attributes& given);
  bool b(std::string_view name) const;
  int64_t i(std::string_view name) const;
  double d(std::string_view name) const;
  const std::string& s(std::string_view name) const;
  const std::vector<int64_t>& ints(std::string_view name) const;
  ScalarType dtype(std::string_view name) const;
  /// A Double or Int attribute as a Scalar (an Int stays integral: add's alpha on ints).
  Scalar scalar(std::string_view name) const;
  /// Whether the caller gave `name` (for attributes without a default).
  bool has(std::string_view name) const;
  /// The type of `name`'s value, given or default (for an attribute of two types).
  AttrType type(std::string_view name) const;

 private:
  const AttrValue& get(std::string_view name, AttrType want) const;
  const std::string& op_;
  const std::vector<AttrSpec>& specs_;
  std::vector<const AttrValue*> values_;  // per spec: the given value, or null
};

using OpFn = std::vector<Tensor> (*)(const std::vector<Tensor>& inputs, const AttrReader& attrs);

/// One form of an op with several (conv2d's padding as ints or as a string).
struct OpOverload {
  int min_inputs = 1;
  int max_inputs = 1;
  std::vector<AttrSpec> attrs;
  OpFn fn = nullptr;
};

/// What ops::call knows of an op.
struct OpSchema {
  std::string name;
  int min_inputs = 1;
  int max_inputs = 1;  // -1: any number (cat, stack)
  std::vector<AttrSpec> attrs;
  OpFn fn = nullptr;
  /// The inputs' names, in order, for ops declared by a schema row (ops/schema.h).
  std::vector<std::string> input_names;
  /// An op of several forms: each, tried in order; the first whose attributes fit the
  /// call runs (min_inputs, max_inputs and attrs above are then their union).
  std::vector<OpOverload> overloads;
};

/// Runs op `name` on `inputs`; returns its outputs (one tensor for most ops, two for
/// max(dim), several for split).
std::vector<Tensor> call(std::string_view name, const std::vector<Tensor>& inputs,
                         const Attributes& attrs = {});
/// The schema of `name` (a nabla::Error when there is no such op).
const OpSchema& schema(std::string_view name);
/// The schema of `name`, or null when there is no such op.
const OpSchema* find_schema(std::string_view name);
/// Every registered op's schema, sorted by name.
std::vector<const OpSchema*> all_schemas();

}  // namespace nabla::ops
