// OutputArchive / InputArchive over safetensors files.
#include "nabla/serialize/archive.h"

#include <sys/stat.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <type_traits>

#include "core/atomic_file.h"
#include "nabla/autograd/grad_mode.h"
#include "nabla/ops/factories.h"
#include "safetensors.h"

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

void OutputArchive::write_metadata(const std::string& key, const std::string& value) {
  metadata_[key] = value;
}

void OutputArchive::save_to(const std::string& filename) const {
  nabla::detail::write_file_atomically(filename, detail::encode_safetensors(tensors_, metadata_),
                                       "save");
}

void OutputArchive::save_to(std::ostream& stream) const {
  const std::string bytes = detail::encode_safetensors(tensors_, metadata_);
  stream.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  NABLA_CHECK(stream.good(), "save: writing to the stream failed");
}

// ---- InputArchive ----------------------------------------------------------------------

struct InputArchive::State {
  OrderedDict<std::string, Tensor> tensors{"Archive key"};
  std::map<std::string, std::string> metadata;
  std::set<std::string> read;
  std::string source = "<empty archive>";
};

InputArchive::InputArchive() : state_(std::make_shared<State>()) {}

void InputArchive::load_from(const std::string& filename) {
  std::ifstream in(filename, std::ios::binary);
  NABLA_CHECK(in.is_open(), "load: cannot open '", filename, "'");
  in.seekg(0, std::ios::end);
  const auto size = static_cast<uint64_t>(in.tellg());
  auto read_at = [&](uint64_t offset, uint64_t bytes, void* dst) {
    in.seekg(static_cast<std::streamoff>(offset));
    in.read(static_cast<char*>(dst), static_cast<std::streamsize>(bytes));
    NABLA_CHECK(in.good(), "load: '", filename, "': read of ", bytes, " bytes at offset ", offset,
                " failed");
  };
  auto contents = detail::decode_safetensors(size, read_at, "'" + filename + "'");
  state_ = std::make_shared<State>();
  state_->tensors = std::move(contents.tensors);
  state_->metadata = std::move(contents.metadata);
  state_->source = "'" + filename + "'";
  prefix_.clear();
}

void InputArchive::load_from(std::istream& stream) {
  std::string bytes((std::istreambuf_iterator<char>(stream)), std::istreambuf_iterator<char>());
  auto read_at = [&](uint64_t offset, uint64_t n, void* dst) {
    std::memcpy(dst, bytes.data() + offset, n);  // offsets validated against the size
  };
  auto contents = detail::decode_safetensors(bytes.size(), read_at, "stream");
  state_ = std::make_shared<State>();
  state_->tensors = std::move(contents.tensors);
  state_->metadata = std::move(contents.metadata);
  state_->source = "stream";
  prefix_.clear();
}

const Tensor* InputArchive::find(const std::string& key) const {
  return state_->tensors.find(prefix_ + key);
}

bool InputArchive::contains(const std::string& key) const { return find(key) != nullptr; }

bool InputArchive::try_read(const std::string& key, Tensor& tensor, bool /*is_buffer*/) {
  const Tensor* stored = find(key);
  if (stored == nullptr) return false;
  const std::string full = prefix_ + key;
  if (!tensor.defined()) {
    tensor = *stored;
  } else {
    NABLA_CHECK(tensor.sizes() == stored->sizes(), "load: ", state_->source, ": '", full,
                "' has shape ", stored->sizes(), " in the file, but the destination has shape ",
                tensor.sizes());
    NABLA_CHECK(tensor.scalar_type() == stored->scalar_type(), "load: ", state_->source, ": '",
                full, "' has dtype ", stored->scalar_type(),
                " in the file, but the destination has dtype ", tensor.scalar_type());
    NoGradGuard guard;
    tensor.copy_(*stored);
  }
  state_->read.insert(full);
  return true;
}

void InputArchive::read(const std::string& key, Tensor& tensor, bool is_buffer) {
  NABLA_CHECK(try_read(key, tensor, is_buffer), "load: ", state_->source, " has no entry '",
              prefix_ + key, "'", (tensor.defined() ? " (expected by the destination)" : ""));
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

optional<std::string> InputArchive::read_metadata(const std::string& key) const {
  auto it = state_->metadata.find(prefix_ + key);
  if (it == state_->metadata.end()) return nullopt;
  return it->second;
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
