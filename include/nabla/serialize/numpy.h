#pragma once
// NumPy's .npy and .npz files, for exchanging arrays with Python:
//   nabla::save_npy("x.npy", t);            np.load("x.npy")
//   auto t = nabla::load_npy("y.npy");      np.save("y.npy", a)
//   nabla::save_npz("w.npz", {{"w", w}, {"b", b}});   np.load("w.npz")["w"]
// Types: float32/64, int64/32, uint8, bool ('<f4' '<f8' '<i8' '<i4' '|u1' '|b1');
// C or Fortran order; format versions 1.0-3.0. .npz entries may be stored or deflated
// (np.savez_compressed). Writes are atomic; malformed files raise nabla::Error naming
// the file and the problem, without allocating more than the file holds.
#include <string>
#include <utility>
#include <vector>

#include "nabla/core/ordered_dict.h"
#include "nabla/core/tensor.h"

namespace nabla {

void save_npy(const std::string& path, const Tensor& tensor);
Tensor load_npy(const std::string& path);
void save_npz(const std::string& path, const std::vector<std::pair<std::string, Tensor>>& arrays);
OrderedDict<std::string, Tensor> load_npz(const std::string& path);

namespace serialize::detail {
/// The .npy bytes of a tensor, and the parse of .npy bytes (`source` names them in errors).
std::string encode_npy(const Tensor& tensor);
Tensor decode_npy(const std::string& bytes, const std::string& source);
std::string encode_npz(const std::vector<std::pair<std::string, Tensor>>& arrays);
OrderedDict<std::string, Tensor> decode_npz(const std::string& bytes, const std::string& source);
}  // namespace serialize::detail

}  // namespace nabla
