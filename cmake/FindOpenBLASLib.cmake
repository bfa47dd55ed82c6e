# OpenBLAS from Debian's libopenblas-dev. We link libopenblas itself (not the
# alternatives-managed libblas) so that openblas_set_num_threads is available.
find_path(NABLA_CBLAS_INCLUDE_DIR NAMES cblas-openblas.h cblas.h
  PATHS /usr/include/x86_64-linux-gnu /usr/include/openblas /usr/include)
find_library(NABLA_OPENBLAS_LIBRARY NAMES openblas REQUIRED)
if(EXISTS "${NABLA_CBLAS_INCLUDE_DIR}/cblas-openblas.h")
  set(NABLA_CBLAS_HEADER "cblas-openblas.h")
else()
  set(NABLA_CBLAS_HEADER "cblas.h")
endif()
