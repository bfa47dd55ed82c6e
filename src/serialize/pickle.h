#pragma once
// Python's pickle, as torch.save uses it for data.pkl: a reader limited to what
// torch.load(..., weights_only=True) accepts, and a writer of protocol 2.
//
// Note [Restricted unpickling]
// A pickle is a program for a stack machine whose REDUCE opcode calls any Python callable
// the file names. The reader never calls anything: it knows a fixed set of globals
// (collections.OrderedDict, torch._utils._rebuild_tensor_v2 and its siblings, the typed
// storage classes, torch.Size, torch.nn.parameter.Parameter, the type tags of LibTorch's
// pickle_save) and what each builds; any
// other global, opcode or argument shape is a nabla::Error naming it and its byte offset.
// Containers accept items only until they are placed inside another container (as
// Python's pickler writes them), which keeps results acyclic; nesting is bounded, so
// neither a hostile file nor its destruction can exhaust the stack.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "nabla/core/ivalue.h"

namespace nabla::serialize::detail {

/// A typed storage class: torch.FloatStorage holds float32 elements, CharStorage int8.
struct StorageType {
  const char* name;  // "FloatStorage"
  ScalarType dtype;
  size_t file_element_size;
};
/// The class named `name` (nullptr when unknown), and the one that `dtype` is written as.
const StorageType* find_storage_type(std::string_view name);
const StorageType& storage_type_of(ScalarType dtype);

/// A storage named by a persistent id: ('storage', torch.<Type>Storage, key, location,
/// numel).
struct StorageRecord {
  std::string key;
  const StorageType* type;
  int64_t numel;
  std::string location;  // "cpu", "cuda:0", ...: everything loads to the CPU
};

/// Returns the storage's elements as a 1-D tensor of `record.numel` elements of
/// `record.dtype`; called once per key (the reader shares it between tensors).
using LoadStorage = std::function<Tensor(const StorageRecord&)>;

/// Runs the restricted pickle machine over `bytes`; `source` names the file in errors.
IValue unpickle(std::string_view bytes, const LoadStorage& load_storage, const std::string& source);

/// A storage the writer references: its bytes are numel elements of dtype at
/// storage->data().
struct PickledStorage {
  std::string key;
  Storage storage;
  ScalarType dtype;
  int64_t numel;
};

/// Protocol-2 pickle of `value` as torch.save writes it, but dicts as plain dicts (which
/// Python reads as state_dicts too, and LibTorch's pickle_load reads at all: it turns an
/// OrderedDict into None), tensors through torch._utils._rebuild_tensor_v2 with persistent ids
/// naming storages. Tensors sharing a storage reference it once (appended to `storages`, keys "0",
/// "1",
/// ...), keeping their offsets and strides. Doubles are written as BINFLOAT, which
/// torch 1.13's weights_only reader does not accept (its later versions do).
std::string pickle(const IValue& value, std::vector<PickledStorage>& storages);

}  // namespace nabla::serialize::detail
