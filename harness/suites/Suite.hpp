// A suite produces Samples for its cases and publishes them as they finish; it knows nothing of
// ranks' other results or output.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cluster/RankGroups.hpp"
#include "collect/CaseSink.hpp"
#include "comm/Communicator.hpp"
#include "common/MemoryBudget.hpp"
#include "common/Progress.hpp"
#include "common/Watchdog.hpp"
#include "device/Device.hpp"
#include "measure/MeasureSettings.hpp"
#include "measure/RankAgreement.hpp"
#include "measure/Sample.hpp"
#include "measure/Timeline.hpp"
#include "options/RunPlan.hpp"
#include "options/SuiteInfo.hpp"
#include "suites/SuiteCatalog.hpp"
#include "telemetry/TelemetrySampler.hpp"

namespace splitstep {

struct SuiteContext {
  Device& device;
  std::vector<Communicator*> communicators;  // the collective backends to compare, in order
  RankAgreement& agreement;
  Watchdog& watchdog;
  CaseSink& sink;
  MeasureSettings measure;
  int rank = 0;
  int world_size = 1;
  // The groups the collective suites run within (--groups); none: every rank together.
  RankGroups groups{};
  Progress* progress = nullptr;  // told of each case as it begins; none: nothing is shown
  // Where spans are recorded (--trace, and to attribute telemetry); nullptr: nowhere.
  Timeline* timeline = nullptr;
  // The GPU's telemetry (--telemetry); nullptr where there is none.
  const TelemetrySampler* telemetry = nullptr;
  MemoryBudget budget{};  // agreed at start: what every rank can spare
};

// Each suite lists its cases once, in a case space of its own (suites/CaseSpace.hpp) built from
// its plan and the context, which run(), refusal() and caseCount() all walk; one whyNot(case)
// decides both the skips of run() and the refusal.
class Suite {
 public:
  virtual ~Suite() = default;
  virtual std::string name() const = 0;
  // Why none of the suite's cases can run here (each needs more memory than the ranks can spare,
  // or more elements than a backend counts), naming the option; empty when some can. Decided
  // from the plan and the agreed budget alone, so every rank answers alike, before any suite
  // runs and before anything is allocated (a refusal ends the job with status 2 in seconds).
  virtual std::optional<std::string> refusal(const SuiteContext&) const { return std::nullopt; }
  // Every rank calls this with the same plan, so every rank makes the same collective calls and
  // publishes the same cases to context.sink. Cases that cannot fit are skipped with a note.
  virtual void run(const SuiteContext& context) = 0;
  // How many cases run() will report (each named once, measured or skipped), for the progress
  // line.
  virtual std::size_t caseCount(const SuiteContext& context) const = 0;
};

// Makes the suite `info` names, configured from its part of the plan.
using SuiteFactory = std::unique_ptr<Suite> (*)(const SuiteInfo& info, const RunPlan& plan);

// Registers the factory of the catalogue's suite `name`, once, from the suite's own source file
// (a namespace-scope SuiteRegistration naming the SuiteInfo its header declares), so that adding
// a suite touches its files and one line of the catalogue only.
struct SuiteRegistration {
  SuiteRegistration(std::string_view name, SuiteFactory factory);
};

// The suite called `name`, configured from its part of the plan. Throws for a name the catalogue
// does not hold or that no suite registered (Options has already refused unknown names).
std::unique_ptr<Suite> makeSuite(const std::string& name, const RunPlan& plan);

// Whether the suite called `name` runs collectives (and so needs SuiteContext::communicators).
bool usesCommunicators(const std::string& name);

// Catalogue names without a registered factory: empty in a correct build.
std::vector<std::string> unregisteredSuites();

}  // namespace splitstep
