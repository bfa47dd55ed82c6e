// nabla::save / nabla::load of tensors, and the unread-entry check of module loading.
#include <string>

#include "nabla/core/detail/atomic_file.h"
#include "nabla/serialize.h"
#include "serialize/torch_file.h"

namespace nabla {

void serialize::detail::check_all_read(const InputArchive& archive, const std::string& what,
                                       const std::string& path) {
  const auto extra = archive.unread_keys();
  if (extra.empty()) return;
  std::string list;
  for (size_t i = 0; i < extra.size() && i < 10; ++i) list += (i ? ", " : "") + extra[i];
  if (extra.size() > 10) list += ", ... (" + std::to_string(extra.size()) + " in all)";
  NABLA_CHECK(false, "load: '", path, "' has entries that ", what, " does not have: ", list);
}

void serialize::detail::check_compatible(const IncompatibleKeys& problems,
                                         const std::string& module, const std::string& path) {
  if (problems.empty()) return;
  throw Error(str("load: '", path, "' does not match ", module,
                  " (nabla::load(module, path, /*strict=*/false) loads what matches):\n",
                  problems.describe()));
}

// A .pt file of a tensor or a vector holds it as Python would: a tensor, a list.
void save(const Tensor& tensor, const std::string& path) {
  if (serialize::detail::has_torch_extension(path)) {
    nabla::detail::write_file_atomically(path, serialize::detail::encode_torch_file(tensor),
                                         "save");
    return;
  }
  save(std::vector<Tensor>{tensor}, path);
}

void save(const std::vector<Tensor>& tensors, const std::string& path) {
  if (serialize::detail::has_torch_extension(path)) {
    nabla::detail::write_file_atomically(
        path, serialize::detail::encode_torch_file(IValue(tensors)), "save");
    return;
  }
  serialize::OutputArchive archive;
  for (size_t i = 0; i < tensors.size(); ++i) archive.write(std::to_string(i), tensors[i]);
  archive.save_to(path);
}

void save(const Tensor& tensor, std::ostream& stream) { save(std::vector<Tensor>{tensor}, stream); }

void save(const std::vector<Tensor>& tensors, std::ostream& stream) {
  serialize::OutputArchive archive;
  for (size_t i = 0; i < tensors.size(); ++i) archive.write(std::to_string(i), tensors[i]);
  archive.save_to(stream);
}

namespace {

std::vector<Tensor> read_tensor_list(serialize::InputArchive& archive, const std::string& source) {
  const auto keys = archive.keys();
  std::vector<Tensor> out(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    NABLA_CHECK(archive.contains(std::to_string(i)), "load: '", source,
                "' is not a list of tensors (no entry '", i, "'; it has '", keys[0], "', ...)");
    archive.read(std::to_string(i), out[i]);
  }
  return out;
}

Tensor only_tensor(std::vector<Tensor> tensors, const std::string& source) {
  NABLA_CHECK(tensors.size() == 1, "load: '", source, "' holds ", tensors.size(),
              " tensors; load it into a std::vector<Tensor>");
  return tensors[0];
}

}  // namespace

void load(std::vector<Tensor>& tensors, const std::string& path, optional<Device> device) {
  serialize::InputArchive archive;
  archive.load_from(path, device);
  tensors = read_tensor_list(archive, path);
}

void load(std::vector<Tensor>& tensors, std::istream& stream, optional<Device> device) {
  serialize::InputArchive archive;
  archive.load_from(stream, device);
  tensors = read_tensor_list(archive, "<stream>");
}

void load(Tensor& tensor, const std::string& path, optional<Device> device) {
  std::vector<Tensor> tensors;
  load(tensors, path, device);
  tensor = only_tensor(std::move(tensors), path);
}

void load(Tensor& tensor, std::istream& stream, optional<Device> device) {
  std::vector<Tensor> tensors;
  load(tensors, stream, device);
  tensor = only_tensor(std::move(tensors), "<stream>");
}

void save(const Tensor& tensor, const std::function<size_t(const void*, size_t)>& writer) {
  serialize::OutputArchive archive;
  archive.write("0", tensor);
  archive.save_to(writer);
}

void load(Tensor& tensor, const char* data, size_t size, optional<Device> device) {
  serialize::InputArchive archive;
  archive.load_from(data, size, device);
  tensor = only_tensor(read_tensor_list(archive, "<buffer>"), "<buffer>");
}

void load(Tensor& tensor, const std::function<size_t(uint64_t, void*, size_t)>& read,
          const std::function<size_t()>& size, optional<Device> device) {
  serialize::InputArchive archive;
  archive.load_from(read, size, device);
  tensor = only_tensor(read_tensor_list(archive, "<read function>"), "<read function>");
}

}  // namespace nabla
