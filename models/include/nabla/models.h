#pragma once
// nabla::models: vision models with torchvision's module trees and state_dict keys
// (docs/models.md). Link nabla::models.
#include "nabla/models/mobilenet_v2.h"
#include "nabla/models/resnet.h"
