#pragma once
// nabla::optim: optimizers and learning-rate schedulers (torch::optim).
#include "nabla/optim/adagrad.h"
#include "nabla/optim/adam.h"
#include "nabla/optim/grad_scaler.h"
#include "nabla/optim/lbfgs.h"
#include "nabla/optim/optimizer.h"
#include "nabla/optim/rmsprop.h"
#include "nabla/optim/schedulers/lr_scheduler.h"
#include "nabla/optim/sgd.h"
