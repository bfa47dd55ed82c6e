#include "nabla/core/storage.h"

#include <cstring>

#include "nabla/core/error.h"

namespace nabla {

StorageImpl::StorageImpl(size_t nbytes, Device device)
    : data_(nullptr), nbytes_(nbytes), device_(device), owned_(true) {
  NABLA_CHECK(device.is_cpu(), "Storage: device ", device,
              " is not available in this build (only cpu)");
  data_ = cpu_alloc(nbytes);
}

StorageImpl::StorageImpl(void* data, size_t nbytes, Device device,
                         std::function<void(void*)> deleter)
    : data_(data), nbytes_(nbytes), device_(device), owned_(false), deleter_(std::move(deleter)) {}

void StorageImpl::grow(size_t nbytes) {
  if (nbytes <= nbytes_) return;
  NABLA_CHECK(owned_,
              "Trying to resize storage that is not resizable: it wraps memory given to "
              "from_blob (",
              nbytes_, " bytes; ", nbytes, " needed)");
  void* fresh = cpu_alloc(nbytes);
  if (nbytes_ > 0) std::memcpy(fresh, data_, nbytes_);
  cpu_free(data_, nbytes_);
  data_ = fresh;
  nbytes_ = nbytes;
}

StorageImpl::~StorageImpl() {
  if (owned_)
    cpu_free(data_, nbytes_);
  else if (deleter_)
    deleter_(data_);
}

}  // namespace nabla
