#pragma once
// nabla's version, and the LibTorch spellings ported programs test: TORCH_VERSION_*
// state the LibTorch API level nabla implements (1.13.1), so `#if TORCH_VERSION_MAJOR
// >= 1` branches pick the code written for it; TORCH_API (LibTorch's export macro, used
// by programs on their own classes) expands to nothing. Each is defined only if LibTorch
// has not defined it already.
#define NABLA_VERSION_MAJOR 0
#define NABLA_VERSION_MINOR 1
#define NABLA_VERSION_PATCH 0
#define NABLA_VERSION "0.1.0"

#ifndef TORCH_VERSION_MAJOR
#define TORCH_VERSION_MAJOR 1
#define TORCH_VERSION_MINOR 13
#define TORCH_VERSION_PATCH 1
#define TORCH_VERSION "1.13.1"
#endif
#ifndef TORCH_API
#define TORCH_API
#endif
