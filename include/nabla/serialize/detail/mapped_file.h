#pragma once
// Files mapped into memory, and tensors over their bytes: how .pt and safetensors loads
// avoid a copy of the weights (the module's parameters are the one copy).
#include <memory>
#include <string>
#include <string_view>

#include "nabla/core/tensor.h"

namespace nabla::serialize::detail {

/// A file mapped copy-on-write: its pages are read on demand and writes through a view
/// stay private. The file must not be truncated while mapped (the reader would fault).
class MappedFile {
 public:
  static std::shared_ptr<MappedFile> open(const std::string& path, const char* op);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  std::string_view bytes() const { return {static_cast<const char*>(data_), size_}; }

 private:
  MappedFile(void* data, size_t size) : data_(data), size_(size) {}
  void* data_;
  size_t size_;
};

/// A tensor of `shape` and `dtype` over `data` (contiguous, aligned to the element size),
/// which `keep_alive` keeps valid for as long as the tensor's storage lives.
Tensor borrowed_tensor(const char* data, IntArrayRef shape, ScalarType dtype,
                       const std::shared_ptr<const void>& keep_alive);

}  // namespace nabla::serialize::detail
