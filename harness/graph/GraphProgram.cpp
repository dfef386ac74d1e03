#include "graph/GraphProgram.hpp"

#include "graph/GraphOperations.hpp"

#include <ATen/autocast_mode.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <c10/core/GradMode.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <optional>
#include <set>
#include <stdexcept>

namespace splitstep {
namespace {

namespace ex = torch::_export;
using Tag = ex::Argument::Tag;

// export.py's wrapper holds the user's model under this attribute.
constexpr std::string_view kModelPrefix = "model.";
// torch.export's records of a `torch.no_grad()` or `torch.enable_grad()` region inside the model
// (a rotary embedding's, say): (enabled, its graph, its operands...); and of a `torch.autocast`
// region: (device type, dtype, enabled, cache enabled, its graph, its operands...).
constexpr std::string_view kSetGradScope = "torch.ops.higher_order.wrap_with_set_grad_enabled";
constexpr std::string_view kAutocastScope = "torch.ops.higher_order.wrap_with_autocast";
constexpr std::string_view kHigherOrder = "torch.ops.higher_order.";
constexpr std::string_view kCat = "torch.ops.aten.cat.default";
constexpr std::string_view kLiftFreshCopy = "torch.ops.aten.lift_fresh_copy.default";
// Operations that hand on their input: of an empty constant, an empty constant.
const std::set<std::string, std::less<>> kEmptyPassing = {"torch.ops.aten.detach_.default",
                                                          "torch.ops.aten.detach.default",
                                                          "torch.ops.aten.alias.default"};

// Where one argument of an operation comes from: a value fixed in the graph, or tensors the
// graph computes (slots of the run's value table; -1: None in a Tensor?[]).
struct Operand {
  enum class Kind { kConstant, kTensor, kTensors, kOptionalTensors } kind = Kind::kConstant;
  c10::IValue constant;
  std::vector<int> slots;
};

// Where one return of an operation goes: nowhere, one slot, or a slot per list element.
struct Result {
  bool list = false;
  std::vector<int> slots;  // empty: unused
};

// What a scope of the graph sets on entry: the grad mode, or autocast's state on the run's device
// (the graph names the exporter's device type, as it names the exporter's device).
struct ScopeState {
  std::optional<bool> grad;
  std::optional<bool> autocast;
  std::optional<c10::ScalarType> dtype;
};

// A call of an operation; or, without one, the start of a scope (`enter`: what it sets) or its
// end (restoring what was set before its start).
struct Step {
  std::optional<c10::OperatorHandle> op;
  std::vector<Operand> operands;
  std::vector<Result> results;
  std::vector<int> release;  // slots whose last use is this step
  std::optional<ScopeState> enter;
  // Positions, in a cat's list, of empty constants that take the others' dtype.
  std::vector<std::size_t> empty_operands;
};

}  // namespace

struct GraphProgram::Plan {
  c10::Device device;
  std::vector<Step> steps;
  std::vector<std::pair<int, at::Tensor>> fixed;  // parameters, buffers, constants
  std::vector<int> inputs;                        // the batch's slots
  int output = -1;
  int samples = -1;  // what the loss averaged, where it is a mean of per-sample losses
  int slot_count = 0;
};

namespace {

// Turns the graph into steps, collecting every refusal so that one line can name them all.
class Planner {
 public:
  Planner(GraphProgram::Plan& plan, std::string path) : plan_(plan), path_(std::move(path)) {}

  // Names are the graph's, within the scope of the subgraph being planned (scope_): a subgraph
  // may reuse its parent's names for values of its own.
  int slot(const std::string& name) {
    const auto [it, added] = slots_.try_emplace(scope_ + name, plan_.slot_count);
    if (added) ++plan_.slot_count;
    return it->second;
  }
  int known(const std::string& name) {
    const auto it = slots_.find(scope_ + name);
    if (it == slots_.end())
      throw GraphArchiveError(path_ + ": the graph uses " + name + " before computing it");
    return it->second;
  }
  void refuse(std::string what) { refusals_.insert(std::move(what)); }
  // A constant without elements (transformers' cache starts as torch.tensor([])).
  void emptyConstant(int slot) { empty_constants_.insert(slot); }
  void throwRefusals() const {
    if (refusals_.empty()) return;
    throw GraphArchiveError(fmt::format("{}: the graph has what splitstep cannot run: {}", path_,
                                        fmt::join(refusals_, ", ")));
  }

  void addNode(const ex::Node& node) {
    const std::string& target = node.get_target();
    if (isExportGuard(target)) return;
    if (target == kLiftFreshCopy && aliasesEmptyConstant(node)) return;
    if (target == kSetGradScope || target == kAutocastScope) {
      addScope(node);
      return;
    }
    const std::optional<c10::OperatorHandle> op = findOperation(target);
    if (!op) {
      // A control-flow operation (cond, while_loop, map) is named with the module it came from.
      const std::string module = moduleOf(node);
      refuse(target.starts_with(kHigherOrder) && !module.empty()
                 ? fmt::format("{} (in module {})", target, module)
                 : target);
      slotOutputs(node);
      return;
    }
    Step step{*op, {}, {}, {}, std::nullopt, {}};
    const c10::FunctionSchema& schema = op->schema();
    std::map<std::string, const ex::Argument*> given;
    for (const auto& input : node.get_inputs()) given.emplace(input.get_name(), &input.get_arg());
    for (const c10::Argument& argument : schema.arguments()) {
      const auto it = given.find(argument.name());
      if (it != given.end()) {
        Operand given_operand = operand(target, *it->second);
        if (given_operand.kind == Operand::Kind::kConstant) {
          given_operand.constant = wrappedNumber(argument, std::move(given_operand.constant));
        }
        step.operands.push_back(std::move(given_operand));
        given.erase(it);
      } else if (argument.default_value()) {
        step.operands.push_back({Operand::Kind::kConstant, *argument.default_value(), {}});
      } else {
        refuse(fmt::format("{} without its argument {}", target, argument.name()));
      }
    }
    for (const auto& [name, unused] : given) refuse(fmt::format("{} argument {}", target, name));
    addResults(step, target, schema, node.get_outputs());
    if (kEmptyPassing.count(target) != 0) passOnEmpty(step);
    if (target == kCat) findEmptyOperands(step);
    plan_.steps.push_back(std::move(step));
  }

 private:
  Operand operand(const std::string& target, const ex::Argument& arg) {
    using Kind = Operand::Kind;
    switch (arg.tag()) {
      case Tag::AS_NONE:
        return {Kind::kConstant, c10::IValue(), {}};
      case Tag::AS_TENSOR:
        return {Kind::kTensor, {}, {known(arg.get_as_tensor().get_name())}};
      case Tag::AS_TENSORS: {
        Operand out{Kind::kTensors, {}, {}};
        for (const auto& t : arg.get_as_tensors()) out.slots.push_back(known(t.get_name()));
        return out;
      }
      case Tag::AS_OPTIONAL_TENSORS: {
        Operand out{Kind::kOptionalTensors, {}, {}};
        for (const auto& t : arg.get_as_optional_tensors()) {
          out.slots.push_back(t.tag() == ex::OptionalTensorArgument::Tag::AS_TENSOR
                                  ? known(t.get_as_tensor().get_name())
                                  : -1);
        }
        return out;
      }
      case Tag::AS_INT:
        return {Kind::kConstant, arg.get_as_int(), {}};
      case Tag::AS_INTS:
        return {Kind::kConstant, c10::List<std::int64_t>(arg.get_as_ints()), {}};
      case Tag::AS_FLOAT:
        return {Kind::kConstant, arg.get_as_float().get(), {}};
      case Tag::AS_FLOATS: {
        c10::List<double> values;
        for (const auto& f : arg.get_as_floats()) values.push_back(f.get());
        return {Kind::kConstant, values, {}};
      }
      case Tag::AS_BOOL:
        return {Kind::kConstant, arg.get_as_bool(), {}};
      case Tag::AS_BOOLS: {
        c10::List<bool> values;
        for (const bool b : arg.get_as_bools()) values.push_back(b);
        return {Kind::kConstant, values, {}};
      }
      case Tag::AS_STRING:
        return {Kind::kConstant, arg.get_as_string(), {}};
      case Tag::AS_SCALAR_TYPE:
        return {Kind::kConstant, scalarType(arg.get_as_scalar_type()), {}};
      case Tag::AS_MEMORY_FORMAT:
        return {Kind::kConstant, memoryFormat(arg), {}};
      case Tag::AS_LAYOUT:
        if (arg.get_as_layout() == ex::Layout::Strided) return {Kind::kConstant, c10::kStrided, {}};
        break;
      // The device the graph was exported on is the exporter's; the run's is splitstep's.
      case Tag::AS_DEVICE:
        return {Kind::kConstant, plan_.device, {}};
      case Tag::AS_SYM_INT:
        if (arg.get_as_sym_int().tag() == ex::SymIntArgument::Tag::AS_INT) {
          return {Kind::kConstant, arg.get_as_sym_int().get_as_int(), {}};
        }
        break;
      case Tag::AS_SYM_INTS: {
        c10::List<std::int64_t> values;
        for (const auto& s : arg.get_as_sym_ints()) {
          if (s.tag() != ex::SymIntArgument::Tag::AS_INT) break;
          values.push_back(s.get_as_int());
        }
        if (values.size() == arg.get_as_sym_ints().size()) return {Kind::kConstant, values, {}};
        break;
      }
      default:
        break;
    }
    refuse(fmt::format("{} with an argument of kind {}", target, static_cast<int>(arg.tag())));
    return {};
  }

  c10::MemoryFormat memoryFormat(const ex::Argument& arg) {
    switch (arg.get_as_memory_format()) {
      case ex::MemoryFormat::ContiguousFormat:
        return c10::MemoryFormat::Contiguous;
      case ex::MemoryFormat::ChannelsLast:
        return c10::MemoryFormat::ChannelsLast;
      case ex::MemoryFormat::ChannelsLast3d:
        return c10::MemoryFormat::ChannelsLast3d;
      case ex::MemoryFormat::PreserveFormat:
        return c10::MemoryFormat::Preserve;
      default:
        refuse("an unknown memory format");
        return c10::MemoryFormat::Contiguous;
    }
  }

  void addResults(Step& step, const std::string& target, const c10::FunctionSchema& schema,
                  const std::vector<ex::Argument>& outputs) {
    const auto& returns = schema.returns();
    if (returns.empty()) return;  // _assert_tensor_metadata and the like: nothing to keep
    if (outputs.size() != returns.size()) {
      refuse(
          fmt::format("{} with {} outputs for {} returns", target, outputs.size(), returns.size()));
      return;
    }
    for (const ex::Argument& output : outputs) {
      Result result;
      if (output.tag() == Tag::AS_TENSOR) {
        result.slots.push_back(slot(output.get_as_tensor().get_name()));
      } else if (output.tag() == Tag::AS_TENSORS) {
        result.list = true;
        for (const auto& t : output.get_as_tensors()) result.slots.push_back(slot(t.get_name()));
      } else if (output.tag() != Tag::AS_NONE) {
        refuse(fmt::format("{} with an output of kind {}", target, static_cast<int>(output.tag())));
      }
      step.results.push_back(std::move(result));
    }
  }

  // A fresh copy of a constant without elements is the constant: there is nothing to copy, and
  // eager makes such a tensor (transformers' cache starts as torch.tensor([])) with no kernel.
  bool aliasesEmptyConstant(const ex::Node& node) {
    if (node.get_inputs().size() != 1 || node.get_outputs().size() != 1) return false;
    const ex::Argument& input = node.get_inputs().front().get_arg();
    const ex::Argument& output = node.get_outputs().front();
    if (input.tag() != Tag::AS_TENSOR || output.tag() != Tag::AS_TENSOR) return false;
    const auto it = slots_.find(scope_ + input.get_as_tensor().get_name());
    if (it == slots_.end() || empty_constants_.count(it->second) == 0) return false;
    slots_[scope_ + output.get_as_tensor().get_name()] = it->second;
    return true;
  }

  // What a detach or an alias of an empty constant returns is one too.
  void passOnEmpty(const Step& step) {
    if (step.operands.empty() || step.operands.front().kind != Operand::Kind::kTensor) return;
    if (empty_constants_.count(step.operands.front().slots.front()) == 0) return;
    for (const Result& result : step.results) {
      empty_constants_.insert(result.slots.begin(), result.slots.end());
    }
  }

  // Eager concatenates the cache's first keys to an empty tensor it made of their dtype, which
  // autocast's cat (a promoting operation) leaves as they are; the graph's constant records the
  // export's fp32, to which autocast would promote every key (and cast its gradient back). Such
  // an operand is made, at each call, of the dtype of the first one with elements.
  void findEmptyOperands(Step& step) const {
    if (step.operands.empty() || step.operands.front().kind != Operand::Kind::kTensors) return;
    const std::vector<int>& tensors = step.operands.front().slots;
    for (std::size_t i = 0; i < tensors.size(); ++i) {
      if (empty_constants_.count(tensors[i]) != 0) step.empty_operands.push_back(i);
    }
  }

  // Its outputs still get slots, so that the nodes after it are judged too.
  void slotOutputs(const ex::Node& node) {
    for (const ex::Argument& output : node.get_outputs()) {
      if (output.tag() == Tag::AS_TENSOR) slot(output.get_as_tensor().get_name());
      if (output.tag() == Tag::AS_TENSORS) {
        for (const auto& t : output.get_as_tensors()) slot(t.get_name());
      }
    }
  }

  // The innermost module of the node's nn_module_stack ("key,path,type;..."), by its path in the
  // user's model; empty where none is recorded.
  static std::string moduleOf(const ex::Node& node) {
    const auto it = node.get_metadata().find("nn_module_stack");
    if (it == node.get_metadata().end()) return "";
    const std::string& stack = it->second;
    const std::string innermost = stack.substr(stack.rfind(';') + 1);
    const std::size_t first = innermost.find(',');
    if (first == std::string::npos) return "";
    const std::string path =
        innermost.substr(first + 1, innermost.find(',', first + 1) - first - 1);
    return path.starts_with(kModelPrefix) ? path.substr(kModelPrefix.size()) : path;
  }

  // What the scope's leading arguments set, and where its graph is among its arguments; empty
  // for arguments of another form.
  static std::optional<std::pair<ScopeState, std::size_t>> scopeHead(
      const std::string& target, const std::vector<ex::NamedArgument>& inputs) {
    const auto tag = [&](std::size_t i) {
      return i < inputs.size() ? inputs[i].get_arg().tag() : Tag::AS_NONE;
    };
    if (target == kSetGradScope) {
      if (tag(0) != Tag::AS_BOOL || tag(1) != Tag::AS_GRAPH) return std::nullopt;
      return std::pair{ScopeState{inputs[0].get_arg().get_as_bool(), {}, {}}, std::size_t{1}};
    }
    // wrap_with_autocast(device_type, dtype, enabled, cache_enabled, graph, operands...)
    if (tag(0) != Tag::AS_STRING || (tag(1) != Tag::AS_SCALAR_TYPE && tag(1) != Tag::AS_NONE) ||
        tag(2) != Tag::AS_BOOL || (tag(3) != Tag::AS_BOOL && tag(3) != Tag::AS_NONE) ||
        tag(4) != Tag::AS_GRAPH) {
      return std::nullopt;
    }
    ScopeState state{{}, inputs[2].get_arg().get_as_bool(), {}};
    if (tag(1) == Tag::AS_SCALAR_TYPE)
      state.dtype = scalarType(inputs[1].get_arg().get_as_scalar_type());
    return std::pair{state, std::size_t{4}};
  }

  // A scope (wrap_with_set_grad_enabled, wrap_with_autocast): the subgraph's nodes planned in
  // place, between a step that sets what the scope sets and one that restores it, its inputs the
  // operands' slots and its outputs the node's.
  void addScope(const ex::Node& node) {
    const std::string& target = node.get_target();
    const std::vector<ex::NamedArgument>& inputs = node.get_inputs();
    const auto head = scopeHead(target, inputs);
    if (!head) {
      refuse(fmt::format("{} of an unknown form", target));
      slotOutputs(node);
      return;
    }
    const ex::GraphArgument& sub = inputs[head->second].get_arg().get_as_graph();
    const ex::Graph& graph = *sub.get_graph();
    std::vector<int> operands;
    for (std::size_t i = head->second + 1; i < inputs.size(); ++i) {
      if (inputs[i].get_arg().tag() != Tag::AS_TENSOR) {
        refuse(fmt::format("{} with an operand that is not a tensor", target));
        slotOutputs(node);
        return;
      }
      operands.push_back(known(inputs[i].get_arg().get_as_tensor().get_name()));
    }
    if (graph.get_inputs().size() != operands.size()) {
      refuse(fmt::format("{} whose graph takes {} inputs for {} operands", target,
                         graph.get_inputs().size(), operands.size()));
      slotOutputs(node);
      return;
    }
    const std::string outer = scope_;
    scope_ = fmt::format("{}{}#{}/", outer, sub.get_name(), scopes_++);
    bool plain = true;
    for (std::size_t i = 0; i < operands.size(); ++i) {
      const ex::Argument& input = graph.get_inputs()[i];
      if (input.tag() != Tag::AS_TENSOR) {
        plain = false;
        continue;
      }
      slots_[scope_ + input.get_as_tensor().get_name()] = operands[i];
    }
    plan_.steps.push_back({std::nullopt, {}, {}, {}, head->first, {}});
    for (const ex::Node& inner : graph.get_nodes()) addNode(inner);
    std::vector<int> results;
    for (const ex::Argument& output : graph.get_outputs()) {
      if (output.tag() == Tag::AS_TENSOR) {
        results.push_back(known(output.get_as_tensor().get_name()));
      } else {
        plain = false;
      }
    }
    scope_ = outer;
    plan_.steps.push_back({std::nullopt, {}, {}, {}, std::nullopt, {}});
    std::vector<std::string> names;
    for (const ex::Argument& output : node.get_outputs()) {
      if (output.tag() == Tag::AS_TENSOR) names.push_back(output.get_as_tensor().get_name());
      if (output.tag() == Tag::AS_TENSORS) {
        for (const auto& t : output.get_as_tensors()) names.push_back(t.get_name());
      }
    }
    if (!plain || names.size() != results.size()) {
      refuse(fmt::format("{} with inputs or outputs that are not tensors", target));
      slotOutputs(node);
      return;
    }
    for (std::size_t i = 0; i < names.size(); ++i) slots_[scope_ + names[i]] = results[i];
  }

  GraphProgram::Plan& plan_;
  std::string path_;
  std::map<std::string, int> slots_;
  std::set<std::string> refusals_;
  std::set<int> empty_constants_;  // slots of empty constants, and of what hands them on
  std::string scope_;  // the names' prefix in the subgraph being planned ("" at the top)
  int scopes_ = 0;     // subgraphs planned so far: each gets a scope of its own
};

// Each computed slot is dropped after its last use, as eager drops a temporary: what autograd
// needs it keeps itself.
void planReleases(GraphProgram::Plan& plan) {
  std::vector<int> last(static_cast<std::size_t>(plan.slot_count), -1);
  for (std::size_t i = 0; i < plan.steps.size(); ++i) {
    for (const Operand& operand : plan.steps[i].operands) {
      for (const int s : operand.slots) {
        if (s >= 0) last[static_cast<std::size_t>(s)] = static_cast<int>(i);
      }
    }
  }
  for (const auto& [s, unused] : plan.fixed) last[static_cast<std::size_t>(s)] = -1;
  if (plan.output >= 0) last[static_cast<std::size_t>(plan.output)] = -1;
  if (plan.samples >= 0) last[static_cast<std::size_t>(plan.samples)] = -1;
  for (std::size_t s = 0; s < last.size(); ++s) {
    if (last[s] >= 0)
      plan.steps[static_cast<std::size_t>(last[s])].release.push_back(static_cast<int>(s));
  }
}

// The per-sample losses of a loss that is their mean (export.py's standard losses): the tensor
// operand of the aten::mean that computes the output.
int sampleLossSlot(const GraphProgram::Plan& plan) {
  for (const Step& step : plan.steps) {
    const bool computes_output =
        step.results.size() == 1 && step.results[0].slots == std::vector<int>{plan.output};
    if (!computes_output) continue;
    if (!step.op) continue;
    const c10::OperatorName& name = step.op->schema().operator_name();
    if (name.name != "aten::mean" || !name.overload_name.empty()) return -1;
    const Operand& input = step.operands.front();
    return input.kind == Operand::Kind::kTensor ? input.slots.front() : -1;
  }
  return -1;
}

std::string userName(const std::string& name) {
  return name.rfind(kModelPrefix, 0) == 0 ? name.substr(kModelPrefix.size()) : name;
}

}  // namespace

namespace {

// The shape and dtype the graph records for its tensor `name`, where the shape is static;
// nullopt where it is symbolic or not recorded.
struct StaticMeta {
  std::vector<std::int64_t> shape;
  at::ScalarType dtype;
};
std::optional<StaticMeta> staticMeta(const ex::Graph& graph, const std::string& name) {
  const auto it = graph.get_tensor_values().find(name);
  if (it == graph.get_tensor_values().end()) return std::nullopt;
  StaticMeta meta{{}, scalarType(it->second.get_dtype())};
  for (const ex::SymInt& size : it->second.get_sizes()) {
    if (size.tag() != ex::SymInt::Tag::AS_INT) return std::nullopt;
    meta.shape.push_back(size.get_as_int());
  }
  return meta;
}

// Where `what` (the archive's weights or batch record) is not what the graph takes: why, in
// words; nullopt where it is, or the graph records no static shape for it.
std::optional<std::string> mismatch(const ex::Graph& graph, const std::string& placeholder,
                                    const std::string& what, c10::IntArrayRef shape,
                                    at::ScalarType dtype) {
  const std::optional<StaticMeta> meta = staticMeta(graph, placeholder);
  if (!meta || (c10::IntArrayRef(meta->shape) == shape && meta->dtype == dtype)) {
    return std::nullopt;
  }
  return fmt::format("{} is [{}] {}, the graph takes [{}] {}", what, fmt::join(shape, ", "),
                     c10::toString(dtype), fmt::join(meta->shape, ", "),
                     c10::toString(meta->dtype));
}

}  // namespace

GraphProgram::GraphProgram(const GraphArchive& archive, c10::Device device)
    : plan_(std::make_unique<Plan>(Plan{device, {}, {}, {}, -1, -1, 0})), batch_(archive.batch) {
  const ex::GraphModule& module = archive.program.get_graph_module();
  const ex::Graph& graph = module.get_graph();
  Planner planner(*plan_, archive.path);
  std::map<std::string, at::Tensor> parameters;
  std::size_t user_inputs = 0;
  // Each archive tensor placed once, so that a tied weight stays one tensor (one leaf).
  std::map<const c10::TensorImpl*, at::Tensor> placed;
  // What the model trains (a tied weight under any of its names); what it froze is left out of
  // the archive's list, and does not require grad.
  std::set<const c10::TensorImpl*> trained;
  for (const std::string& name : archive.parameter_names) {
    trained.insert(archive.weights.at(name).unsafeGetTensorImpl());
  }
  const auto weight = [&](const std::map<std::string, at::Tensor>& from, const std::string& name) {
    const auto it = from.find(name);
    if (it == from.end()) throw GraphArchiveError(archive.path + ": no weights for " + name);
    auto [at, added] = placed.try_emplace(it->second.unsafeGetTensorImpl());
    if (added) {
      at->second = it->second.to(device);
      if (trained.count(at->first) != 0) at->second = at->second.detach().requires_grad_(true);
    }
    return at->second;
  };
  for (const ex::InputSpec& spec : module.get_signature().get_input_specs()) {
    using In = ex::InputSpec::Tag;
    switch (spec.tag()) {
      case In::PARAMETER: {
        const auto& p = spec.get_parameter();
        const int s = planner.slot(p.get_arg().get_name());
        parameters.emplace(p.get_parameter_name(), weight(archive.weights, p.get_parameter_name()));
        const at::Tensor& w = parameters.at(p.get_parameter_name());
        if (const auto why =
                mismatch(graph, p.get_arg().get_name(), "parameter " + p.get_parameter_name(),
                         w.sizes(), w.scalar_type())) {
          planner.refuse(*why);
        }
        plan_->fixed.emplace_back(s, parameters.at(p.get_parameter_name()));
        break;
      }
      case In::BUFFER: {
        const auto& b = spec.get_buffer();
        // torch.export.save keeps non-persistent buffers (Llama's rotary frequencies) among the
        // constants.
        const at::Tensor buffer = weight(
            archive.weights.count(b.get_buffer_name()) != 0 ? archive.weights : archive.constants,
            b.get_buffer_name());
        if (const auto why =
                mismatch(graph, b.get_arg().get_name(), "buffer " + b.get_buffer_name(),
                         buffer.sizes(), buffer.scalar_type())) {
          planner.refuse(*why);
        }
        plan_->fixed.emplace_back(planner.slot(b.get_arg().get_name()), buffer);
        buffers_.emplace(userName(b.get_buffer_name()), buffer);
        break;
      }
      case In::TENSOR_CONSTANT: {
        const auto& c = spec.get_tensor_constant();
        const int s = planner.slot(c.get_arg().get_name());
        const at::Tensor constant = weight(archive.constants, c.get_tensor_constant_name());
        plan_->fixed.emplace_back(s, constant);
        if (constant.numel() == 0) planner.emptyConstant(s);
        break;
      }
      case In::USER_INPUT: {
        const ex::Argument& arg = spec.get_user_input().get_arg();
        if (arg.tag() != Tag::AS_TENSOR) {
          planner.refuse("a batch input that is not a tensor");
          break;
        }
        const std::string& name = arg.get_as_tensor().get_name();
        if (user_inputs < batch_.size()) {
          const BatchTensorSpec& recorded = batch_[user_inputs];
          if (const auto why = mismatch(graph, name, "batch tensor " + recorded.name,
                                        recorded.shape, recorded.dtype)) {
            planner.refuse(*why);
          }
        }
        plan_->inputs.push_back(planner.slot(name));
        ++user_inputs;
        break;
      }
      default:
        planner.refuse(fmt::format("a graph input of kind {}", static_cast<int>(spec.tag())));
    }
  }
  if (user_inputs != batch_.size()) {
    throw GraphArchiveError(
        fmt::format("{}: the graph takes {} batch tensors, the archive records {}", archive.path,
                    user_inputs, batch_.size()));
  }
  for (const ex::Node& node : module.get_graph().get_nodes()) planner.addNode(node);
  for (const ex::OutputSpec& spec : module.get_signature().get_output_specs()) {
    if (spec.tag() == ex::OutputSpec::Tag::USER_OUTPUT && plan_->output < 0 &&
        spec.get_user_output().get_arg().tag() == Tag::AS_TENSOR) {
      plan_->output = planner.slot(spec.get_user_output().get_arg().get_as_tensor().get_name());
    } else {
      planner.refuse(
          fmt::format("a graph output of kind {} beside the loss", static_cast<int>(spec.tag())));
    }
  }
  if (plan_->output < 0) planner.refuse("a graph without its loss as output");
  planner.throwRefusals();
  plan_->samples = sampleLossSlot(*plan_);
  planReleases(*plan_);
  for (const std::string& name : archive.parameter_names) {
    const auto it = parameters.find(name);
    if (it == parameters.end()) {
      throw GraphArchiveError(archive.path + ": the graph does not use parameter " + name);
    }
    parameters_.push_back(it->second);
    parameter_names_.push_back(userName(name));
  }
}

GraphProgram::~GraphProgram() = default;
GraphProgram::GraphProgram(GraphProgram&&) noexcept = default;
GraphProgram& GraphProgram::operator=(GraphProgram&&) noexcept = default;

namespace {

// The grad mode and autocast's state on one device type, as they were when it was made.
class ModeState {
 public:
  explicit ModeState(c10::DeviceType device)
      : device_(device),
        grad_(c10::GradMode::is_enabled()),
        autocast_(at::autocast::is_autocast_enabled(device)),
        dtype_(at::autocast::get_autocast_dtype(device)) {}
  void restore() const {
    c10::GradMode::set_enabled(grad_);
    at::autocast::set_autocast_enabled(device_, autocast_);
    at::autocast::set_autocast_dtype(device_, dtype_);
  }

 private:
  c10::DeviceType device_;
  bool grad_;
  bool autocast_;
  c10::ScalarType dtype_;
};

// Restores, when it goes, the state it was made with.
class ModeRestorer {
 public:
  explicit ModeRestorer(c10::DeviceType device) : state_(device) {}
  ~ModeRestorer() { state_.restore(); }
  ModeRestorer(const ModeRestorer&) = delete;
  ModeRestorer& operator=(const ModeRestorer&) = delete;

 private:
  ModeState state_;
};

// Under autocast, the floating empty constants at `positions` of `list` made anew of the dtype
// of its first floating tensor with elements, as eager made them of its keys' dtype
// (Planner::findEmptyOperands). Without autocast the export's dtypes are the run's: nothing to do.
void adaptEmpty(c10::List<at::Tensor>& list, const std::vector<std::size_t>& positions,
                c10::DeviceType device) {
  if (positions.empty() || !at::autocast::is_autocast_enabled(device)) return;
  for (const at::Tensor& other : list) {
    if (other.numel() == 0 || !other.is_floating_point()) continue;
    for (const std::size_t i : positions) {
      const at::Tensor empty = list.get(i);
      if (empty.is_floating_point() && empty.scalar_type() != other.scalar_type()) {
        list.set(i, at::empty(empty.sizes(), empty.options().dtype(other.scalar_type())));
      }
    }
    return;
  }
}

}  // namespace

at::Tensor GraphProgram::loss(const std::vector<at::Tensor>& batch, at::Tensor* sample_losses) {
  if (batch.size() != batch_.size()) {
    throw std::invalid_argument(
        fmt::format("a batch of {} tensors for a graph of {}", batch.size(), batch_.size()));
  }
  std::vector<at::Tensor> values(static_cast<std::size_t>(plan_->slot_count));
  for (const auto& [s, tensor] : plan_->fixed) values[static_cast<std::size_t>(s)] = tensor;
  for (std::size_t i = 0; i < batch.size(); ++i) {
    if (batch[i].sizes() != c10::IntArrayRef(batch_[i].shape) ||
        batch[i].scalar_type() != batch_[i].dtype) {
      throw std::invalid_argument(fmt::format("batch tensor {} is {} {}, the graph takes {} {}",
                                              batch_[i].name, c10::toString(batch[i].scalar_type()),
                                              batch[i].sizes(), c10::toString(batch_[i].dtype),
                                              batch_[i].shape));
    }
    values[static_cast<std::size_t>(plan_->inputs[i])] = batch[i];
  }
  // The caller's grad mode and autocast state are back on return, whatever a scope set.
  const c10::DeviceType device = plan_->device.type();
  const ModeRestorer callers(device);
  std::vector<ModeState> outer;  // the state before each scope now open
  std::vector<c10::IValue> stack;
  for (const Step& step : plan_->steps) {
    if (!step.op) {
      if (step.enter) {
        outer.emplace_back(device);
        if (step.enter->grad) c10::GradMode::set_enabled(*step.enter->grad);
        if (step.enter->autocast) at::autocast::set_autocast_enabled(device, *step.enter->autocast);
        if (step.enter->dtype) at::autocast::set_autocast_dtype(device, *step.enter->dtype);
      } else {
        outer.back().restore();
        outer.pop_back();
      }
      for (const int s : step.release) values[static_cast<std::size_t>(s)].reset();
      continue;
    }
    stack.clear();
    for (const Operand& operand : step.operands) {
      switch (operand.kind) {
        case Operand::Kind::kConstant:
          stack.push_back(operand.constant);
          break;
        case Operand::Kind::kTensor:
          stack.emplace_back(values[static_cast<std::size_t>(operand.slots[0])]);
          break;
        case Operand::Kind::kTensors: {
          c10::List<at::Tensor> list;
          for (const int s : operand.slots) list.push_back(values[static_cast<std::size_t>(s)]);
          adaptEmpty(list, step.empty_operands, device);
          stack.emplace_back(std::move(list));
          break;
        }
        case Operand::Kind::kOptionalTensors: {
          c10::List<std::optional<at::Tensor>> list;
          for (const int s : operand.slots) {
            list.push_back(s < 0 ? std::nullopt
                                 : std::optional(values[static_cast<std::size_t>(s)]));
          }
          stack.emplace_back(std::move(list));
          break;
        }
      }
    }
    try {
      step.op->callBoxed(stack);
    } catch (const c10::Error& error) {
      // ATen's message leads; its backtrace follows on lines of its own.
      throw std::runtime_error(fmt::format("{} failed: {}", step.op->schema().name(),
                                           error.msg().substr(0, error.msg().find('\n'))));
    }
    for (std::size_t r = 0; r < step.results.size(); ++r) {
      const Result& result = step.results[r];
      if (result.list) {
        const c10::List<at::Tensor> list = stack[r].toTensorList();
        for (std::size_t k = 0; k < result.slots.size(); ++k) {
          values[static_cast<std::size_t>(result.slots[k])] = list.get(k);
        }
      } else if (!result.slots.empty()) {
        values[static_cast<std::size_t>(result.slots[0])] = stack[r].toTensor();
      }
    }
    for (const int s : step.release) values[static_cast<std::size_t>(s)].reset();
  }
  if (sample_losses != nullptr) {
    // Detached: kept past backward, it must not keep this step's autograd graph.
    *sample_losses = plan_->samples >= 0 ? values[static_cast<std::size_t>(plan_->samples)].detach()
                                         : at::Tensor();
  }
  return values[static_cast<std::size_t>(plan_->output)];
}

}  // namespace splitstep
