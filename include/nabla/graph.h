#pragma once
// The static graph (seed 000): build once, re-evaluate only what changed (docs/graph.md).
#include "nabla/graph/graph.h"
