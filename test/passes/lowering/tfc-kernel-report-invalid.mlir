// RUN: tfc-opt %s --verify-diagnostics --tfc-kernel-report
// RUN: not tfc-opt %s --tfc-lower-to-exec=function=loss '--tfc-kernel-report=format=yaml' 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not tfc-opt %s --tfc-lower-to-exec=function=loss '--tfc-kernel-report=output=%t.missing/report.txt' 2>&1 | FileCheck %s --check-prefix=FILE

// The report needs a lowered module: a graph-level function has no launches.
// expected-error @+1 {{--tfc-kernel-report: the module has no tfcrt.entry; lower it first (--tfc-lower-to-exec or --tfc-train-pipeline)}}
module {
  func.func @loss(%x: tensor<4xf32> {tfc.input = "x"}) -> tensor<4xf32> {
    %0 = tfc.relu %x : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// Only text and json are formats.
// FORMAT: error: --tfc-kernel-report: unknown format 'yaml' (expected text or json)

// A report file that cannot be created is a clear error.
// FILE: error: --tfc-kernel-report: cannot write '{{.*}}report.txt': {{.*}}
