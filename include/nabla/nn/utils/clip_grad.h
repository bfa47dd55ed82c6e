#pragma once
// Gradient clipping and parameter flattening, as torch::nn::utils.
#include <vector>

#include "nabla/core/tensor.h"

namespace nabla::nn::utils {

/// Scales the gradients of `parameters` in place so that their joint norm (of order
/// norm_type; inf for the max) is at most max_norm; returns the norm before clipping.
/// Parameters without a gradient are skipped. A non-finite total norm raises
/// nabla::Error when error_if_nonfinite (the gradients are then left unchanged).
double clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm,
                       double norm_type = 2.0, bool error_if_nonfinite = false);
double clip_grad_norm_(std::initializer_list<Tensor> parameters, double max_norm,
                       double norm_type = 2.0, bool error_if_nonfinite = false);
double clip_grad_norm_(const Tensor& parameter, double max_norm, double norm_type = 2.0,
                       bool error_if_nonfinite = false);

/// Clamps every gradient element into [-clip_value, clip_value].
void clip_grad_value_(const std::vector<Tensor>& parameters, double clip_value);
void clip_grad_value_(std::initializer_list<Tensor> parameters, double clip_value);
void clip_grad_value_(const Tensor& parameter, double clip_value);

/// All parameters flattened and concatenated into one 1-d tensor (a copy).
Tensor parameters_to_vector(const std::vector<Tensor>& parameters);
/// Copies consecutive slices of `vec` into the parameters (in place, under no_grad).
void vector_to_parameters(const Tensor& vec, const std::vector<Tensor>& parameters);

}  // namespace nabla::nn::utils
