#!/usr/bin/env bash
# Applies nabla's mechanical port (docs/compat.md) to LibTorch C++ sources, in place:
#   <torch/torch.h> → <nabla/nabla.h> (every LibTorch header, <torch/...>, <ATen/...>
#   and <c10/...>, becomes <nabla/nabla.h>: each is a part of what torch.h includes),
#   torch:: c10:: at:: → nabla::, namespace torch → namespace nabla (also
#   `using namespace at;` and `namespace t = torch;`),
#   every TORCH_* macro → NABLA_* (TORCH_MODULE, TORCH_CHECK, TORCH_ARG, TORCH_WARN,
#   TORCH_INTERNAL_ASSERT, TORCH_LIBRARY, TORCH_FN, ...; also MAKE_TORCH_LIBRARY →
#   MAKE_NABLA_LIBRARY; TORCH_VERSION_* stay: nabla.h defines them), AT_ASSERT → NABLA_ASSERT,
#   FORWARD_HAS_DEFAULT_ARGS → NABLA_FORWARD_HAS_DEFAULT_ARGS, ska:: (the optimizer state's
#   map type) → nabla::,
#   <c10d/...> → <nabla/distributed.h>, c10d:: → nabla::distributed::.
# Nothing else is edited: a program that needs more is a nabla bug.
# Usage: scripts/port_from_libtorch.sh FILE_OR_DIR...
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: $0 FILE_OR_DIR..." >&2; exit 2; }
find "$@" -type f \( -name '*.cpp' -o -name '*.cc' -o -name '*.cxx' -o -name '*.h' -o -name '*.hpp' \) -print0 |
  xargs -0 -r sed -i -E \
    -e 's@#include[[:space:]]*<c10d/[^>]*>@#include <nabla/distributed.h>@' \
    -e 's@#include[[:space:]]*<(torch|ATen|c10)/[^>]*>@#include <nabla/nabla.h>@' \
    -e 's/\bc10d::/nabla::distributed::/g' \
    -e 's/\b(torch|c10|at|ska)::/nabla::/g' \
    -e 's/\bnamespace (torch|at|c10)\b/namespace nabla/g' \
    -e 's/\bnamespace ([A-Za-z_][A-Za-z_0-9]*) *= *(torch|at|c10) *;/namespace \1 = nabla;/g' \
    -e 's/\b(MAKE_)?TORCH_([A-Z0-9_]+)\b/\1NABLA_\2/g' \
    -e 's/\bNABLA_VERSION_(MAJOR|MINOR|PATCH)\b/TORCH_VERSION_\1/g' \
    -e 's/\bFORWARD_HAS_DEFAULT_ARGS\b/NABLA_FORWARD_HAS_DEFAULT_ARGS/g' \
    -e 's/\bAT_ASSERT\b/NABLA_ASSERT/g'
