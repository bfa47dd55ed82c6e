#pragma once
// nabla::utils: progress bar and SVG plots for training programs.
#include "nabla/utils/plot.h"
#include "nabla/utils/progress_bar.h"
