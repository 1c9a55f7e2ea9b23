// tfc-fuzz: optimizer=adamw8bit target=host fusion=none
// mlp: a 2-layer perceptron classifier, the smallest complete training example.
// 64 input features -> 128 hidden units (ReLU) -> 10 classes, batch 32,
// mean cross-entropy against integer labels. Parameters are named as the
// state dict of torch.nn.Sequential(fc1=Linear(64, 128), ReLU, fc2=Linear(128, 10)).
func.func @loss(
    %fc1_weight: tensor<128x64xf32> {tfc.param = "fc1.weight"},
    %fc1_bias: tensor<128xf32> {tfc.param = "fc1.bias"},
    %fc2_weight: tensor<10x128xf32> {tfc.param = "fc2.weight"},
    %fc2_bias: tensor<10xf32> {tfc.param = "fc2.bias"},
    %x: tensor<32x64xf32> {tfc.input = "x"},
    %labels: tensor<32xi64> {tfc.input = "labels"}) -> tensor<f32> {
  // Hidden layer: relu(x @ fc1.weight^T + fc1.bias).
  %h_mm = tfc.matmul %x, %fc1_weight transpose_b : tensor<32x64xf32>, tensor<128x64xf32> -> tensor<32x128xf32>
  %h_pre = tfc.add %h_mm, %fc1_bias : tensor<32x128xf32>, tensor<128xf32>
  %h = tfc.relu %h_pre : tensor<32x128xf32>
  // Output layer: logits = h @ fc2.weight^T + fc2.bias.
  %logits_mm = tfc.matmul %h, %fc2_weight transpose_b : tensor<32x128xf32>, tensor<10x128xf32> -> tensor<32x10xf32>
  %logits = tfc.add %logits_mm, %fc2_bias : tensor<32x10xf32>, tensor<10xf32>
  %loss = tfc.cross_entropy %logits, %labels : tensor<32x10xf32>, tensor<32xi64> -> tensor<f32>
  return %loss : tensor<f32>
}
