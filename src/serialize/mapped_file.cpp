// MappedFile and tensors over mapped bytes (mapped_file.h).
#include "nabla/serialize/detail/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace nabla::serialize::detail {

std::shared_ptr<MappedFile> MappedFile::open(const std::string& path, const char* op) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  NABLA_CHECK(fd >= 0, op, ": cannot open '", path, "': ", std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    NABLA_CHECK(false, op, ": '", path, "' is not a regular file");
  }
  const auto size = static_cast<size_t>(st.st_size);
  void* data = nullptr;
  if (size > 0) {
    // Populated read-only in one call (faulting 4 KiB pages one by one costs more than the
    // rest of a load), then made writable: a write copies its page, the file is untouched.
    data = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    const int err = errno;
    ::close(fd);
    NABLA_CHECK(data != MAP_FAILED, op, ": cannot map '", path, "': ", std::strerror(err));
    if (::mprotect(data, size, PROT_READ | PROT_WRITE) != 0) {
      const int perr = errno;
      ::munmap(data, size);
      NABLA_CHECK(false, op, ": cannot map '", path, "' copy-on-write: ", std::strerror(perr));
    }
  } else {
    ::close(fd);
  }
  return std::shared_ptr<MappedFile>(new MappedFile(data, size));
}

MappedFile::~MappedFile() {
  if (size_ > 0) ::munmap(data_, size_);
}

Tensor borrowed_tensor(const char* data, IntArrayRef shape, ScalarType dtype,
                       const std::shared_ptr<const void>& keep_alive) {
  int64_t numel = 1;
  for (int64_t d : shape) numel *= d;
  auto storage = std::make_shared<StorageImpl>(const_cast<char*>(data),
                                               static_cast<size_t>(numel) * elementSize(dtype),
                                               Device(kCPU), [keep_alive](void*) {});
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;) strides[i - 1] = strides[i] * shape[i];
  return Tensor(std::make_shared<TensorImpl>(std::move(storage), dtype, shape, strides, 0));
}

}  // namespace nabla::serialize::detail
