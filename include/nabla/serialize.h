#pragma once
// nabla::save / nabla::load, as torch::save / torch::load, writing safetensors files, or
// PyTorch's torch.save format when the name ends in .pt or .pth:
//   nabla::save(model, "model.safetensors");      // a module: parameters and buffers
//   nabla::save(model, "model.pt");               // as Python's torch.save(m.state_dict())
//   nabla::save(optimizer, "opt.safetensors");    // an optimizer: its state
//   nabla::save(tensor, "t.safetensors");         // one tensor, stored under key "0"
//   nabla::save(tensors, "ts.safetensors");       // a vector, under "0", "1", ...
//   nabla::load(model, "model.pt");               // either format, told by the content
// Keys are PyTorch's state_dict keys (named_parameters() and named_buffers()), so a
// state_dict saved in Python loads into the same module tree written with nabla::nn.
// Loading a module checks every name, shape and dtype, and that the file has no entry the
// module lacks; a nabla::Error lists every difference. load(model, path, /*strict=*/false)
// loads what matches and returns the differences instead. Writes are atomic.
#include <string>
#include <vector>

#include "nabla/core/tensor.h"
#include "nabla/serialize/archive.h"
#include "nabla/serialize/numpy.h"
#include "nabla/serialize/pickle.h"

namespace nabla {

void save(const Tensor& tensor, const std::string& path);
void save(const std::vector<Tensor>& tensors, const std::string& path);
/// With `device`, the loaded tensors are placed there (torch::load's device argument).
void load(Tensor& tensor, const std::string& path, optional<Device> device = nullopt);
void load(std::vector<Tensor>& tensors, const std::string& path, optional<Device> device = nullopt);

namespace serialize::detail {
/// Raises if `archive` has entries that nothing read (`what` names the destination).
void check_all_read(const InputArchive& archive, const std::string& what, const std::string& path);
/// Raises, listing every difference, unless `problems` is empty.
void check_compatible(const IncompatibleKeys& problems, const std::string& module,
                      const std::string& path);
}  // namespace serialize::detail

/// Anything with save(OutputArchive&) const — reached directly (optimizers) or through
/// a pointer-like handle (module holders, shared_ptr<Module>).
template <class T>
requires requires(const T& v, serialize::OutputArchive& a) { v.save(a); }
void save(const T& value, const std::string& path) {
  serialize::OutputArchive archive;
  value.save(archive);
  archive.save_to(path);
}
template <class T>
requires requires(const T& v, serialize::OutputArchive& a) { v->save(a); }
void save(const T& handle, const std::string& path) {
  serialize::OutputArchive archive;
  handle->save(archive);
  archive.save_to(path);
}

template <class T>
requires requires(T& v, serialize::InputArchive& a) { v.load(a); }
void load(T& value, const std::string& path, optional<Device> device = nullopt) {
  serialize::InputArchive archive;
  archive.load_from(path, device);
  value.load(archive);
  serialize::detail::check_all_read(archive, "the destination", path);
}
/// A module (through its holder): with `strict`, any difference is a nabla::Error listing
/// them all; without, what matches is loaded and the differences are returned.
template <class T>
requires requires(T& v, serialize::InputArchive& a) { v->load(a); }
serialize::IncompatibleKeys load(T& handle, const std::string& path, bool strict,
                                 optional<Device> device = nullopt) {
  serialize::InputArchive archive;
  archive.load_from(path, device);
  archive.collect_mismatches(true);
  handle->load(archive);
  auto problems = archive.incompatible_keys();
  if (strict) serialize::detail::check_compatible(problems, handle->name(), path);
  return problems;
}
/// A module, strictly; with `device` its parameters and buffers move there (as LibTorch's).
template <class T>
requires requires(T& v, serialize::InputArchive& a) { v->load(a); }
void load(T& handle, const std::string& path, optional<Device> device = nullopt) {
  load(handle, path, /*strict=*/true, device);
}

}  // namespace nabla
