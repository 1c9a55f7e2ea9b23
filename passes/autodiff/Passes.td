//===- Passes.td - tfc autodiff passes ------------------------------------===//
//
// Reverse-mode differentiation of a loss function (issue 4). Each pass lives
// in its own file; the base classes are generated from these definitions.
//
//===----------------------------------------------------------------------===//

#ifndef TFC_PASSES_AUTODIFF_PASSES_TD
#define TFC_PASSES_AUTODIFF_PASSES_TD

include "mlir/Pass/PassBase.td"

def TfcAutodiffPass : Pass<"tfc-autodiff", "::mlir::ModuleOp"> {
  let summary = "Derive the gradient function of a loss by reverse mode";
  let description = [{
    Adds to the module a function `@<function>_grad` with the arguments of
    `@<function>` (default `@loss`) that returns the loss followed by one
    gradient per `tfc.param` argument, in argument order, named for the
    runtime: `{tfc.output = "loss"}`, then `{tfc.output = "grad.P"}` for
    parameter P. The original function is kept unchanged. Example:

    ```mlir
    func.func @loss(%w: tensor<4x8xf32> {tfc.param = "w"},
                    %x: tensor<2x8xf32> {tfc.input = "x"}) -> tensor<f32>
    // becomes, in addition:
    func.func @loss_grad(%w: tensor<4x8xf32> {tfc.param = "w"},
                         %x: tensor<2x8xf32> {tfc.input = "x"})
        -> (tensor<f32> {tfc.output = "loss"},
            tensor<4x8xf32> {tfc.output = "grad.w"})
    ```

    The body is the forward followed by the backward: a reverse walk over
    the single block seeds the loss with 1 and asks each op on a path from
    a parameter to the loss for its vector-Jacobian product through
    `DifferentiableOpInterface`. A value used several times (a tied
    weight, a residual stream) gets the sum of its cotangents (`tfc.add`).
    A parameter that does not reach the loss gets a zero gradient. Ops off
    that path (mask construction, integer index arithmetic) are never
    differentiated. Composite ops differentiate as wholes (attention
    recomputes its probabilities in the backward), so the pass runs before
    --tfc-decompose; dead forward values are removed afterwards.

    Errors (with the offending location): no function named `function`;
    a function with more than one block; no `tfc.param` argument; a result
    that is not a single 0-d float tensor; an op on the path that is not
    differentiable (e.g. `tfc.fusion`, `func.call`), or whose VJP does not
    apply (e.g. a gradient through layer_norm's statistics); an existing
    symbol named `@<function>_grad`.
  }];
  let dependentDialects = ["::mlir::tfc::TfcDialect"];
  let options = [
    Option<"function", "function", "std::string", /*default=*/"\"loss\"",
           "The loss function to differentiate">,
  ];
}

#endif // TFC_PASSES_AUTODIFF_PASSES_TD
