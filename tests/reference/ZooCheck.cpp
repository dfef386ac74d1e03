// Holds a zoo model of splitstep to the library model it reproduces (tests/reference/zoo): for
// each file export.py wrote, splitstep's module at the same shape must have the same parameter
// names in the same registration order, the same parameter count (its descriptor's too), and,
// with the library's parameters loaded, the same output, loss and gradients for the same batch;
// and, from the library's weights and gradients, the same parameters after two steps of each
// optimizer (suites/step/Optimizer: SGD and AdamW, loop, foreach and fused) as torch.optim's.
// A file written as under a CUDA graph's capture is held to splitstep's module under
// CapturedForward, the forward its graphed step records.
//
//   splitstep_zoo_check FILE.pt...
//
// Exit status 0 when every file agrees, 1 when one does not (each difference on its own line), 2
// when a file cannot be read.
#include <ATen/ops/allclose.h>
#include <c10/core/GradMode.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <torch/serialize.h>

#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "models/Workload.hpp"
#include "suites/step/Optimizer.hpp"

namespace splitstep {
namespace {

// fp32 on the CPU through the same operations: what reordered sums leave.
constexpr double kOutputRtol = 1e-4;
constexpr double kOutputAtol = 1e-5;
constexpr double kGradRtol = 1e-3;
constexpr double kGradAtol = 1e-5;
// The same elementwise arithmetic in the same order: what fused kernels' FMAs leave.
constexpr double kStepRtol = 1e-6;
constexpr double kStepAtol = 1e-7;

struct OptimizerCase {
  const char* name;  // as export.py names it
  StepOptimizer kind;
  OptimizerImpl impl;
  double learning_rate;
  double momentum;
};

// export.py's OPTIMIZERS × IMPLEMENTATIONS, with the settings the step suite gives each.
constexpr OptimizerCase kOptimizerCases[] = {
    {"sgd-loop", StepOptimizer::Sgd, OptimizerImpl::Loop, 0.01, 0.9},
    {"sgd-foreach", StepOptimizer::Sgd, OptimizerImpl::Foreach, 0.01, 0.9},
    {"sgd-fused", StepOptimizer::Sgd, OptimizerImpl::Fused, 0.01, 0.9},
    {"adamw-loop", StepOptimizer::AdamW, OptimizerImpl::Loop, 1e-3, 0},
    {"adamw-foreach", StepOptimizer::AdamW, OptimizerImpl::Foreach, 1e-3, 0},
    {"adamw-fused", StepOptimizer::AdamW, OptimizerImpl::Fused, 1e-3, 0},
};

struct Reference {
  std::string model;
  std::map<std::string, std::int64_t> shape;
  std::vector<std::string> parameter_names;
  std::int64_t parameters = 0;
  bool captured = false;
  std::map<std::string, at::Tensor> state;
  at::Tensor input, target, output, loss;
  std::map<std::string, at::Tensor> grads;
  std::int64_t optimizer_steps = 0;
  std::map<std::string, std::map<std::string, at::Tensor>> after_optimizer;
};

std::map<std::string, at::Tensor> tensors(const c10::IValue& value) {
  std::map<std::string, at::Tensor> out;
  for (const auto& entry : value.toGenericDict()) {
    out.emplace(entry.key().toStringRef(), entry.value().toTensor());
  }
  return out;
}

Reference read(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw std::runtime_error("cannot read " + path);
  const std::vector<char> bytes((std::istreambuf_iterator<char>(file)),
                                std::istreambuf_iterator<char>());
  const c10::Dict<c10::IValue, c10::IValue> dict = torch::pickle_load(bytes).toGenericDict();
  const auto at = [&dict](const char* key) { return dict.at(key); };
  Reference r;
  r.model = at("model").toStringRef();
  for (const auto& entry : at("shape").toGenericDict()) {
    r.shape.emplace(entry.key().toStringRef(), entry.value().toInt());
  }
  for (const c10::IValue& name : at("parameter_names").toListRef()) {
    r.parameter_names.push_back(name.toStringRef());
  }
  r.parameters = at("parameters").toInt();
  r.captured = at("captured").toBool();
  r.state = tensors(at("state"));
  r.input = at("input").toTensor();
  r.target = at("target").toTensor();
  r.output = at("output").toTensor();
  r.loss = at("loss").toTensor();
  r.grads = tensors(at("grads"));
  r.optimizer_steps = at("optimizer_steps").toInt();
  for (const auto& entry : at("after_optimizer").toGenericDict()) {
    r.after_optimizer.emplace(entry.key().toStringRef(), tensors(entry.value()));
  }
  return r;
}

double maxAbsDiff(const at::Tensor& a, const at::Tensor& b) {
  return (a.to(at::kDouble) - b.to(at::kDouble)).abs().max().item<double>();
}

// Each optimizer's steps from the library's weights and gradients, against torch.optim's: the
// differences, one line each; `worst` is the largest difference where they agree.
std::vector<std::string> optimizerDifferences(const Reference& r,
                                              const std::vector<std::string>& names,
                                              double& worst) {
  std::vector<std::string> found;
  for (const OptimizerCase& c : kOptimizerCases) {
    std::vector<at::Tensor> parameters;
    for (const std::string& name : names) {
      at::Tensor p = r.state.at(name).clone().set_requires_grad(true);
      parameters.push_back(p);
    }
    const std::unique_ptr<Optimizer> optimizer =
        makeOptimizer(parameters, optimizerSettings(c.kind, c.impl, c.learning_rate, c.momentum));
    for (std::int64_t step = 0; step < r.optimizer_steps; ++step) {
      for (std::size_t i = 0; i < names.size(); ++i) {
        parameters[i].mutable_grad() = r.grads.at(names[i]).clone();
      }
      optimizer->step();
    }
    const std::map<std::string, at::Tensor>& theirs = r.after_optimizer.at(c.name);
    for (std::size_t i = 0; i < names.size(); ++i) {
      const at::Tensor& expected = theirs.at(names[i]);
      const double diff = maxAbsDiff(parameters[i], expected);
      if (!at::allclose(parameters[i], expected, kStepRtol, kStepAtol)) {
        found.push_back(
            fmt::format("{}: {} differs from torch.optim's by up to {:.3g} after {} steps", c.name,
                        names[i], diff, r.optimizer_steps));
        break;
      }
      worst = std::max(worst, diff);
    }
  }
  return found;
}

// The differences of splitstep's model from the reference, one line each; empty: none.
std::vector<std::string> differences(const Reference& r, std::string& summary) {
  const StepModelDescriptor& descriptor = stepModel(r.model);
  StepShape shape;
  for (const auto& [name, value] : r.shape) shape.set(name, value);
  const std::unique_ptr<Workload> workload =
      makeWorkload(descriptor, shape, c10::Device(c10::kCPU), 0);
  std::vector<std::string> found;
  const std::vector<std::string> names = workload->parameterNames();
  if (names != r.parameter_names) {
    for (std::size_t i = 0; i < std::max(names.size(), r.parameter_names.size()); ++i) {
      const std::string ours = i < names.size() ? names[i] : "(none)";
      const std::string theirs = i < r.parameter_names.size() ? r.parameter_names[i] : "(none)";
      if (ours != theirs) {
        found.push_back(
            fmt::format("parameter {}: splitstep's is '{}', the library's '{}'", i, ours, theirs));
        break;
      }
    }
    found.push_back(fmt::format("{} parameter tensors, the library has {}", names.size(),
                                r.parameter_names.size()));
    return found;
  }
  const std::vector<at::Tensor> parameters = workload->parameters();
  std::int64_t count = 0;
  {
    const c10::NoGradGuard no_grad;
    for (std::size_t i = 0; i < parameters.size(); ++i) {
      const at::Tensor& theirs = r.state.at(names[i]);
      if (theirs.sizes() != parameters[i].sizes()) {
        found.push_back(fmt::format("{}: shape {} against the library's {}", names[i],
                                    fmt::join(parameters[i].sizes(), "x"),
                                    fmt::join(theirs.sizes(), "x")));
        return found;
      }
      parameters[i].copy_(theirs);
      count += parameters[i].numel();
    }
  }
  if (count != r.parameters) {
    found.push_back(fmt::format("{} parameters, the library has {}", count, r.parameters));
  }
  if (static_cast<std::int64_t>(descriptor.parameters(shape)) != r.parameters) {
    found.push_back(fmt::format("the descriptor counts {:.0f} parameters, the library has {}",
                                descriptor.parameters(shape), r.parameters));
  }
  std::optional<CapturedForward> captured;
  if (r.captured) captured.emplace();
  const at::Tensor output = workload->forward(r.input);
  if (output.sizes() != r.output.sizes()) {
    found.push_back(fmt::format("output of shape {}, the library's is {}",
                                fmt::join(output.sizes(), "x"), fmt::join(r.output.sizes(), "x")));
    return found;
  }
  const double output_diff = maxAbsDiff(output, r.output);
  if (!at::allclose(output, r.output, kOutputRtol, kOutputAtol)) {
    found.push_back(fmt::format("output differs by up to {:.3g}", output_diff));
  }
  const at::Tensor loss = workload->loss(output, r.target);
  if (!at::allclose(loss, r.loss, kOutputRtol, kOutputAtol)) {
    found.push_back(fmt::format("loss {:.6g}, the library's {:.6g}", loss.item<double>(),
                                r.loss.item<double>()));
  }
  loss.backward();
  double grad_diff = 0;
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    const at::Tensor& theirs = r.grads.at(names[i]);
    const at::Tensor grad = parameters[i].grad();
    if (!grad.defined() || !at::allclose(grad, theirs, kGradRtol, kGradAtol)) {
      found.push_back(fmt::format("gradient of {} differs by up to {:.3g}", names[i],
                                  grad.defined() ? maxAbsDiff(grad, theirs) : -1.0));
    } else {
      grad_diff = std::max(grad_diff, maxAbsDiff(grad, theirs));
    }
  }
  double step_diff = 0;
  const std::vector<std::string> steps = optimizerDifferences(r, names, step_diff);
  found.insert(found.end(), steps.begin(), steps.end());
  summary = fmt::format(
      "{}{} parameters in {} tensors equal; output within {:.2g}, loss {:.6g}, "
      "gradients within {:.2g}; {} optimizers' {} steps within {:.2g} of torch.optim's",
      r.captured ? "as under capture: " : "", count, names.size(), output_diff, loss.item<double>(),
      grad_diff, std::size(kOptimizerCases), r.optimizer_steps, step_diff);
  return found;
}

}  // namespace
}  // namespace splitstep

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: splitstep_zoo_check FILE.pt...\n";
    return 2;
  }
  int status = 0;
  for (int i = 1; i < argc; ++i) {
    splitstep::Reference reference;
    try {
      reference = splitstep::read(argv[i]);
    } catch (const std::exception& e) {
      std::cerr << argv[i] << ": not a zoo reference (" << e.what() << ")\n";
      return 2;
    }
    std::string summary;
    const std::vector<std::string> found = splitstep::differences(reference, summary);
    std::string shape;
    for (const auto& [name, value] : reference.shape) shape += fmt::format(" --{} {}", name, value);
    if (found.empty()) {
      std::cout << fmt::format("ok: {}{}: {}\n", reference.model, shape, summary);
    } else {
      status = 1;
      for (const std::string& line : found) {
        std::cout << fmt::format("DIFFERS: {}{}: {}\n", reference.model, shape, line);
      }
    }
  }
  return status;
}
