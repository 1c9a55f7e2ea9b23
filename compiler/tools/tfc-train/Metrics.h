//===- Metrics.h - per-step metrics and the progress display ---*- C++ -*-===//
//
// metrics.jsonl (one JSON object per optimizer step) and the progress output:
// a one-line bar redrawn in place on a terminal, plain log lines otherwise.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_TOOLS_TFC_TRAIN_METRICS_H
#define TFC_TOOLS_TFC_TRAIN_METRICS_H

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace tfc::train {

/// What one optimizer step measured.
struct StepRecord {
  int64_t step = 0;        ///< 1-based number of the completed step
  double loss = 0;
  double lr = 0;
  double tokensPerS = 0;   ///< tokens of this step over its wall time
  double time = 0;         ///< seconds since training began (resumes add up)
  std::optional<double> lossScale; ///< with dynamic loss scaling
};

/// One line of metrics.jsonl (no newline), e.g.
/// {"step":1,"loss":5.54,"lr":0.0003,"tokens_per_s":41000,"time":0.02}.
/// A value JSON has no number for (NaN, infinities: a diverged loss) is
/// the string "nan", "inf" or "-inf", so the line stays JSON.
std::string formatRecord(const StepRecord &record);
/// Parses a line written by formatRecord (numbers, or the strings "nan",
/// "inf", "-inf"); false (and `error`) otherwise.
bool parseRecord(const std::string &line, StepRecord &record,
                 std::string &error);
/// Reads every record of a metrics.jsonl file. A missing file gives none;
/// a malformed line is an error naming its line number.
bool readMetrics(const std::string &path, std::vector<StepRecord> &records,
                 std::string &error);

/// Appends records to metrics.jsonl, flushing each line so the file is
/// complete up to the last finished step if the run is interrupted.
class MetricsWriter {
public:
  ~MetricsWriter();
  /// Replaces `path` with a file holding `earlier` (the records of the run a
  /// resume continues), atomically: written aside, synced and renamed over
  /// `path`, so a kill leaves the old or the new history whole; later
  /// records are appended.
  bool open(const std::string &path, const std::vector<StepRecord> &earlier,
            std::string &error);
  bool append(const StepRecord &record);

private:
  std::FILE *file_ = nullptr;
};

/// Progress output on stderr.
class Progress {
public:
  /// `interactive`: redraw one line with '\r' (a terminal); otherwise print
  /// a log line every `logEvery` steps and on the last step.
  Progress(int64_t totalSteps, int64_t logEvery, bool interactive)
      : total_(totalSteps), every_(logEvery), interactive_(interactive) {}
  /// Reports a finished step; `etaS` is the estimated time left.
  void update(const StepRecord &record, double etaS);
  /// Ends the in-place line (a newline on a terminal).
  void finish();
  /// The text of one progress line (no '\r' or newline).
  std::string line(const StepRecord &record, double etaS) const;

private:
  int64_t total_, every_;
  bool interactive_;
  bool drawn_ = false;
};

/// "1m05s", "3.2s", "2h03m".
std::string formatDuration(double seconds);

} // namespace tfc::train

#endif // TFC_TOOLS_TFC_TRAIN_METRICS_H
