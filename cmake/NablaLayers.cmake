# The library is built layer by layer (docs/architecture.md, "Layers"): one object library
# per folder of src/, lowest first, assembled into nabla::nabla. Each layer compiles
# against a view of the tree that holds only its own headers (public and src/) and the
# public headers of the layers below it (symbolic links under <build>/layers/<layer>/), so
# an #include that goes up a layer, or into another layer's src/, does not compile. scripts/check_layers.py says the same before the build, with the
# file and line.
set(NABLA_LAYERS core backend autograd ops serialize nn optim data graph)
if(NABLA_DISTRIBUTED)
  list(APPEND NABLA_LAYERS distributed)
endif()
list(APPEND NABLA_LAYERS utils)
# Headers at include/nabla/ top level: umbrella headers belong to the layer they gather;
# version.h is core's.
set(NABLA_TOP_HEADERS_core version.h)
set(NABLA_TOP_HEADERS_serialize serialize.h)
set(NABLA_TOP_HEADERS_nn nn.h)
set(NABLA_TOP_HEADERS_optim optim.h)
set(NABLA_TOP_HEADERS_data data.h)
set(NABLA_TOP_HEADERS_graph graph.h)
set(NABLA_TOP_HEADERS_distributed distributed.h)
set(NABLA_TOP_HEADERS_utils utils.h nabla.h)

# Creates <build>/layers/<layer>/{include/nabla,src} holding links to the public headers
# of the layers in `visible` and to the layer's own src/ (its private headers).
function(nabla_layer_view layer visible)
  set(root ${CMAKE_CURRENT_BINARY_DIR}/layers/${layer})
  file(REMOVE_RECURSE ${root})
  file(MAKE_DIRECTORY ${root}/include/nabla ${root}/src)
  foreach(k ${visible})
    set(dirs include/nabla/${k})
    if(k STREQUAL layer)
      list(APPEND dirs src/${k})
    endif()
    foreach(dir ${dirs})
      if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/${dir})
        file(CREATE_LINK ${CMAKE_CURRENT_SOURCE_DIR}/${dir} ${root}/${dir} SYMBOLIC)
      endif()
    endforeach()
    foreach(h ${NABLA_TOP_HEADERS_${k}})
      file(CREATE_LINK ${CMAKE_CURRENT_SOURCE_DIR}/include/nabla/${h} ${root}/include/nabla/${h}
           SYMBOLIC)
    endforeach()
  endforeach()
endfunction()

# Adds one object library per layer (nabla_core, nabla_backend, ...) and returns their
# objects in `objects_var`. `setup` names a function applied to each layer target (flags,
# third-party include directories, definitions).
function(nabla_add_layers objects_var setup)
  set(visible)
  set(objects)
  foreach(layer ${NABLA_LAYERS})
    list(APPEND visible ${layer})
    nabla_layer_view(${layer} "${visible}")
    file(GLOB_RECURSE srcs CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/src/${layer}/*.cpp)
    if(layer STREQUAL "backend")
      nabla_add_kernel_variants(srcs)
    endif()
    if(layer STREQUAL "core" OR layer STREQUAL "backend")
      nabla_cuda_sources(${layer} srcs)
    endif()
    add_library(nabla_${layer} OBJECT ${srcs})
    set(root ${CMAKE_CURRENT_BINARY_DIR}/layers/${layer})
    target_include_directories(nabla_${layer} PRIVATE ${root}/include ${root}/src)
    set_target_properties(nabla_${layer} PROPERTIES POSITION_INDEPENDENT_CODE ON)
    cmake_language(CALL ${setup} nabla_${layer})
    if(NOT layer STREQUAL "backend")
      nabla_apply_unity_build(nabla_${layer})
    endif()
    if(layer STREQUAL "backend")
      target_compile_definitions(nabla_backend PRIVATE ${NABLA_KERNEL_ISA_DEFINITIONS})
    endif()
    if(layer STREQUAL "core" OR layer STREQUAL "backend")
      nabla_cuda_layer_setup(nabla_${layer})
    endif()
    list(APPEND objects $<TARGET_OBJECTS:nabla_${layer}>)
    # The layer's object files, one per line, for scripts/check_layer_symbols.py.
    file(GENERATE OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/layers/${layer}.objects
         CONTENT "$<JOIN:$<TARGET_OBJECTS:nabla_${layer}>,\n>\n")
  endforeach()
  set(${objects_var} ${objects} PARENT_SCOPE)
endfunction()
