#pragma once
// nabla::nn: modules, containers, initialisation, functional and utilities (torch::nn).
#include "nabla/nn/cloneable.h"
#include "nabla/nn/functional.h"
#include "nabla/nn/init.h"
#include "nabla/nn/module.h"
#include "nabla/nn/modules/container/functional.h"
#include "nabla/nn/modules/container/modulelist.h"
#include "nabla/nn/modules/container/sequential.h"
#include "nabla/nn/modules/linear.h"
#include "nabla/nn/modules/loss.h"
#include "nabla/nn/modules/rnn.h"
#include "nabla/nn/pimpl.h"
#include "nabla/nn/utils/clip_grad.h"
