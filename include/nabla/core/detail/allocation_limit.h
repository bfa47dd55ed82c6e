#pragma once
// Note [Allocation limits]
// Model import computes values while it reads a file (shape arithmetic, the example inputs
// run through the model where a shape is needed), and a malformed or hostile file can ask
// those computations for any size. While an AllocationLimit lives, every CPU allocation of
// its thread larger than its bound raises a nabla::Error beginning with its message, before
// allocating. Limits nest: the tighter one applies (a fuzz target bounds load_onnx below
// the importer's own bound).
#include <cstddef>
#include <string>

namespace nabla::detail {

class AllocationLimit {
 public:
  AllocationLimit(size_t max_bytes, std::string message);
  ~AllocationLimit();
  AllocationLimit(const AllocationLimit&) = delete;
  AllocationLimit& operator=(const AllocationLimit&) = delete;

 private:
  size_t previous_max_;
  const std::string* previous_message_;
  std::string message_;
};

}  // namespace nabla::detail
