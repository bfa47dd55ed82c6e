#include "nabla/core/storage.h"

#include <cstdlib>
#include <new>

#include "nabla/core/error.h"

namespace nabla {

void* cpu_alloc(size_t nbytes) {
  constexpr size_t kAlign = 64;
  // Round up so aligned_alloc's size requirement holds; zero bytes still gets a block
  // so data() is never null.
  size_t rounded = (nbytes + kAlign - 1) / kAlign * kAlign;
  if (rounded == 0) rounded = kAlign;
  NABLA_CHECK(rounded >= nbytes, "cpu_alloc: size ", nbytes, " bytes overflows");
  void* p = std::aligned_alloc(kAlign, rounded);
  NABLA_CHECK(p != nullptr, "cpu_alloc: out of memory allocating ", nbytes, " bytes");
  return p;
}

void cpu_free(void* p, size_t) { std::free(p); }

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
