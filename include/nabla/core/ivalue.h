#pragma once
// IValue: a tagged value, as c10::IValue — what pickle_load returns (a state_dict is a dict
// of string to tensor), what pickle_save takes, and what custom autograd functions keep in
// ctx->saved_data. It holds None, bool, int, double, string, a Tensor, an int list, or a
// container of IValues: a list, a tuple or a dict (insertion-ordered, as Python's).
//   IValue v = nabla::pickle_load(bytes);
//   for (const auto& e : v.toGenericDict()) use(e.key().toStringRef(), e.value().toTensor());
// Containers have reference semantics (as c10's): copies of an IValue share the list or
// dict, so a change through one is seen through the other. A to*() of the wrong kind is a
// nabla::Error naming what was asked for and what the value holds.
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

#include "nabla/core/tensor.h"

namespace nabla {

class IValue;
class GenericDict;
using GenericList = std::vector<IValue>;

namespace ivalue {
/// A tuple's elements (c10::ivalue::Tuple), reached as value.toTuple()->elements().
class Tuple {
 public:
  explicit Tuple(std::vector<IValue> elements);
  static std::shared_ptr<Tuple> create(std::vector<IValue> elements);
  const std::vector<IValue>& elements() const { return elements_; }
  size_t size() const;  // defined below IValue: vector's size() needs the complete type

 private:
  std::vector<IValue> elements_;
};
}  // namespace ivalue

class IValue {
 public:
  enum class Tag { None, Bool, Int, Double, String, Tensor, IntList, List, Tuple, GenericDict };

  IValue() = default;
  IValue(bool v) : v_(v) {}
  IValue(int v) : v_(static_cast<int64_t>(v)) {}
  IValue(int64_t v) : v_(v) {}
  IValue(double v) : v_(v) {}
  IValue(float v) : v_(static_cast<double>(v)) {}
  IValue(std::string v) : v_(std::move(v)) {}
  IValue(const char* v) : v_(std::string(v)) {}
  IValue(Tensor v) : v_(std::move(v)) {}
  IValue(std::vector<int64_t> v) : v_(std::move(v)) {}
  IValue(GenericList v);
  IValue(const std::vector<Tensor>& v);
  IValue(GenericDict v);
  IValue(std::shared_ptr<ivalue::Tuple> v);

  Tag tag() const { return static_cast<Tag>(v_.index()); }
  /// "None", "Bool", "Int", "Double", "String", "Tensor", "IntList", "List", "Tuple",
  /// "GenericDict" (c10's tag names).
  const char* tagKind() const;

  bool isNone() const { return tag() == Tag::None; }
  bool isBool() const { return tag() == Tag::Bool; }
  bool isInt() const { return tag() == Tag::Int; }
  bool isDouble() const { return tag() == Tag::Double; }
  bool isString() const { return tag() == Tag::String; }
  bool isTensor() const { return tag() == Tag::Tensor; }
  bool isIntList() const { return tag() == Tag::IntList; }
  bool isList() const { return tag() == Tag::List; }
  bool isTuple() const { return tag() == Tag::Tuple; }
  bool isGenericDict() const { return tag() == Tag::GenericDict; }

  bool toBool() const;
  int64_t toInt() const;
  /// A double, or an int converted.
  double toDouble() const;
  const std::string& toStringRef() const;
  const Tensor& toTensor() const;
  /// An int list, or a list or tuple whose elements are all ints.
  std::vector<int64_t> toIntVector() const;
  /// The shared container (changes through it are seen by every copy of this IValue).
  GenericList& toList() const;
  const std::shared_ptr<ivalue::Tuple>& toTuple() const;
  GenericDict& toGenericDict() const;
  /// A list or tuple whose elements are all tensors.
  std::vector<Tensor> toTensorVector() const;

  /// Same kind and equal value; tensors and containers compare by identity (c10's `is`).
  bool is(const IValue& other) const;

 private:
  std::variant<std::monostate, bool, int64_t, double, std::string, Tensor, std::vector<int64_t>,
               std::shared_ptr<GenericList>, std::shared_ptr<ivalue::Tuple>,
               std::shared_ptr<GenericDict>>
      v_;
};

inline std::shared_ptr<ivalue::Tuple> ivalue::Tuple::create(std::vector<IValue> elements) {
  return std::make_shared<Tuple>(std::move(elements));
}
inline size_t ivalue::Tuple::size() const { return elements_.size(); }

/// c10::Dict<IValue, IValue>: insertion-ordered, keys of kind None, Bool, Int, Double,
/// String or Tensor (tensors by identity; keys of different kinds are different keys, so
/// 1 and 1.0 are two). Lookups are O(1). Iterating gives entries with key() and value().
class GenericDict {
 public:
  class Entry {
   public:
    Entry(IValue key, IValue value) : key_(std::move(key)), value_(std::move(value)) {}
    const IValue& key() const { return key_; }
    IValue& value() { return value_; }
    const IValue& value() const { return value_; }

   private:
    friend class GenericDict;
    IValue key_;
    IValue value_;
  };

  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  auto begin() { return entries_.begin(); }
  auto end() { return entries_.end(); }
  auto begin() const { return entries_.begin(); }
  auto end() const { return entries_.end(); }

  /// Sets key's value, appending the key if new (a Python dict's d[key] = value).
  void insert_or_assign(IValue key, IValue value);
  bool contains(const IValue& key) const { return find(key) != nullptr; }
  /// The value under `key`; a missing key is a nabla::Error naming it.
  const IValue& at(const IValue& key) const;
  IValue* find(const IValue& key);
  const IValue* find(const IValue& key) const;

 private:
  std::vector<Entry> entries_;
  std::unordered_map<std::string, size_t> index_;  // key's kind and value -> entry
};

/// Python-like text: {'fc.weight': Tensor[Float [10, 4]], 'step': 3}.
std::ostream& operator<<(std::ostream& out, const IValue& value);

}  // namespace nabla
