# The CUDA backend (src/core/cuda/, src/backend/cuda/; docs/cuda.md).
# NABLA_CUDA: AUTO (the default) builds it when a CUDA compiler is found — on PATH, in
# CUDACXX, or at /usr/local/cuda/bin/nvcc — ON requires it, OFF leaves it out. Without
# it, src/core/cuda_unavailable.cpp and src/backend/cuda_unavailable.cpp stand in: the
# CPU build and install are the same as before CUDA existed.
# NABLA_CUDA_ARCHITECTURES: the GPUs the kernels are compiled for (default 90: Hopper,
# the H100/H200 nabla is verified on; e.g. "80;90" adds Ampere).
set(NABLA_CUDA AUTO CACHE STRING "Build the CUDA backend: AUTO, ON or OFF")
set_property(CACHE NABLA_CUDA PROPERTY STRINGS AUTO ON OFF)
set(NABLA_CUDA_ARCHITECTURES 90 CACHE STRING "CUDA architectures of the kernels")

set(NABLA_HAVE_CUDA 0)
set(NABLA_HAVE_CUDNN 0)
string(TOUPPER "${NABLA_CUDA}" nabla_cuda_mode)
if(NOT nabla_cuda_mode STREQUAL "OFF")
  if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX} AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    set(CMAKE_CUDA_ARCHITECTURES ${NABLA_CUDA_ARCHITECTURES})
    # The kernels are C++17 (nvcc never sees a C++20 header: device_args.h).
    set(CMAKE_CUDA_STANDARD 17)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    enable_language(CUDA)
    find_package(CUDAToolkit REQUIRED)
    set(NABLA_HAVE_CUDA 1)
    find_path(NABLA_CUDNN_INCLUDE_DIR cudnn.h HINTS ${CUDAToolkit_INCLUDE_DIRS})
    find_library(NABLA_CUDNN_LIBRARY cudnn HINTS ${CUDAToolkit_LIBRARY_DIR}
                 ${CUDAToolkit_LIBRARY_ROOT}/lib)
    if(NABLA_CUDNN_INCLUDE_DIR AND NABLA_CUDNN_LIBRARY)
      set(NABLA_HAVE_CUDNN 1)
    endif()
    message(STATUS "nabla: CUDA backend on (nvcc ${CMAKE_CUDA_COMPILER_VERSION}, sm "
                   "${NABLA_CUDA_ARCHITECTURES}, cuDNN: ${NABLA_HAVE_CUDNN})")
  elseif(nabla_cuda_mode STREQUAL "ON")
    message(FATAL_ERROR "NABLA_CUDA=ON but no CUDA compiler was found (install the CUDA "
                        "toolkit, or set CUDACXX to nvcc)")
  else()
    message(STATUS "nabla: CUDA backend off (no CUDA compiler found)")
  endif()
endif()

# Drops the sources of the side not built from a layer's list: src/<layer>/cuda/ without
# CUDA, src/<layer>/cuda_unavailable.cpp with it. Adds the .cu files with it.
function(nabla_cuda_sources layer sources_var)
  set(sources ${${sources_var}})
  if(NABLA_HAVE_CUDA)
    list(FILTER sources EXCLUDE REGEX "/src/${layer}/cuda_unavailable\\.cpp$")
    file(GLOB cu CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/src/${layer}/cuda/*.cu)
    list(APPEND sources ${cu})
  else()
    list(FILTER sources EXCLUDE REGEX "/src/${layer}/cuda/")
  endif()
  set(${sources_var} ${sources} PARENT_SCOPE)
endfunction()

# What a layer with CUDA sources compiles and links with.
function(nabla_cuda_layer_setup target)
  string(REPLACE ";" "," archs "${NABLA_CUDA_ARCHITECTURES}")
  target_compile_definitions(${target} PRIVATE NABLA_HAVE_CUDA=${NABLA_HAVE_CUDA}
                             NABLA_HAVE_CUDNN=${NABLA_HAVE_CUDNN} NABLA_CUDA_ARCHS="${archs}"
                             NABLA_CUDA_LIBRARY_DIR="${CUDAToolkit_LIBRARY_DIR}")
  if(NABLA_HAVE_CUDA)
    target_include_directories(${target} SYSTEM PRIVATE ${CUDAToolkit_INCLUDE_DIRS})
    if(NABLA_HAVE_CUDNN)
      target_include_directories(${target} SYSTEM PRIVATE ${NABLA_CUDNN_INCLUDE_DIR})
    endif()
    set_target_properties(${target} PROPERTIES CUDA_STANDARD 17 CUDA_STANDARD_REQUIRED ON
                          CUDA_ARCHITECTURES "${NABLA_CUDA_ARCHITECTURES}")
    target_compile_options(${target} PRIVATE
      $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr --extended-lambda>)
  endif()
endfunction()

# What nabla::nabla links with CUDA: the runtime, statically (a machine without a driver
# still starts the program and finds no device). cuBLAS and cuDNN are opened on first use
# (Note [CUDA libraries on first use], include/nabla/core/detail/cuda/libraries.h), not linked.
set(NABLA_CUDA_LIBRARIES)
set(NABLA_CUDA_PC_LIBS "")  # the same for pkg-config's Libs.private
if(NABLA_HAVE_CUDA)
  set(NABLA_CUDA_LIBRARIES CUDA::cudart_static ${CMAKE_DL_LIBS})
  set(NABLA_CUDA_PC_LIBS " -L${CUDAToolkit_LIBRARY_DIR} -lcudart_static -ldl -lrt")
endif()
