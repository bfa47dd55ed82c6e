#pragma once
// OrderedDict<Key, Value>: insertion-ordered map with O(1) lookup by key, as
// torch::OrderedDict. Module::named_parameters() returns one; iterate over items:
//   for (const auto& item : model->named_parameters()) use(item.key(), item.value());
// Lookup of a missing key and insertion of a duplicate raise nabla::Error naming the key
// (the "key description", e.g. "Parameter", says what kind of key it is).
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "nabla/core/error.h"

namespace nabla {

template <class Key, class Value>
class OrderedDict {
 public:
  class Item {
   public:
    Item(Key key, Value value) : pair_(std::move(key), std::move(value)) {}
    const Key& key() const noexcept { return pair_.first; }
    Value& value() noexcept { return pair_.second; }
    const Value& value() const noexcept { return pair_.second; }
    Value& operator*() noexcept { return value(); }
    const Value& operator*() const noexcept { return value(); }
    Value* operator->() noexcept { return &value(); }
    const Value* operator->() const noexcept { return &value(); }
    const std::pair<Key, Value>& pair() const noexcept { return pair_; }

   private:
    std::pair<Key, Value> pair_;
  };
  using Iterator = typename std::vector<Item>::iterator;
  using ConstIterator = typename std::vector<Item>::const_iterator;

  explicit OrderedDict(std::string key_description = "Key")
      : key_description_(std::move(key_description)) {}
  OrderedDict(std::initializer_list<Item> items) : OrderedDict() {
    for (const auto& item : items) insert(item.key(), item.value());
  }

  const std::string& key_description() const noexcept { return key_description_; }

  Item& front() {
    NABLA_CHECK(!items_.empty(), "Called front() on an empty OrderedDict");
    return items_.front();
  }
  const Item& front() const { return const_cast<OrderedDict*>(this)->front(); }
  Item& back() {
    NABLA_CHECK(!items_.empty(), "Called back() on an empty OrderedDict");
    return items_.back();
  }
  const Item& back() const { return const_cast<OrderedDict*>(this)->back(); }
  Item& operator[](size_t index) { return at_index("operator[]", index); }
  const Item& operator[](size_t index) const {
    return const_cast<OrderedDict*>(this)->at_index("operator[]", index);
  }

  Value& operator[](const Key& key) {
    Value* v = find(key);
    NABLA_CHECK(v != nullptr, key_description_, " '", key, "' is not defined");
    return *v;
  }
  const Value& operator[](const Key& key) const { return (*const_cast<OrderedDict*>(this))[key]; }

  Value* find(const Key& key) noexcept {
    auto it = index_.find(key);
    return it == index_.end() ? nullptr : &items_[it->second].value();
  }
  const Value* find(const Key& key) const noexcept {
    return const_cast<OrderedDict*>(this)->find(key);
  }
  bool contains(const Key& key) const noexcept { return index_.count(key) != 0; }

  Iterator begin() { return items_.begin(); }
  ConstIterator begin() const { return items_.begin(); }
  Iterator end() { return items_.end(); }
  ConstIterator end() const { return items_.end(); }
  size_t size() const noexcept { return items_.size(); }
  bool is_empty() const noexcept { return items_.empty(); }
  void reserve(size_t n) {
    items_.reserve(n);
    index_.reserve(n);
  }

  /// Appends; a key already present is an error (use update() or operator[] to replace).
  Value& insert(Key key, Value value) {
    NABLA_CHECK(!contains(key), key_description_, " '", key, "' already defined");
    index_.emplace(key, items_.size());
    items_.emplace_back(std::move(key), std::move(value));
    return items_.back().value();
  }
  /// Inserts every item of `other`; a key both hold is an error ("already defined", as
  /// LibTorch's), raised before anything is inserted.
  void update(const OrderedDict& other) {
    for (const auto& item : other)
      NABLA_CHECK(!contains(item.key()), key_description_, " '", item.key(), "' already defined");
    reserve(size() + other.size());
    for (const auto& item : other) insert(item.key(), item.value());
  }
  void erase(const Key& key) {
    auto it = index_.find(key);
    NABLA_CHECK(it != index_.end(), key_description_, " '", key, "' is not defined");
    size_t pos = it->second;
    index_.erase(it);
    items_.erase(items_.begin() + static_cast<std::ptrdiff_t>(pos));
    for (auto& [k, i] : index_)
      if (i > pos) --i;
  }
  void clear() {
    items_.clear();
    index_.clear();
  }

  const std::vector<Item>& items() const noexcept { return items_; }
  std::vector<Key> keys() const {
    std::vector<Key> out;
    out.reserve(items_.size());
    for (const auto& item : items_) out.push_back(item.key());
    return out;
  }
  std::vector<Value> values() const {
    std::vector<Value> out;
    out.reserve(items_.size());
    for (const auto& item : items_) out.push_back(item.value());
    return out;
  }
  std::vector<std::pair<Key, Value>> pairs() const {
    std::vector<std::pair<Key, Value>> out;
    out.reserve(items_.size());
    for (const auto& item : items_) out.push_back(item.pair());
    return out;
  }

 private:
  Item& at_index(const char* what, size_t index) {
    NABLA_CHECK(index < items_.size(), "OrderedDict::", what, ": index ", index,
                " is out of bounds for a dict of ", items_.size(), " items");
    return items_[index];
  }

  std::vector<Item> items_;
  std::unordered_map<Key, size_t> index_;
  std::string key_description_;
};

}  // namespace nabla
