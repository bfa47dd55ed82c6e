#include "nabla/core/storage.h"


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

StorageImpl::~StorageImpl() {
  if (owned_) cpu_free(data_, nbytes_);
  else if (deleter_) deleter_(data_);
}

}  // namespace nabla
