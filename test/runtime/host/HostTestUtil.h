//===- HostTestUtil.h - helpers for the host backend tests ------*- C++ -*-===//

#ifndef TFC_TEST_RUNTIME_HOST_HOSTTESTUTIL_H
#define TFC_TEST_RUNTIME_HOST_HOSTTESTUTIL_H

#include "runtime/src/core/DType.h"
#include "runtime/src/host/HostInterpreter.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace tfc::rt::host::test {

/// A tensor in storage format.
struct Buf {
  DType dtype = DType::F32;
  std::vector<uint8_t> bytes;

  int64_t size() const { return int64_t(bytes.size()) / dtypeSize(dtype); }
  /// Element i as double (16-bit floats widened exactly).
  double at(int64_t i) const {
    const uint8_t *p = bytes.data() + i * dtypeSize(dtype);
    switch (dtype) {
    case DType::F32: {
      float f;
      std::memcpy(&f, p, 4);
      return f;
    }
    case DType::F64: {
      double d;
      std::memcpy(&d, p, 8);
      return d;
    }
    case DType::F16: {
      uint16_t h;
      std::memcpy(&h, p, 2);
      return halfToFloat(h);
    }
    case DType::BF16: {
      uint16_t h;
      std::memcpy(&h, p, 2);
      return bfloat16ToFloat(h);
    }
    case DType::I32: {
      int32_t v;
      std::memcpy(&v, p, 4);
      return v;
    }
    case DType::I64: {
      int64_t v;
      std::memcpy(&v, p, 8);
      return double(v);
    }
    case DType::I1:
    case DType::U8:
      return *p;
    }
    return 0;
  }
  std::vector<double> values() const {
    std::vector<double> v;
    for (int64_t i = 0; i < size(); ++i)
      v.push_back(at(i));
    return v;
  }
};

/// Makes a tensor of `dtype` from doubles (rounded to nearest even for
/// 16-bit floats, truncated for integers).
inline Buf make(DType dtype, const std::vector<double> &v) {
  Buf b;
  b.dtype = dtype;
  b.bytes.resize(v.size() * dtypeSize(dtype));
  for (size_t i = 0; i < v.size(); ++i) {
    uint8_t *p = b.bytes.data() + i * dtypeSize(dtype);
    switch (dtype) {
    case DType::F32: {
      float f = float(v[i]);
      std::memcpy(p, &f, 4);
      break;
    }
    case DType::F64:
      std::memcpy(p, &v[i], 8);
      break;
    case DType::F16: {
      uint16_t h = floatToHalf(float(v[i]));
      std::memcpy(p, &h, 2);
      break;
    }
    case DType::BF16: {
      uint16_t h = floatToBFloat16(float(v[i]));
      std::memcpy(p, &h, 2);
      break;
    }
    case DType::I32: {
      int32_t x = int32_t(int64_t(v[i]));
      std::memcpy(p, &x, 4);
      break;
    }
    case DType::I64: {
      int64_t x = int64_t(v[i]);
      std::memcpy(p, &x, 8);
      break;
    }
    case DType::I1:
      *p = v[i] != 0;
      break;
    case DType::U8:
      *p = uint8_t(int64_t(v[i]));
      break;
    }
  }
  return b;
}
inline Buf f32(const std::vector<double> &v) { return make(DType::F32, v); }
inline Buf f64(const std::vector<double> &v) { return make(DType::F64, v); }
inline Buf i64(const std::vector<double> &v) { return make(DType::I64, v); }

/// Parses `program` and runs it on `inputs` with `chunk` elements per chunk;
/// returns the outputs (or fails the test and returns nothing). `status`
/// receives the run's status when given (then a failed run is not a test
/// failure). `foldViews` as Interpreter's.
inline std::vector<Buf> runProgram(const std::string &program,
                                   const std::vector<Buf> &inputs,
                                   int64_t chunk = kDefaultChunkElements,
                                   Status *status = nullptr,
                                   bool foldViews = true) {
  std::unique_ptr<Interpreter> interp;
  Status s = Interpreter::create(program, interp, chunk, foldViews);
  EXPECT_TRUE(s.isOk()) << s.message();
  if (!s.isOk())
    return {};
  const HostProgram &prog = interp->program();
  std::vector<Buf> outs(prog.outputs.size());
  std::vector<const void *> in;
  std::vector<void *> out;
  for (const Buf &b : inputs)
    in.push_back(b.bytes.data());
  for (size_t i = 0; i < outs.size(); ++i) {
    const ValueType &t = prog.values[prog.outputs[i]];
    outs[i].dtype = t.dtype;
    // Poison, so an output the interpreter forgets to write shows up.
    outs[i].bytes.assign(t.numel * dtypeSize(t.dtype), 0xA5);
    out.push_back(outs[i].bytes.data());
  }
  s = interp->run(in, out);
  if (status)
    *status = s;
  else
    EXPECT_TRUE(s.isOk()) << s.message();
  return outs;
}

/// Wraps op lines into a program of kind `kind`.
inline std::string program(const std::string &body,
                           const std::string &kind = "pointwise") {
  return "tfc-host-program 1\nkind " + kind + "\n" + body;
}

inline const double kNaN = std::numeric_limits<double>::quiet_NaN();
inline const double kInf = std::numeric_limits<double>::infinity();

/// Runs `body` (a program of one output) and returns the output's values.
inline std::vector<double> run1(const std::string &body,
                                const std::vector<Buf> &inputs,
                                const std::string &kind = "pointwise") {
  auto outs = runProgram(program(body, kind), inputs);
  return outs.empty() ? std::vector<double>{} : outs[0].values();
}

/// Expects `got` to equal `want` within `tol` relative (absolute below 1);
/// NaN where `want` has NaN, infinities exactly.
inline void expectNear(const std::vector<double> &got,
                       const std::vector<double> &want, double tol = 1e-6) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (got[i] == want[i]) // also infinities
      continue;
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << "element " << i;
      continue;
    }
    EXPECT_NEAR(got[i], want[i], tol * std::max(1.0, std::abs(want[i])))
        << "element " << i;
  }
}

} // namespace tfc::rt::host::test

#endif // TFC_TEST_RUNTIME_HOST_HOSTTESTUTIL_H
