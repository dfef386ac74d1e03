#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <stdexcept>

#include "models/Gpt2.hpp"
#include "models/Llama.hpp"
#include "models/Mlp.hpp"
#include "models/Recsys.hpp"
#include "models/ResNet50.hpp"
#include "models/StepModel.hpp"
#include "models/VitB16.hpp"

namespace splitstep {
namespace {

// Each declared in models/<Name>.hpp.
constexpr std::array kStepModels = {&kMlpModel,    &kResNet50Model, &kLlamaModel,
                                    &kVitB16Model, &kGpt2Model,     &kRecsysModel};

const ShapeOption& shapeOptionNamed(std::string_view name) {
  for (const ShapeOption* option : shapeOptions()) {
    if (option->name == name) return *option;
  }
  throw std::invalid_argument("no model has a shape option " + std::string(name));
}

}  // namespace

std::span<const StepModelDescriptor* const> stepModels() { return kStepModels; }

const StepModelDescriptor* findStepModel(std::string_view name) {
  const auto it = std::find_if(kStepModels.begin(), kStepModels.end(),
                               [name](const StepModelDescriptor* m) { return m->name == name; });
  return it == kStepModels.end() ? nullptr : *it;
}

const StepModelDescriptor& stepModel(std::string_view name) {
  const StepModelDescriptor* model = findStepModel(name);
  if (model == nullptr) throw std::invalid_argument("unknown step model " + std::string(name));
  return *model;
}

std::vector<const ShapeOption*> shapeOptions() {
  std::vector<const ShapeOption*> options;
  for (const StepModelDescriptor* model : kStepModels) {
    for (const ShapeOption* option : model->shape) {
      if (std::find(options.begin(), options.end(), option) == options.end()) {
        options.push_back(option);
      }
    }
  }
  return options;
}

std::string stepModelNames() {
  std::string names;
  for (const StepModelDescriptor* model : kStepModels) {
    if (!names.empty()) names += ", ";
    names += model->name;
  }
  return names;
}

std::string modelAtShape(const StepModelDescriptor& model, const StepShape& shape) {
  for (const NamedShape& named : model.named_shapes) {
    if (std::all_of(named.values.begin(), named.values.end(),
                    [&shape](const ShapeValue& v) { return shape[*v.option] == v.value; })) {
      return std::string(named.name);
    }
  }
  std::vector<std::string> differing;
  for (const ShapeOption* option : model.architecture) {
    if (shape[*option] != option->default_value) {
      // "vit-layers" as "layers": the model's name says whose option it is.
      const std::string_view option_name = option->name.substr(option->name.find('-') + 1);
      differing.push_back(fmt::format("{} {}", option_name, shape[*option]));
    }
  }
  if (differing.empty()) return std::string(model.name);
  return fmt::format("{} ({})", model.name, fmt::join(differing, ", "));
}

std::int64_t StepShape::operator[](const ShapeOption& option) const {
  const auto it = values_.find(option.name);
  return it == values_.end() ? option.default_value : it->second;
}

void StepShape::set(const ShapeOption& option, std::int64_t value) {
  if (value < option.min || value > option.max) {
    throw std::invalid_argument("shape option " + std::string(option.name) + " out of range");
  }
  values_.insert_or_assign(std::string(option.name), value);
}

std::int64_t StepShape::at(std::string_view name) const { return (*this)[shapeOptionNamed(name)]; }

void StepShape::set(std::string_view name, std::int64_t value) {
  set(shapeOptionNamed(name), value);
}

}  // namespace splitstep
