#pragma once
// Graph recording for the copying shape ops (cat, stack, repeat, flip, roll, tril/triu,
// constant_pad_nd: forwards in shape_ops.cpp) and for clone / to / copy_ / fill_
// (tensor_basics.cpp). The formulas live in shape_backward.cpp; each lists the node
// attributes it reads.
#include "autograd/formula.h"

namespace nabla::ops::shape_formulas {

using autograd::Formula;
extern const Formula kClone;   // CloneBackward0
extern const Formula kToCopy;  // ToCopyBackward0: dtype0 = the input's dtype
extern const Formula
    kCopy;  // CopyBackwards (inputs self, src): shape1 = src sizes, dtype0 = src dtype
extern const Formula kFill;         // FillBackward2 (fill_ with a Scalar)
extern const Formula kFillTensor;   // FillBackward3 (inputs self, value)
extern const Formula kZero;         // ZeroBackward0
extern const Formula kCat;          // CatBackward0: dim, list = each input's size at dim
                                    // (-1: a skipped 1-d empty input), dims = input dtypes
extern const Formula kStack;        // StackBackward0: dim, dims = input dtypes
extern const Formula kRepeat;       // RepeatBackward0: shape0 = input sizes, list = repeats
extern const Formula kFlip;         // FlipBackward0: dims = flipped dims
extern const Formula kRoll;         // RollBackward0: list = shifts, dims = dims (may be empty)
extern const Formula kTril;         // TrilBackward0: dim = diagonal
extern const Formula kTriu;         // TriuBackward0: dim = diagonal
extern const Formula kConstantPad;  // ConstantPadNdBackward0: list = pad

}  // namespace nabla::ops::shape_formulas
