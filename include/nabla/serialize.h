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
#include <functional>
#include <istream>
#include <ostream>
#include <string>
#include <type_traits>
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
/// The same to and from streams (always the safetensors layout: a stream has no name to
/// choose by).
void save(const Tensor& tensor, std::ostream& stream);
void save(const std::vector<Tensor>& tensors, std::ostream& stream);
void load(Tensor& tensor, std::istream& stream, optional<Device> device = nullopt);
void load(std::vector<Tensor>& tensors, std::istream& stream, optional<Device> device = nullopt);
/// And through functions, as LibTorch's: save hands the bytes to `writer`; load reads
/// `size` bytes at `data`, or asks `read(pos, buf, n)` for `size()` bytes.
void save(const Tensor& tensor, const std::function<size_t(const void*, size_t)>& writer);
void load(Tensor& tensor, const char* data, size_t size, optional<Device> device = nullopt);
void load(Tensor& tensor, const std::function<size_t(uint64_t, void*, size_t)>& read,
          const std::function<size_t()>& size, optional<Device> device = nullopt);

namespace serialize::detail {
/// Raises if `archive` has entries that nothing read (`what` names the destination).
void check_all_read(const InputArchive& archive, const std::string& what, const std::string& path);
/// Raises, listing every difference, unless `problems` is empty.
void check_compatible(const IncompatibleKeys& problems, const std::string& module,
                      const std::string& path);
/// Where save writes: a file name or a std::ostream; where load reads: a file name or a
/// std::istream.
template <class S>
concept SaveTarget = std::is_convertible_v < const std::remove_cvref_t<S>
&, std::string > || std::is_base_of_v<std::ostream, std::remove_cvref_t<S>>;
template <class S>
concept LoadSource = std::is_convertible_v < const std::remove_cvref_t<S>
&, std::string > || std::is_base_of_v<std::istream, std::remove_cvref_t<S>>;
/// The source as error messages name it.
inline std::string source_name(const std::string& path) { return path; }
inline std::string source_name(const std::istream&) { return "<stream>"; }
}  // namespace serialize::detail

/// Anything with save(OutputArchive&) const — reached directly (optimizers) or through
/// a pointer-like handle (module holders, shared_ptr<Module>) — to a file or a stream.
template <class T, serialize::detail::SaveTarget Target>
requires requires(const T& v, serialize::OutputArchive& a) { v.save(a); }
void save(const T& value, Target&& target) {
  serialize::OutputArchive archive;
  value.save(archive);
  archive.save_to(target);
}
template <class T, serialize::detail::SaveTarget Target>
requires requires(const T& v, serialize::OutputArchive& a) { v->save(a); }
void save(const T& handle, Target&& target) {
  serialize::OutputArchive archive;
  handle->save(archive);
  archive.save_to(target);
}

template <class T, serialize::detail::LoadSource Source>
requires requires(T& v, serialize::InputArchive& a) { v.load(a); }
void load(T& value, Source&& source, optional<Device> device = nullopt) {
  serialize::InputArchive archive;
  archive.load_from(source, device);
  value.load(archive);
  serialize::detail::check_all_read(archive, "the destination",
                                    serialize::detail::source_name(source));
}
/// A module (through its holder): with `strict`, any difference is a nabla::Error listing
/// them all; without, what matches is loaded and the differences are returned.
template <class T, serialize::detail::LoadSource Source>
requires requires(T& v, serialize::InputArchive& a) { v->load(a); }
serialize::IncompatibleKeys load(T& handle, Source&& source, bool strict,
                                 optional<Device> device = nullopt) {
  serialize::InputArchive archive;
  archive.load_from(source, device);
  archive.collect_mismatches(true);
  handle->load(archive);
  auto problems = archive.incompatible_keys();
  if (strict)
    serialize::detail::check_compatible(problems, handle->name(),
                                        serialize::detail::source_name(source));
  return problems;
}
/// A module, strictly; with `device` its parameters and buffers move there (as LibTorch's).
template <class T, serialize::detail::LoadSource Source>
requires requires(T& v, serialize::InputArchive& a) { v->load(a); }
void load(T& handle, Source&& source, optional<Device> device = nullopt) {
  load(handle, std::forward<Source>(source), /*strict=*/true, device);
}

}  // namespace nabla
