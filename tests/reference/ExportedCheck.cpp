// Holds the graph of an archive of `splitstep-analysis export`, run by splitstep's interpreter
// (graph/GraphProgram.hpp), to eager PyTorch (tests/reference/exported/reference.py): the same
// parameter names in the same order, the same starting weights, and for the same batch the same
// loss, per-sample losses (for a standard loss), gradients and buffers after one forward and
// backward.
//
//   splitstep_exported_check ARCHIVE.pt2 REFERENCE.pt [fp32|bf16 [TRACE.json]]
//
// bf16: the graph runs under autocast to bf16 on the CPU, as reference.py --precision bf16 ran
// eager's model and loss; the same casts of the same operations give the same values, held to
// bf16's tolerance. TRACE: LibTorch's profile of that forward and backward, a Chrome trace whose
// operations kernel_table.py --cpu-ops holds to eager's (reference.py --trace).
//
// Exit status 0 when everything agrees, 1 when something does not (each difference on its own
// line), 2 when a file cannot be read.
#include <ATen/ops/allclose.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <torch/csrc/autograd/profiler_kineto.h>
#include <torch/serialize.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <iostream>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "graph/GraphProgram.hpp"
#include "models/Exported.hpp"
#include "suites/step/AutocastScope.hpp"

namespace splitstep {
namespace {

// fp32 on the CPU through the same ATen operations in the same order; what remains is the
// order of reductions inside kernels, which may differ between a boxed and an unboxed call's
// thread split only.
constexpr double kLossRtol = 1e-5;
constexpr double kGradRtol = 1e-4;
constexpr double kAtol = 1e-6;
// bf16 keeps 8 bits of mantissa: one rounding apart is 2^-8 relative.
constexpr double kBf16Rtol = 1.0 / 256;
constexpr double kBf16Atol = 1e-4;

std::map<std::string, at::Tensor> tensors(const c10::IValue& value) {
  std::map<std::string, at::Tensor> out;
  for (const auto& entry : value.toGenericDict()) {
    out.emplace(entry.key().toStringRef(), entry.value().toTensor());
  }
  return out;
}

std::string strip(const std::string& name) {
  return name.rfind("model.", 0) == 0 ? name.substr(6) : name;
}

// Runs `step` under LibTorch's profiler of CPU operations, saved as a Chrome trace at `path`;
// without a path, runs it alone.
void profiled(const std::function<void()>& step, const std::string& path) {
  namespace profiler = torch::autograd::profiler;
  if (path.empty()) return step();
  const std::set<torch::profiler::impl::ActivityType> cpu = {
      torch::profiler::impl::ActivityType::CPU};
  const torch::profiler::impl::ProfilerConfig config(torch::profiler::impl::ProfilerState::KINETO);
  profiler::prepareProfiler(config, cpu);
  profiler::enableProfiler(config, cpu);
  step();
  profiler::disableProfiler()->save(path);
}

int check(const std::string& archive_path, const std::string& reference_path, bool bf16,
          const std::string& trace_path) {
  const double loss_rtol = bf16 ? kBf16Rtol : kLossRtol;
  const double grad_rtol = bf16 ? kBf16Rtol : kGradRtol;
  const double atol = bf16 ? kBf16Atol : kAtol;
  const GraphArchive archive = readGraphArchive(archive_path);
  GraphProgram program(archive, c10::Device(c10::kCPU));
  std::ifstream file(reference_path, std::ios::binary);
  if (!file) throw std::invalid_argument("cannot read " + reference_path);
  const std::vector<char> bytes((std::istreambuf_iterator<char>(file)),
                                std::istreambuf_iterator<char>());
  const auto dict = torch::pickle_load(bytes).toGenericDict();
  const auto state = tensors(dict.at("state"));
  const auto grads = tensors(dict.at("grads"));
  const auto buffers = tensors(dict.at("buffers"));
  std::vector<at::Tensor> batch;
  for (const auto& t : dict.at("batch").toList()) batch.push_back(t.get().toTensor());
  const at::Tensor ref_loss = dict.at("loss").toTensor();
  const c10::IValue ref_samples = dict.at("samples");

  std::vector<std::string> differences;
  std::vector<std::string> ref_names;
  for (const auto& [name, grad] : grads) ref_names.push_back(strip(name));
  std::vector<std::string> names = program.parameterNames();
  std::vector<std::string> sorted = names;
  std::sort(sorted.begin(), sorted.end());
  std::sort(ref_names.begin(), ref_names.end());
  if (sorted != ref_names) differences.push_back("the parameters are not eager's");
  // Registration order, which DDP's buckets follow, is the archive's; eager's state_dict lists
  // its keys in that order too.
  std::vector<std::string> state_order;
  for (const auto& entry : dict.at("state").toGenericDict()) {
    const std::string name = strip(entry.key().toStringRef());
    // A tied weight (GPT-2's embedding and head) is one parameter under two state keys.
    const bool parameter = std::find(names.begin(), names.end(), name) != names.end();
    if (parameter && std::find(state_order.begin(), state_order.end(), name) == state_order.end()) {
      state_order.push_back(name);
    }
  }
  if (state_order != names) differences.push_back("the parameters are in another order");
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string key = "model." + names[i];
    if (!program.parameters()[i].equal(state.at(key))) {
      differences.push_back("starting weights differ: " + names[i]);
    }
  }
  at::Tensor mine;  // the graph's per-sample losses
  at::Tensor loss;
  profiled(
      [&] {
        {
          const AutocastScope autocast(c10::kCPU,
                                       bf16 ? std::optional(c10::kBFloat16) : std::nullopt);
          loss = program.loss(batch, &mine);
        }
        loss.backward();
      },
      trace_path);
  if (!at::allclose(loss, ref_loss, loss_rtol, atol)) {
    differences.push_back(
        fmt::format("loss {} against eager's {}", loss.item<double>(), ref_loss.item<double>()));
  }
  std::string samples = "no per-sample losses (not a standard loss)";
  if (ref_samples.isTensor()) {
    const at::Tensor ref = ref_samples.toTensor();
    if (!mine.defined()) {
      differences.push_back("the graph's loss is not a mean of per-sample losses");
    } else if (mine.sizes() != ref.sizes() || !at::allclose(mine, ref, loss_rtol, atol)) {
      differences.push_back(
          fmt::format("per-sample losses {} differ from eager's {}", mine.sizes(), ref.sizes()));
    } else {
      samples = fmt::format("{} per-sample losses equal eager's (largest difference {:.3g})",
                            ref.numel(), (mine - ref).abs().max().item<double>());
    }
  }
  double worst = 0;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const at::Tensor grad = program.parameters()[i].grad();
    const at::Tensor ref = grads.at("model." + names[i]);
    if (!grad.defined() || !at::allclose(grad, ref, grad_rtol, atol)) {
      differences.push_back(
          grad.defined()
              ? fmt::format(
                    "gradient differs: {} (largest difference {:.3g}, largest value {:.3g})",
                    names[i], (grad - ref).abs().max().item<double>(),
                    ref.abs().max().item<double>())
              : "no gradient: " + names[i]);
      continue;
    }
    worst = std::max(worst, (grad - ref).abs().max().item<double>());
  }
  for (const auto& [name, buffer] : program.buffers()) {
    const at::Tensor ref = buffers.at("model." + name);
    if (!at::allclose(buffer.to(ref.scalar_type()), ref, grad_rtol, atol)) {
      differences.push_back("buffer differs after the step: " + name);
    }
  }
  // The memory bound's count of what forward computes, scopes' subgraphs included.
  loadExportedModel(archive_path);
  const double counted = exportedModelFacts().floating_elements;
  const auto expected = static_cast<double>(dict.at("floating_elements").toInt());
  if (counted != expected) {
    differences.push_back(
        fmt::format("the memory bound counts {} computed floating elements, torch's graph has {}",
                    counted, expected));
  }
  for (const auto& d : differences) std::cout << archive_path << ": " << d << "\n";
  if (!differences.empty()) return 1;
  std::cout << fmt::format(
      "{}: {} parameters, {} buffers; loss {:.8g} (eager {:.8g}); {}; largest "
      "gradient difference {:.3g}; {} computed floating elements counted, as torch's graph\n",
      archive_path, names.size(), program.buffers().size(), loss.item<double>(),
      ref_loss.item<double>(), samples, worst, counted);
  return 0;
}

}  // namespace
}  // namespace splitstep

int main(int argc, char** argv) {
  const std::string precision = argc >= 4 ? argv[3] : "fp32";
  if (argc < 3 || argc > 5 || (precision != "fp32" && precision != "bf16")) {
    std::cerr
        << "usage: splitstep_exported_check ARCHIVE.pt2 REFERENCE.pt [fp32|bf16 [TRACE.json]]\n";
    return 2;
  }
  try {
    return splitstep::check(argv[1], argv[2], precision == "bf16", argc == 5 ? argv[4] : "");
  } catch (const std::exception& error) {
    std::cerr << error.what() << "\n";
    return 2;
  }
}
