#pragma once
// nabla::models: models whose module trees and state_dict keys are PyTorch's — torchvision's
// vision models and nanoGPT's GPT-2 (docs/models.md). Link nabla::models.
#include "nabla/models/gpt2.h"
#include "nabla/models/mobilenet_v2.h"
#include "nabla/models/resnet.h"
