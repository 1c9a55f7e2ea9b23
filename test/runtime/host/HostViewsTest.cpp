//===- HostViewsTest.cpp - view ops folded into their readers ------------===//
//
// The host interpreter reads view ops (reshape, transpose, broadcast_to,
// slice, pad) through composed strided views instead of copying them
// (runtime/src/host/HostViews.h). Folding must change nothing but speed:
// random chains of views read by pointwise chains, by whole-tensor ops and
// as outputs give the bytes of running every view op as a copy, at every
// chunk size; the q/k/v split and the padded gradient concatenation of
// attention are checked by hand; an output written over an input it reads
// through a view is staged, not written in place.
//
//===----------------------------------------------------------------------===//

#include "HostTestUtil.h"

#include "runtime/src/host/HostViews.h"

#include <numeric>
#include <random>
#include <sstream>

using namespace tfc::rt;
using namespace tfc::rt::host;
using namespace tfc::rt::host::test;

namespace {

std::string shapeText(const std::vector<int64_t> &shape) {
  return formatShape(shape);
}

std::string listText(const std::vector<int64_t> &v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}

int64_t numel(const std::vector<int64_t> &shape) {
  return std::accumulate(shape.begin(), shape.end(), int64_t(1),
                         std::multiplies<int64_t>());
}

/// A random program: an input, a chain of view ops over it (each reading
/// the input or an earlier view), pointwise ops and reductions reading some
/// of the views, and several views as outputs.
struct RandomViews {
  std::string text;
  std::vector<Buf> inputs;
};

RandomViews randomViews(unsigned seed) {
  std::mt19937 rng(seed);
  auto pick = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  const char *dtypes[] = {"f32", "bf16", "f64", "i64"};
  const DType dts[] = {DType::F32, DType::BF16, DType::F64, DType::I64};
  int di = pick(0, 3);
  std::string dt = dtypes[di];
  bool isInt = dts[di] == DType::I64;

  std::vector<std::vector<int64_t>> shapes;
  std::ostringstream body;
  std::vector<int64_t> in0;
  for (int d = pick(1, 4); d > 0; --d)
    in0.push_back(pick(1, 4));
  shapes.push_back(in0);
  shapes.push_back({});
  body << "in %0 " << dt << " " << shapeText(in0) << "\n";
  body << "in %1 " << dt << " scalar\n";
  auto define = [&](const std::vector<int64_t> &shape) {
    shapes.push_back(shape);
    return int64_t(shapes.size() - 1);
  };
  std::vector<int64_t> views = {0};
  for (int step = pick(1, 6); step > 0; --step) {
    // Mostly extend the latest view, sometimes branch from an earlier one.
    int64_t x = pick(0, 3) ? views.back() : views[pick(0, int(views.size()) - 1)];
    std::vector<int64_t> s = shapes[x], out;
    int rank = int(s.size());
    std::ostringstream op;
    switch (pick(0, 4)) {
    case 0: { // transpose
      std::vector<int64_t> perm(rank);
      std::iota(perm.begin(), perm.end(), 0);
      std::shuffle(perm.begin(), perm.end(), rng);
      for (int64_t p : perm)
        out.push_back(s[p]);
      op << "transpose " << dt << " " << shapeText(out) << " (%" << x
         << ") permutation=" << listText(perm);
      break;
    }
    case 1: { // slice
      std::vector<int64_t> start, limit, stride;
      for (int64_t n : s) {
        int64_t b = pick(0, int(n) - 1), e = pick(int(b) + 1, int(n));
        int64_t st = pick(1, 3);
        start.push_back(b);
        limit.push_back(e);
        stride.push_back(st);
        out.push_back((e - b + st - 1) / st);
      }
      op << "slice " << dt << " " << shapeText(out) << " (%" << x
         << ") start=" << listText(start) << " limit=" << listText(limit)
         << " step=" << listText(stride);
      break;
    }
    case 2: { // pad
      std::vector<int64_t> lo, hi;
      for (int64_t n : s) {
        lo.push_back(pick(0, 2));
        hi.push_back(pick(0, 2));
        out.push_back(n + lo.back() + hi.back());
      }
      const char *values[] = {"0", "-1.5", "2", "7"};
      std::string v = values[pick(0, 3)];
      if (isInt && v == "-1.5")
        v = "-3";
      op << "pad " << dt << " " << shapeText(out) << " (%" << x
         << ") low=" << listText(lo) << " high=" << listText(hi)
         << " value=" << v;
      break;
    }
    case 3: { // broadcast_to: a new leading dim, size-1 dims stretched
      if (pick(0, 1) || rank == 0)
        out.push_back(pick(1, 3));
      for (int64_t n : s)
        out.push_back(n == 1 ? pick(1, 3) : n);
      op << "broadcast_to " << dt << " " << shapeText(out) << " (%" << x
         << ")";
      break;
    }
    default: { // reshape: flatten, split a dim, merge two, or add a 1
      out = s;
      int how = pick(0, 3);
      if (how == 0 || rank == 0) {
        out = {numel(s)};
      } else if (how == 1) {
        int d = pick(0, rank - 1);
        int64_t n = out[d], f = 1;
        for (int64_t c = 2; c <= n; ++c)
          if (n % c == 0 && pick(0, 1))
            f = c;
        out[d] = n / f;
        out.insert(out.begin() + d + 1, f);
      } else if (how == 2 && rank >= 2) {
        int d = pick(0, rank - 2);
        out[d] *= out[d + 1];
        out.erase(out.begin() + d + 1);
      } else {
        out.insert(out.begin() + pick(0, rank), 1);
      }
      op << "reshape " << dt << " " << shapeText(out) << " (%" << x << ")";
      break;
    }
    }
    int64_t r = define(out);
    body << "op %" << r << " " << op.str() << "\n";
    views.push_back(r);
  }
  // Readers: a pointwise chain over two views of the last view's shape (the
  // view itself and a broadcast one), a whole-tensor reduction of another.
  int64_t last = views.back();
  std::vector<int64_t> ls = shapes[last];
  int64_t sum = define(ls);
  body << "op %" << sum << " add " << dt << " " << shapeText(ls) << " (%"
       << last << ", %1)\n";
  int64_t prod = define(ls);
  body << "op %" << prod << " mul " << dt << " " << shapeText(ls) << " (%"
       << sum << ", %" << last << ")\n";
  int64_t other = views[pick(0, int(views.size()) - 1)];
  std::vector<int64_t> dims(shapes[other].size());
  std::iota(dims.begin(), dims.end(), 0);
  int64_t red = define({});
  body << "op %" << red << " reduce_sum " << dt << " scalar (%" << other
       << ") dims=" << listText(dims) << " keepdim=false\n";
  body << "out %" << prod << "\nout %" << red << "\nout %" << last << "\n";
  int64_t extra = views[pick(0, int(views.size()) - 1)];
  if (extra != 0)
    body << "out %" << extra << "\n";

  RandomViews rv;
  rv.text = program(body.str(), "row_reduction");
  std::vector<double> x(numel(in0));
  for (double &v : x)
    v = isInt ? pick(-5, 5) : std::normal_distribution<double>()(rng);
  rv.inputs = {make(dts[di], x), make(dts[di], {isInt ? 3.0 : 0.25})};
  return rv;
}

void expectSameOutputs(const std::string &text, const std::vector<Buf> &in,
                       int64_t chunk) {
  auto copied = runProgram(text, in, chunk, nullptr, /*foldViews=*/false);
  auto folded = runProgram(text, in, chunk, nullptr, /*foldViews=*/true);
  ASSERT_EQ(copied.size(), folded.size());
  for (size_t o = 0; o < copied.size(); ++o)
    EXPECT_EQ(folded[o].bytes, copied[o].bytes)
        << "output " << o << ", chunk " << chunk << "\n"
        << text;
}

} // namespace

TEST(HostViews, RandomViewChainsMatchCopies) {
  for (unsigned seed = 0; seed < 3000; ++seed) {
    RandomViews rv = randomViews(seed);
    for (int64_t chunk : {int64_t(1), int64_t(5), kDefaultChunkElements})
      expectSameOutputs(rv.text, rv.inputs, chunk);
    if (HasFailure()) {
      ADD_FAILURE() << "seed " << seed;
      return;
    }
  }
}

// Attention's q/k/v split: three slices of the fused projection, each split
// into heads and transposed. Folded, each output is one strided gather of
// the input.
TEST(HostViews, QkvSplit) {
  std::string text = program(
      "in %0 f32 2x3x12\n"
      "op %1 slice f32 2x3x4 (%0) start=[0,0,4] limit=[2,3,8] step=[1,1,1]\n"
      "op %2 reshape f32 2x3x2x2 (%1)\n"
      "op %3 transpose f32 2x2x3x2 (%2) permutation=[0,2,1,3]\n"
      "out %3\n");
  std::vector<double> x(72);
  std::iota(x.begin(), x.end(), 0.0);
  auto out = runProgram(text, {f32(x)});
  ASSERT_EQ(out.size(), 1u);
  // out[b][h][t][d] = x[b][t][4 + 2h + d].
  for (int b = 0; b < 2; ++b)
    for (int h = 0; h < 2; ++h)
      for (int t = 0; t < 3; ++t)
        for (int d = 0; d < 2; ++d)
          EXPECT_EQ(out[0].at(((b * 2 + h) * 3 + t) * 2 + d),
                    x[(b * 3 + t) * 12 + 4 + 2 * h + d]);
  expectSameOutputs(text, {f32(x)}, 5);
}

// The q/k/v gradients merged back: each head-transposed gradient flattened
// (a reshape no strides express, so the transpose is gathered once), padded
// to its third of the fused width, the three added, and the bias gradient
// summed over the rows, with no padded copy stored.
TEST(HostViews, PaddedGradientConcatenation) {
  std::string text = program(
      "in %0 f32 2x2x3x2\nin %1 f32 2x2x3x2\n"
      "op %2 transpose f32 2x3x2x2 (%0) permutation=[0,2,1,3]\n"
      "op %3 reshape f32 2x3x4 (%2)\n"
      "op %4 pad f32 2x3x8 (%3) low=[0,0,4] high=[0,0,0] value=0\n"
      "op %5 transpose f32 2x3x2x2 (%1) permutation=[0,2,1,3]\n"
      "op %6 reshape f32 2x3x4 (%5)\n"
      "op %7 pad f32 2x3x8 (%6) low=[0,0,0] high=[0,0,4] value=0\n"
      "op %8 add f32 2x3x8 (%4, %7)\n"
      "op %9 reduce_sum f32 8 (%8) dims=[0,1] keepdim=false\n"
      "out %8\nout %9\n",
      "column_reduction");
  std::vector<double> a(24), b(24);
  for (int i = 0; i < 24; ++i) {
    a[i] = i + 1;
    b[i] = -(i + 1) * 100;
  }
  auto out = runProgram(text, {f32(a), f32(b)});
  ASSERT_EQ(out.size(), 2u);
  // out[n][t][c]: c < 4 from b (head c / 2, dim c % 2), else from a.
  for (int n = 0; n < 2; ++n)
    for (int t = 0; t < 3; ++t)
      for (int c = 0; c < 8; ++c) {
        const std::vector<double> &src = c < 4 ? b : a;
        int h = (c % 4) / 2, d = c % 2;
        EXPECT_EQ(out[0].at((n * 3 + t) * 8 + c),
                  src[((n * 2 + h) * 3 + t) * 2 + d]);
      }
  for (int64_t chunk : {int64_t(1), int64_t(7), kDefaultChunkElements})
    expectSameOutputs(text, {f32(a), f32(b)}, chunk);
}

// Padding with a value the dtype rounds: the pad op stores the rounded
// value, and so does a folded pad.
TEST(HostViews, PadValueRoundsToTheDtype) {
  std::string text = program("in %0 bf16 2\n"
                             "op %1 pad bf16 4 (%0) low=[1] high=[1] "
                             "value=0.1\n"
                             "op %2 add bf16 4 (%1, %1)\nout %2\n");
  Buf x = make(DType::BF16, {1, 2});
  auto out = runProgram(text, {x});
  ASSERT_EQ(out.size(), 1u);
  double p = bfloat16ToFloat(floatToBFloat16(0.1f));
  EXPECT_EQ(out[0].at(0), double(bfloat16ToFloat(floatToBFloat16(float(2 * p)))));
  EXPECT_EQ(out[0].at(1), 2.0);
  expectSameOutputs(text, {x}, 1);
}

// An output passed the memory of an input it reads through a transpose is
// not written in place: a chunk would overwrite elements a later chunk
// reads. Staged, the result is that of separate buffers.
TEST(HostViews, ViewOfAnInputIsNotAnInPlaceUpdate) {
  std::string text = program("in %0 f32 2x2\nin %1 f32 2x2\n"
                             "op %2 transpose f32 2x2 (%0) permutation=[1,0]\n"
                             "op %3 add f32 2x2 (%2, %1)\nout %3\n");
  std::unique_ptr<Interpreter> interp;
  ASSERT_TRUE(Interpreter::create(text, interp, 1).isOk());
  EXPECT_FALSE(interp->writesInPlace(0, 0));
  EXPECT_TRUE(interp->writesInPlace(0, 1));
  std::vector<float> p = {1, 2, 3, 4}, g = {10, 20, 30, 40};
  ASSERT_TRUE(interp->run({p.data(), g.data()}, {p.data()}).isOk());
  EXPECT_EQ(p, (std::vector<float>{11, 23, 32, 44}));
}

// What fails to compose: a transposed tensor flattened has no strides; the
// transpose is then gathered once and the reshape reads that copy.
TEST(HostViews, ComposeOnlyWhatStridesExpress) {
  HostProgram prog;
  ASSERT_TRUE(parseHostProgram(
                  program("in %0 f32 2x3\n"
                          "op %1 transpose f32 3x2 (%0) permutation=[1,0]\n"
                          "op %2 reshape f32 6 (%1)\n"
                          "op %3 reshape f32 3x2 (%0)\nout %2\nout %3\n"),
                  prog)
                  .isOk());
  StridedView x = identityView(0, prog.values[0]);
  auto t = applyViewOp(prog.ops[0], prog.values[1], x);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->strides, (std::vector<int64_t>{1, 3}));
  EXPECT_FALSE(applyViewOp(prog.ops[1], prog.values[2], *t).has_value());
  auto r = applyViewOp(prog.ops[2], prog.values[3], x);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->strides, (std::vector<int64_t>{2, 1}));
  std::vector<double> v = {1, 2, 3, 4, 5, 6};
  auto out = runProgram(program("in %0 f32 2x3\n"
                                "op %1 transpose f32 3x2 (%0) "
                                "permutation=[1,0]\n"
                                "op %2 reshape f32 6 (%1)\nout %2\n"),
                        {f32(v)});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].values(), (std::vector<double>{1, 4, 2, 5, 3, 6}));
}
