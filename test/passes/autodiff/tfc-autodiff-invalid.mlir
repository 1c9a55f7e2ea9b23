// RUN: tfc-opt %s --split-input-file --tfc-autodiff --verify-diagnostics

// One case per error of --tfc-autodiff.

// No tfc.param argument: nothing to differentiate.
// expected-error @+1 {{--tfc-autodiff: @loss has no argument marked tfc.param: nothing to differentiate}}
func.func @loss(%x: tensor<4xf32> {tfc.input = "x"}) -> tensor<f32> {
  %s = tfc.reduce_sum %x dims [0] : tensor<4xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// The loss must be a single 0-d float tensor.
// expected-error @+1 {{--tfc-autodiff: @loss must return one scalar loss (a 0-d floating-point tensor), then only updates of model state ({tfc.update}), got (tensor<4xf32>)}}
func.func @loss(%x: tensor<4xf32> {tfc.param = "x"}) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

// Two results are not a loss either.
// expected-error @+1 {{must return one scalar loss (a 0-d floating-point tensor), then only updates of model state ({tfc.update}), got (tensor<f32>, tensor<f32>)}}
func.func @loss(%x: tensor<f32> {tfc.param = "x"}) -> (tensor<f32>, tensor<f32>) {
  return %x, %x : tensor<f32>, tensor<f32>
}

// -----

// An op without a VJP on the path from a parameter to the loss.
func.func @loss(%x: tensor<4xf32> {tfc.param = "x"}) -> tensor<f32> {
  // expected-error @+1 {{'tfc.fusion' is not differentiable but lies on the path from a parameter to the loss}}
  %y = tfc.fusion pointwise (%a = %x : tensor<4xf32>) -> (tensor<4xf32>) {
    %e = tfc.exp %a : tensor<4xf32>
    tfc.yield %e : tensor<4xf32>
  }
  %s = tfc.reduce_sum %y dims [0] : tensor<4xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// The function to differentiate must exist.
// expected-error @+1 {{--tfc-autodiff: no func.func @loss to differentiate (choose one with function=<name>)}}
module {
  func.func @other(%x: tensor<f32> {tfc.param = "x"}) -> tensor<f32> {
    return %x : tensor<f32>
  }
}

// -----

// The gradient function's name must be free.
// expected-error @+1 {{--tfc-autodiff: the module already has a symbol @loss_grad}}
func.func @loss(%x: tensor<f32> {tfc.param = "x"}) -> tensor<f32> {
  return %x : tensor<f32>
}
func.func @loss_grad() {
  return
}
