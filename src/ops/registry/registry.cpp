// ops::call: the table of every op by name, filled by the op families (registry/registry_impl.h).
#include "nabla/ops/registry.h"

#include <algorithm>
#include <unordered_map>

#include "nabla/core/error.h"
#include "ops/registry/registry_impl.h"

namespace nabla::ops {
namespace {

struct Table {
  std::vector<OpSchema> ops;
  std::unordered_map<std::string_view, const OpSchema*> by_name;
};

const Table& table() {
  static const Table t = [] {
    Table t;
#define NABLA_OP_FAMILY(fn) registry::fn(t.ops);
#include "ops/registry/registry_families.def"
#undef NABLA_OP_FAMILY
    for (const OpSchema& s : t.ops) {
      bool fresh = t.by_name.emplace(s.name, &s).second;
      NABLA_ASSERT(fresh, "ops registry: ", s.name, " is registered twice");
    }
    return t;
  }();
  return t;
}

// AttrValue's alternatives are in AttrType's order.
AttrType type_of(const AttrValue& v) { return static_cast<AttrType>(v.index()); }
static_assert(std::variant_size_v<AttrValue> == 6);

bool fits(AttrType want, const AttrValue& v) {
  AttrType got = type_of(v);
  return got == want || (want == AttrType::Double && got == AttrType::Int);
}
bool fits(const AttrSpec& spec, const AttrValue& v) {
  return fits(spec.type, v) || (spec.also && fits(*spec.also, v));
}

std::string describe_type(const AttrSpec& spec) {
  std::string out = to_string(spec.type);
  if (spec.also) out += std::string(" or ") + to_string(*spec.also);
  return out;
}

std::string describe_specs(const std::vector<AttrSpec>& specs) {
  if (specs.empty()) return "none";
  std::string out;
  for (const AttrSpec& s : specs)
    out += (out.empty() ? "" : ", ") + s.name + " (" + describe_type(s) + ")";
  return out;
}

// "1 input", "2 inputs", "1 to 3 inputs", "2 or more inputs".
std::string describe_inputs(int lo, int hi) {
  const std::string n = lo == hi ? std::to_string(lo)
                        : hi < 0 ? std::to_string(lo) + " or more"
                                 : std::to_string(lo) + " to " + std::to_string(hi);
  return n + (lo == 1 && hi == 1 ? " input" : " inputs");
}

// Whether form `o` takes `n` inputs and the attributes `given`.
bool fits(const OpOverload& o, int n, const Attributes& given) {
  if (n < o.min_inputs || (o.max_inputs >= 0 && n > o.max_inputs)) return false;
  for (const auto& [name, value] : given) {
    const std::string& key = name;
    auto it = std::find_if(o.attrs.begin(), o.attrs.end(),
                           [&](const AttrSpec& s) { return s.name == key; });
    if (it == o.attrs.end() || !fits(*it, value)) return false;
  }
  for (const AttrSpec& s : o.attrs) {
    if (!s.required) continue;
    auto given_it = std::find_if(given.begin(), given.end(),
                                 [&](const auto& kv) { return kv.first == s.name; });
    if (given_it == given.end()) return false;
  }
  return true;
}

}  // namespace

const char* to_string(AttrType t) {
  static constexpr const char* kNames[] = {"bool", "int", "double", "string", "int list", "dtype"};
  return kNames[static_cast<size_t>(t)];
}

AttrReader::AttrReader(const std::string& op, const std::vector<AttrSpec>& specs,
                       const Attributes& given)
    : op_(op), specs_(specs), values_(specs.size(), nullptr) {
  for (const auto& [name, value] : given) {
    // Captured through a reference: clang before 16 cannot capture a structured binding.
    const std::string& key = name;
    auto it =
        std::find_if(specs.begin(), specs.end(), [&](const AttrSpec& s) { return s.name == key; });
    NABLA_CHECK(it != specs.end(), op, ": unknown attribute '", name,
                "' (its attributes: ", describe_specs(specs), ")");
    NABLA_CHECK(fits(*it, value), op, ": attribute '", name, "' must be ", describe_type(*it),
                ", got ", to_string(type_of(value)));
    size_t k = static_cast<size_t>(it - specs.begin());
    NABLA_CHECK(!values_[k], op, ": attribute '", name, "' given twice");
    values_[k] = &value;
  }
  for (size_t k = 0; k < specs.size(); ++k)
    NABLA_CHECK(values_[k] || !specs[k].required, op, ": attribute '", specs[k].name, "' (",
                describe_type(specs[k]), ") is required");
}

bool AttrReader::has(std::string_view name) const {
  for (size_t k = 0; k < specs_.size(); ++k)
    if (specs_[k].name == name) return values_[k] != nullptr;
  return false;
}

AttrType AttrReader::type(std::string_view name) const {
  for (size_t k = 0; k < specs_.size(); ++k) {
    if (specs_[k].name != name) continue;
    if (values_[k]) return fits(specs_[k].type, *values_[k]) ? specs_[k].type : *specs_[k].also;
    return specs_[k].type;
  }
  NABLA_ASSERT(false, op_, ": asks the type of attribute ", name, " that its schema does not list");
  return AttrType::Bool;  // unreachable
}

const AttrValue& AttrReader::get(std::string_view name, AttrType want) const {
  for (size_t k = 0; k < specs_.size(); ++k) {
    if (specs_[k].name != name) continue;
    NABLA_ASSERT(specs_[k].type == want || specs_[k].also == want, op_, ": attribute ", name,
                 " read as ", to_string(want));
    if (values_[k]) return *values_[k];
    NABLA_CHECK(specs_[k].default_value, op_, ": attribute '", name, "' was not given");
    return *specs_[k].default_value;
  }
  NABLA_ASSERT(false, op_, ": reads attribute ", name, " that its schema does not list");
  return *specs_[0].default_value;  // unreachable
}

bool AttrReader::b(std::string_view name) const {
  return std::get<bool>(get(name, AttrType::Bool));
}
int64_t AttrReader::i(std::string_view name) const {
  return std::get<int64_t>(get(name, AttrType::Int));
}
double AttrReader::d(std::string_view name) const {
  const AttrValue& v = get(name, AttrType::Double);
  return v.index() == 1 ? static_cast<double>(std::get<int64_t>(v)) : std::get<double>(v);
}
const std::string& AttrReader::s(std::string_view name) const {
  return std::get<std::string>(get(name, AttrType::String));
}
const std::vector<int64_t>& AttrReader::ints(std::string_view name) const {
  return std::get<std::vector<int64_t>>(get(name, AttrType::IntList));
}
ScalarType AttrReader::dtype(std::string_view name) const {
  return std::get<ScalarType>(get(name, AttrType::Dtype));
}
Scalar AttrReader::scalar(std::string_view name) const {
  const AttrValue& v = get(name, AttrType::Double);
  return v.index() == 1 ? Scalar(std::get<int64_t>(v)) : Scalar(std::get<double>(v));
}

const OpSchema& schema(std::string_view name) {
  const auto& by_name = table().by_name;
  auto it = by_name.find(name);
  NABLA_CHECK(it != by_name.end(), "ops::call: no op named '", std::string(name), "'");
  return *it->second;
}

const OpSchema* find_schema(std::string_view name) {
  const auto& by_name = table().by_name;
  auto it = by_name.find(name);
  return it == by_name.end() ? nullptr : it->second;
}

std::vector<const OpSchema*> all_schemas() {
  std::vector<const OpSchema*> out;
  for (const OpSchema& s : table().ops) out.push_back(&s);
  std::sort(out.begin(), out.end(),
            [](const OpSchema* a, const OpSchema* b) { return a->name < b->name; });
  return out;
}

std::vector<Tensor> call(std::string_view name, const std::vector<Tensor>& inputs,
                         const Attributes& attrs) {
  const OpSchema& s = schema(name);
  int n = static_cast<int>(inputs.size());
  NABLA_CHECK(n >= s.min_inputs && (s.max_inputs < 0 || n <= s.max_inputs), s.name, ": expected ",
              s.min_inputs == s.max_inputs ? std::to_string(s.min_inputs)
              : s.max_inputs < 0
                  ? std::to_string(s.min_inputs) + " or more"
                  : std::to_string(s.min_inputs) + " to " + std::to_string(s.max_inputs),
              " input tensors, got ", n);
  if (s.overloads.empty()) {
    AttrReader reader(s.name, s.attrs, attrs);
    return s.fn(inputs, reader);
  }
  for (const OpOverload& o : s.overloads) {
    if (fits(o, n, attrs)) {
      AttrReader reader(s.name, o.attrs, attrs);
      return o.fn(inputs, reader);
    }
  }
  AttrReader union_reader(s.name, s.attrs, attrs);  // names an unknown or mistyped attribute
  std::string given, forms;
  for (const auto& [attr_name, value] : attrs) given += (given.empty() ? "" : ", ") + attr_name;
  for (const OpOverload& o : s.overloads)
    forms += "\n  " + describe_inputs(o.min_inputs, o.max_inputs) + "; attributes " +
             describe_specs(o.attrs);
  NABLA_CHECK(false, s.name, ": no form of the op takes ", describe_inputs(n, n),
              " and the attributes given (", given.empty() ? "none" : given,
              "); its forms:", forms);
  return {};  // unreachable
}

}  // namespace nabla::ops
