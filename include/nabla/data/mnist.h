#pragma once
// datasets::MNIST: the MNIST / Fashion-MNIST IDX files (raw or .gz), as torch's:
// images float in [0, 1] of shape [1, 28, 28], targets int64 scalars.
//   datasets::MNIST train(data::fashion_mnist_root());                 // Debian's files
//   datasets::MNIST test(root, datasets::MNIST::Mode::kTest);
#include <string>

#include "nabla/data/datasets.h"

namespace nabla::data {

/// Where Debian's dataset-fashion-mnist installs the files.
std::string fashion_mnist_root();

namespace datasets {

class MNIST : public Dataset<MNIST> {
 public:
  enum class Mode { kTrain, kTest };
  /// Reads {train,t10k}-{images-idx3,labels-idx1}-ubyte[.gz] from `root`. Missing,
  /// truncated or malformed files raise nabla::Error naming the file (and, for the
  /// Debian path, the package to install).
  explicit MNIST(const std::string& root, Mode mode = Mode::kTrain);
  Example<> get(size_t index) override;
  optional<size_t> size() const override;
  bool is_train() const noexcept { return is_train_; }
  /// All images [N, 1, 28, 28] and targets [N].
  const Tensor& images() const { return images_; }
  const Tensor& targets() const { return targets_; }

 private:
  Tensor images_, targets_;
  bool is_train_;
};

}  // namespace datasets

/// Reads an IDX file (raw or gzip) as a uint8 tensor of its declared shape.
Tensor read_idx(const std::string& path);

/// A numeric CSV file as a 2-d float tensor (rows x columns); a first line that does not
/// parse as numbers is taken as a header. Errors name the file and line.
Tensor read_csv(const std::string& path, char delimiter = ',');

}  // namespace nabla::data
