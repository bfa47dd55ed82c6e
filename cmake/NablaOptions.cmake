# Compiler flags shared by the library, its tests, benchmarks and examples.
function(nabla_apply_build_flags target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wno-unused-parameter)
  # Nothing reads errno or enables floating-point traps: without them std::sqrt,
  # std::floor, ... become inline vector instructions instead of scalar libm calls, and
  # loops with selects (vec_math.h) vectorize. IEEE results (NaN, inf, rounding) are kept.
  target_compile_options(${target} PRIVATE -fno-math-errno -fno-trapping-math)
  if(NABLA_NATIVE)
    target_compile_options(${target} PRIVATE -march=native)
  endif()
  if(NABLA_SANITIZE)
    target_compile_options(${target} PRIVATE -fsanitize=address,undefined -fno-omit-frame-pointer
                                             -fno-sanitize-recover=undefined)
    target_link_options(${target} PRIVATE -fsanitize=address,undefined)
  endif()
  if(NABLA_FUZZ)
    # Every object carries libFuzzer's coverage counters and the sanitizers' checks; the
    # fuzz targets link the fuzzer's main (tests/fuzz/CMakeLists.txt). UB aborts, so the
    # fuzzer sees it as a crash.
    target_compile_options(${target} PRIVATE -fsanitize=fuzzer-no-link,address,undefined
                                             -fno-sanitize-recover=undefined
                                             -fno-omit-frame-pointer -gline-tables-only)
    target_link_options(${target} PRIVATE -fsanitize=address,undefined)
  endif()
endfunction()
