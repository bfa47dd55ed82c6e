#pragma once
// The profiler, by its LibTorch path (torch/csrc/autograd/profiler.h): it is defined in
// core (nabla/core/profiler.h) so that backend kernels record into it without seeing
// autograd.
#include "nabla/core/profiler.h"
