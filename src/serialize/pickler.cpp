// The protocol-2 pickle writer of torch.save files, and the typed storage classes.
#include <bit>
#include <map>
#include <unordered_map>

#include "format_utils.h"
#include "nabla/core/detail/device_memory.h"
#include "pickle.h"

namespace nabla::serialize::detail {

namespace {
// First row per dtype: the class it is written as.
constexpr StorageType kStorageTypes[] = {
    {"FloatStorage", kFloat, 4},       {"DoubleStorage", kDouble, 8}, {"HalfStorage", kHalf, 2},
    {"BFloat16Storage", kBFloat16, 2}, {"LongStorage", kLong, 8},     {"IntStorage", kInt, 4},
    {"ByteStorage", kByte, 1},         {"BoolStorage", kBool, 1},     {"ShortStorage", kShort, 2},
    {"CharStorage", kChar, 1},
};
}  // namespace

const StorageType* find_storage_type(std::string_view name) {
  for (const auto& t : kStorageTypes)
    if (name == t.name) return &t;
  return nullptr;
}

const StorageType& storage_type_of(ScalarType dtype) {
  for (const auto& t : kStorageTypes)
    if (t.dtype == dtype) return t;
  NABLA_CHECK(false, "pickle_save: no storage class for dtype ", dtype);
}

namespace {

constexpr int kMaxSaveNesting = 64;
constexpr size_t kBatch = 1000;  // items per SETITEMS / APPENDS, as Python's pickler

class Pickler {
 public:
  explicit Pickler(std::vector<PickledStorage>& storages) : storages_(storages) {}

  std::string run(const IValue& value) {
    out_ += "\x80\x02";  // PROTO 2
    write(value, 0);
    out_ += '.';  // STOP
    return std::move(out_);
  }

 private:
  void op(char c) { out_ += c; }
  void memo_put() {
    const uint32_t index = next_memo_++;
    if (index < 256) {
      op('q');
      put_le(out_, index, 1);
    } else {
      op('r');
      put_le(out_, index, 4);
    }
  }
  // A GLOBAL written once, then fetched from the memo.
  void global(const std::string& module_and_name) {
    auto it = globals_.find(module_and_name);
    if (it != globals_.end()) {
      if (it->second < 256) {
        op('h');
        put_le(out_, it->second, 1);
      } else {
        op('j');
        put_le(out_, it->second, 4);
      }
      return;
    }
    const size_t dot = module_and_name.rfind('.');
    op('c');
    out_ += module_and_name.substr(0, dot) + "\n" + module_and_name.substr(dot + 1) + "\n";
    globals_.emplace(module_and_name, next_memo_);
    memo_put();
  }
  void integer(int64_t v) {
    if (v >= 0 && v < 256) {
      op('K');
      put_le(out_, static_cast<uint64_t>(v), 1);
    } else if (v >= 0 && v < 65536) {
      op('M');
      put_le(out_, static_cast<uint64_t>(v), 2);
    } else if (v >= INT32_MIN && v <= INT32_MAX) {
      op('J');
      put_le(out_, static_cast<uint32_t>(v), 4);
    } else {
      op('\x8a');
      out_ += '\x08';
      put_le(out_, static_cast<uint64_t>(v), 8);
    }
  }
  void string(const std::string& s) {
    op('X');
    put_le(out_, s.size(), 4);
    out_ += s;
  }
  void sequence(const std::vector<IValue>& items, int depth) {
    for (size_t i = 0; i < items.size(); i += kBatch) {
      op('(');
      for (size_t j = i; j < std::min(items.size(), i + kBatch); ++j) write(items[j], depth);
      op('e');  // APPENDS
    }
  }
  void tuple(const std::vector<IValue>& items, int depth) {
    op('(');
    for (const auto& v : items) write(v, depth);
    op('t');
  }
  void tensor(const Tensor& t);
  void write(const IValue& v, int depth);

  std::string out_;
  std::vector<PickledStorage>& storages_;
  std::map<std::pair<const StorageImpl*, ScalarType>, std::string> storage_keys_;
  std::unordered_map<std::string, uint32_t> globals_;
  uint32_t next_memo_ = 0;
};

// _rebuild_tensor_v2(('storage', torch.<Type>Storage, key, 'cpu', numel), offset, size,
// stride, requires_grad, OrderedDict()): the storage whole, so views keep sharing it. A
// CUDA storage is copied to the host and written as a CPU one, so the file loads on any
// machine (torch.load needs no map_location; nabla::load's device argument places it).
void Pickler::tensor(const Tensor& t) {
  NABLA_CHECK(t.defined(), "pickle_save: an undefined tensor cannot be saved");
  const ScalarType dtype = t.scalar_type();
  const StorageType& type = storage_type_of(dtype);
  const Storage& storage = t.impl()->storage();
  const auto numel = static_cast<int64_t>(storage->nbytes() / elementSize(dtype));
  auto [it, fresh] = storage_keys_.try_emplace({storage.get(), dtype}, "");
  if (fresh) {
    it->second = std::to_string(storages_.size());
    Storage bytes = storage;
    if (!storage->device().is_cpu()) {
      bytes = std::make_shared<StorageImpl>(storage->nbytes(), Device(kCPU));
      nabla::detail::copy_bytes(bytes->data(), Device(kCPU), storage->data(), storage->device(),
                                storage->nbytes(), /*non_blocking=*/false);
    }
    storages_.push_back({it->second, bytes, dtype, numel});
  }
  global("torch._utils._rebuild_tensor_v2");
  op('(');
  op('(');
  string("storage");
  global(std::string("torch.") + type.name);
  string(it->second);
  string("cpu");
  integer(numel);
  op('t');
  op('Q');  // BINPERSID
  integer(t.storage_offset());
  std::vector<IValue> sizes, strides;
  for (int64_t s : t.sizes()) sizes.emplace_back(s);
  for (int64_t s : t.strides()) strides.emplace_back(s);
  tuple(sizes, 0);
  tuple(strides, 0);
  op(t.requires_grad() ? '\x88' : '\x89');
  global("collections.OrderedDict");
  op(')');
  op('R');
  op('t');
  op('R');
}

void Pickler::write(const IValue& v, int depth) {
  NABLA_CHECK(depth <= kMaxSaveNesting, "pickle_save: containers nest deeper than ",
              kMaxSaveNesting, " (or contain themselves)");
  switch (v.tag()) {
    case IValue::Tag::None:
      return op('N');
    case IValue::Tag::Bool:
      return op(v.toBool() ? '\x88' : '\x89');
    case IValue::Tag::Int:
      return integer(v.toInt());
    case IValue::Tag::Double: {
      op('G');  // BINFLOAT, big-endian
      const auto bits = std::bit_cast<uint64_t>(v.toDouble());
      for (int i = 7; i >= 0; --i) out_ += static_cast<char>((bits >> (8 * i)) & 0xff);
      return;
    }
    case IValue::Tag::String:
      return string(v.toStringRef());
    case IValue::Tag::Tensor:
      return tensor(v.toTensor());
    case IValue::Tag::IntList: {
      op(']');
      std::vector<IValue> items;
      for (int64_t i : v.toIntVector()) items.emplace_back(i);
      return sequence(items, depth + 1);
    }
    case IValue::Tag::List:
      op(']');
      return sequence(v.toList(), depth + 1);
    case IValue::Tag::Tuple:
      return tuple(v.toTuple()->elements(), depth + 1);
    case IValue::Tag::GenericDict: {
      op('}');  // a dict (LibTorch's pickle_load reads an OrderedDict as None)
      const auto& dict = v.toGenericDict();
      auto it = dict.begin();
      for (size_t i = 0; i < dict.size(); i += kBatch) {
        op('(');
        for (size_t j = i; j < std::min(dict.size(), i + kBatch); ++j, ++it) {
          write(it->key(), depth + 1);
          write(it->value(), depth + 1);
        }
        op('u');  // SETITEMS
      }
      return;
    }
  }
}

}  // namespace

std::string pickle(const IValue& value, std::vector<PickledStorage>& storages) {
  return Pickler(storages).run(value);
}

}  // namespace nabla::serialize::detail
