//===- HostParserTest.cpp - host program parser and validator ------------===//
//
// Well-formed programs parse into the expected structure; every kind of
// malformed program is rejected with a message naming the problem (and, where
// there is one, the line), never a crash.
//
//===----------------------------------------------------------------------===//

#include "runtime/src/host/HostProgram.h"

#include <cstdint>
#include <gtest/gtest.h>

#include <string>

using namespace tfc::rt;
using namespace tfc::rt::host;

namespace {

const char *kHeader = "tfc-host-program 1\nkind pointwise\n";

/// Parses `body` after the header; returns the error message or "".
std::string parseError(const std::string &body,
                       const std::string &header = kHeader) {
  HostProgram prog;
  Status s = parseHostProgram(header + body, prog);
  return s.isOk() ? std::string() : s.message();
}

::testing::AssertionResult rejects(const std::string &body,
                                   const std::string &needle,
                                   const std::string &header = kHeader) {
  std::string e = parseError(body, header);
  if (e.empty())
    return ::testing::AssertionFailure() << "accepted:\n" << header << body;
  if (e.find(needle) == std::string::npos)
    return ::testing::AssertionFailure()
           << "error '" << e << "' does not mention '" << needle << "'";
  return ::testing::AssertionSuccess();
}

} // namespace

TEST(HostParser, ParsesTheDocumentedExample) {
  HostProgram prog;
  Status s = parseHostProgram("tfc-host-program 1\n"
                              "kind pointwise\n"
                              "in %0 f32 16x64x128\n"
                              "in %1 f32 128\n"
                              "op %2 add f32 16x64x128 (%0, %1)\n"
                              "op %3 gelu f32 16x64x128 (%2) approximate=tanh\n"
                              "out %3\n",
                              prog);
  ASSERT_TRUE(s.isOk()) << s.message();
  EXPECT_EQ(prog.kind, "pointwise");
  ASSERT_EQ(prog.values.size(), 4u);
  EXPECT_EQ(prog.inputs, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(prog.outputs, (std::vector<int64_t>{3}));
  ASSERT_EQ(prog.ops.size(), 2u);
  EXPECT_EQ(prog.ops[0].code, OpCode::Add);
  EXPECT_EQ(prog.ops[1].code, OpCode::Gelu);
  EXPECT_TRUE(prog.ops[1].geluTanh);
  EXPECT_EQ(prog.values[3].numel, 16 * 64 * 128);
}

TEST(HostParser, ParsesMultiResultOpsCommentsAndScalars) {
  HostProgram prog;
  Status s = parseHostProgram(
      "# a comment\n"
      "tfc-host-program 1\n"
      "\n"
      "kind row_reduction\n"
      "in %10 bf16 8x32\n"
      "in %11 f32 32\n"
      "op %12 layer_norm bf16 8x32 (%10, %11, _) eps=1e-05 normalized_rank=1\n"
      "op %13 result f32 8x1 (%12) index=1\n"
      "op %14 result f32 8x1 (%12) index=2\n"
      "op %15 constant f32 scalar () value=[2.5]\n"
      "out %12\n"
      "out %14\n"
      "out %15\n",
      prog);
  ASSERT_TRUE(s.isOk()) << s.message();
  ASSERT_EQ(prog.ops.size(), 2u);
  EXPECT_EQ(prog.ops[0].results.size(), 3u);
  EXPECT_EQ(prog.ops[0].operands[2], -1);
  EXPECT_DOUBLE_EQ(prog.ops[0].eps, 1e-5);
  EXPECT_TRUE(prog.values[5].shape.empty()); // the constant
  EXPECT_EQ(prog.outputs.size(), 3u);
}

TEST(HostParser, RejectsBadHeaderAndKind) {
  EXPECT_TRUE(rejects("", "empty", ""));
  EXPECT_TRUE(rejects("kind pointwise\n", "tfc-host-program 1", ""));
  EXPECT_TRUE(rejects("", "version '2'", "tfc-host-program 2\n"));
  EXPECT_TRUE(
      rejects("in %0 f32 4\nout %0\n", "'kind", "tfc-host-program 1\n"));
  EXPECT_TRUE(rejects("", "unknown kernel kind 'gemm'",
                      "tfc-host-program 1\nkind gemm\n"));
  EXPECT_TRUE(rejects("kind pointwise\nin %0 f32 4\nout %0\n", "duplicate"));
  EXPECT_TRUE(rejects("in %0 f32 4\n", "no 'out'"));
  EXPECT_TRUE(rejects("bogus %0\n", "unknown line 'bogus'"));
}

TEST(HostParser, RejectsBadValuesAndTypes) {
  EXPECT_TRUE(rejects("in %0 f8 4\nout %0\n", "unknown dtype 'f8'"));
  EXPECT_TRUE(rejects("in %0 f32 4x\nout %0\n", "bad shape"));
  EXPECT_TRUE(rejects("in %0 f32 4x-1\nout %0\n", "bad shape"));
  EXPECT_TRUE(rejects("in %0 f32\nout %0\n", "missing shape"));
  EXPECT_TRUE(rejects("in %0 f32 99999999x99999999x99999999\nout %0\n",
                      "too many elements"));
  EXPECT_TRUE(rejects("in 0 f32 4\nout 0\n", "bad value id"));
  EXPECT_TRUE(rejects("in %0 f32 4\nin %0 f32 4\nout %0\n", "defined twice"));
  EXPECT_TRUE(rejects("in %0 f32 4\nout %1\n", "%1 is not defined"));
  EXPECT_TRUE(rejects("in %0 f32 4\nop %1 neg f32 4 (%7)\nout %1\n",
                      "line 4: op 'neg': value %7 is not defined"));
  EXPECT_TRUE(
      rejects("in %0 f32 4\nop %1 neg f32 4 (%1)\nout %1\n", "not defined"));
  EXPECT_TRUE(rejects("in %0 f32 4\nout %0\nin %1 f32 4\n", "before"));
  EXPECT_TRUE(rejects("in %0 f32 4\nout %0\nop %1 neg f32 4 (%0)\n", "before"));
}

TEST(HostParser, RejectsBadOps) {
  EXPECT_TRUE(rejects("in %0 f32 4\nop %1 frobnicate f32 4 (%0)\nout %1\n",
                      "unknown op 'frobnicate'"));
  EXPECT_TRUE(rejects("in %0 f32 4x4\nop %1 matmul f32 4x4 (%0, %0)\nout %1\n",
                      "gemm"));
  EXPECT_TRUE(
      rejects("in %0 f32 4\nop %1 neg f32 4 %0\nout %1\n", "expected '('"));
  EXPECT_TRUE(
      rejects("in %0 f32 4\nop %1 neg f32 4 (%0\nout %1\n", "missing ')'"));
  EXPECT_TRUE(rejects("in %0 f32 4\nop %1 neg f32 4 (%0, %0)\nout %1\n",
                      "expected 1 operands"));
  EXPECT_TRUE(rejects("in %0 f32 4\nop %1 neg f32 4 (_)\nout %1\n",
                      "may not be absent"));
  EXPECT_TRUE(rejects("in %0 f32 4\nop %1 neg f32 8 (%0)\nout %1\n",
                      "result 0 is f32 8 but the op computes f32 4"));
  EXPECT_TRUE(
      rejects("in %0 f32 4\nop %1 exp i32 4 (%0)\nout %1\n", "computes f32"));
  EXPECT_TRUE(rejects("in %0 i32 4\nop %1 exp i32 4 (%0)\nout %1\n",
                      "must be a float tensor"));
  // Bitwise ops take i1, i32, i64 only.
  EXPECT_TRUE(rejects("in %0 f32 4\nop %1 bitwise_not f32 4 (%0)\nout %1\n",
                      "must be an integer tensor (i1, i32, i64), got f32"));
  EXPECT_TRUE(rejects("in %0 ui8 4\nop %1 bitwise_and ui8 4 (%0, %0)\nout %1\n",
                      "must be an integer tensor (i1, i32, i64), got ui8"));
  EXPECT_TRUE(rejects("in %0 f64 4\nop %1 bitwise_xor f64 4 (%0, %0)\nout %1\n",
                      "must be an integer tensor"));
  // Shifts take i32 / i64 only.
  EXPECT_TRUE(rejects("in %0 i1 4\nop %1 shift_left i1 4 (%0, %0)\nout %1\n",
                      "must be an i32 or i64 tensor, got i1"));
  EXPECT_TRUE(rejects("in %0 f32 4\nop %1 shift_right f32 4 (%0, %0)\nout %1\n",
                      "must be an integer tensor"));
  EXPECT_TRUE(rejects("in %0 f32 4\nin %1 f32 3\n"
                      "op %2 add f32 4 (%0, %1)\nout %2\n",
                      "not broadcast-compatible (4, 3)"));
  EXPECT_TRUE(rejects("in %0 f32 4\nin %1 f64 4\n"
                      "op %2 add f32 4 (%0, %1)\nout %2\n",
                      "differ in dtype"));
  EXPECT_TRUE(rejects("in %0 f32 4\nin %1 f32 4\n"
                      "op %2 select f32 4 (%0, %1, %1)\nout %2\n",
                      "condition must be i1"));
}

TEST(HostParser, RejectsBadAttributes) {
  EXPECT_TRUE(rejects("in %0 f32 4\nop %1 gelu f32 4 (%0)\nout %1\n",
                      "missing attribute 'approximate'"));
  EXPECT_TRUE(rejects("in %0 f32 4\nop %1 gelu f32 4 (%0) approximate=fast\n"
                      "out %1\n",
                      "unknown value 'fast'"));
  EXPECT_TRUE(rejects("in %0 f32 4\nop %1 neg f32 4 (%0) color=red\nout %1\n",
                      "unknown attribute 'color'"));
  EXPECT_TRUE(rejects("in %0 f32 4\nop %1 pow f32 4 (%0) exponent=two\n"
                      "out %1\n",
                      "not a number"));
  EXPECT_TRUE(rejects("in %0 f32 4\nop %1 pow f32 4 (%0) exponent=2 "
                      "exponent=3\nout %1\n",
                      "given twice"));
  EXPECT_TRUE(rejects("in %0 f32 4\nop %1 pow f32 4 (%0) exponent\nout %1\n",
                      "expected key=value"));
  EXPECT_TRUE(rejects("in %0 f32 2x3\n"
                      "op %1 transpose f32 3x2 (%0) permutation=[0,0]\n"
                      "out %1\n",
                      "not a permutation"));
  EXPECT_TRUE(rejects("in %0 f32 2x3\n"
                      "op %1 transpose f32 3x2 (%0) permutation=[1,0\n"
                      "out %1\n",
                      "unterminated list"));
  EXPECT_TRUE(rejects("in %0 f32 8\n"
                      "op %1 slice f32 4 (%0) start=[6] limit=[10] step=[1]\n"
                      "out %1\n",
                      "slice bounds"));
  EXPECT_TRUE(rejects("in %0 f32 8\n"
                      "op %1 slice f32 4 (%0) start=[0] limit=[4] step=[0]\n"
                      "out %1\n",
                      "slice bounds"));
  EXPECT_TRUE(rejects("in %0 f32 8\n"
                      "op %1 reduce_sum f32 scalar (%0) dims=[1] "
                      "keepdim=false\nout %1\n",
                      "out of range"));
  EXPECT_TRUE(rejects("in %0 f32 8x2\n"
                      "op %1 reduce_sum f32 scalar (%0) dims=[0,-2] "
                      "keepdim=false\nout %1\n",
                      "repeat"));
  EXPECT_TRUE(rejects("in %0 f32 8\nin %1 i64 scalar\n"
                      "op %2 dropout f32 8 (%0, %1, %1) p=1.0\nout %2\n",
                      "[0, 1)"));
  EXPECT_TRUE(rejects("op %0 constant f32 3 () value=[1,2]\nout %0\n",
                      "expected 1 (splat) or 3"));
  EXPECT_TRUE(
      rejects("op %0 constant i1 3 () value=[2]\nout %0\n", "does not fit i1"));
  EXPECT_TRUE(rejects("op %0 constant i32 1 () value=[1.5]\nout %0\n",
                      "not an integer"));
  EXPECT_TRUE(rejects("in %0 f32 4x5\n"
                      "op %1 pad f32 4x8 (%0) low=[0,0] high=[0,-3] value=0\n"
                      "out %1\n",
                      "non-negative"));
  EXPECT_TRUE(rejects("in %0 i32 4\n"
                      "op %1 pad i32 5 (%0) low=[1] high=[0] value=0.5\n"
                      "out %1\n",
                      "integer"));
}

TEST(HostParser, RejectsBadNNOps) {
  const char *lnHead = "in %0 f32 8x32\nin %1 f32 16\n";
  EXPECT_TRUE(rejects(std::string(lnHead) +
                          "op %2 layer_norm f32 8x32 (%0, %1, _) eps=1e-05 "
                          "normalized_rank=1\n"
                          "op %3 result f32 8x1 (%2) index=1\n"
                          "op %4 result f32 8x1 (%2) index=2\nout %2\n",
                      "weight/bias must be float of shape 32"));
  EXPECT_TRUE(rejects("in %0 f32 8x32\n"
                      "op %2 layer_norm f32 8x32 (%0, _, _) eps=1e-05 "
                      "normalized_rank=1\nout %2\n",
                      "expected 'result' lines"));
  EXPECT_TRUE(rejects("in %0 f32 8x32\n"
                      "op %2 layer_norm f32 8x32 (%0, _, _) eps=1e-05 "
                      "normalized_rank=1\n"
                      "op %3 result f32 8x1 (%2) index=2\nout %2\n",
                      "index=1"));
  EXPECT_TRUE(rejects("in %0 f32 8x32\nop %3 result f32 8x1 (%0) index=1\n"
                      "out %3\n",
                      "without a multi-result op"));
  EXPECT_TRUE(rejects("in %0 f32 8x32\n"
                      "op %2 rms_norm f32 8x32 (%0, _) eps=0 "
                      "normalized_rank=1\n"
                      "op %3 result f32 8x1 (%2) index=1\nout %2\n",
                      "eps must be positive"));
  EXPECT_TRUE(rejects("in %0 f32 8x32\n"
                      "op %2 rms_norm f32 8x32 (%0, _) eps=1e-6 "
                      "normalized_rank=1\n"
                      "op %3 result bf16 8x1 (%2) index=1\nout %2\n",
                      "result 1 is bf16 8x1 but the op computes f32 8x1"));
  EXPECT_TRUE(rejects("in %0 f32 8x10\nin %1 i64 7\n"
                      "op %2 cross_entropy f32 scalar (%0, %1) "
                      "ignore_index=-100 label_smoothing=0 reduction=mean\n"
                      "out %2\n",
                      "one label per row"));
  EXPECT_TRUE(rejects("in %0 f32 8x10\nin %1 f32 8\n"
                      "op %2 embedding f32 8x10 (%0, %1)\nout %2\n",
                      "ids must be i32 or i64"));
  EXPECT_TRUE(rejects("in %0 f32 4x8\n"
                      "op %1 softmax f32 4x8 (%0) dim=2\nout %1\n",
                      "out of range"));
  // embedding_grad: dy is ids.shape + [D], the table [V, D] of dy's dtype.
  EXPECT_TRUE(rejects("in %0 f32 3x2\nin %1 i64 2\n"
                      "op %2 embedding_grad f32 4x2 (%0, %1)\nout %2\n",
                      "dy must have shape ids.shape + [D] = 2x2, got f32 3x2"));
  EXPECT_TRUE(rejects("in %0 f32 2x2\nin %1 f32 2\n"
                      "op %2 embedding_grad f32 4x2 (%0, %1)\nout %2\n",
                      "ids must be i32 or i64"));
  EXPECT_TRUE(rejects("in %0 f32 2x2\nin %1 i32 2\n"
                      "op %2 embedding_grad bf16 4x2 (%0, %1)\nout %2\n",
                      "result 0 is bf16 4x2 but the op computes f32 4x2"));
  EXPECT_TRUE(rejects("in %0 f32 2x2\nin %1 i32 2\n"
                      "op %2 embedding_grad f32 8 (%0, %1)\nout %2\n",
                      "the result must be a 2-d table [V, D]"));
}

/// An adamw8bit program over 300 elements (2 blocks of 256) with `attrs`,
/// with `absmax` as the absmax shape and `param` as the param dtype.
std::string adamw8bit(const std::string &attrs, const std::string &absmax = "2",
                      const std::string &param = "f32") {
  return "in %0 " + param + " 300\nin %1 f32 300\nin %2 ui8 300\nin %3 f32 " +
         absmax + "\nin %4 ui8 300\nin %5 f32 " + absmax +
         "\nin %6 f32 scalar\nin %7 i64 scalar\n"
         "op %8 adamw8bit " +
         param + " 300 (%0, %1, %2, %3, %4, %5, %6, %7) " + attrs +
         "\nop %9 result ui8 300 (%8) index=1\n"
         "op %10 result f32 " +
         absmax +
         " (%8) index=2\n"
         "op %11 result ui8 300 (%8) index=3\n"
         "op %12 result f32 " +
         absmax + " (%8) index=4\nout %8\nout %9\n";
}

TEST(HostParser, AdamW8bit) {
  const std::string header = "tfc-host-program 1\nkind block_quantized\n";
  const std::string ok =
      "beta1=0.9 beta2=0.999 eps=1e-08 weight_decay=0.01 block_size=256";
  HostProgram prog;
  Status s = parseHostProgram(header + adamw8bit(ok), prog);
  ASSERT_TRUE(s.isOk()) << s.message();
  EXPECT_EQ(prog.kind, "block_quantized");
  EXPECT_EQ(prog.values[prog.inputs[2]].dtype, DType::U8);
  EXPECT_EQ(prog.ops[0].optimizer.blockSize, 256);
  EXPECT_TRUE(rejects(adamw8bit("beta1=0.9 beta2=0.999 eps=1e-08 "
                                "weight_decay=0.01 block_size=100"),
                      "block_size must be a power of two", header));
  EXPECT_TRUE(rejects(adamw8bit("beta1=0.9 beta2=0.999 eps=1e-08 "
                                "weight_decay=0.01 block_size=2048"),
                      "'block_size' must be an integer in [32, 1024]", header));
  EXPECT_TRUE(rejects(adamw8bit("beta1=1 beta2=0.999 eps=1e-08 "
                                "weight_decay=0.01 block_size=256"),
                      "beta1 out of range", header));
  EXPECT_TRUE(rejects(adamw8bit(ok, "3"), "(absmax) must be f32 2", header));
  EXPECT_TRUE(rejects(adamw8bit(ok, "2", "f64"), "param must be an f32 tensor",
                      header));
  EXPECT_TRUE(rejects(adamw8bit("beta1=0.9 beta2=0.999 eps=1e-08 "
                                "weight_decay=0.01"),
                      "missing attribute 'block_size'", header));
}

TEST(HostParser, SurvivesGarbage) {
  // Random bytes, NULs, very long lines and truncations must all fail
  // cleanly.
  std::string good = "tfc-host-program 1\nkind pointwise\nin %0 f32 4\n"
                     "op %1 gelu f32 4 (%0) approximate=none\nout %1\n";
  for (size_t cut = 0; cut < good.size(); ++cut) {
    HostProgram prog;
    (void)parseHostProgram(good.substr(0, cut), prog);
  }
  std::string junk;
  uint32_t x = 12345;
  for (int i = 0; i < 4096; ++i) {
    x = x * 1103515245u + 12345u;
    junk.push_back(char(x >> 24));
  }
  HostProgram prog;
  EXPECT_FALSE(parseHostProgram(junk, prog).isOk());
  EXPECT_FALSE(
      parseHostProgram(std::string("tfc-host-program 1\0x", 20), prog).isOk());
  EXPECT_FALSE(parseHostProgram(std::string(kHeader) + "in %0 f32 " +
                                    std::string(100000, '9') + "\nout %0\n",
                                prog)
                   .isOk());
}
