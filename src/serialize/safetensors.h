#pragma once
// The safetensors file format (https://github.com/huggingface/safetensors, format
// description): 8-byte little-endian header length N, N bytes of JSON
//   {"name": {"dtype": "F32", "shape": [2, 3], "data_offsets": [begin, end]}, ...,
//    "__metadata__": {"key": "value"}}
// padded with spaces, then the data section: each tensor's bytes, row-major, little-
// endian, at [begin, end) relative to the section start, covering it without gaps.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "nabla/core/ordered_dict.h"
#include "nabla/core/tensor.h"

namespace nabla::serialize::detail {

struct SafetensorsContents {
  OrderedDict<std::string, Tensor> tensors{"Archive key"};
  std::map<std::string, std::string> metadata;
};

/// The whole file as bytes (header, then data in `tensors` order).
std::string encode_safetensors(const OrderedDict<std::string, Tensor>& tensors,
                               const std::map<std::string, std::string>& metadata);

/// Parses a file of `size` bytes read through `read_at(offset, bytes, dst)`; `source`
/// names it in errors. Validates the header completely before allocating tensors, so a
/// hostile header cannot make it allocate more than the file holds. With `mapped` (the
/// whole file in memory, owned by `keep_alive`), tensors whose bytes are aligned to their
/// element size are views of it instead of copies.
using ReadAt = std::function<void(uint64_t offset, uint64_t bytes, void* dst)>;
SafetensorsContents decode_safetensors(uint64_t size, const ReadAt& read_at,
                                       const std::string& source, std::string_view mapped = {},
                                       const std::shared_ptr<const void>& keep_alive = nullptr);

}  // namespace nabla::serialize::detail
