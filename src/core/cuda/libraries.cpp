// Note [CUDA libraries on first use] (libraries.h).
#include "nabla/core/detail/cuda/libraries.h"

#include <dlfcn.h>

#include <string>
#include <vector>

#include "nabla/core/error.h"

namespace nabla::cuda::detail {
namespace {

#define NABLA_CUDA_STR2(x) #x
#define NABLA_CUDA_STR(x) NABLA_CUDA_STR2(x)  // after cublas_v2.h's renaming macros

// The library's soname through the loader's search (LD_LIBRARY_PATH, ld.so.conf), then
// in the toolkit nabla was built with, then in /usr/local/cuda. Empty `tried` on success.
void* open_library(const std::string& soname, std::string& tried) {
  const std::vector<std::string> candidates = {
      soname, std::string(NABLA_CUDA_LIBRARY_DIR) + "/" + soname, "/usr/local/cuda/lib64/" + soname,
      "/usr/local/cuda/lib/" + soname};
  for (const auto& path : candidates) {
    if (void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) return h;
    tried += "\n  " + path + ": " + dlerror();
  }
  return nullptr;
}

template <class Fn>
void resolve(void* lib, const char* name, Fn& fn, const std::string& soname) {
  fn = reinterpret_cast<Fn>(dlsym(lib, name));
  NABLA_CHECK(fn != nullptr, "CUDA: ", soname, " has no function ", name);
}

}  // namespace

const CublasApi& cublas() {
  static const CublasApi api = [] {
    const std::string soname = "libcublas.so." + std::to_string(CUBLAS_VER_MAJOR);
    std::string tried;
    void* lib = open_library(soname, tried);
    NABLA_CHECK(lib != nullptr, "CUDA: cannot open cuBLAS for GPU matrix products:", tried);
    CublasApi a;
#define NABLA_CUDA_RESOLVE(fn) resolve(lib, NABLA_CUDA_STR(fn), a.fn, soname);
    NABLA_CUBLAS_FUNCTIONS(NABLA_CUDA_RESOLVE)
    return a;
  }();
  return api;
}

#if NABLA_HAVE_CUDNN
const CudnnApi* cudnn() {
  static const CudnnApi* api = []() -> const CudnnApi* {
    const std::string soname = "libcudnn.so." + std::to_string(CUDNN_MAJOR);
    std::string tried;
    void* lib = open_library(soname, tried);
    if (!lib) return nullptr;
    auto& a = *new CudnnApi();  // never freed: the library stays loaded for the process
    NABLA_CUDNN_FUNCTIONS(NABLA_CUDA_RESOLVE)
    return &a;
  }();
  return api;
}
#endif

}  // namespace nabla::cuda::detail
