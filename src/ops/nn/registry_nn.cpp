// registry::add_nn_ops: the nn family's entries, file by file (nn_registry.h).
#include "ops/nn/nn_registry.h"

namespace nabla::ops {

void registry::add_nn_ops(std::vector<OpSchema>& t) {
  add_nn_activation_ops(t);
  add_nn_softmax_ops(t);
  add_nn_window_ops(t);
  add_nn_convolution_ops(t);
  add_nn_pooling_ops(t);
  add_nn_normalization_ops(t);
  add_nn_regression_loss_ops(t);
  add_nn_classification_loss_ops(t);
  add_nn_dropout_ops(t);
  add_nn_embedding_ops(t);
  add_nn_resample_ops(t);
  add_nn_rnn_ops(t);
}

}  // namespace nabla::ops
