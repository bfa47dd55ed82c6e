#pragma once
// nabla::save / nabla::load, as torch::save / torch::load, writing safetensors files:
//   nabla::save(model, "model.safetensors");      // a module: parameters and buffers
//   nabla::save(optimizer, "opt.safetensors");    // an optimizer: its state
//   nabla::save(tensor, "t.safetensors");         // one tensor, stored under key "0"
//   nabla::save(tensors, "ts.safetensors");       // a vector, under "0", "1", ...
//   nabla::load(model, "model.safetensors");
// Loading a module checks every name, shape and dtype, and that the file has no entry
// the module lacks; each difference is a nabla::Error naming the key. Writes are atomic.
#include <string>
#include <vector>

#include "nabla/core/tensor.h"
#include "nabla/serialize/archive.h"
#include "nabla/serialize/numpy.h"

namespace nabla {

void save(const Tensor& tensor, const std::string& path);
void save(const std::vector<Tensor>& tensors, const std::string& path);
void load(Tensor& tensor, const std::string& path);
void load(std::vector<Tensor>& tensors, const std::string& path);

namespace serialize::detail {
/// Raises if `archive` has entries that nothing read (`what` names the destination).
void check_all_read(const InputArchive& archive, const std::string& what, const std::string& path);
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
void load(T& value, const std::string& path) {
  serialize::InputArchive archive;
  archive.load_from(path);
  value.load(archive);
  serialize::detail::check_all_read(archive, "the destination", path);
}
template <class T>
requires requires(T& v, serialize::InputArchive& a) { v->load(a); }
void load(T& handle, const std::string& path) {
  serialize::InputArchive archive;
  archive.load_from(path);
  handle->load(archive);
  serialize::detail::check_all_read(archive, handle->name(), path);
}

}  // namespace nabla
