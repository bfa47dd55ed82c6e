// IDX (MNIST) and CSV readers; TensorDataset, TensorPairDataset.
#include "nabla/data/mnist.h"

#include <zlib.h>

#include <sys/stat.h>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"

namespace nabla::data {

namespace {

bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

// gzread reads plain files unchanged, so one reader serves both forms.
class GzFile {
 public:
  explicit GzFile(const std::string& path) : path_(path), file_(gzopen(path.c_str(), "rb")) {
    NABLA_CHECK(file_ != nullptr, "read_idx: cannot open '", path, "': ", std::strerror(errno));
  }
  ~GzFile() { gzclose(file_); }
  GzFile(const GzFile&) = delete;
  GzFile& operator=(const GzFile&) = delete;
  /// Reads up to n bytes; returns how many were read.
  size_t read(void* dst, size_t n) {
    size_t done = 0;
    while (done < n) {
      const unsigned chunk = static_cast<unsigned>(std::min<size_t>(n - done, 1u << 30));
      const int got = gzread(file_, static_cast<char*>(dst) + done, chunk);
      if (got < 0) {
        int err = 0;
        const char* msg = gzerror(file_, &err);
        NABLA_CHECK(false, "read_idx: '", path_, "' is corrupt (", msg, ")");
      }
      if (got == 0) break;
      done += static_cast<size_t>(got);
    }
    return done;
  }

 private:
  std::string path_;
  gzFile file_;
};

}  // namespace

std::string fashion_mnist_root() { return "/usr/share/datasets/fashion-mnist"; }

Tensor read_idx(const std::string& path) {
  GzFile f(path);
  unsigned char magic[4];
  NABLA_CHECK(f.read(magic, 4) == 4, "read_idx: '", path, "' is too short for an IDX header");
  NABLA_CHECK(magic[0] == 0 && magic[1] == 0 && magic[2] == 0x08, "read_idx: '", path,
              "' is not an IDX file of unsigned bytes (magic ", int(magic[0]), " ", int(magic[1]),
              " ", int(magic[2]), " ", int(magic[3]), ")");
  const int ndim = magic[3];
  NABLA_CHECK(ndim >= 1 && ndim <= 4, "read_idx: '", path, "' declares ", ndim,
              " dims, expected 1 to 4");
  std::vector<int64_t> shape;
  uint64_t total = 1, span = 1;  // span: zeros counted as ones, as the strides do
  for (int d = 0; d < ndim; ++d) {
    unsigned char b[4];
    NABLA_CHECK(f.read(b, 4) == 4, "read_idx: '", path, "' ends inside its header");
    const uint64_t n =
        (uint64_t{b[0]} << 24) | (uint64_t{b[1]} << 16) | (uint64_t{b[2]} << 8) | b[3];
    NABLA_CHECK(span <= (uint64_t{1} << 40) / std::max<uint64_t>(n, 1), "read_idx: '", path,
                "' declares an absurd size");
    span *= std::max<uint64_t>(n, 1);
    total *= n;
    shape.push_back(static_cast<int64_t>(n));
  }
  // Read in chunks that double from 64 KiB: memory (and time) grow with the data actually
  // present, not with the declared size.
  std::vector<uint8_t> bytes;
  while (bytes.size() < total) {
    const size_t chunk = std::max<size_t>(size_t{1} << 16, bytes.size());
    const size_t want = std::min<uint64_t>(chunk, total - bytes.size());
    const size_t old = bytes.size();
    bytes.resize(old + want);
    const size_t got = f.read(bytes.data() + old, want);
    bytes.resize(old + got);
    NABLA_CHECK(got == want, "read_idx: '", path, "' is truncated: its header declares ", total,
                " bytes of data, the file holds ", bytes.size());
  }
  unsigned char extra;
  NABLA_CHECK(f.read(&extra, 1) == 0, "read_idx: '", path, "' has data beyond the ", total,
              " bytes its header declares");
  Tensor out = empty(shape, TensorOptions(kByte));
  if (total > 0) std::memcpy(out.data_ptr(), bytes.data(), total);
  return out;
}

namespace datasets {

MNIST::MNIST(const std::string& root, Mode mode) : is_train_(mode == Mode::kTrain) {
  const std::string prefix = root + "/" + (is_train_ ? "train" : "t10k");
  auto find = [&](const std::string& stem) {
    for (const std::string& p : {prefix + stem, prefix + stem + ".gz"})
      if (exists(p)) return p;
    std::string hint =
        root == fashion_mnist_root()
            ? " (install Debian's dataset-fashion-mnist: apt-get install dataset-fashion-mnist)"
            : "";
    NABLA_CHECK(false, "MNIST: neither '", prefix + stem, "' nor its .gz form exists", hint);
    return std::string();
  };
  const std::string image_path = find("-images-idx3-ubyte");
  const std::string label_path = find("-labels-idx1-ubyte");
  Tensor images = read_idx(image_path);
  Tensor labels = read_idx(label_path);
  NABLA_CHECK(images.dim() == 3 && images.size(1) == 28 && images.size(2) == 28, "MNIST: '",
              image_path, "' holds images of shape ", images.sizes(), ", expected [N, 28, 28]");
  NABLA_CHECK(labels.dim() == 1 && labels.size(0) == images.size(0), "MNIST: '", label_path,
              "' holds ", labels.sizes(), " labels for ", images.size(0), " images");
  images_ = images.to(kFloat).div_(255).unsqueeze(1).contiguous();
  targets_ = labels.to(kLong);
}

Example<> MNIST::get(size_t index) {
  NABLA_CHECK(index < static_cast<size_t>(images_.size(0)), "MNIST: index ", index,
              " out of range for ", images_.size(0), " examples");
  const auto i = static_cast<int64_t>(index);
  return {images_[i], targets_[i]};
}

optional<size_t> MNIST::size() const { return static_cast<size_t>(images_.size(0)); }

TensorDataset::TensorDataset(const std::vector<Tensor>& tensors) : TensorDataset(stack(tensors)) {}

TensorDataset::TensorDataset(Tensor tensor) : tensor(std::move(tensor)) {
  NABLA_CHECK(
      this->tensor.defined() && this->tensor.dim() > 0,
      "TensorDataset: needs a tensor of at least one dimension (its rows are the examples), got ",
      this->tensor.defined() ? std::to_string(this->tensor.dim()) + " dimensions"
                             : "an undefined tensor");
}

TensorExample TensorDataset::get(size_t index) {
  NABLA_CHECK(index < static_cast<size_t>(tensor.size(0)), "TensorDataset: index ", index,
              " out of range for ", tensor.size(0), " examples");
  return tensor[static_cast<int64_t>(index)];
}

TensorPairDataset::TensorPairDataset(Tensor data, Tensor target)
    : data_(std::move(data)), target_(std::move(target)) {
  NABLA_CHECK(data_.defined() && target_.defined() && data_.dim() > 0 && target_.dim() > 0 &&
                  data_.size(0) == target_.size(0),
              "TensorPairDataset: data and target need the same first dimension, got ",
              data_.defined() ? data_.sizes() : IntArrayRef(), " and ",
              target_.defined() ? target_.sizes() : IntArrayRef());
}

Example<> TensorPairDataset::get(size_t index) {
  NABLA_CHECK(index < static_cast<size_t>(data_.size(0)), "TensorPairDataset: index ", index,
              " out of range for ", data_.size(0), " examples");
  return {data_[static_cast<int64_t>(index)], target_[static_cast<int64_t>(index)]};
}

}  // namespace datasets

Tensor read_csv(const std::string& path, char delimiter) {
  std::ifstream in(path);
  NABLA_CHECK(in.is_open(), "read_csv: cannot open '", path, "'");
  std::vector<double> values;
  int64_t columns = -1, rows = 0, line_no = 0;
  std::string line;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    std::vector<double> row;
    std::stringstream ss(line);
    std::string cell;
    bool numeric = true;
    while (std::getline(ss, cell, delimiter)) {
      char* end = nullptr;
      const double v = std::strtod(cell.c_str(), &end);
      while (end && *end == ' ') ++end;
      if (cell.empty() || end == cell.c_str() || (end && *end != '\0')) {
        numeric = false;
        break;
      }
      row.push_back(v);
    }
    if (!numeric) {
      NABLA_CHECK(rows == 0 && columns == -1, "read_csv: '", path, "' line ", line_no, ": '", cell,
                  "' is not a number");
      columns = -2;  // a header: skip it once
      continue;
    }
    if (columns < 0) columns = static_cast<int64_t>(row.size());
    NABLA_CHECK(static_cast<int64_t>(row.size()) == columns, "read_csv: '", path, "' line ",
                line_no, " has ", row.size(), " columns, expected ", columns);
    values.insert(values.end(), row.begin(), row.end());
    ++rows;
  }
  if (rows == 0) return empty({0, 0}, TensorOptions(kFloat));
  return tensor(values, kDouble).view({rows, columns}).to(kFloat);
}

}  // namespace nabla::data
