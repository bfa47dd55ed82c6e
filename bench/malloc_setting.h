#pragma once
// LibTorch's CPU allocator calls malloc for every tensor. With glibc's defaults, blocks
// above 128 KiB are mmap'ed and unmapped on free, so each training step page-faults its
// activations afresh (on the VMs here that tripled LibTorch's W3 step: 66-78 ms against
// 24 ms in its trainer, where an early free of the dataset had raised glibc's dynamic
// threshold). The benchmarks measure LibTorch at its best: large blocks stay in the heap
// and the heap is not trimmed, unless --glibc-defaults is given. nabla's own caching
// allocator is not affected by this setting.
#include <malloc.h>

#include <cstring>

inline void benchmark_malloc_setting(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (!std::strcmp(argv[i], "--glibc-defaults")) return;
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
}
