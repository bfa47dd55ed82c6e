// Checkpoints: a module's parameters and each optimizer's state read from an archive,
// then one training step with what was loaded (a state tensor of the wrong dtype or
// shape must be refused at load, not corrupt memory in the step).
#include <sstream>

#include "fuzz_util.h"
#include "nabla/nn.h"
#include "nabla/ops/factories.h"
#include "nabla/optim.h"
#include "nabla/serialize.h"

using namespace nabla;

namespace {

// The prefixes of the errors loading may raise: the archive's, the module's, the
// optimizer's.
constexpr std::initializer_list<std::string_view> kLoadErrors = {"load: ", "optimizer load: "};

template <class Opt, class Options>
void load_and_step(const serialize::InputArchive& archive, Options options) {
  nn::Linear model(3, 2);
  Opt opt(model->parameters(), options);
  serialize::InputArchive view = archive;
  if (!fuzz::accepts(kLoadErrors, [&] { opt.load(view); })) return;
  // The loaded hyper-parameters may be anything; the step may refuse them, clearly.
  fuzz::accepts({""}, [&] {
    opt.zero_grad();
    model->forward(ones({4, 3})).sum().backward();
    opt.step();
  });
  for (const auto& p : model->parameters()) fuzz::touch(p);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  serialize::InputArchive archive;
  if (!fuzz::accepts({"load: "}, [&] {
        std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
        archive.load_from(in);
      }))
    return 0;

  nn::Linear model(3, 2);
  serialize::InputArchive view = archive;
  fuzz::accepts(kLoadErrors, [&] {
    model->load(view);
    serialize::detail::check_all_read(view, model->name(), "input");
  });
  for (const auto& p : model->parameters()) fuzz::touch(p);

  load_and_step<optim::SGD>(archive, optim::SGDOptions(0.1).momentum(0.9));
  load_and_step<optim::Adam>(archive, optim::AdamOptions(0.1).amsgrad(true));
  load_and_step<optim::AdamW>(archive, optim::AdamWOptions(0.1));
  load_and_step<optim::RMSprop>(archive, optim::RMSpropOptions(0.1).centered(true).momentum(0.5));
  load_and_step<optim::Adagrad>(archive, optim::AdagradOptions(0.1));
  return 0;
}
