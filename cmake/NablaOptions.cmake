# Compiler flags shared by the library, its tests, benchmarks and examples.

# NABLA_SANITIZE: OFF, address (ASan + UBSan; ON means the same) or thread (TSan). The two
# cannot share a build: each has its own runtime and shadow memory (docs/reliability.md).
set(NABLA_SANITIZE OFF CACHE STRING "Sanitizers: OFF, address (ASan+UBSan; ON is the same) or thread (TSan)")
set_property(CACHE NABLA_SANITIZE PROPERTY STRINGS OFF address thread)
string(TOLOWER "${NABLA_SANITIZE}" nabla_sanitize)
if(nabla_sanitize MATCHES "^(on|true|yes|1|address)$")
  # Every UBSan finding is fatal (-fno-sanitize-recover=all), as ASan's are.
  set(NABLA_SANITIZE_FLAGS -fsanitize=address,undefined -fno-sanitize-recover=all)
elseif(nabla_sanitize STREQUAL "thread")
  set(NABLA_SANITIZE_FLAGS -fsanitize=thread)
elseif(nabla_sanitize MATCHES "^(off|false|no|0|)$")
  set(NABLA_SANITIZE_FLAGS)
else()
  message(FATAL_ERROR "NABLA_SANITIZE=${NABLA_SANITIZE}: expected OFF, address (or ON) or thread")
endif()

function(nabla_apply_build_flags target)
  # The flags are g++/clang's: CUDA sources (nvcc) get their own (cmake/NablaCuda.cmake).
  set(cxx "$<COMPILE_LANGUAGE:CXX>")
  target_compile_options(${target} PRIVATE "$<${cxx}:-Wall;-Wextra;-Wno-unused-parameter>")
  # Nothing reads errno or enables floating-point traps: without them std::sqrt,
  # std::floor, ... become inline vector instructions instead of scalar libm calls, and
  # loops with selects (vec_math.h) vectorize. IEEE results (NaN, inf, rounding) are kept.
  target_compile_options(${target} PRIVATE "$<${cxx}:-fno-math-errno;-fno-trapping-math>")
  if(NABLA_NATIVE)
    target_compile_options(${target} PRIVATE "$<${cxx}:-march=native>")
  endif()
  if(NABLA_SANITIZE_FLAGS)
    # Frame pointers: the reports' stack traces are walked through them.
    target_compile_options(${target} PRIVATE
                           "$<${cxx}:${NABLA_SANITIZE_FLAGS};-fno-omit-frame-pointer>")
    target_link_options(${target} PRIVATE ${NABLA_SANITIZE_FLAGS})
  endif()
  if(NABLA_FUZZ)
    # Every object carries libFuzzer's coverage counters and the sanitizers' checks; the
    # fuzz targets link the fuzzer's main (tests/fuzz/CMakeLists.txt). UB aborts, so the
    # fuzzer sees it as a crash.
    target_compile_options(${target} PRIVATE
      "$<${cxx}:-fsanitize=fuzzer-no-link,address,undefined;-fno-sanitize-recover=undefined;-fno-omit-frame-pointer;-gline-tables-only>")
    target_link_options(${target} PRIVATE -fsanitize=address,undefined)
  endif()
endfunction()

# The library's layers but backend compile in unity batches of NABLA_UNITY_BATCH files of a
# folder (0: off). Half of a library file's compile time is the headers and the inline and
# template code every file of a layer instantiates again; a batch pays for them once, which
# halves the library's build (docs/build.md, "Build time"). The CPU kernels (backend) are
# compiled one file per ISA path and stay apart. A batch is one translation unit, so names
# in anonymous namespaces must differ between the files of a layer; the build says where
# they do not ("redefinition of ...").
set(NABLA_UNITY_BATCH 8 CACHE STRING "Library files per unity translation unit (0: no unity build)")
function(nabla_apply_unity_build target)
  if(NABLA_UNITY_BATCH GREATER 0)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON
                                               UNITY_BUILD_BATCH_SIZE ${NABLA_UNITY_BATCH}
                                               UNITY_BUILD_MODE BATCH)
  endif()
endfunction()

# Test code (tests/, the op table): the library keeps the build type's flags, while the
# code that checks it is compiled at -O1 and in unity batches of NABLA_TEST_UNITY_BATCH
# files (0: one per target), which compiles the tests in about a third of the time: most of
# a test file's cost is instantiating the same templates as its neighbours, and -O3 on
# assertion code buys nothing. docs/testing.md, "Build time".
set(NABLA_TEST_UNITY_BATCH 8 CACHE STRING "Test files per unity translation unit (0: all of a target)")
function(nabla_apply_test_flags target)
  nabla_apply_build_flags(${target})
  target_compile_options(${target} PRIVATE -O1)
  set_target_properties(${target} PROPERTIES UNITY_BUILD ON
                                             UNITY_BUILD_BATCH_SIZE ${NABLA_TEST_UNITY_BATCH})
endfunction()
