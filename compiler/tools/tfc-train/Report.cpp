//===- Report.cpp - loss plot (SVG) and memory-anatomy report --------------===//

#include "compiler/tools/tfc-train/Report.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

using namespace tfc::train;

std::string tfc::train::formatBytes(uint64_t bytes) {
  char text[32];
  if (bytes < 1024)
    std::snprintf(text, sizeof(text), "%llu B", (unsigned long long)bytes);
  else if (bytes < (uint64_t(1) << 20))
    std::snprintf(text, sizeof(text), "%.2f KiB", bytes / 1024.0);
  else if (bytes < (uint64_t(1) << 30))
    std::snprintf(text, sizeof(text), "%.2f MiB", bytes / 1048576.0);
  else
    std::snprintf(text, sizeof(text), "%.2f GiB", bytes / 1073741824.0);
  return text;
}

std::string tfc::train::notARegularFile(const std::string &path) {
  llvm::sys::fs::file_status status;
  if (std::error_code ec = llvm::sys::fs::status(path, status))
    return ec == std::errc::no_such_file_or_directory ? "does not exist"
                                                      : ec.message();
  if (status.type() == llvm::sys::fs::file_type::regular_file)
    return "";
  if (status.type() == llvm::sys::fs::file_type::directory_file)
    return "is a directory";
  return "is not a regular file (a device, pipe or socket)";
}

bool tfc::train::writeFileAtomically(const std::string &path,
                                     const std::string &text,
                                     std::string &error) {
  std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) {
      error = "cannot write '" + tmp + "'";
      return false;
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    error = "cannot rename '" + tmp + "' to '" + path + "'";
    return false;
  }
  return true;
}

/// A "nice" tick step (1, 2 or 5 x 10^k) giving about `count` ticks.
static double tickStep(double span, int count) {
  if (!(span > 0))
    return 1;
  double raw = span / count;
  double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0})
    if (raw <= m * magnitude)
      return m * magnitude;
  return 10 * magnitude;
}

std::string tfc::train::renderLossSvg(const std::vector<StepRecord> &records,
                                      const std::string &title) {
  const double width = 720, height = 420, left = 70, right = 20, top = 40,
               bottom = 50;
  const double plotW = width - left - right, plotH = height - top - bottom;
  std::vector<std::pair<double, double>> points;
  for (const StepRecord &r : records)
    if (std::isfinite(r.loss))
      points.emplace_back(double(r.step), r.loss);

  double x0 = 0, x1 = 1, y0 = 0, y1 = 1;
  if (!points.empty()) {
    x0 = points.front().first;
    x1 = points.back().first;
    y0 = y1 = points.front().second;
    for (auto [x, y] : points) {
      x0 = std::min(x0, x);
      x1 = std::max(x1, x);
      y0 = std::min(y0, y);
      y1 = std::max(y1, y);
    }
  }
  if (x1 <= x0)
    x1 = x0 + 1;
  if (y1 <= y0) {
    y0 -= 0.5;
    y1 += 0.5;
  }
  double yPad = 0.05 * (y1 - y0);
  y0 -= yPad;
  y1 += yPad;
  auto px = [&](double x) { return left + (x - x0) / (x1 - x0) * plotW; };
  auto py = [&](double y) { return top + (y1 - y) / (y1 - y0) * plotH; };

  std::ostringstream svg;
  svg.setf(std::ios::fixed);
  svg.precision(2);
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width
      << "\" height=\"" << height << "\" viewBox=\"0 0 " << width << " "
      << height << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      << "<text x=\"" << width / 2 << "\" y=\"24\" text-anchor=\"middle\" "
      << "font-size=\"15\">";
  for (char c : title) {
    // Escape what XML text cannot hold literally.
    if (c == '<')
      svg << "&lt;";
    else if (c == '>')
      svg << "&gt;";
    else if (c == '&')
      svg << "&amp;";
    else
      svg << c;
  }
  svg << "</text>\n";

  // Grid and tick labels.
  double ys = tickStep(y1 - y0, 6);
  for (double y = std::ceil(y0 / ys) * ys; y <= y1; y += ys) {
    svg << "<line x1=\"" << left << "\" y1=\"" << py(y) << "\" x2=\""
        << left + plotW << "\" y2=\"" << py(y)
        << "\" stroke=\"#e0e0e0\"/>\n<text x=\"" << left - 6 << "\" y=\""
        << py(y) + 4 << "\" text-anchor=\"end\">" << y << "</text>\n";
  }
  double xs = std::max(1.0, tickStep(x1 - x0, 8));
  for (double x = std::ceil(x0 / xs) * xs; x <= x1; x += xs) {
    svg << "<line x1=\"" << px(x) << "\" y1=\"" << top << "\" x2=\"" << px(x)
        << "\" y2=\"" << top + plotH << "\" stroke=\"#f0f0f0\"/>\n<text x=\""
        << px(x) << "\" y=\"" << top + plotH + 18
        << "\" text-anchor=\"middle\">" << (long long)x << "</text>\n";
  }
  svg << "<rect x=\"" << left << "\" y=\"" << top << "\" width=\"" << plotW
      << "\" height=\"" << plotH << "\" fill=\"none\" stroke=\"black\"/>\n"
      << "<text x=\"" << left + plotW / 2 << "\" y=\"" << height - 10
      << "\" text-anchor=\"middle\">step</text>\n"
      << "<text x=\"18\" y=\"" << top + plotH / 2
      << "\" text-anchor=\"middle\" transform=\"rotate(-90 18 "
      << top + plotH / 2 << ")\">loss</text>\n";

  auto polyline = [&](const std::vector<std::pair<double, double>> &pts,
                      const char *style) {
    if (pts.empty())
      return;
    svg << "<polyline fill=\"none\" " << style << " points=\"";
    for (auto [x, y] : pts)
      svg << px(x) << "," << py(y) << " ";
    svg << "\"/>\n";
  };
  polyline(points, "stroke=\"#9ecae1\" stroke-width=\"1\"");
  // The smoothed curve shows the trend through batch-to-batch noise.
  std::vector<std::pair<double, double>> smooth;
  double ema = points.empty() ? 0 : points.front().second;
  for (auto [x, y] : points) {
    ema = 0.9 * ema + 0.1 * y;
    smooth.emplace_back(x, ema);
  }
  polyline(smooth, "stroke=\"#08519c\" stroke-width=\"2\"");
  svg << "<text x=\"" << left + plotW - 4 << "\" y=\"" << top + 14
      << "\" text-anchor=\"end\" fill=\"#08519c\">loss (EMA 0.9), raw in "
         "light blue</text>\n</svg>\n";
  return svg.str();
}

std::string tfc::train::renderMemoryJson(const MemoryAnatomy &a) {
  uint64_t gradients = a.gradientBytes + a.accumulatorBytes;
  uint64_t total = a.weightBytes + a.weightCopyBytes + a.accumulatorBytes +
                   a.optimizerBytes + a.arenaBytes + a.workspaceBytes +
                   a.batchBytes;
  double n = double(std::max<int64_t>(a.parameters, 1));
  llvm::json::Object bytes{{"weights", int64_t(a.weightBytes)},
                           {"weight_copies", int64_t(a.weightCopyBytes)},
                           {"gradients", int64_t(gradients)},
                           {"optimizer_state", int64_t(a.optimizerBytes)},
                           {"arena", int64_t(a.arenaBytes)},
                           {"saved_activations",
                            int64_t(a.savedActivationBytes)},
                           {"workspace", int64_t(a.workspaceBytes)},
                           {"batch", int64_t(a.batchBytes)},
                           {"total", int64_t(total)}};
  llvm::json::Object root{
      {"device", a.device},
      {"optimizer", a.optimizer},
      {"loss_scaling", a.lossScaling},
      {"precision", a.precision},
      {"pad", a.pad},
      {"recompute", a.recompute},
      {"optimizer_in_backward", a.optimizerInBackward},
      {"parameters", a.parameters},
      {"bytes", std::move(bytes)},
      {"bytes_per_param",
       double(a.weightBytes + a.weightCopyBytes + gradients +
              a.optimizerBytes) /
           n}};
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(root))) << "\n";
  return text;
}

std::string tfc::train::renderMemoryReport(const MemoryAnatomy &a) {
  std::ostringstream md;
  double n = double(std::max<int64_t>(a.parameters, 1));
  auto row = [&](const char *what, uint64_t bytes, const char *note) {
    char perParam[32];
    std::snprintf(perParam, sizeof(perParam), "%.2f", double(bytes) / n);
    md << "| " << what << " | " << bytes << " | " << formatBytes(bytes)
       << " | " << perParam << " | " << note << " |\n";
  };
  uint64_t total = a.weightBytes + a.weightCopyBytes + a.accumulatorBytes +
                   a.optimizerBytes + a.arenaBytes + a.workspaceBytes +
                   a.batchBytes;
  md << "# Memory anatomy of one training step\n\n"
     << "Device `" << a.device << "`, optimizer `" << a.optimizer
     << "`, precision `" << a.precision << "`, padding `" << a.pad
     << "`, recompute `" << a.recompute << "`, optimizer in backward "
     << (a.optimizerInBackward ? "on" : "off") << ", loss scaling "
     << (a.lossScaling ? "on" : "off") << ", "
     << a.parameters << " parameters.\n\n"
     << "| part | bytes | size | bytes/param | what |\n"
     << "|---|---:|---:|---:|---|\n";
  row("weights", a.weightBytes, "f32 parameters (externals, role param)");
  if (a.weightCopyBytes)
    row("16-bit weight copies", a.weightCopyBytes,
        "what the forward reads in mixed precision: written by the "
        "optimizer's kernel (externals, role state)");
  row("gradients", a.gradientBytes + a.accumulatorBytes,
      a.optimizerInBackward
          ? "none held for the whole step: each gradient dies at its "
            "parameter's update (optimizer in backward), inside the arena"
      : a.accumulatorBytes
          ? "one f32 gradient per parameter planned inside the arena, plus "
            "the f32 accumulators (P.grad_accum, role state) that sum them "
            "over the micro-batches of a step"
          : "one f32 gradient per parameter; planned inside the arena");
  row("optimizer state", a.optimizerBytes,
      "moments / momentum, step counter, scaler (externals, role state)");
  row("activations (arena)", a.arenaBytes,
      "the liveness-planned arena: saved activations, temporaries and the "
      "gradients above");
  if (a.savedActivationBytes)
    row("of which saved activations", a.savedActivationBytes,
        "forward values the backward reads, alive from the forward to their "
        "last backward use (what recompute trades for compute)");
  row("workspace", a.workspaceBytes, "GEMM workspace of the backend");
  row("batch and outputs", a.batchBytes, "tokens, targets, lr, loss");
  row("total", total,
      "weights + copies + accumulators + state + arena + workspace + batch");
  uint64_t fixed = a.weightBytes + a.weightCopyBytes + a.gradientBytes +
                   a.accumulatorBytes + a.optimizerBytes;
  char perParam[32];
  std::snprintf(perParam, sizeof(perParam), "%.2f", double(fixed) / n);
  md << "\nWeights" << (a.weightCopyBytes ? " (and their 16-bit copies)" : "")
     << " + gradients + optimizer state: **" << perParam
     << " bytes per parameter** (activations excluded, they scale with the "
        "batch).\n\n"
     << "## How this compares with the 18 bytes/param rule\n\n"
     << "The Hugging Face guide *Methods and tools for efficient training on "
        "a single GPU* counts, for mixed-precision training with AdamW, "
        "18 bytes per parameter before activations: 6 for the weights (an "
        "fp32 master copy, 4, plus an fp16/bf16 copy for the forward and "
        "backward passes, 2), 4 for the gradients (kept in fp32), and 8 for "
        "AdamW's two fp32 moments (exp_avg and exp_avg_sq).\n\n"
     << "tfc's f32 setup keeps no 16-bit weight copy: 4 bytes of weights, 4 "
        "of gradients, and 8 of AdamW/Adam moments (4 for SGD's momentum "
        "buffer, 0 for plain SGD, 4 (m + n) / (m n) for Adafactor's factored "
        "moments of an m x n matrix and 4 for a vector; for adamw8bit 2 bytes of codes plus 8 / 256 "
        "of block scales per parameter of tensors with at least 4096 "
        "elements, 8 for the smaller ones; 4 for RMSprop's square_avg, 4 "
        "more each for its momentum buffer and centered grad_avg; 4 for "
        "Adagrad's sum; 8 for Adamax's, NAdam's and RAdam's two moments), "
        "i.e. 16 bytes/param for AdamW, "
        "plus a few "
        "bytes of scalars (step counter, loss scale). Under mixed precision "
        "tfc adds the 2-byte copy that the optimizer kernel writes, giving "
        "the guide's 18. Unlike the guide's count, the gradients here live "
        "in the arena, so their bytes appear in both the gradients row and "
        "the arena row; the total counts them once.\n";
  return md.str();
}
