#pragma once
// Exact checks of nabla tensors that need no reference library, for the driver in both
// builds (Note [Table without LibTorch], table.h): ops::call against the direct call, and
// inputs an op must leave alone. Elements are read straight from storage, so no nabla
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

}  // namespace conform
