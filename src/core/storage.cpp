#include "nabla/core/storage.h"

#include <cstring>

#include "nabla/core/detail/device_memory.h"
#include "nabla/core/error.h"

namespace nabla {

StorageImpl::StorageImpl(size_t nbytes, Device device)
    : data_(nullptr), nbytes_(nbytes), device_(detail::resolve_device(device)), owned_(true) {
  data_ = detail::device_alloc(nbytes, device_);
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
  void* fresh = detail::device_alloc(nbytes, device_);
  detail::copy_bytes(fresh, device_, data_, device_, nbytes_, /*non_blocking=*/false);
  detail::device_free(data_, nbytes_, device_);
  data_ = fresh;
  nbytes_ = nbytes;
}

StorageImpl::~StorageImpl() {
  if (owned_)
    detail::device_free(data_, nbytes_, device_);
  else if (deleter_)
    deleter_(data_);
}

}  // namespace nabla
