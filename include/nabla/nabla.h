#pragma once
// The umbrella header: everything a LibTorch-style program uses. Kept light (no kernel
// templates) so a hello-world compiles in about a second.
#include "nabla/autograd/autograd.h"
#include "nabla/autograd/checkpoint.h"
#include "nabla/autograd/function.h"
#include "nabla/autograd/gradcheck.h"
#include "nabla/autograd/grad_mode.h"
#include "nabla/backend/parallel.h"
#include "nabla/core/error.h"
#include "nabla/core/generator.h"
#include "nabla/core/tensor.h"
#include "nabla/ops/factories.h"
#include "nabla/ops/functions.h"
