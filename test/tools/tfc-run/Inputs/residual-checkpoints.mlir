// Three residual GELU layers marked as recompute blocks with tfc.checkpoint
// (their parameter names carry no layer numbers, so only the marks make
// blocks), then a linear head and cross-entropy. Used by
// recompute-checkpoint.test.
func.func @loss(%x: tensor<256x64xf32> {tfc.input = "x"},
                %y: tensor<256xi64> {tfc.input = "y"},
                %wa: tensor<64x64xf32> {tfc.param = "first.weight"},
                %ba: tensor<64xf32> {tfc.param = "first.bias"},
                %wb: tensor<64x64xf32> {tfc.param = "second.weight"},
                %bb: tensor<64xf32> {tfc.param = "second.bias"},
                %wc: tensor<64x64xf32> {tfc.param = "third.weight"},
                %bc: tensor<64xf32> {tfc.param = "third.bias"},
                %head: tensor<10x64xf32> {tfc.param = "head.weight"}) -> tensor<f32> {
  %h1 = tfc.checkpoint (%a = %x : tensor<256x64xf32>, %w = %wa : tensor<64x64xf32>, %b = %ba : tensor<64xf32>) -> tensor<256x64xf32> {
    %0 = tfc.matmul %a, %w transpose_b : tensor<256x64xf32>, tensor<64x64xf32> -> tensor<256x64xf32>
    %1 = tfc.add %0, %b : tensor<256x64xf32>, tensor<64xf32>
    %2 = tfc.gelu %1 approximate tanh : tensor<256x64xf32>
    %3 = tfc.tanh %2 : tensor<256x64xf32>
    %4 = tfc.mul %2, %3 : tensor<256x64xf32>, tensor<256x64xf32>
    %5 = tfc.add %a, %4 : tensor<256x64xf32>, tensor<256x64xf32>
    tfc.yield %5 : tensor<256x64xf32>
  }
  %h2 = tfc.checkpoint (%a = %h1 : tensor<256x64xf32>, %w = %wb : tensor<64x64xf32>, %b = %bb : tensor<64xf32>) -> tensor<256x64xf32> {
    %0 = tfc.matmul %a, %w transpose_b : tensor<256x64xf32>, tensor<64x64xf32> -> tensor<256x64xf32>
    %1 = tfc.add %0, %b : tensor<256x64xf32>, tensor<64xf32>
    %2 = tfc.gelu %1 approximate tanh : tensor<256x64xf32>
    %3 = tfc.tanh %2 : tensor<256x64xf32>
    %4 = tfc.mul %2, %3 : tensor<256x64xf32>, tensor<256x64xf32>
    %5 = tfc.add %a, %4 : tensor<256x64xf32>, tensor<256x64xf32>
    tfc.yield %5 : tensor<256x64xf32>
  }
  %h3 = tfc.checkpoint (%a = %h2 : tensor<256x64xf32>, %w = %wc : tensor<64x64xf32>, %b = %bc : tensor<64xf32>) -> tensor<256x64xf32> {
    %0 = tfc.matmul %a, %w transpose_b : tensor<256x64xf32>, tensor<64x64xf32> -> tensor<256x64xf32>
    %1 = tfc.add %0, %b : tensor<256x64xf32>, tensor<64xf32>
    %2 = tfc.gelu %1 approximate tanh : tensor<256x64xf32>
    %3 = tfc.tanh %2 : tensor<256x64xf32>
    %4 = tfc.mul %2, %3 : tensor<256x64xf32>, tensor<256x64xf32>
    %5 = tfc.add %a, %4 : tensor<256x64xf32>, tensor<256x64xf32>
    tfc.yield %5 : tensor<256x64xf32>
  }
  %logits = tfc.matmul %h3, %head transpose_b : tensor<256x64xf32>, tensor<10x64xf32> -> tensor<256x10xf32>
  %loss = tfc.cross_entropy %logits, %y : tensor<256x10xf32>, tensor<256xi64> -> tensor<f32>
  return %loss : tensor<f32>
}
