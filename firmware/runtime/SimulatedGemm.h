#pragma once
// Which mapping a run simulates for a GEMM, and how its cycles become the
// whole GEMM's. In functional mode the mapping itself. In timing mode
// (weight streaming) two reductions may apply, each tested against the
// whole GEMM:
//
// - Representative rows (of the grid; they lie along mesh columns,
//   WeightStreamPlan.h). Forward and backward-data: one row of the larger
//   row size, with the hops the weights' multicast would take past the rows
//   left out added to every phase (rows are alike but for their place in
//   the multicast along each column's mesh row, from the West or the East
//   end, and a row one m shorter is never the slower).
//   Weight gradient: two rows of the token blocks, with two ramp latencies
//   per row left out and a hop per mesh column left out added to every
//   phase (each row adds its sums to the chain running along its column;
//   equal to every row on the shapes we measured at scale, a few cycles per
//   row over on some small uneven grids). The rows run on a mesh only as
//   wide as they are, so nothing crosses the columns left out: the hops
//   from the last row to the mesh's East edge are added instead.
// - Representative columns (a weight gradient's, with representative rows).
//   Columns tie each other only through the dY broadcast along each row,
//   paced by every PE it reaches, and through the I/O ring's feeds their
//   gradients share: two of the ring's bands holding each edge's busiest
//   feed stand for all (WeightGradGemm::representativeColumns), on a mesh
//   two bands tall, and each phase adds how much later the whole grid's
//   last feed ends (its farthest column from the target, less what a
//   lighter feed lacks). Within 0.3% of every column at scale.
// - Steady-state outputs. A phase streams its n's one after another through
//   a pipeline that settles into a fixed period per n; a phase of more than
//   16S n's is simulated cut to S, 2S, 4S, 8S (16S, ... while the period
//   still moves, up to half the phase; then the whole phase) n's, in
//   rounds (a shorter phase would simulate more n's cut than whole; so
//   would a kind whose few phases simulated save, if they settle, fewer
//   n's than the cuts cost one that does not). Its
//   cycles are extrapolated from its last cuts, its end's and each PE's
//   last busy cycle on a line of their own (a PE's if its period per n
//   has settled too): the PE that ends a short cut need not be the one
//   that ends the phase (measured on GPT-J's LM-head weight
//   gradient: PEs the dY broadcast reaches late end cuts of up to 64 n's,
//   at 221 cycles per n; the last rows of the ring's feeds, whose gradients
//   leave after their feed's other rows', end longer ones at 225; the
//   phase's own period extrapolated it 1.6% low).
// - Representative phases. Phases of one kind (GemmOutline::phaseLikeness:
//   a weight-streamed GEMM's passes of as many n's, their targets alike)
//   take cycles linear in their reach. Of a kind of four phases or more,
//   three are simulated: the nearest reach, the farthest and the one
//   nearest the middle; the others are interpolated between the first two.
//   The middle one checks the line: off it by more than the tolerance, it
//   splits the line in two, each checked by its own middle phase in a later
//   round, and so on (a line of a few pieces takes a few checks per piece
//   and halving, not every phase). The GEMM's last
//   phase is always simulated (its drain ends the GEMM). A phase's cycles
//   are its own: the route switch before it, which depends on the phase
//   before it, is taken out and that of the GEMM's own order added.
//
// docs/gemm-mappings.md has the measurements. Shared by the gemm and train
// workloads.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "firmware/gemm/GemmMapping.h"
#include "hw/config/ArchConfig.h"
#include "hw/config/RunConfig.h"
#include "hw/energy/ActionCounts.h"
#include "hw/wafer/IoRingEdge.h"

namespace wsesim::runtime {

// The product a pass computes for the layer Y[m x n] = X[m x k] . W[k x n]:
// forward Y = X . W; backward-data dX = dY . W^T (m x n x k); weight-gradient
// dW = X^T . dY (k x m x n). `sparsity` is W's: backward-data streams it
// transposed; the weight gradient's products are those W keeps.
firmware::GemmShape passShape(std::uint32_t m, std::uint32_t k, std::uint32_t n, pe::Precision precision,
                              GemmPass pass, const firmware::WeightSparsity& sparsity = {});

// How much of a GEMM timing mode simulates.
struct GemmSampling {
  bool representativeRows = false;
  bool representativePhases = false;
  std::uint32_t steadyStateOutputs = 0;  // S above; 0: every n of every phase
  // Largest relative change of the period per n taken as settled.
  double steadyStateTolerance = 0.002;
  // Largest relative miss of a representative phase's line by its check.
  double phaseLineTolerance = 0.002;
  // With representative rows, a weight gradient's representative columns too.
  bool representativeColumns = false;
  // Whether part of a GEMM is simulated and the rest derived.
  bool sampled() const { return representativeRows || representativePhases || steadyStateOutputs > 0; }
};

// A GEMM's cycles from its start, and the cycle (from its start) after its
// last streamed wavelet entered the mesh; what follows is its drain.
struct GemmTime {
  std::uint64_t cycles = 0;
  std::uint64_t inputEnd = 0;
  std::uint32_t phasesExtrapolated = 0;  // phases whose last n's were not simulated
  std::uint32_t phasesInterpolated = 0;  // phases not simulated at all (representative phases)
};

// A GEMM, what of it the wafer model runs, and how that becomes the whole
// GEMM's time. With steady-state outputs the GEMM runs in rounds, each a
// mapping with the phases still unsettled cut to twice the n's of the
// previous round, or whole when that is more than half the phase (the
// first round cuts each phase of more than 16S n's to S, where its kind's
// cuts may pay (firstCut), and runs the others whole, as it does later
// phases of a kind whose cut phases ran more n's than they hold). Of a
// kind's phases to be cut, the first goes
// alone; the others start once its cuts are done, cut or whole by what
// its cuts did. A phase is settled when the periods per n
// between its last three cuts agree within the tolerance, or when it has
// run whole. One cut per phase and round: the cut keeps no more output than
// the phase would.
class SimulatedGemm {
 public:
  // What a round ran of one of its phases: its cycles and, when cuts are
  // extrapolated (extrapolatesCuts), the cycle of the phase (from its
  // programs' load) each PE of the simulated grid was last busy in, in
  // the order GemmPhases visits them; empty otherwise.
  struct PhaseRun {
    std::uint64_t cycles = 0;
    std::vector<std::uint32_t> peFinish;
  };
  bool extrapolatesCuts() const { return sampling_.steadyStateOutputs > 0; }

  // A kind's line of cycles against reach (representative phases), as the
  // GEMM that simulated its ends learnt it.
  struct KindLine {
    std::uint32_t fromReach = 0, toReach = 0;
    double fromCycles = 0, toCycles = 0;
  };
  // Lines learnt by earlier GEMMs of one simulation, by phase layout and
  // kind (GemmOutline::phaseLayout): the same programs on the same blocks.
  using KindLines = std::map<std::string, KindLine>;

  // Throws PlanError when the GEMM does not fit the architecture.
  SimulatedGemm(const std::string& algorithm, const firmware::GemmShape& shape, const config::ArchConfig& arch,
                std::uint32_t gridX, std::uint32_t gridY, firmware::Buffering buffering, const GemmSampling& sampling);

  // Before the GEMM runs (GemmSequence), with the lines earlier GEMMs
  // learnt: a dense GEMM's kind with a learnt line simulates none of its
  // phases, a sparse one's only its check phase (a kind of two phases or
  // more). After its last round, the lines of the kinds it simulated itself.
  void begin(const KindLines& learnt);
  void learn(KindLines& learnt, const std::vector<PhaseRun>& phases) const;

  // The GEMM as asked.
  const firmware::GemmMapping& full() const { return *full_; }
  // The rows simulated: the representative rows' mapping, or the GEMM's.
  const firmware::GemmMapping& rows() const { return rows_ ? *rows_ : *full_; }
  // What the wafer model runs in the current round.
  const firmware::GemmMapping& round() const { return rounds_.empty() ? rows() : *rounds_.back(); }
  std::uint32_t roundsRun() const { return std::uint32_t(rounds_.empty() ? 1 : rounds_.size()); }
  // Whether, after the current round ran these phases,
  // another round is needed; if so, nextRound() starts it.
  bool anotherRound(const std::vector<PhaseRun>& phases) const;
  void nextRound(const std::vector<PhaseRun>& phases, std::uint64_t inputEnd);

  // The keys (KindLines) of the lines it may read or learn: its phases'
  // kinds in its layout. GEMMs sharing none may run in sequences of their
  // own with the same cycles.
  std::set<std::string> lineKeys() const;

  // The columns of the mesh the simulated mapping needs: all of them, or
  // only the representative rows' (a sequence of GEMMs on one mesh takes
  // the widest: a training step's groups, testbench/train/GemmGroups.h).
  std::uint32_t meshColumns(const config::ArchConfig& arch) const {
    return rows_ ? rows_->gridY() : arch.mesh.width;
  }
  // The rows of the mesh it simulates: all of them, or its representative
  // columns' (a weight gradient's two bands of the I/O ring's rows).
  std::uint32_t meshRows() const { return meshRows_; }
  // The architecture its mapping runs on, on a mesh `meshColumns` wide (at
  // least its own meshColumns) and meshRows() tall: with representative
  // columns, a channel per band and edge at the rate each channel has on the
  // whole wafer, and SRAM enough for the sample's targets, which keep the
  // dY of the several columns they stand for (capacity is not a timing input).
  config::ArchConfig simulatedArch(const config::ArchConfig& arch, std::uint32_t meshColumns) const;
  // The whole GEMM's time, from the last round's phases and input end,
  // simulated on a mesh of `meshColumns` columns.
  GemmTime fullTime(const std::vector<PhaseRun>& phases, std::uint64_t inputEnd,
                    const config::ArchConfig& arch, std::uint32_t meshColumns) const;
  // Wavelets the whole GEMM takes in at the edge, over all its phases.
  std::uint64_t streamedWavelets(const fabric::MeshGeometry& mesh) const;
  // The I/O ring's rates for its streamed operand's wavelets (a sparse
  // weight's value and index, or a dense element): a sequence of GEMMs
  // hands each its own (GemmPhases).
  const wafer::IoRingEdge& ingressRing() const { return ingressRing_; }
  // The whole GEMM's actions from those of its simulation (every round):
  // as they are unless sampled; sampled, scaled by the whole GEMM's
  // multiply-adds (sparse: its non-zero weights') over those simulated,
  // since every action of a weight-streamed GEMM recurs per weight and row
  // as its multiply-adds do.
  energy::ActionCounts fullActions(const energy::ActionCounts& simulated) const;
  // The whole GEMM's multiply-adds (sparse: its non-zero weights').
  double multiplyAdds() const;

  // Whether `other` takes this GEMM's cycles without being simulated: the
  // same product but for its tokens (the last micro-batch of a step, a few
  // sequences short), on the same grid, its phases alike, and the same rows
  // simulated (representative rows: those of the most tokens, which set the
  // pace). Its actions are then this GEMM's scaled by their multiply-adds.
  bool timesLike(const SimulatedGemm& other) const;

 private:
  // A cut of a phase as run: its n's and cycles.
  struct Cut {
    std::uint32_t outputs = 0;
    std::uint64_t cycles = 0;
  };
  // A phase of the GEMM: its n's and the cuts run so far.
  struct PhaseSample {
    std::uint32_t outputs = 0;
    bool interpolated = false;  // not simulated: its kind's line gives its cycles
    std::vector<Cut> cuts;      // n's increasing
    // Its last three cuts' PE finishes (PhaseRun), oldest first.
    std::vector<std::shared_ptr<const std::vector<std::uint32_t>>> peFinish;
    bool whole() const { return !cuts.empty() && cuts.back().outputs == outputs; }
    double period(std::size_t i) const {  // per n, between cuts i - 1 and i
      return (double(cuts[i].cycles) - double(cuts[i - 1].cycles)) / double(cuts[i].outputs - cuts[i - 1].outputs);
    }
  };

  // Representative phases of one kind, by reach (positions in `byReach`).
  // Its nearest and farthest span its line, and its middle checks it (or
  // an earlier GEMM's line for the kind, learnt: a sparse GEMM's middle
  // checks it, a dense GEMM's takes it). A check off the line of a
  // kind whose phases lie either side of the middle (PhaseLikeness::side)
  // makes a kind of each side, with a line of its own. Otherwise a check
  // off its segment's line becomes a knot that splits the segment in two,
  // each checked by its own middle in the next round, until every check
  // lies on its segment's line (within the tolerance) or no phase is left
  // between; an interpolated phase lies on the segment between the knots
  // either side.
  struct PhaseKind {
    struct Check {
      std::uint32_t at = 0, from = 0, to = 0;  // the phase checking the segment [from, to] (learnt: the line)
    };
    std::vector<std::uint32_t> byReach;  // the kind's phases, by reach
    std::optional<KindLine> learnt;
    std::vector<std::uint32_t> knots;    // ascending: the ends of its own line's pieces (learnt: none)
    std::vector<Check> checks;           // not yet settled, or made this round
    bool split = false;                  // a check fell off a line: no one line to learn
    // Its own line: spanned by its nearest and farthest, checked by its
    // middle (a kind of one or two phases simulates each).
    void spanOwnLine();
    // The positions simulated: its knots and checks.
    std::vector<std::uint32_t> simulatedAt() const;
  };
  // The first round: the phases not interpolated, each whole or cut.
  void planFirstRound(const KindLines& learnt);
  // Where the line of a kind of this GEMM's phases is kept among GEMMs.
  std::string lineKey(const std::string& kind) const;

  // The phases with the current round's cuts added.
  std::vector<PhaseSample> withRound(const std::vector<PhaseRun>& phases) const;
  bool settled(const PhaseSample& s) const;
  // The first cut of a phase of `outputs` n's (whole unless it is long
  // and its kind's cuts may pay).
  firmware::PhaseCut firstCut(std::uint32_t phase, std::uint32_t outputs) const;
  // The other phases of the kind of `phase` (PhaseLikeness): the n's run
  // in the cuts of those done with them (settled or run whole after), and
  // whether one is still being cut (before this round, or in `round`);
  // and the kind's phases simulated (not interpolated), `phase` included.
  struct KindCuts {
    bool done = false, cutting = false;
    std::uint64_t ran = 0, whole = 0, simulated = 0;
  };
  KindCuts kindCuts(std::uint32_t phase, const std::vector<firmware::PhaseCut>& round) const;
  // A phase's first cut in the round being planned (`round` so far), or
  // none while another phase of its kind is the first being cut.
  std::optional<firmware::PhaseCut> nextFirstCut(std::uint32_t phase,
                                                 const std::vector<firmware::PhaseCut>& round) const;
  // The cut after a phase's last, or the whole phase.
  std::uint32_t nextCut(const PhaseSample& s) const;
  // A simulated phase's cycles: whole, or extrapolated from its longest cuts.
  std::uint64_t cyclesOf(const PhaseSample& s) const;
  // On the kind's line between positions `from` and `to` (or the learnt
  // line), at the reach of `phase`.
  double lineAt(const std::vector<PhaseSample>& samples, const PhaseKind& kind, std::uint32_t from, std::uint32_t to,
                std::uint32_t phase) const;
  // The kind's phases either side of the middle as a kind per side, each
  // spanned by its own nearest and farthest and checked by its middle
  // (none if its phases lie on one side).
  std::vector<PhaseKind> sideKinds(const PhaseKind& kind) const;
  // kindOf_ from kinds_.
  void indexKinds();
  // An interpolated phase's cycles, on its kind's line.
  double interpolatedCycles(const std::vector<PhaseSample>& samples, const PhaseKind& kind, std::uint32_t phase) const;
  // The kinds after the checks that settled with these samples; whether
  // checks off their segments' lines ask for phases not yet simulated.
  std::vector<PhaseKind> refinedKinds(const std::vector<PhaseSample>& samples, bool& morePhases) const;
  void pickRepresentativePhases(const KindLines& learnt);
  // Per phase of `mapping`, whether its routes differ from the phase
  // before's: GemmPhases starts it arch.fabric.route_switch_cycles late.
  // A phase's cycles depend on the phase before it by that much, so the
  // rounds keep each phase's own cycles and fullTime adds the switches of
  // the whole GEMM's order.
  std::vector<bool> reroutedPhases(const firmware::GemmMapping& mapping) const;
  void startRound(std::vector<firmware::PhaseCut> cuts);

  std::unique_ptr<firmware::GemmMapping> full_;
  std::unique_ptr<firmware::GemmMapping> rows_;  // its representative rows (and columns), or null
  // Representative columns: rows of each of the two bands simulated (0:
  // every column), the SRAM their busiest PE needs, and per phase the
  // cycles the whole grid's last feed ends after the sample's.
  std::uint32_t bandRows_ = 0;
  std::uint64_t sampleSramBytes_ = 0;
  std::vector<std::int64_t> lateness_;
  wafer::IoRingEdge ingressRing_;
  GemmSampling sampling_;
  std::vector<PhaseSample> samples_;             // per phase of the GEMM
  unsigned colors_, switchCycles_;               // arch.fabric's
  std::uint32_t meshColumns_ = 0, meshRows_ = 0;  // of the mesh simulated
  std::vector<bool> fullRerouted_, roundRerouted_;  // per phase of the GEMM and of the round; empty unless sampled
  std::vector<PhaseKind> kinds_;                 // with interpolated phases still
  std::vector<int> kindOf_;                      // per phase: its entry in kinds_, or -1
  // Each round's mapping (kept: the run may still refer to the previous
  // one), and which phase of the GEMM each of the current round's phases cuts.
  std::vector<std::unique_ptr<firmware::GemmMapping>> rounds_;
  std::vector<firmware::PhaseCut> roundCuts_;
  std::uint64_t drain_ = 0;  // of the last phase's longest cut so far
};

// An architecture whose mesh is only `columns` columns wide (the others as
// `arch`; the I/O ring's bands of rows are unchanged).
config::ArchConfig withMeshColumns(const config::ArchConfig& arch, std::uint32_t columns);
// The run's VCD and timeline region cut to a mesh of `columns` columns;
// throws ConfigError when it lies wholly in columns not simulated.
config::RunConfig withMeshColumns(const config::RunConfig& run, std::uint32_t columns);
// The same cut to a mesh of `rows` rows (representative columns).
config::RunConfig withMeshRows(const config::RunConfig& run, std::uint32_t rows);

}  // namespace wsesim::runtime
