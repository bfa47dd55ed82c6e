// OutputArchive / InputArchive over safetensors files.
#include "nabla/serialize/archive.h"

#include <algorithm>

#include <cstring>
#include <iterator>
#include <set>
#include <sstream>
#include <type_traits>

#include "nabla/autograd/grad_mode.h"
#include "nabla/core/detail/atomic_file.h"
#include "nabla/ops/factories.h"
#include "nabla/serialize/detail/mapped_file.h"
#include "safetensors.h"
#include "serialize/torch_file.h"

namespace nabla::serialize {

// ---- OutputArchive ---------------------------------------------------------------------

void OutputArchive::write(const std::string& key, const Tensor& tensor, bool /*is_buffer*/) {
  NABLA_CHECK(tensor.defined(), "save: the tensor for key '", key, "' is undefined");
  NABLA_CHECK(!tensors_.contains(key), "save: key '", key, "' written twice");
  // A snapshot: later in-place updates of the parameter must not change what is saved.
  tensors_.insert(key, tensor.detach().clone().contiguous());
}

void OutputArchive::write(const std::string& key, const OutputArchive& nested) {
  for (const auto& item : nested.tensors_) {
    const std::string full = key + "." + item.key();
    NABLA_CHECK(!tensors_.contains(full), "save: key '", full, "' written twice");
    tensors_.insert(full, item.value());
  }
  for (const auto& [k, v] : nested.metadata_) metadata_[key + "." + k] = v;
}

void OutputArchive::write(const std::string& key, double value) {
  write(key, scalar_tensor(value, TensorOptions(kDouble)));
}

void OutputArchive::write(const std::string& key, int64_t value) {
  write(key, scalar_tensor(value, TensorOptions(kLong)));
}

namespace {
// The metadata entry that says what kind of IValue `key` holds (absent for plain tensors).
std::string ivalue_kind_key(const std::string& key) { return key + "#ivalue"; }
}  // namespace

void OutputArchive::write(const std::string& key, const IValue& value) {
  if (value.isTensor()) return write(key, value.toTensor());
  if (value.isString()) {
    NABLA_CHECK(!metadata_.count(key), "save: key '", key, "' written twice");
    metadata_[key] = value.toStringRef();
  } else if (value.isInt()) {
    write(key, value.toInt());
  } else if (value.isDouble()) {
    write(key, value.toDouble());
  } else if (value.isBool()) {
    write(key, scalar_tensor(value.toBool(), TensorOptions(kBool)));
  } else {
    NABLA_CHECK(false, "OutputArchive::write: '", key, "' is an IValue of kind ", value.tagKind(),
                "; an archive stores tensors, ints, doubles, bools and strings");
  }
  metadata_[ivalue_kind_key(key)] = value.tagKind();
}

void OutputArchive::write_metadata(const std::string& key, const std::string& value) {
  metadata_[key] = value;
}

void OutputArchive::save_to(const std::string& filename) const {
  if (detail::has_torch_extension(filename)) {
    GenericDict dict;
    for (const auto& item : tensors_) dict.insert_or_assign(item.key(), item.value());
    for (const auto& [k, v] : metadata_) dict.insert_or_assign(k, v);
    nabla::detail::write_file_atomically(filename, detail::encode_torch_file(IValue(dict)), "save");
    return;
  }
  nabla::detail::write_file_atomically(filename, detail::encode_safetensors(tensors_, metadata_),
                                       "save");
}

void OutputArchive::save_to(std::ostream& stream) const {
  const std::string bytes = detail::encode_safetensors(tensors_, metadata_);
  stream.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  NABLA_CHECK(stream.good(), "save: writing to the stream failed");
}

void OutputArchive::save_to(const std::function<size_t(const void*, size_t)>& writer) const {
  const std::string bytes = detail::encode_safetensors(tensors_, metadata_);
  const size_t taken = writer(bytes.data(), bytes.size());
  NABLA_CHECK(taken == bytes.size(), "save: the writer function took ", taken, " of ", bytes.size(),
              " bytes");
}

// ---- InputArchive ----------------------------------------------------------------------

struct InputArchive::State {
  OrderedDict<std::string, Tensor> tensors{"Archive key"};
  std::map<std::string, std::string> metadata;
  std::set<std::string> read;
  std::string source = "<empty archive>";
  bool collect = false;
  IncompatibleKeys problems;  // missing and mismatched keys, when collecting
  optional<Device> device;    // where read() places a stored tensor (load_from's argument)
};

InputArchive::InputArchive() : state_(std::make_shared<State>()) {}

namespace {
// A torch.save file's value as an archive's flat entries: dict keys and list indices
// joined by dots.
void flatten(const IValue& v, const std::string& key, OrderedDict<std::string, Tensor>& tensors,
             std::map<std::string, std::string>& metadata) {
  auto child = [&](const std::string& k) { return key.empty() ? k : key + "." + k; };
  auto sequence = [&](const std::vector<IValue>& items) {
    for (size_t i = 0; i < items.size(); ++i)
      flatten(items[i], child(std::to_string(i)), tensors, metadata);
  };
  auto put = [&](const Tensor& t) {
    const std::string k = key.empty() ? "0" : key;  // a bare tensor, as save(tensor) writes
    NABLA_CHECK(!tensors.contains(k), "load: the file has the key '", k, "' twice");
    tensors.insert(k, t);
  };
  switch (v.tag()) {
    case IValue::Tag::Tensor:
      return put(v.toTensor());
    case IValue::Tag::Int:
      return put(scalar_tensor(v.toInt(), TensorOptions(kLong)));
    case IValue::Tag::Double:
      return put(scalar_tensor(v.toDouble(), TensorOptions(kDouble)));
    case IValue::Tag::Bool:
      return put(scalar_tensor(v.toBool(), TensorOptions(kBool)));
    case IValue::Tag::String:
      metadata[key] = v.toStringRef();
      return;
    case IValue::Tag::None:
      return;
    case IValue::Tag::IntList: {
      const auto ints = v.toIntVector();
      return sequence(GenericList(ints.begin(), ints.end()));
    }
    case IValue::Tag::List:
      return sequence(v.toList());
    case IValue::Tag::Tuple:
      return sequence(v.toTuple()->elements());
    case IValue::Tag::GenericDict:
      for (const auto& e : v.toGenericDict()) {
        const IValue& k = e.key();
        NABLA_CHECK(k.isString() || k.isInt() || k.isBool(), "load: a dict key is a ", k.tagKind(),
                    "; archives have string keys");
        flatten(e.value(),
                child(k.isString() ? k.toStringRef()
                      : k.isInt()  ? std::to_string(k.toInt())
                                   : (k.toBool() ? "True" : "False")),
                tensors, metadata);
      }
      return;
  }
}
}  // namespace

// Either format, told by its first bytes; tensors are views into `bytes` (owned by
// `keep_alive`) where their bytes can be used as they are.
void InputArchive::load_from_bytes(std::string_view bytes, const std::string& source,
                                   std::shared_ptr<const void> keep_alive) {
  auto state = std::make_shared<State>();
  state->source = source;
  switch (detail::sniff_file(bytes)) {
    case detail::FileKind::TorchZip: {
      const IValue value = detail::decode_torch_file(bytes, source, "load", std::move(keep_alive));
      NABLA_CHECK(value.isTensor() || value.isList() || value.isTuple() || value.isGenericDict(),
                  "load: ", source, " holds a ", value.tagKind(), ", not tensors");
      flatten(value, "", state->tensors, state->metadata);
      break;
    }
    case detail::FileKind::LegacyTorch:
      throw Error(str("load: ", source,
                      " is in the legacy torch.save format of PyTorch before 1.6 (not a zip "
                      "archive), which nabla does not read; load it in Python and save it again "
                      "with torch.save (PyTorch >= 1.6 writes the zip format)"));
    case detail::FileKind::Other: {
      auto read_at = [&](uint64_t offset, uint64_t n, void* dst) {
        std::memcpy(dst, bytes.data() + offset, n);  // offsets validated against the size
      };
      auto contents = detail::decode_safetensors(bytes.size(), read_at, source, bytes, keep_alive);
      state->tensors = std::move(contents.tensors);
      state->metadata = std::move(contents.metadata);
      break;
    }
  }
  state_ = std::move(state);
  prefix_.clear();
}

void InputArchive::load_from(const std::string& filename, optional<Device> device) {
  auto file = detail::MappedFile::open(filename, "load");
  const std::string_view bytes = file->bytes();
  load_from_bytes(bytes, "'" + filename + "'", std::move(file));
  state_->device = device;
}

void InputArchive::load_from(std::istream& stream, optional<Device> device) {
  auto owned = std::make_shared<std::string>((std::istreambuf_iterator<char>(stream)),
                                             std::istreambuf_iterator<char>());
  const std::string_view bytes = *owned;
  load_from_bytes(bytes, "stream", std::move(owned));
  state_->device = device;
}

void InputArchive::load_from(const char* data, size_t size, optional<Device> device) {
  NABLA_CHECK(data != nullptr || size == 0, "load: null data of ", size, " bytes");
  auto owned = std::make_shared<std::string>(data, size);
  const std::string_view bytes = *owned;
  load_from_bytes(bytes, "buffer", std::move(owned));
  state_->device = device;
}

void InputArchive::load_from(const std::function<size_t(uint64_t, void*, size_t)>& read,
                             const std::function<size_t()>& size, optional<Device> device) {
  const size_t n = size();
  auto owned = std::make_shared<std::string>(n, '\0');
  size_t got = 0;
  while (got < n) {
    const size_t step = read(got, owned->data() + got, n - got);
    NABLA_CHECK(step > 0 && step <= n - got, "load: the read function returned ", step,
                " bytes at offset ", got, " of ", n);
    got += step;
  }
  const std::string_view bytes = *owned;
  load_from_bytes(bytes, "read function", std::move(owned));
  state_->device = device;
}

void InputArchive::set_device(optional<Device> device) { state_->device = device; }
optional<Device> InputArchive::device() const { return state_->device; }

const Tensor* InputArchive::find(const std::string& key) const {
  return state_->tensors.find(prefix_ + key);
}

bool InputArchive::contains(const std::string& key) const { return find(key) != nullptr; }

bool InputArchive::try_read(const std::string& key, Tensor& tensor, bool /*is_buffer*/) {
  const Tensor* stored = find(key);
  if (stored == nullptr) return false;
  const std::string full = prefix_ + key;
  if (!tensor.defined()) {
    tensor = state_->device ? stored->to(*state_->device, stored->scalar_type()) : *stored;
  } else {
    state_->read.insert(full);
    if (state_->collect &&
        (tensor.sizes() != stored->sizes() || tensor.scalar_type() != stored->scalar_type())) {
      state_->problems.mismatched_keys.push_back({full,
                                                  str(stored->sizes(), " ", stored->scalar_type()),
                                                  str(tensor.sizes(), " ", tensor.scalar_type())});
      return true;
    }
    NABLA_CHECK(tensor.sizes() == stored->sizes(), "load: ", state_->source, ": '", full,
                "' has shape ", stored->sizes(), " in the file, but the destination has shape ",
                tensor.sizes());
    NABLA_CHECK(tensor.scalar_type() == stored->scalar_type(), "load: ", state_->source, ": '",
                full, "' has dtype ", stored->scalar_type(),
                " in the file, but the destination has dtype ", tensor.scalar_type());
    NoGradGuard guard;
    if (state_->device)  // as LibTorch: the destination moves to the requested device
      tensor.set_data(stored->to(*state_->device, stored->scalar_type(), false, /*copy=*/true));
    else
      tensor.copy_(*stored);
  }
  state_->read.insert(full);
  return true;
}

void InputArchive::read(const std::string& key, Tensor& tensor, bool is_buffer) {
  if (try_read(key, tensor, is_buffer)) return;
  if (state_->collect && tensor.defined()) {
    state_->problems.missing_keys.push_back(prefix_ + key);
    return;
  }
  NABLA_CHECK(false, "load: ", state_->source, " has no entry '", prefix_ + key, "'",
              (tensor.defined() ? " (expected by the destination)" : ""));
}

bool InputArchive::try_read(const std::string& key, InputArchive& nested) const {
  const std::string p = prefix_ + key + ".";
  bool any = false;
  for (const auto& item : state_->tensors)
    if (item.key().compare(0, p.size(), p) == 0) any = true;
  if (!any) return false;
  nested.state_ = state_;
  nested.prefix_ = p;
  return true;
}

void InputArchive::read(const std::string& key, InputArchive& nested) const {
  if (!try_read(key, nested)) {
    // An empty submodule (no parameters) writes nothing: give it an empty view.
    nested.state_ = state_;
    nested.prefix_ = prefix_ + key + ".";
  }
}

namespace {
// The one value of the tensor stored under `name` (written by OutputArchive::write(double)
// or write(int64_t)).
template <class T>
T scalar_value(const Tensor& t, const std::string& name) {
  NABLA_CHECK(t.numel() == 1, "load: '", name, "' holds ", t.numel(), " values, expected a scalar");
  // A file's float cannot become an integer safely (1e300 has no int64 value).
  if constexpr (std::is_integral_v<T>)
    NABLA_CHECK(isIntegralType(t.scalar_type(), true), "load: '", name, "' holds a ",
                t.scalar_type(), " value, expected an integer");
  return t.item<T>();
}
}  // namespace

void InputArchive::read(const std::string& key, double& value) {
  Tensor t;
  read(key, t);
  value = scalar_value<double>(t, prefix_ + key);
}

void InputArchive::read(const std::string& key, int64_t& value) {
  Tensor t;
  read(key, t);
  value = scalar_value<int64_t>(t, prefix_ + key);
}

bool InputArchive::try_read(const std::string& key, IValue& value) {
  const optional<std::string> kind = read_metadata(ivalue_kind_key(key));
  if (kind && *kind == IValue(std::string()).tagKind()) {
    value = IValue(*read_metadata(key));
    return true;
  }
  Tensor t;
  if (!try_read(key, t)) return false;
  const std::string name = prefix_ + key;
  if (!kind)
    value = IValue(t);
  else if (*kind == IValue(int64_t{0}).tagKind())
    value = IValue(scalar_value<int64_t>(t, name));
  else if (*kind == IValue(0.0).tagKind())
    value = IValue(scalar_value<double>(t, name));
  else if (*kind == IValue(false).tagKind())
    value = IValue(scalar_value<int64_t>(t, name) != 0);
  else
    value = IValue(t);
  return true;
}

void InputArchive::read(const std::string& key, IValue& value) {
  NABLA_CHECK(try_read(key, value), "load: the archive does not have a field with name '",
              prefix_ + key, "'");
}

optional<std::string> InputArchive::read_metadata(const std::string& key) const {
  auto it = state_->metadata.find(prefix_ + key);
  if (it == state_->metadata.end()) return nullopt;
  return it->second;
}

void InputArchive::collect_mismatches(bool on) { state_->collect = on; }

IncompatibleKeys InputArchive::incompatible_keys() const {
  IncompatibleKeys out = state_->problems;
  for (const auto& k : unread_keys()) out.unexpected_keys.push_back(prefix_ + k);
  // A missing key whose submodule has nothing in the file: name the submodule.
  auto file_has_prefix = [&](const std::string& prefix) {
    for (const auto& item : state_->tensors)
      if (item.key().compare(0, prefix.size(), prefix) == 0) return true;
    return false;
  };
  for (const std::string& key : out.missing_keys)
    for (size_t dot = key.find('.'); dot != std::string::npos; dot = key.find('.', dot + 1)) {
      const std::string module = key.substr(0, dot);
      if (file_has_prefix(module + ".")) continue;
      if (std::find(out.missing_submodules.begin(), out.missing_submodules.end(), module) ==
          out.missing_submodules.end())
        out.missing_submodules.push_back(module);
      break;
    }
  return out;
}

std::string IncompatibleKeys::describe() const {
  std::string out;
  auto group = [&](const char* title, size_t n, auto&& item) {
    if (n == 0) return;
    out += str(out.empty() ? "" : "\n", "  ", title, " (", n, "): ");
    for (size_t i = 0; i < n; ++i) out += (i ? ", " : "") + item(i);
  };
  group("missing from the file", missing_keys.size(), [&](size_t i) { return missing_keys[i]; });
  group("unexpected in the file", unexpected_keys.size(),
        [&](size_t i) { return unexpected_keys[i]; });
  group("shape or dtype differs", mismatched_keys.size(), [&](size_t i) {
    const auto& m = mismatched_keys[i];
    return str(m.key, ": ", m.in_file, " in the file, ", m.in_module, " in the module");
  });
  // LibTorch's phrases, which its users search for.
  if (!missing_keys.empty()) out += str("\n  No such serialized tensor '", missing_keys[0], "'");
  for (const std::string& m : missing_submodules)
    out += str("\n  No such serialized submodule: '", m, "'");
  return out;
}

std::vector<std::string> InputArchive::keys() const {
  std::vector<std::string> out;
  for (const auto& item : state_->tensors)
    if (item.key().compare(0, prefix_.size(), prefix_) == 0)
      out.push_back(item.key().substr(prefix_.size()));
  return out;
}

std::vector<std::string> InputArchive::unread_keys() const {
  std::vector<std::string> out;
  for (const auto& k : keys())
    if (!state_->read.count(prefix_ + k)) out.push_back(k);
  return out;
}

}  // namespace nabla::serialize
