#pragma once
// Exact checks of nabla tensors that need no reference library, for the driver in both
// builds (Note [Table without LibTorch], table.h): ops::call against the direct call,
// inputs an op must leave alone, and (without LibTorch) results on NaN-filled new memory
// against those on zero-filled memory. Elements are read straight from storage, so no nabla
// kernel judges its own results.
#include <string>
#include <vector>

#include <nabla/nabla.h>

namespace conform {

/// Empty when `got` has want's sizes, dtype and values; otherwise a message naming the
/// first difference. Floating values compare as doubles (0 equals -0, NaN equals NaN),
/// integer and bool values exactly.
std::string exact_diff(const nabla::Tensor& want, const nabla::Tensor& got);

/// The bytes of the storages under some tensors, kept to check later that nothing wrote
/// them (an out-of-place op must not touch its inputs, inside their views or outside).
class StorageSnapshot {
 public:
  explicit StorageSnapshot(const std::vector<nabla::Tensor>& tensors);
  /// Empty when tensors[i]'s storage holds the bytes it held; otherwise what changed.
  std::string changed(const std::vector<nabla::Tensor>& tensors, size_t i) const;

 private:
  std::vector<std::vector<unsigned char>> bytes_;
};

/// Sets the byte new memory is filled with (nabla::set_new_memory_fill, Note [Poisoned new
/// memory]) for its lifetime.
class ScopedNewMemoryFill {
 public:
  explicit ScopedNewMemoryFill(int byte) : before_(nabla::set_new_memory_fill(byte)) {}
  ~ScopedNewMemoryFill() { nabla::set_new_memory_fill(before_); }
  ScopedNewMemoryFill(const ScopedNewMemoryFill&) = delete;
  ScopedNewMemoryFill& operator=(const ScopedNewMemoryFill&) = delete;

 private:
  int before_;
};

}  // namespace conform
