#pragma once
// Note [Kernels per ISA]
// Every file of src/backend/cpu/kernels/ is compiled three times, once per ISA path
// (cmake/NablaKernels.cmake generates the wrappers that define NABLA_KERNEL_ISA_*):
// its code sits in namespace nabla::cpu::NABLA_KERNEL_NS (avx512, avx2, baseline), and
// after its last #include it writes NABLA_KERNEL_TARGET, which compiles the functions
// that follow for that ISA. cpu_backends.cpp instantiates the variant that
// active_isa() names, so the library runs its vector loops at the CPU's width without
// -march=native, and NABLA_ISA=avx2|scalar runs the lower variants on any machine.
//
// The pragma must come after the includes: inline functions of headers then keep the
// baseline target in every variant (they are inlined into the vector loops all the
// same), so the linker's pick among their copies can never be an AVX-512 one.
#if defined(NABLA_KERNEL_ISA_AVX512)
#define NABLA_KERNEL_NS avx512
#define NABLA_KERNEL_TARGET _Pragma("GCC target(\"avx512f,avx512bw,avx512vl,avx512dq,avx2,fma\")")
#elif defined(NABLA_KERNEL_ISA_AVX2)
#define NABLA_KERNEL_NS avx2
#define NABLA_KERNEL_TARGET _Pragma("GCC target(\"avx2,fma\")")
#elif defined(NABLA_KERNEL_ISA_BASELINE)
#define NABLA_KERNEL_NS baseline
#define NABLA_KERNEL_TARGET
#else
#error "src/backend/cpu/kernels/ files are compiled through cmake/NablaKernels.cmake's wrappers"
#endif
