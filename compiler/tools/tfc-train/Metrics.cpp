//===- Metrics.cpp - per-step metrics and the progress display -------------===//

#include "compiler/tools/tfc-train/Metrics.h"
#include "compiler/tools/tfc-train/Json.h"
#include "compiler/tools/tfc-train/Report.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <unistd.h>

using namespace tfc::train;

namespace {
/// A metrics value as JSON: the number, or for a value JSON cannot hold
/// the string "nan", "inf" or "-inf" (what float() in Python reads back).
llvm::json::Value metricValue(double v) {
  if (std::isnan(v))
    return "nan";
  if (std::isinf(v))
    return v > 0 ? "inf" : "-inf";
  return v;
}

/// The value of `key`, a number or one of metricValue's strings.
std::optional<double> readMetricValue(const llvm::json::Object &object,
                                      llvm::StringRef key) {
  if (std::optional<double> number = object.getNumber(key))
    return number;
  std::optional<llvm::StringRef> text = object.getString(key);
  if (!text)
    return std::nullopt;
  if (*text == "nan")
    return std::nan("");
  if (*text == "inf")
    return HUGE_VAL;
  if (*text == "-inf")
    return -HUGE_VAL;
  return std::nullopt;
}
} // namespace

std::string tfc::train::formatRecord(const StepRecord &record) {
  llvm::json::Object object{{"step", record.step},
                            {"loss", metricValue(record.loss)},
                            {"lr", metricValue(record.lr)},
                            {"tokens_per_s", metricValue(record.tokensPerS)},
                            {"time", metricValue(record.time)}};
  if (record.lossScale)
    object["loss_scale"] = metricValue(*record.lossScale);
  std::string text;
  llvm::raw_string_ostream os(text);
  // Keys in a fixed order make the file easy to read and diff.
  os << "{\"step\":" << record.step;
  for (const char *key : {"loss", "lr", "tokens_per_s", "time", "loss_scale"})
    if (const llvm::json::Value *value = object.get(key))
      os << ",\"" << key << "\":" << *value;
  os << "}";
  return text;
}

bool tfc::train::parseRecord(const std::string &line, StepRecord &record,
                             std::string &error) {
  llvm::json::Value value = nullptr;
  std::string why;
  if (!parseJson(line, value, why)) {
    error = "the line " + why;
    return false;
  }
  const llvm::json::Object *object = value.getAsObject();
  if (!object) {
    error = "not a JSON object";
    return false;
  }
  std::optional<int64_t> step = object->getInteger("step");
  std::optional<double> loss = readMetricValue(*object, "loss");
  std::optional<double> lr = readMetricValue(*object, "lr");
  std::optional<double> tps = readMetricValue(*object, "tokens_per_s");
  std::optional<double> time = readMetricValue(*object, "time");
  if (!step || !loss || !lr || !tps || !time) {
    error = "missing one of step, loss, lr, tokens_per_s, time";
    return false;
  }
  record = StepRecord{*step, *loss, *lr, *tps, *time,
                      readMetricValue(*object, "loss_scale")};
  return true;
}

bool tfc::train::readMetrics(const std::string &path,
                             std::vector<StepRecord> &records,
                             std::string &error) {
  records.clear();
  if (!llvm::sys::fs::exists(path))
    return true;
  if (std::string problem = notARegularFile(path); !problem.empty()) {
    error = "cannot read '" + path + "': it " + problem;
    return false;
  }
  std::ifstream in(path);
  if (!in) {
    error = "cannot read '" + path + "'";
    return false;
  }
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.empty())
      continue;
    StepRecord record;
    std::string why;
    if (!parseRecord(line, record, why)) {
      error = path + ":" + std::to_string(number) + ": " + why;
      return false;
    }
    records.push_back(record);
  }
  return true;
}

MetricsWriter::~MetricsWriter() {
  if (file_)
    std::fclose(file_);
}

bool MetricsWriter::open(const std::string &path,
                         const std::vector<StepRecord> &earlier,
                         std::string &error) {
  // The earlier records go to a file beside `path` that replaces it by
  // rename once complete and on disk: a kill at any moment leaves either
  // the old history or the new one, never a truncated file.
  std::string aside = path + ".tmp";
  file_ = std::fopen(aside.c_str(), "w");
  bool ok = file_ != nullptr;
  for (const StepRecord &record : earlier)
    ok = ok && append(record);
  ok = ok && ::fsync(fileno(file_)) == 0;
  if (file_ && std::fclose(file_) != 0)
    ok = false;
  file_ = nullptr;
  if (!ok || std::rename(aside.c_str(), path.c_str()) != 0) {
    std::remove(aside.c_str());
    error = "cannot write '" + path + "'";
    return false;
  }
  file_ = std::fopen(path.c_str(), "a");
  if (!file_) {
    error = "cannot write '" + path + "'";
    return false;
  }
  return true;
}

bool MetricsWriter::append(const StepRecord &record) {
  std::string text = formatRecord(record) + "\n";
  return file_ && std::fputs(text.c_str(), file_) >= 0 &&
         std::fflush(file_) == 0;
}

std::string tfc::train::formatDuration(double seconds) {
  char text[32];
  if (!std::isfinite(seconds) || seconds < 0)
    return "?";
  if (seconds < 60)
    std::snprintf(text, sizeof(text), "%.1fs", seconds);
  else if (seconds < 3600)
    std::snprintf(text, sizeof(text), "%dm%02ds", int(seconds) / 60,
                  int(seconds) % 60);
  else
    std::snprintf(text, sizeof(text), "%dh%02dm", int(seconds) / 3600,
                  int(seconds) / 60 % 60);
  return text;
}

std::string Progress::line(const StepRecord &record, double etaS) const {
  char text[256];
  std::string bar;
  if (interactive_) {
    const int width = 24;
    int filled = total_ > 0 ? int(width * record.step / total_) : width;
    bar = "[" + std::string(filled, '#') + std::string(width - filled, '.') +
          "] ";
  }
  std::snprintf(text, sizeof(text),
                "%sstep %lld/%lld  loss %.4f  lr %.3g  %.0f tok/s  ETA %s",
                bar.c_str(), (long long)record.step, (long long)total_,
                // "nan", not the "-nan" printf gives a negative NaN.
                std::isnan(record.loss) ? std::fabs(record.loss) : record.loss,
                record.lr, record.tokensPerS,
                formatDuration(etaS).c_str());
  std::string out = text;
  if (record.lossScale) {
    std::snprintf(text, sizeof(text), "  scale %g", *record.lossScale);
    out += text;
  }
  return out;
}

void Progress::update(const StepRecord &record, double etaS) {
  if (interactive_) {
    // \x1b[K clears what a longer previous line left behind.
    std::fprintf(stderr, "\r%s\x1b[K", line(record, etaS).c_str());
    std::fflush(stderr);
    drawn_ = true;
    return;
  }
  if (record.step % std::max<int64_t>(every_, 1) == 0 ||
      record.step == total_)
    std::fprintf(stderr, "%s\n", line(record, etaS).c_str());
}

void Progress::finish() {
  if (interactive_ && drawn_)
    std::fprintf(stderr, "\n");
  drawn_ = false;
}
