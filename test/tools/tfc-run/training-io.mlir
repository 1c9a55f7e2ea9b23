// tfc-run's naming and defaults around training. --grad names its outputs
// after what they are: the loss, then grad.<parameter> per tfc.param
// argument. A training program run with --seed fills parameters and data
// randomly but never its learning-rate inputs (a random lr may be negative):
// they take tfc-train's defaults and tfc-run says so; with warmup-linear over
// 4 steps (total_steps = --steps) the rate decays from 3e-4 to 0. The train
// step's saved state (parameters and the step counter) then feeds the
// forward: the tensor it has no external for is skipped with a notice.
// RUN: rm -rf %t && mkdir -p %t
// RUN: tfc-run %s --grad --seed 1 --device host --quiet --outputs %t/grad.safetensors
// RUN: python3 -c "import json,struct,sys; d=open(sys.argv[1],'rb').read(); n=struct.unpack('<Q',d[:8])[0]; print(sorted(k for k in json.loads(d[8:8+n]) if k != '__metadata__'))" %t/grad.safetensors | FileCheck %s --check-prefix=GRAD
// RUN: tfc-run %s --train-step "optimizer=sgd schedule=warmup-linear" --seed 1 --steps 4 --device host --trace %t/trace.jsonl 2>&1 | FileCheck %s --check-prefix=NOTICE
// RUN: FileCheck %s --check-prefix=TRACE < %t/trace.jsonl
// RUN: tfc-run %s --train-step "optimizer=sgd" --seed 1 --device host --quiet --state-out %t/state.safetensors
// RUN: tfc-run %s --seed 1 --inputs %t/state.safetensors --device host 2>&1 | FileCheck %s --check-prefix=EXTRA

// GRAD: ['grad.b', 'grad.w', 'loss']
// NOTICE: tfc-run: --seed: learning-rate inputs take their defaults, not random values: lr = 0.0003, min_lr = 0, warmup_steps = 0, total_steps = 4 (give them in --inputs to change them)
// TRACE: "run": 0, "step": 1, {{.*}}"applied_lr": 0.000300000014}
// TRACE: "run": 3, "step": 4, {{.*}}"applied_lr": 0}
// EXTRA: tfc-run: --inputs: ignored 1 tensor(s) the program has no external for: step
// EXTRA: loss: f32

func.func @loss(%w: tensor<3x4xf32> {tfc.param = "w"}, %b: tensor<4xf32> {tfc.param = "b"},
                %x: tensor<2x3xf32> {tfc.input = "x"}) -> tensor<f32> {
  %y = tfc.matmul %x, %w : tensor<2x3xf32>, tensor<3x4xf32> -> tensor<2x4xf32>
  %z = tfc.add %y, %b : tensor<2x4xf32>, tensor<4xf32>
  %s = tfc.mul %z, %z : tensor<2x4xf32>, tensor<2x4xf32>
  %l = tfc.reduce_sum %s dims [0, 1] : tensor<2x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
