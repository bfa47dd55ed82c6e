#pragma once
// The static graph: build once, re-evaluate only what changed (docs/graph.md);
// models imported from ONNX files as graphs (docs/import.md).
#include "nabla/graph/graph.h"
#include "nabla/graph/import.h"
