#pragma once
// nabla::flat_hash_map: the map type of Optimizer::state() under the name LibTorch gives
// it (ska::flat_hash_map; the porting script renames ska:: to nabla::). It is
// std::unordered_map.
#include <functional>
#include <memory>
#include <unordered_map>
#include <utility>

namespace nabla {
template <class K, class V, class Hash = std::hash<K>, class Equal = std::equal_to<K>,
          class Allocator = std::allocator<std::pair<const K, V>>>
using flat_hash_map = std::unordered_map<K, V, Hash, Equal, Allocator>;
}  // namespace nabla
