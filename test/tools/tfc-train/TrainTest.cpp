//===- TrainTest.cpp - unit tests of tfc-train's pieces -------------------===//

#include "compiler/tools/tfc-train/Checkpoint.h"
#include "compiler/tools/tfc-train/Data.h"
#include "compiler/tools/tfc-train/Json.h"
#include "compiler/tools/tfc-train/Metrics.h"
#include "compiler/tools/tfc-train/Report.h"
#include "compiler/tools/tfc-train/Safetensors.h"
#include "compiler/tools/tfc-train/Schedule.h"

#include "llvm/Support/JSON.h"

#include "llvm/Support/FileSystem.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include <sys/stat.h>

using namespace tfc::train;

namespace {

/// A fresh directory under the system temp dir, removed afterwards.
struct TempDir {
  std::string path;
  TempDir() {
    llvm::SmallString<128> dir;
    EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory("tfc-train-test", dir));
    path = dir.str().str();
  }
  ~TempDir() { llvm::sys::fs::remove_directories(path); }
};

void writeFile(const std::string &path, const std::string &text) {
  std::ofstream(path, std::ios::binary) << text;
}

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The generator is deterministic, serializes exactly and draws in range.
/// A language model of sequence length `seqLen`, as DataSet::open sees it.
static tfc::train::ModelInfo windows(int64_t seqLen) {
  tfc::train::ModelInfo model;
  model.seqLen = seqLen;
  return model;
}

TEST(Rng, DeterministicAndSerializable) {
  Rng a(42), b(42), c(43);
  EXPECT_EQ(a.next(), b.next());
  EXPECT_NE(a.next(), c.next());
  std::string state = a.serialize();
  EXPECT_EQ(state.size(), 64u);
  uint64_t expected = a.next();
  Rng restored(0);
  ASSERT_TRUE(restored.deserialize(state));
  EXPECT_EQ(restored.next(), expected);
  EXPECT_FALSE(restored.deserialize("xyz"));
  EXPECT_FALSE(restored.deserialize(std::string(64, '0')));
  for (int i = 0; i < 1000; ++i)
    EXPECT_LT(a.below(7), 7u);
}

// Normal samples have about mean 0 and variance 1.
TEST(Rng, NormalMoments) {
  Rng rng(1);
  double sum = 0, sq = 0;
  const int n = 200000;
  for (int i = 0; i < n; ++i) {
    double x = rng.normal();
    sum += x;
    sq += x * x;
  }
  EXPECT_NEAR(sum / n, 0.0, 0.01);
  EXPECT_NEAR(sq / n, 1.0, 0.02);
}

// Text batches are byte windows and targets are tokens shifted by one.
TEST(Data, TextWindows) {
  TempDir dir;
  std::string path = dir.path + "/text.txt";
  writeFile(path, "abcdefghijklmnopqrstuvwxyz");
  DataSet data;
  std::string error;
  ASSERT_TRUE(data.open(path, windows(8), error)) << error;
  Rng rng(3);
  Batch batch;
  data.nextBatch(rng, 4, batch);
  ASSERT_EQ(batch.tokens.size(), 32u);
  for (int b = 0; b < 4; ++b) {
    for (int t = 0; t < 8; ++t) {
      int64_t token = batch.tokens[b * 8 + t];
      EXPECT_GE(token, 'a');
      EXPECT_LE(token, 'z');
      EXPECT_EQ(batch.targets[b * 8 + t], token + 1);
      if (t) {
        EXPECT_EQ(token, batch.tokens[b * 8 + t - 1] + 1);
      }
    }
  }
  EXPECT_EQ(data.position(), 1u);
}

// Restoring the RNG state and position reproduces the same batches.
TEST(Data, ResumeReproducesBatches) {
  DataSet data;
  std::string error;
  ASSERT_TRUE(data.open("synthetic:copy", windows(16), error)) << error;
  Rng rng(9);
  Batch batch;
  data.nextBatch(rng, 2, batch);
  std::string state = rng.serialize();
  uint64_t position = data.position();
  Batch expected;
  data.nextBatch(rng, 2, expected);

  DataSet resumed;
  ASSERT_TRUE(resumed.open("synthetic:copy", windows(16), error));
  Rng restored;
  ASSERT_TRUE(restored.deserialize(state));
  resumed.setPosition(position);
  resumed.nextBatch(restored, 2, batch);
  EXPECT_EQ(batch.tokens, expected.tokens);
  EXPECT_EQ(batch.targets, expected.targets);
  EXPECT_EQ(resumed.position(), 2u);
}

// The copy task repeats its prefix: window[i] == window[i - half].
TEST(Data, CopyTask) {
  DataSet data;
  std::string error;
  ASSERT_TRUE(data.open("synthetic:copy", windows(7), error));
  Rng rng(5);
  Batch batch;
  data.nextBatch(rng, 1, batch);
  std::vector<int64_t> window = batch.tokens;
  window.push_back(batch.targets.back());
  for (size_t i = 4; i < window.size(); ++i)
    EXPECT_EQ(window[i], window[i - 4]);
}

// Bad data specs are one-line errors.
TEST(Data, Errors) {
  TempDir dir;
  DataSet data;
  std::string error;
  EXPECT_FALSE(data.open(dir.path + "/missing.txt", windows(8), error));
  EXPECT_NE(error.find("cannot open data file"), std::string::npos);
  writeFile(dir.path + "/empty.txt", "");
  EXPECT_FALSE(data.open(dir.path + "/empty.txt", windows(8), error));
  EXPECT_NE(error.find("is empty"), std::string::npos);
  writeFile(dir.path + "/short.txt", "abc");
  EXPECT_FALSE(data.open(dir.path + "/short.txt", windows(8), error));
  EXPECT_NE(error.find("fewer than one window of 9"), std::string::npos);
  EXPECT_FALSE(data.open("synthetic:nope", windows(8), error));
  EXPECT_NE(error.find("unknown synthetic task 'nope'"), std::string::npos);
  EXPECT_FALSE(data.open("", windows(8), error));
  // Not a regular file: a directory (which used to abort on an uncaught
  // std::ios_failure) and a FIFO (which could be read forever, as
  // /dev/zero) are refused before anything is read.
  EXPECT_FALSE(data.open(dir.path, windows(8), error));
  EXPECT_NE(error.find("is a directory"), std::string::npos) << error;
  std::string fifo = dir.path + "/fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_FALSE(data.open(fifo, windows(8), error));
  EXPECT_NE(error.find("is not a regular file"), std::string::npos) << error;
  EXPECT_FALSE(data.open(dir.path + "/x.safetensors", windows(8), error));
  std::vector<std::string> names;
  EXPECT_FALSE(safetensorsNames(dir.path, names, error));
  EXPECT_NE(error.find("is a directory, not a safetensors file"),
            std::string::npos)
      << error;
}

// The largest token a batch can hold, for the vocabulary check.
TEST(Data, LargestToken) {
  TempDir dir;
  DataSet data;
  std::string error;
  writeFile(dir.path + "/t.txt", std::string("hello\xe9 world"));
  ASSERT_TRUE(data.open(dir.path + "/t.txt", windows(4), error)) << error;
  EXPECT_EQ(data.largestToken(), 0xe9);
  ASSERT_TRUE(data.open("synthetic:copy", windows(4), error)) << error;
  EXPECT_EQ(data.largestToken(), 'z');
}

// JSON nested past 64 levels is refused before llvm::json::parse recurses
// (50,000 '[' overflowed the stack): safetensors headers, meta.json and
// metrics lines. Brackets inside strings do not count.
TEST(Json, NestingBound) {
  std::string deep = std::string(50000, '[') + std::string(50000, ']');
  EXPECT_TRUE(jsonNestsDeeperThan(deep, kMaxJsonDepth));
  std::string ok = std::string(64, '[') + std::string(64, ']');
  EXPECT_FALSE(jsonNestsDeeperThan(ok, kMaxJsonDepth));
  EXPECT_TRUE(jsonNestsDeeperThan("[" + ok + "]", kMaxJsonDepth));
  EXPECT_FALSE(jsonNestsDeeperThan("[\"" + std::string(100, '[') + "\\\"\"]",
                                   kMaxJsonDepth));
  llvm::json::Value value = nullptr;
  std::string why;
  EXPECT_FALSE(parseJson(deep, value, why));
  EXPECT_EQ(why, "nests deeper than 64 levels");

  std::vector<uint8_t> bytes(8, 0);
  uint64_t length = deep.size();
  for (int i = 0; i < 8; ++i)
    bytes[i] = uint8_t(length >> (8 * i));
  bytes.insert(bytes.end(), deep.begin(), deep.end());
  llvm::json::Object tensors;
  size_t dataStart = 0;
  EXPECT_FALSE(parseSafetensorsHeader(bytes, bytes.size(), tensors,
                                      dataStart, why));
  EXPECT_EQ(why, "header nests deeper than 64 levels");

  CheckpointMeta meta;
  std::string error;
  EXPECT_FALSE(parseMeta("{\"options\": " + deep + "}", meta, error));
  EXPECT_NE(error.find("nests deeper than 64 levels"), std::string::npos)
      << error;
  StepRecord record;
  EXPECT_FALSE(parseRecord(deep, record, error));
  EXPECT_NE(error.find("nests deeper than 64 levels"), std::string::npos)
      << error;
}

// The schedule names of the flag (the formulas run on the device: ctest
// numerics/train-step, case lr-schedule).
TEST(Schedule, Names) {
  ScheduleKind kind;
  EXPECT_TRUE(parseScheduleKind("warmup-linear", kind));
  EXPECT_EQ(kind, ScheduleKind::WarmupLinear);
  EXPECT_STREQ(scheduleKindName(kind), "warmup-linear");
  EXPECT_FALSE(parseScheduleKind("cosine", kind));
}

// A metrics line round-trips; malformed lines are reported by line number.
TEST(Metrics, RoundTrip) {
  StepRecord record{3, 5.25, 3e-4, 12345.5, 0.75, 65536.0};
  std::string line = formatRecord(record);
  EXPECT_EQ(line.rfind("{\"step\":3,\"loss\":5.25", 0), 0u) << line;
  StepRecord parsed;
  std::string error;
  ASSERT_TRUE(parseRecord(line, parsed, error)) << error;
  EXPECT_EQ(parsed.step, 3);
  EXPECT_DOUBLE_EQ(parsed.loss, 5.25);
  EXPECT_DOUBLE_EQ(*parsed.lossScale, 65536.0);
  record.lossScale.reset();
  EXPECT_EQ(formatRecord(record).find("loss_scale"), std::string::npos);

  TempDir dir;
  std::string path = dir.path + "/metrics.jsonl";
  {
    MetricsWriter writer;
    ASSERT_TRUE(writer.open(path, {record}, error));
    record.step = 4;
    ASSERT_TRUE(writer.append(record));
  }
  std::vector<StepRecord> records;
  ASSERT_TRUE(readMetrics(path, records, error)) << error;
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[1].step, 4);
  writeFile(path, formatRecord(record) + "\n{\"step\": oops\n");
  EXPECT_FALSE(readMetrics(path, records, error));
  EXPECT_NE(error.find("metrics.jsonl:2:"), std::string::npos) << error;
  EXPECT_TRUE(readMetrics(dir.path + "/none.jsonl", records, error));
  EXPECT_TRUE(records.empty());
  // A FIFO is refused, not read (forever).
  std::string fifo = dir.path + "/fifo.jsonl";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_FALSE(readMetrics(fifo, records, error));
  EXPECT_NE(error.find("is not a regular file"), std::string::npos) << error;
}

// A diverged step's NaN or infinite values are written as the strings
// "nan", "inf", "-inf" (JSON has no such numbers; "-nan" made the file
// unreadable and the run impossible to resume) and read back.
TEST(Metrics, NonFiniteValues) {
  StepRecord record{4, std::nan(""), 3e-4, HUGE_VAL, 1.0, -HUGE_VAL};
  std::string line = formatRecord(record);
  EXPECT_EQ(line, "{\"step\":4,\"loss\":\"nan\","
                  "\"lr\":0.00029999999999999997,\"tokens_per_s\":\"inf\","
                  "\"time\":1,\"loss_scale\":\"-inf\"}");
  llvm::json::Value value = nullptr;
  std::string why;
  EXPECT_TRUE(parseJson(line, value, why)) << why;
  StepRecord parsed;
  std::string error;
  ASSERT_TRUE(parseRecord(line, parsed, error)) << error;
  EXPECT_TRUE(std::isnan(parsed.loss));
  EXPECT_EQ(parsed.tokensPerS, HUGE_VAL);
  EXPECT_EQ(*parsed.lossScale, -HUGE_VAL);
  EXPECT_FALSE(parseRecord("{\"step\":1,\"loss\":\"big\",\"lr\":1,"
                           "\"tokens_per_s\":1,\"time\":1}",
                           parsed, error));
}

// Progress lines carry step, loss, tokens/s and ETA; the bar only on a tty.
TEST(Metrics, ProgressLine) {
  StepRecord record{5, 2.5, 1e-3, 4096, 1.0, std::nullopt};
  Progress plain(10, 1, false), bar(10, 1, true);
  std::string text = plain.line(record, 65);
  EXPECT_NE(text.find("step 5/10"), std::string::npos) << text;
  EXPECT_NE(text.find("loss 2.5000"), std::string::npos);
  EXPECT_NE(text.find("4096 tok/s"), std::string::npos);
  EXPECT_NE(text.find("ETA 1m05s"), std::string::npos);
  EXPECT_EQ(text.find('['), std::string::npos);
  EXPECT_EQ(bar.line(record, 1).rfind("[############............]", 0), 0u);
  EXPECT_EQ(formatDuration(3.25), "3.2s");
  EXPECT_EQ(formatDuration(7500), "2h05m");
}

// The plot is an SVG with both curves and skips non-finite losses.
TEST(Report, LossSvg) {
  std::vector<StepRecord> records;
  for (int i = 1; i <= 50; ++i)
    records.push_back({i, 5.0 / i, 1e-3, 1, double(i), std::nullopt});
  records.push_back({51, NAN, 1e-3, 1, 51, std::nullopt});
  std::string svg = renderLossSvg(records, "a <title> & more");
  EXPECT_EQ(svg.rfind("<svg ", 0), 0u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  EXPECT_EQ(std::count(svg.begin(), svg.end(), '\n') > 10, true);
  EXPECT_NE(svg.find("a &lt;title&gt; &amp; more"), std::string::npos);
  EXPECT_EQ(svg.find("nan"), std::string::npos);
  size_t polylines = 0;
  for (size_t p = svg.find("<polyline"); p != std::string::npos;
       p = svg.find("<polyline", p + 1))
    ++polylines;
  EXPECT_EQ(polylines, 2u);
  // No records: still a valid, empty plot.
  EXPECT_NE(renderLossSvg({}, "empty").find("</svg>"), std::string::npos);
}

// The memory report counts bytes per parameter and explains the 18.
TEST(Report, MemoryAnatomy) {
  MemoryAnatomy a;
  a.device = "host";
  a.optimizer = "adamw";
  a.parameters = 1000;
  a.weightBytes = 4000;
  a.gradientBytes = 4000;
  a.optimizerBytes = 8008;
  a.arenaBytes = 1 << 20;
  std::string md = renderMemoryReport(a);
  EXPECT_NE(md.find("| weights | 4000 |"), std::string::npos) << md;
  EXPECT_NE(md.find("**16.01 bytes per parameter**"), std::string::npos);
  EXPECT_NE(md.find("18 bytes per parameter"), std::string::npos);
  EXPECT_NE(md.find("1.00 MiB"), std::string::npos);
  EXPECT_EQ(formatBytes(512), "512 B");

  llvm::Expected<llvm::json::Value> json =
      llvm::json::parse(renderMemoryJson(a));
  ASSERT_TRUE(bool(json)) << llvm::toString(json.takeError());
  const llvm::json::Object *root = json->getAsObject();
  ASSERT_TRUE(root);
  EXPECT_EQ(root->getString("optimizer"), "adamw");
  EXPECT_EQ(root->getObject("bytes")->getInteger("optimizer_state"), 8008);
  EXPECT_EQ(root->getObject("bytes")->getInteger("total"),
            4000 + 8008 + (1 << 20));
  EXPECT_NEAR(*root->getNumber("bytes_per_param"), 16.008, 1e-9);
}

// Meta round-trips, including a position beyond 2^53.
TEST(Checkpoint, MetaRoundTrip) {
  CheckpointMeta meta;
  meta.step = 17;
  meta.dataRng = Rng(1).serialize();
  meta.dataPosition = (uint64_t(1) << 60) + 1;
  meta.elapsed = 1.5;
  meta.options = {{"lr", "0.00029999999999999997"}, {"optimizer", "adamw"}};
  CheckpointMeta parsed;
  std::string error;
  ASSERT_TRUE(parseMeta(formatMeta(meta), parsed, error)) << error;
  EXPECT_EQ(parsed.step, 17);
  EXPECT_EQ(parsed.dataRng, meta.dataRng);
  EXPECT_EQ(parsed.dataPosition, meta.dataPosition);
  EXPECT_EQ(parsed.options, meta.options);
  EXPECT_FALSE(parseMeta("{", parsed, error));
  EXPECT_FALSE(parseMeta("{\"format\": \"other\"}", parsed, error));
  EXPECT_NE(error.find("not a tfc-train checkpoint"), std::string::npos);
}

// Writing replaces the previous checkpoint and leaves no temporaries; a
// failed tensor write leaves the previous checkpoint intact.
TEST(Checkpoint, AtomicReplace) {
  TempDir dir;
  CheckpointMeta meta, read;
  meta.dataRng = Rng(2).serialize();
  std::string error, found;
  auto tensors = [](const std::string &text) {
    return [text](const std::string &path, std::string &) {
      writeFile(path, text);
      return true;
    };
  };
  meta.step = 1;
  ASSERT_TRUE(writeCheckpoint(dir.path, meta, tensors("one"), error)) << error;
  meta.step = 2;
  ASSERT_TRUE(writeCheckpoint(dir.path, meta, tensors("two"), error)) << error;
  ASSERT_TRUE(readCheckpoint(dir.path, read, found, error)) << error;
  EXPECT_EQ(read.step, 2);
  EXPECT_EQ(found, dir.path + "/checkpoint");
  EXPECT_EQ(readFile(found + "/" + kCheckpointTensors), "two");
  EXPECT_FALSE(llvm::sys::fs::exists(dir.path + "/checkpoint.tmp"));
  EXPECT_FALSE(llvm::sys::fs::exists(dir.path + "/checkpoint.old"));

  meta.step = 3;
  EXPECT_FALSE(writeCheckpoint(
      dir.path, meta,
      [](const std::string &, std::string &err) {
        err = "disk full";
        return false;
      },
      error));
  EXPECT_EQ(error, "disk full");
  ASSERT_TRUE(readCheckpoint(dir.path, read, found, error));
  EXPECT_EQ(read.step, 2);

  // A crash between the two renames: only checkpoint.old is left.
  ASSERT_FALSE(llvm::sys::fs::rename(dir.path + "/checkpoint",
                                     dir.path + "/checkpoint.old"));
  ASSERT_TRUE(readCheckpoint(dir.path, read, found, error)) << error;
  EXPECT_EQ(found, dir.path + "/checkpoint.old");

  TempDir empty;
  EXPECT_FALSE(readCheckpoint(empty.path, read, found, error));
  EXPECT_NE(error.find("no checkpoint in"), std::string::npos);
}

// SHA256SUMS covers meta.json and the tensors: any change to either, a
// damaged digest file or none at all is an error naming what differs, and
// the checkpoint is not read.
TEST(Checkpoint, DigestsGuardEveryFile) {
  TempDir dir;
  CheckpointMeta meta, read;
  meta.step = 4;
  meta.dataRng = Rng(3).serialize();
  std::string error, found;
  ASSERT_TRUE(writeCheckpoint(
      dir.path, meta,
      [](const std::string &path, std::string &) {
        writeFile(path, "tensor bytes");
        return true;
      },
      error))
      << error;
  std::string ckpt = dir.path + "/checkpoint";
  std::string sums = readFile(ckpt + "/" + kCheckpointSums);
  EXPECT_NE(sums.find("  meta.json\n"), std::string::npos) << sums;
  EXPECT_NE(sums.find(std::string("  ") + kCheckpointTensors + "\n"),
            std::string::npos)
      << sums;
  ASSERT_TRUE(readCheckpoint(dir.path, read, found, error)) << error;

  auto expectRefused = [&](const std::string &what) {
    EXPECT_FALSE(readCheckpoint(dir.path, read, found, error));
    EXPECT_NE(error.find(what), std::string::npos) << error;
  };
  std::string metaText = readFile(ckpt + "/meta.json");
  // meta.json's step changed from 4 to 1.
  std::string edited = metaText;
  edited.replace(edited.find("\"step\": 4"), 10, "\"step\": 1");
  writeFile(ckpt + "/meta.json", edited);
  expectRefused("meta.json does not match its SHA-256");
  writeFile(ckpt + "/meta.json", metaText);
  // One byte of the tensors flipped.
  writeFile(ckpt + "/" + kCheckpointTensors, "tensor bytez");
  expectRefused(std::string(kCheckpointTensors) + " does not match");
  writeFile(ckpt + "/" + kCheckpointTensors, "tensor bytes");
  ASSERT_TRUE(readCheckpoint(dir.path, read, found, error)) << error;
  // The digest file itself damaged, then missing.
  writeFile(ckpt + "/" + kCheckpointSums, sums.substr(0, sums.size() / 2));
  expectRefused("does not match its SHA-256");
  llvm::sys::fs::remove(ckpt + "/" + kCheckpointSums);
  expectRefused("has no readable SHA256SUMS");
  // The tensor file replaced by a FIFO: refused, not read forever.
  writeFile(ckpt + "/" + kCheckpointSums, sums);
  std::string tensors = ckpt + "/" + kCheckpointTensors;
  llvm::sys::fs::remove(tensors);
  ASSERT_EQ(::mkfifo(tensors.c_str(), 0600), 0);
  expectRefused("is not a regular file");
}

} // namespace
