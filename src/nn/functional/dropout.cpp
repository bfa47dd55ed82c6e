// F:: dropout: option unpacking and the unbatched-input handling of dropout2d/3d.
#include "nabla/nn/functional/dropout.h"

namespace nabla::nn::functional {

namespace {

Tensor dropout_nd(Tensor input, const DropoutFuncOptions& o, int64_t batched_dim, const char* op) {
  NABLA_CHECK(o.p() >= 0 && o.p() <= 1, op,
              ": dropout probability has to be between 0 and 1, but got ", o.p());
  NABLA_CHECK(input.defined(), op, ": input is undefined");
  // Any input that is not `batched_dim`-d is taken as one unbatched sample (its dim 0
  // holds the channels), as LibTorch does.
  const bool batched = input.dim() == batched_dim;
  Tensor x = batched ? input : (o.inplace() ? input.unsqueeze_(0) : input.unsqueeze(0));
  Tensor r = o.inplace() ? nabla::feature_dropout_(x, o.p(), o.training())
                         : nabla::feature_dropout(x, o.p(), o.training());
  if (!batched) r = o.inplace() ? r.squeeze_(0) : r.squeeze(0);
  return r;
}

}  // namespace

Tensor dropout(Tensor input, const DropoutFuncOptions& o) {
  return o.inplace() ? nabla::dropout_(input, o.p(), o.training())
                     : nabla::dropout(input, o.p(), o.training());
}
Tensor dropout2d(Tensor input, const Dropout2dFuncOptions& o) {
  return dropout_nd(input, o, 4, "dropout2d");
}
Tensor dropout3d(Tensor input, const Dropout3dFuncOptions& o) {
  return dropout_nd(input, o, 5, "dropout3d");
}
Tensor alpha_dropout(Tensor input, const AlphaDropoutFuncOptions& o) {
  return o.inplace() ? nabla::alpha_dropout_(input, o.p(), o.training())
                     : nabla::alpha_dropout(input, o.p(), o.training());
}
Tensor feature_alpha_dropout(Tensor input, const FeatureAlphaDropoutFuncOptions& o) {
  return o.inplace() ? nabla::feature_alpha_dropout_(input, o.p(), o.training())
                     : nabla::feature_alpha_dropout(input, o.p(), o.training());
}

}  // namespace nabla::nn::functional
