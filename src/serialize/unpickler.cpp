// The restricted pickle reader (Note [Restricted unpickling], pickle.h).
#include <bit>
#include <cstdio>
#include <limits>
#include <unordered_map>
#include <unordered_set>

#include "format_utils.h"
#include "nabla/autograd/grad_mode.h"
#include "pickle.h"

namespace nabla::serialize::detail {

namespace {

constexpr int kMaxLoadNesting = 64;  // state_dicts nest 1-4 deep; optimizer states a little more
constexpr int64_t kMaxDims = 64;

// The callables and classes a file may name: torch.load(weights_only=True)'s set, minus
// sparse, quantized and meta tensors, which nabla has no use for; plus the type
// annotations LibTorch's torch::pickle_save writes (torch.jit._pickle.restore_type_tag and
// build_*list: each returns its argument).
enum class Global {
  OrderedDict,
  RebuildTensorV2,
  RebuildTensor,
  RebuildParameter,
  RebuildParameterWithState,
  Parameter,
  TorchSize,
  RestoreTypeTag,
  BuildList,
  StorageClass
};

// A stack slot: a value, a global, or a tuple holding a global (a persistent id names a
// storage class), which never becomes an IValue.
struct Obj {
  enum class Kind { Value, Global, GlobalTuple } kind = Kind::Value;
  IValue value;
  Global global{};
  std::string name;  // the global's "module.name"
  const StorageType* storage = nullptr;
  // GlobalTuple: shared, so that memo copies cost nothing; nesting bounded by `depth`.
  std::shared_ptr<const std::vector<Obj>> items;
  int depth = 0;

  static Obj of(IValue v) {
    Obj o;
    o.value = std::move(v);
    return o;
  }
};

const void* container_of(const IValue& v) {
  if (v.isList()) return &v.toList();
  if (v.isGenericDict()) return &v.toGenericDict();
  if (v.isTuple()) return v.toTuple().get();
  return nullptr;
}

class Unpickler {
 public:
  Unpickler(std::string_view bytes, const LoadStorage& load_storage, const std::string& source)
      : bytes_(bytes), load_storage_(load_storage), source_(source) {}

  IValue run();

 private:
  [[noreturn]] void fail(const std::string& what) const {
    NABLA_CHECK(false, "pickle_load: ", source_, ": ", what, " (data.pkl byte ", op_at_, ")");
  }
  // ---- reading the opcode stream
  std::string_view take(uint64_t n) {
    if (n > bytes_.size() - pos_)
      fail("truncated: " + std::to_string(n) + " bytes wanted, " +
           std::to_string(bytes_.size() - pos_) + " left");
    std::string_view s = bytes_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  template <class T>
  T le() {
    return static_cast<T>(get_le(take(sizeof(T)), 0, sizeof(T)));
  }
  std::string line() {
    const size_t end = bytes_.find('\n', pos_);
    if (end == std::string_view::npos) fail("truncated: a GLOBAL's name has no end of line");
    std::string s(bytes_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return s;
  }
  // ---- the stack
  Obj pop() {
    if (stack_.size() <= (marks_.empty() ? 0 : marks_.back())) fail("the stack is empty");
    Obj o = std::move(stack_.back());
    stack_.pop_back();
    return o;
  }
  Obj& top() {
    if (stack_.size() <= (marks_.empty() ? 0 : marks_.back())) fail("the stack is empty");
    return stack_.back();
  }
  std::vector<Obj> pop_mark() {
    if (marks_.empty()) fail("no MARK before this opcode");
    std::vector<Obj> items(std::make_move_iterator(stack_.begin() + marks_.back()),
                           std::make_move_iterator(stack_.end()));
    stack_.resize(marks_.back());
    marks_.pop_back();
    return items;
  }
  void push(IValue v) { stack_.push_back(Obj::of(std::move(v))); }
  IValue value_of(const Obj& o, const char* where) const {
    if (o.kind != Obj::Kind::Value)
      fail(std::string("the global '") + (o.kind == Obj::Kind::Global ? o.name : "tuple") +
           "' appears " + where + ", where only data may");
    return o.value;
  }
  // ---- containers (Note [Restricted unpickling]: sealed once placed, bounded nesting)
  // Containers are kept alive until the end so that a freed one's address, reused by a
  // new container, cannot carry its sealed mark or height over.
  void place(const IValue& into, const IValue& item) {
    const void* target = container_of(into);
    if (sealed_.count(target)) fail("a list or dict is changed after being placed in another one");
    const void* c = container_of(item);
    if (c == nullptr) return;
    if (c == target) fail("a container is placed inside itself");
    if (sealed_.insert(c).second) alive_.push_back(item);
    const auto hc = height_.find(c);
    const int item_height = hc == height_.end() ? 1 : hc->second + 1;
    auto [h, first] = height_.try_emplace(target, 0);
    if (first) alive_.push_back(into);
    h->second = std::max(h->second, item_height);
    if (h->second > kMaxLoadNesting)
      fail("containers nest deeper than " + std::to_string(kMaxLoadNesting));
  }
  IValue make_tuple(std::vector<Obj> items) {
    std::vector<IValue> values;
    for (auto& o : items) values.push_back(value_of(o, "inside a tuple"));
    IValue t(ivalue::Tuple::create(std::move(values)));
    for (const auto& v : t.toTuple()->elements()) place(t, v);
    return t;
  }
  void push_tuple(std::vector<Obj> items) {
    int depth = -1;
    for (const auto& o : items)
      if (o.kind != Obj::Kind::Value) depth = std::max(depth, o.depth);
    if (depth < 0) return push(make_tuple(std::move(items)));
    Obj tuple;
    tuple.kind = Obj::Kind::GlobalTuple;
    tuple.depth = depth + 1;
    if (tuple.depth > kMaxLoadNesting)
      fail("tuples nest deeper than " + std::to_string(kMaxLoadNesting));
    tuple.items = std::make_shared<const std::vector<Obj>>(std::move(items));
    stack_.push_back(std::move(tuple));
  }
  // A call's arguments; no allowed callable takes more than 7, so longer tuples are refused
  // before being copied.
  std::vector<Obj> args_of(const Obj& o, const char* op) {
    const size_t n = o.kind == Obj::Kind::GlobalTuple                  ? o.items->size()
                     : o.kind == Obj::Kind::Value && o.value.isTuple() ? o.value.toTuple()->size()
                                                                       : SIZE_MAX;
    if (n == SIZE_MAX) fail(std::string(op) + "'s arguments are not a tuple");
    if (n > 7) fail(std::string(op) + " called with " + std::to_string(n) + " arguments");
    if (o.kind == Obj::Kind::GlobalTuple) return *o.items;
    std::vector<Obj> out;
    for (const auto& v : o.value.toTuple()->elements()) out.push_back(Obj::of(v));
    return out;
  }
  void set_item(Obj& dict, const Obj& key, const Obj& value);
  void append(Obj& list, const Obj& item);

  void global(const std::string& module, const std::string& name);
  void reduce();
  void build();
  void persistent_id();
  IValue call(const Obj& callable, std::vector<Obj> args);
  Tensor rebuild_tensor(const std::vector<Obj>& args, size_t hooks_at);
  void memo_get(uint32_t index) {
    auto it = memo_.find(index);
    if (it == memo_.end()) fail("memo entry " + std::to_string(index) + " was never stored");
    stack_.push_back(it->second);
  }

  std::string_view bytes_;
  const LoadStorage& load_storage_;
  const std::string& source_;
  size_t pos_ = 0, op_at_ = 0;
  std::vector<Obj> stack_;
  std::vector<size_t> marks_;
  std::unordered_map<uint32_t, Obj> memo_;
  std::unordered_set<const void*> sealed_;
  std::unordered_map<const void*, int> height_;
  std::vector<IValue> alive_;
  std::unordered_map<std::string, std::pair<Tensor, const StorageType*>> storages_;
};

void Unpickler::global(const std::string& module, const std::string& name) {
  static const std::unordered_map<std::string, Global> known = {
      {"collections.OrderedDict", Global::OrderedDict},
      {"torch._utils._rebuild_tensor_v2", Global::RebuildTensorV2},
      {"torch._utils._rebuild_tensor", Global::RebuildTensor},
      {"torch._utils._rebuild_parameter", Global::RebuildParameter},
      {"torch._utils._rebuild_parameter_with_state", Global::RebuildParameterWithState},
      {"torch.nn.parameter.Parameter", Global::Parameter},
      {"torch.Size", Global::TorchSize},
      {"torch.jit._pickle.restore_type_tag", Global::RestoreTypeTag},
      {"torch.jit._pickle.build_intlist", Global::BuildList},
      {"torch.jit._pickle.build_tensorlist", Global::BuildList},
      {"torch.jit._pickle.build_doublelist", Global::BuildList},
      {"torch.jit._pickle.build_boollist", Global::BuildList},
  };
  const std::string full = module + "." + name;
  Obj o;
  o.kind = Obj::Kind::Global;
  o.name = full;
  if (auto it = known.find(full); it != known.end()) {
    o.global = it->second;
  } else if (module == "torch" && (o.storage = find_storage_type(name)) != nullptr) {
    o.global = Global::StorageClass;
  } else {
    fail("the global '" + full +
         "' is not allowed: nabla reads tensors, storages and OrderedDict/dict/list/tuple/"
         "int/float/str/bool/None, as torch.load(weights_only=True), and never runs code");
  }
  stack_.push_back(std::move(o));
}

void Unpickler::set_item(Obj& dict, const Obj& key, const Obj& value) {
  if (dict.kind != Obj::Kind::Value || !dict.value.isGenericDict())
    fail("SETITEM on something other than a dict");
  IValue k = value_of(key, "as a dict key");
  if (container_of(k) != nullptr) fail(std::string("a dict key is a ") + k.tagKind());
  IValue v = value_of(value, "as a dict value");
  place(dict.value, v);
  dict.value.toGenericDict().insert_or_assign(std::move(k), std::move(v));
}

void Unpickler::append(Obj& list, const Obj& item) {
  if (list.kind != Obj::Kind::Value || !list.value.isList())
    fail("APPEND to something other than a list");
  IValue v = value_of(item, "in a list");
  place(list.value, v);
  list.value.toList().push_back(std::move(v));
}

void Unpickler::persistent_id() {
  Obj pid = pop();
  static const std::vector<Obj> none;
  const std::vector<Obj>& f = pid.kind == Obj::Kind::GlobalTuple ? *pid.items : none;
  const bool ok = f.size() == 5 && f[0].kind == Obj::Kind::Value && f[0].value.isString() &&
                  f[0].value.toStringRef() == "storage" && f[1].kind == Obj::Kind::Global &&
                  f[1].global == Global::StorageClass && f[2].kind == Obj::Kind::Value &&
                  f[2].value.isString() && f[3].kind == Obj::Kind::Value && f[3].value.isString() &&
                  f[4].kind == Obj::Kind::Value && f[4].value.isInt();
  if (!ok)
    fail("a persistent id that is not ('storage', torch.<Type>Storage, key, location, numel)");
  StorageRecord record{f[2].value.toStringRef(), f[1].storage, f[4].value.toInt(),
                       f[3].value.toStringRef()};
  if (record.numel < 0) fail("storage '" + record.key + "' has a negative size");
  auto it = storages_.find(record.key);
  if (it == storages_.end()) {
    it = storages_.emplace(record.key, std::make_pair(load_storage_(record), record.type)).first;
  } else if (it->second.second != record.type) {
    fail("storage '" + record.key + "' is named as both " + it->second.second->name + " and " +
         record.type->name);
  }
  push(it->second.first);
}

// _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks
// [, metadata]) and _rebuild_tensor(storage, storage_offset, size, stride): a tensor over
// the storage, sharing it with every other tensor of that storage.
Tensor Unpickler::rebuild_tensor(const std::vector<Obj>& args, size_t hooks_at) {
  auto arg = [&](size_t i) { return value_of(args[i], "as a tensor's argument"); };
  const IValue storage = arg(0), offset = arg(1), size = arg(2), stride = arg(3);
  if (!storage.isTensor() || !offset.isInt() || !(size.isTuple() || size.isList()) ||
      !(stride.isTuple() || stride.isList()))
    fail("a tensor's arguments are not (storage, offset, size, stride, ...)");
  if (hooks_at < args.size()) {
    const IValue hooks = arg(hooks_at);
    if (!(hooks.isNone() || (hooks.isGenericDict() && hooks.toGenericDict().empty())))
      fail("a tensor with backward hooks (they are Python code)");
  }
  const Tensor& flat = storage.toTensor();
  std::vector<int64_t> sizes, strides;
  for (const auto& [from, to] : {std::pair{&size, &sizes}, std::pair{&stride, &strides}}) {
    const auto& items = from->isTuple() ? from->toTuple()->elements() : from->toList();
    for (const auto& e : items) {
      if (!e.isInt()) fail("a tensor's size or stride holds a " + std::string(e.tagKind()));
      to->push_back(e.toInt());
    }
  }
  if (sizes.size() != strides.size() || static_cast<int64_t>(sizes.size()) > kMaxDims)
    fail("a tensor has " + std::to_string(sizes.size()) + " sizes and " +
         std::to_string(strides.size()) + " strides");
  // The last element must lie inside the storage; computed without overflow.
  const int64_t limit = flat.numel();
  int64_t last = offset.toInt();
  bool empty = false;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] < 0 || strides[d] < 0) fail("a tensor has a negative size or stride");
    if (sizes[d] == 0) empty = true;
  }
  if (last < 0) fail("a tensor has a negative storage offset");
  int64_t numel = 1;
  for (size_t d = 0; d < sizes.size() && !empty; ++d) {
    if (__builtin_mul_overflow(numel, sizes[d], &numel)) fail("a tensor's size overflows");
    int64_t step = 0;
    if (__builtin_mul_overflow(sizes[d] - 1, strides[d], &step) ||
        __builtin_add_overflow(last, step, &last))
      fail("a tensor's extent overflows");
  }
  if (!empty && last >= limit)
    fail("a tensor reaches element " + std::to_string(last) + " of a storage of " +
         std::to_string(limit));
  if (empty && offset.toInt() > limit)
    fail("a tensor's offset " + std::to_string(offset.toInt()) + " is past its storage of " +
         std::to_string(limit));
  return Tensor(std::make_shared<TensorImpl>(flat.impl()->storage(), flat.scalar_type(), sizes,
                                             strides, offset.toInt()));
}

IValue Unpickler::call(const Obj& callable, std::vector<Obj> args) {
  auto arg_count = [&](size_t lo, size_t hi, const char* what) {
    if (args.size() < lo || args.size() > hi)
      fail(std::string(what) + " called with " + std::to_string(args.size()) + " arguments");
  };
  auto as_tensor = [&](size_t i) {
    IValue v = value_of(args[i], "as a parameter's data");
    if (!v.isTensor()) fail("a Parameter's data is a " + std::string(v.tagKind()));
    return v.toTensor();
  };
  auto as_bool = [&](size_t i) {
    IValue v = value_of(args[i], "as requires_grad");
    if (!v.isBool()) fail("requires_grad is a " + std::string(v.tagKind()));
    return v.toBool();
  };
  auto with_grad = [](Tensor t, bool requires_grad) {
    if (requires_grad) t.set_requires_grad(true);
    return t;
  };
  switch (callable.global) {
    case Global::OrderedDict:
      if (!args.empty()) fail("collections.OrderedDict called with arguments");
      return IValue(GenericDict());
    case Global::RebuildTensorV2: {
      arg_count(6, 7, callable.name.c_str());
      Tensor t = rebuild_tensor(args, 5);
      return with_grad(t, as_bool(4));
    }
    case Global::RebuildTensor:
      arg_count(4, 4, callable.name.c_str());
      return rebuild_tensor(args, 4);
    case Global::RebuildParameter:
    case Global::RebuildParameterWithState:
      arg_count(3, callable.global == Global::RebuildParameter ? 3 : 4, callable.name.c_str());
      return with_grad(as_tensor(0), as_bool(1));
    case Global::Parameter:
      arg_count(1, 2, callable.name.c_str());
      return with_grad(as_tensor(0), args.size() < 2 || as_bool(1));
    case Global::TorchSize: {
      arg_count(1, 1, callable.name.c_str());
      IValue v = value_of(args[0], "as torch.Size's argument");
      if (!v.isTuple()) fail("torch.Size called with a " + std::string(v.tagKind()));
      return v;
    }
    case Global::RestoreTypeTag:  // (value, "Dict[str, Tensor]")
      arg_count(2, 2, callable.name.c_str());
      return value_of(args[0], "as a typed value");
    case Global::BuildList: {
      arg_count(1, 1, callable.name.c_str());
      IValue v = value_of(args[0], "as a list");
      if (!v.isList()) fail(callable.name + " called with a " + v.tagKind());
      return v;
    }
    case Global::StorageClass:
      break;
  }
  fail("'" + callable.name + "' is called, but it is only valid inside a persistent id");
}

void Unpickler::reduce() {
  Obj args = pop();
  Obj& callable = top();
  if (callable.kind != Obj::Kind::Global) fail("REDUCE calls something that is not a global");
  IValue result = call(callable, args_of(args, callable.name.c_str()));
  callable = Obj::of(std::move(result));
}

// BUILD sets an object's state. On a dict (an OrderedDict's __dict__, e.g. a state_dict's
// `_metadata` of module versions) the state is dropped: it holds no tensors.
void Unpickler::build() {
  Obj state = pop();
  Obj& target = top();
  if (target.kind == Obj::Kind::Value && target.value.isGenericDict()) {
    value_of(state, "as an object's state");
    return;
  }
  fail(std::string("BUILD (setting an object's state) on a ") +
       (target.kind == Obj::Kind::Value ? target.value.tagKind() : target.name.c_str()));
}

IValue Unpickler::run() {
  while (true) {
    op_at_ = pos_;
    const auto op = static_cast<uint8_t>(take(1)[0]);
    switch (op) {
      case 0x80: {  // PROTO
        const int v = le<uint8_t>();
        if (v > 5) fail("pickle protocol " + std::to_string(v) + " (this reader knows 0-5)");
        break;
      }
      case 0x95:
        take(8);
        break;     // FRAME: a length hint
      case '.': {  // STOP
        Obj result = pop();
        if (!stack_.empty() || !marks_.empty()) fail("data is left on the stack at STOP");
        return value_of(result, "as the result");
      }
      case 'c': {  // GLOBAL
        std::string module = line();
        global(module, line());
        break;
      }
      case 0x93: {  // STACK_GLOBAL
        IValue name = value_of(pop(), "as a global's name");
        IValue module = value_of(pop(), "as a global's module");
        if (!name.isString() || !module.isString()) fail("STACK_GLOBAL without two strings");
        global(module.toStringRef(), name.toStringRef());
        break;
      }
      case 'q':
        memo_[le<uint8_t>()] = top();
        break;  // BINPUT
      case 'r':
        memo_[le<uint32_t>()] = top();
        break;      // LONG_BINPUT
      case 0x94: {  // MEMOIZE
        const auto index = static_cast<uint32_t>(memo_.size());
        memo_[index] = top();
        break;
      }
      case 'h':
        memo_get(le<uint8_t>());
        break;  // BINGET
      case 'j':
        memo_get(le<uint32_t>());
        break;  // LONG_BINGET
      case '(':
        marks_.push_back(stack_.size());
        break;
      case '}':
        push(IValue(GenericDict()));
        break;
      case ']':
        push(IValue(GenericList()));
        break;
      case ')':
        push(IValue(ivalue::Tuple::create({})));
        break;
      case 'N':
        push(IValue());
        break;
      case 0x88:
        push(IValue(true));
        break;
      case 0x89:
        push(IValue(false));
        break;
      case 'J':
        push(IValue(static_cast<int64_t>(le<int32_t>())));
        break;  // BININT
      case 'K':
        push(IValue(static_cast<int64_t>(le<uint8_t>())));
        break;  // BININT1
      case 'M':
        push(IValue(static_cast<int64_t>(le<uint16_t>())));
        break;      // BININT2
      case 0x8a: {  // LONG1: little-endian two's complement of n bytes
        const size_t n = le<uint8_t>();
        if (n > 8) fail("an integer of " + std::to_string(n) + " bytes (more than int64)");
        std::string_view b = take(n);
        uint64_t u = get_le(b, 0, static_cast<int>(n));
        if (n > 0 && n < 8 && (uint8_t(b[n - 1]) & 0x80)) u |= ~uint64_t{0} << (8 * n);
        push(IValue(static_cast<int64_t>(u)));
        break;
      }
      case 'G': {  // BINFLOAT: big-endian
        uint64_t u = 0;
        for (char c : take(8)) u = (u << 8) | uint8_t(c);
        push(IValue(std::bit_cast<double>(u)));
        break;
      }
      case 'X':
        push(IValue(std::string(take(le<uint32_t>()))));
        break;  // BINUNICODE
      case 0x8c:
        push(IValue(std::string(take(le<uint8_t>()))));
        break;  // SHORT_BINUNICODE
      case 0x8d:
        push(IValue(std::string(take(le<uint64_t>()))));
        break;  // BINUNICODE8
      case 'U':
        push(IValue(std::string(take(le<uint8_t>()))));
        break;  // SHORT_BINSTRING
      case 'T':
        push(IValue(std::string(take(le<uint32_t>()))));
        break;  // BINSTRING
      case 'C':
        push(IValue(std::string(take(le<uint8_t>()))));
        break;  // SHORT_BINBYTES
      case 'B':
        push(IValue(std::string(take(le<uint32_t>()))));
        break;  // BINBYTES
      case 't':
        push_tuple(pop_mark());
        break;
      case 0x85:
      case 0x86:
      case 0x87: {  // TUPLE1..3
        std::vector<Obj> items(op - 0x84);
        for (size_t i = items.size(); i-- > 0;) items[i] = pop();
        push_tuple(std::move(items));
        break;
      }
      case 'R':
        reduce();
        break;
      case 0x81: {  // NEWOBJ: cls.__new__(cls, *args), allowed for Parameter only
        Obj args = pop();
        Obj& cls = top();
        if (cls.kind != Obj::Kind::Global || cls.global != Global::Parameter)
          fail("NEWOBJ of something other than torch.nn.Parameter");
        cls = Obj::of(call(cls, args_of(args, "NEWOBJ")));
        break;
      }
      case 'b':
        build();
        break;
      case 'Q':
        persistent_id();
        break;
      case 's': {  // SETITEM
        Obj value = pop(), key = pop();
        set_item(top(), key, value);
        break;
      }
      case 'u': {  // SETITEMS
        std::vector<Obj> items = pop_mark();
        if (items.size() % 2) fail("SETITEMS with an odd number of items");
        Obj& dict = top();
        for (size_t i = 0; i < items.size(); i += 2) set_item(dict, items[i], items[i + 1]);
        break;
      }
      case 'a': {  // APPEND
        Obj item = pop();
        append(top(), item);
        break;
      }
      case 'e': {  // APPENDS
        std::vector<Obj> items = pop_mark();
        Obj& list = top();
        for (const auto& item : items) append(list, item);
        break;
      }
      default: {
        char name[48];
        std::snprintf(name, sizeof name, "the pickle opcode 0x%02x%s%c%s", op,
                      op >= 32 && op < 127 ? " ('" : "", op >= 32 && op < 127 ? op : ' ',
                      op >= 32 && op < 127 ? "')" : "");
        fail(std::string(name) + " is not supported (nabla reads what torch.save writes)");
      }
    }
  }
}

}  // namespace

IValue unpickle(std::string_view bytes, const LoadStorage& load_storage,
                const std::string& source) {
  NoGradGuard no_grad;
  return Unpickler(bytes, load_storage, source).run();
}

}  // namespace nabla::serialize::detail
