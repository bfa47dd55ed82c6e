// IValue and its containers.
#include "nabla/core/ivalue.h"

#include <ostream>
#include <type_traits>

namespace nabla {

namespace ivalue {
Tuple::Tuple(std::vector<IValue> elements) : elements_(std::move(elements)) {}
}  // namespace ivalue

IValue::IValue(GenericList v) : v_(std::make_shared<GenericList>(std::move(v))) {}
IValue::IValue(const std::vector<Tensor>& v)
    : v_(std::make_shared<GenericList>(v.begin(), v.end())) {}
IValue::IValue(GenericDict v) : v_(std::make_shared<GenericDict>(std::move(v))) {}
IValue::IValue(std::shared_ptr<ivalue::Tuple> v) : v_(std::move(v)) {
  NABLA_CHECK(std::get<std::shared_ptr<ivalue::Tuple>>(v_) != nullptr,
              "IValue: a tuple must not be null");
}

const char* IValue::tagKind() const {
  static const char* const names[] = {"None",   "Bool",    "Int",  "Double", "String",
                                      "Tensor", "IntList", "List", "Tuple",  "GenericDict"};
  return names[v_.index()];
}

namespace {
template <class T>
const T& get_as(const IValue& self, const T* p, const char* want) {
  NABLA_CHECK(p != nullptr, "IValue: expected ", want, " but the value holds ", self.tagKind());
  return *p;
}
}  // namespace

bool IValue::toBool() const { return get_as(*this, std::get_if<bool>(&v_), "a bool"); }
int64_t IValue::toInt() const { return get_as(*this, std::get_if<int64_t>(&v_), "an int"); }
double IValue::toDouble() const {
  if (auto* i = std::get_if<int64_t>(&v_)) return static_cast<double>(*i);
  return get_as(*this, std::get_if<double>(&v_), "a double");
}
const std::string& IValue::toStringRef() const {
  return get_as(*this, std::get_if<std::string>(&v_), "a string");
}
const Tensor& IValue::toTensor() const {
  return get_as(*this, std::get_if<Tensor>(&v_), "a Tensor");
}
GenericList& IValue::toList() const {
  return *get_as(*this, std::get_if<std::shared_ptr<GenericList>>(&v_), "a list");
}
const std::shared_ptr<ivalue::Tuple>& IValue::toTuple() const {
  return get_as(*this, std::get_if<std::shared_ptr<ivalue::Tuple>>(&v_), "a tuple");
}
GenericDict& IValue::toGenericDict() const {
  return *get_as(*this, std::get_if<std::shared_ptr<GenericDict>>(&v_), "a dict");
}

namespace {
// The elements of a list or tuple, for the typed list conversions.
const std::vector<IValue>& sequence(const IValue& v, const char* want) {
  if (v.isList()) return v.toList();
  NABLA_CHECK(v.isTuple(), "IValue: expected ", want, " but the value holds ", v.tagKind());
  return v.toTuple()->elements();
}
}  // namespace

std::vector<int64_t> IValue::toIntVector() const {
  if (auto* ints = std::get_if<std::vector<int64_t>>(&v_)) return *ints;
  std::vector<int64_t> out;
  for (const auto& e : sequence(*this, "an int list")) {
    NABLA_CHECK(e.isInt(), "IValue: expected an int list but an element holds ", e.tagKind());
    out.push_back(e.toInt());
  }
  return out;
}

std::vector<Tensor> IValue::toTensorVector() const {
  std::vector<Tensor> out;
  for (const auto& e : sequence(*this, "a tensor list")) {
    NABLA_CHECK(e.isTensor(), "IValue: expected a tensor list but an element holds ", e.tagKind());
    out.push_back(e.toTensor());
  }
  return out;
}

bool IValue::is(const IValue& other) const {
  if (v_.index() != other.v_.index()) return false;
  return std::visit(
      [&](const auto& a) -> bool {
        using T = std::decay_t<decltype(a)>;
        const T& b = std::get<T>(other.v_);
        if constexpr (std::is_same_v<T, Tensor>)
          return a.unsafeGetTensorImpl() == b.unsafeGetTensorImpl();
        else
          return a == b;  // values by value; shared_ptrs (containers) by identity
      },
      v_);
}

// ---- GenericDict -------------------------------------------------------------------------

namespace {
// A key's kind and value as bytes: the index's key. Containers cannot be keys.
std::string index_key(const IValue& key) {
  std::string k(1, static_cast<char>(key.tag()));
  auto bytes = [&](const auto& v) { k.append(reinterpret_cast<const char*>(&v), sizeof v); };
  switch (key.tag()) {
    case IValue::Tag::None:
      break;
    case IValue::Tag::Bool:
      bytes(key.toBool());
      break;
    case IValue::Tag::Int:
      bytes(key.toInt());
      break;
    case IValue::Tag::Double:
      bytes(key.toDouble());
      break;
    case IValue::Tag::String:
      k += key.toStringRef();
      break;
    case IValue::Tag::Tensor:
      bytes(key.toTensor().unsafeGetTensorImpl());
      break;
    default:
      NABLA_CHECK(false,
                  "GenericDict: a key must be None, a bool, an int, a double, a string or "
                  "a tensor, got ",
                  key.tagKind());
  }
  return k;
}
}  // namespace

IValue* GenericDict::find(const IValue& key) {
  auto it = index_.find(index_key(key));
  return it == index_.end() ? nullptr : &entries_[it->second].value_;
}

const IValue* GenericDict::find(const IValue& key) const {
  return const_cast<GenericDict*>(this)->find(key);
}

void GenericDict::insert_or_assign(IValue key, IValue value) {
  auto [it, fresh] = index_.try_emplace(index_key(key), entries_.size());
  if (!fresh) {
    entries_[it->second].value_ = std::move(value);
    return;
  }
  entries_.emplace_back(std::move(key), std::move(value));
}

const IValue& GenericDict::at(const IValue& key) const {
  const IValue* v = find(key);
  NABLA_CHECK(v != nullptr, "GenericDict: no key ", key);
  return *v;
}

// ---- printing ----------------------------------------------------------------------------

namespace {
void print_sequence(std::ostream& out, const std::vector<IValue>& items, const char* open,
                    const char* close) {
  out << open;
  for (size_t i = 0; i < items.size(); ++i) out << (i ? ", " : "") << items[i];
  if (items.size() == 1 && open[0] == '(') out << ",";
  out << close;
}
}  // namespace

std::ostream& operator<<(std::ostream& out, const IValue& v) {
  switch (v.tag()) {
    case IValue::Tag::None:
      return out << "None";
    case IValue::Tag::Bool:
      return out << (v.toBool() ? "True" : "False");
    case IValue::Tag::Int:
      return out << v.toInt();
    case IValue::Tag::Double:
      return out << v.toDouble();
    case IValue::Tag::String:
      return out << "'" << v.toStringRef() << "'";
    case IValue::Tag::Tensor: {
      const Tensor& t = v.toTensor();
      if (!t.defined()) return out << "Tensor[undefined]";
      return out << "Tensor[" << t.scalar_type() << " " << t.sizes() << "]";
    }
    case IValue::Tag::IntList: {
      out << "[";
      const auto ints = v.toIntVector();
      for (size_t i = 0; i < ints.size(); ++i) out << (i ? ", " : "") << ints[i];
      return out << "]";
    }
    case IValue::Tag::List:
      print_sequence(out, v.toList(), "[", "]");
      return out;
    case IValue::Tag::Tuple:
      print_sequence(out, v.toTuple()->elements(), "(", ")");
      return out;
    case IValue::Tag::GenericDict: {
      out << "{";
      bool first = true;
      for (const auto& e : v.toGenericDict()) {
        out << (first ? "" : ", ") << e.key() << ": " << e.value();
        first = false;
      }
      return out << "}";
    }
  }
  return out;
}

}  // namespace nabla
