#pragma once
// The umbrella header: everything a LibTorch-style program uses. Kept light (no kernel
// templates) so a hello-world compiles in about a second.
#include "nabla/backend/parallel.h"
#include "nabla/core/error.h"
#include "nabla/core/generator.h"
#include "nabla/core/tensor.h"
#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"
