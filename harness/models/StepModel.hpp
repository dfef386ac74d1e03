// A step model, declared once (as a collective is in comm/Collective.hpp): its name, the options
// that shape it with their defaults and limits, its exact parameter count, its FLOPs per step,
// the parts of its memory estimate that depend on its architecture, and the public
// implementation it reproduces. This half needs no LibTorch, so that the options and the memory
// check read it; the module and batch makers are its LibTorch half (models/Workload.hpp).
//
// Each model lives in models/<Name>.cpp (this descriptor) and models/<Name>Module.cpp (its
// module), and is listed once in models/StepModels.cpp.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace splitstep {

// One option that shapes a model (--mlp-width): its name is the option's and the INI key's.
// Models that share an option point at the same ShapeOption.
struct ShapeOption {
  std::string_view name;
  std::int64_t default_value;
  std::int64_t min;
  std::int64_t max;
  std::string_view help;  // the option's line in --help
};

// The limits most shape options share. Defaults are sized for a GPU; configs/cpu-quick.ini holds
// sizes a CPU finishes in seconds.
namespace shape_limits {
inline constexpr std::int64_t kMaxLayers = 1024;  // also blocks and heads
inline constexpr std::int64_t kMaxWidth = 65536;  // also channels
inline constexpr std::int64_t kMaxBatch = 1 << 20;
}  // namespace shape_limits

// A shape a library names, by the values of the options that make its architecture: ViT-L/16
// is vit-b16's model at 24 blocks of width 1024, 16 heads, patch 16, image 224.
struct ShapeValue {
  const ShapeOption* option;
  std::int64_t value;
};
struct NamedShape {
  std::string_view name;  // "vit-l16"
  std::span<const ShapeValue> values;
};

// The classes of the classifier heads (vit-b16, resnet50) and of their synthetic labels.
inline constexpr std::int64_t kClassifierClasses = 1000;

// The value of every shape option of every model: what the options set, each option's default
// otherwise.
class StepShape {
 public:
  std::int64_t operator[](const ShapeOption& option) const;
  // Throws std::invalid_argument for a value outside the option's limits (the options have
  // refused it already: this guards plans built in code).
  void set(const ShapeOption& option, std::int64_t value);
  // By the option's name ("mlp-width"); throws std::invalid_argument for a name no model has.
  std::int64_t at(std::string_view name) const;
  void set(std::string_view name, std::int64_t value);

 private:
  std::map<std::string, std::int64_t, std::less<>> values_;
};

struct StepModelDescriptor {
  std::string_view name;  // --step-models' value and the report's: "mlp"
  // The public implementation it reproduces layer for layer ("torchvision.models.resnet50");
  // empty: an architecture of splitstep's own.
  std::string_view reproduces;
  std::span<const ShapeOption* const> shape;  // the options that shape it, in --help order
  // The options to lower when it does not fit, most telling first (named in the refusal).
  std::span<const ShapeOption* const> sizing;
  // Exact parameter count (equal to the module's, which a test holds it to).
  double (*parameters)(const StepShape& shape);
  std::int64_t (*batch)(const StepShape& shape);  // samples per rank and step
  // FLOPs of the products and convolutions of one step on `rows` samples: the forward's, and
  // twice that for the backward (gradients of inputs and of weights).
  double (*flop_per_step)(const StepShape& shape, std::int64_t rows);
  // A bound on what forward keeps for backward and the loss's buffers, in bytes, with
  // activations of `activation_bytes` each (4 in fp32, 2 under autocast); `on_gpu`: flash or
  // cuDNN attention keep O(seq) per head, on the CPU the attention matrix is kept too.
  double (*activations)(const StepShape& shape, double activation_bytes, bool on_gpu);
  double (*batch_bytes)(const StepShape& shape);  // input and target on the device
  // Why its shape options do not go together, naming them; nullptr or empty: they do.
  std::optional<std::string> (*shape_refusal)(const StepShape& shape);
  // The options that make its architecture (not batch, sequence or dropout): a case at other
  // values than their defaults is named after its shape (modelAtShape).
  std::span<const ShapeOption* const> architecture;
  // The other architectures its library names ("vit-l16"), each by its architecture's values.
  std::span<const NamedShape> named_shapes;
};

// What a case calls `model` at `shape`: the model's name at its own architecture; the name of
// another architecture its library names ("vit-l16", "gpt2-medium"); else the model's name with
// the architecture's options that differ from their defaults, "vit-b16 (layers 2, width 64)",
// so that a case at a drawn shape is not called ViT-B/16.
std::string modelAtShape(const StepModelDescriptor& model, const StepShape& shape);

// Every model, in the order --help and --step-models list them.
std::span<const StepModelDescriptor* const> stepModels();
// The model called `name`; nullptr if there is none.
const StepModelDescriptor* findStepModel(std::string_view name);
// The model called `name`; throws std::invalid_argument if there is none.
const StepModelDescriptor& stepModel(std::string_view name);
// Every model's shape options, each once, in the order of the models that first name them.
std::vector<const ShapeOption*> shapeOptions();
// "mlp, resnet50, llama, vit-b16, gpt2".
std::string stepModelNames();

}  // namespace splitstep
