"""torchvision's models and ops: modules written by others, imported and run
by `tfc-run --grad`, loss and every gradient against torch.autograd.

Each model classifies (or segments) a small batch of 2 images (or clips)
at a small size with 10 classes; models with batch norm run in eval mode
(running statistics), resnet18 also in training mode (batch statistics) at
64 x 64, where each channel still has several values per batch (with 2
values, as a 1 x 1 map of 2 images gives, batch norm's gradients are
rounding noise in float32, torch's and tfc's alike); densenet121 with its
memory-efficient blocks (torch.utils.checkpoint). A case passes when tfc's
loss and gradients equal torch's float32 ones (check_models' tolerances:
1e-5 relative for the loss, 1e-4 of the largest magnitude per gradient),
or, for an ill-conditioned model (inception_v3's truncated-normal
initialization grows its activations to 1e10), when the farthest of them
from torch's float64 results is at most 4 times as far as the farthest of
torch's own float32 ones.
torchvision.ops: the box IoU losses (masked assignments, tfc_torch/masked.py),
sigmoid focal loss, Conv2dNormActivation / SqueezeExcitation /
FrozenBatchNorm2d / MLP / Permute / StochasticDepth (eval), a feature
pyramid; its compiled ops (deform_conv2d, roi_align) are refused with an
error naming them.

Usage: check_torchvision.py --tfc-run BIN [--case NAME ...] [--device host|cuda]
Exit codes: 0 pass, 1 failure, 77 torchvision not installed or device unavailable.
"""
import argparse
import copy
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import check_models  # noqa: E402  (sets up the import path of tfc_torch)

try:
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    import torchvision.models as tvm
    import torchvision.ops as tvo
    from torchvision.models import convnext, maxvit, swin_transformer, vision_transformer
except ImportError as e:
    print(f"skipped: {e} (Debian's python3-torchvision; scripts/setup installs it)")
    sys.exit(check_models.SKIP)


def _g(seed):
    return torch.Generator().manual_seed(seed)


class _Classifier(nn.Module):
    """A torchvision model and cross-entropy on its logits (or, for
    segmentation, on its "out" map against each image's class)."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x, y):
        out = self.model(x)
        if isinstance(out, dict):
            out = out["out"]
            return F.cross_entropy(out, y[:, None, None].expand(-1, *out.shape[2:]))
        return F.cross_entropy(out, y)


def _model(ctor, size=32, train=False, video=False, **kwargs):
    def make():
        torch.manual_seed(0)
        model = _Classifier(ctor(num_classes=10, **kwargs))
        model.train(train)
        shape = (2, 3, 4, size, size) if video else (2, 3, size, size)
        return model, (torch.randn(*shape, generator=_g(1)), torch.tensor([1, 3]))
    return make


class _Boxes(nn.Module):
    """Predicted boxes (x1, y1, x2, y2) from a linear layer against targets."""

    def __init__(self, loss):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.loss = loss

    def forward(self, x, target):
        b = self.fc(x)
        corner = 0.3 + 0.2 * b[:, :2]
        return self.loss(torch.cat([corner, corner + F.softplus(b[:, 2:]) + 0.1], 1), target)


def _boxes(loss):
    def make():
        torch.manual_seed(0)
        corner = torch.rand(8, 2, generator=_g(2))
        target = torch.cat([corner, corner + torch.rand(8, 2, generator=_g(3)) + 0.1], 1)
        return _Boxes(loss), (torch.randn(8, 4, generator=_g(1)), target)
    return make


class _Blocks(nn.Module):
    """torchvision.ops' building blocks in eval mode."""

    def __init__(self):
        super().__init__()
        self.conv = tvo.Conv2dNormActivation(3, 8, 3, activation_layer=nn.Hardswish)
        self.se = tvo.SqueezeExcitation(8, 4)
        self.frozen = tvo.FrozenBatchNorm2d(8)
        self.mlp = tvo.MLP(8, [16, 5], norm_layer=nn.LayerNorm, dropout=0.0)
        self.perm = tvo.Permute([0, 2, 3, 1])
        self.depth = tvo.StochasticDepth(0.5, "row")

    def forward(self, x, y):
        h = self.depth(self.perm(self.frozen(self.se(self.conv(x))))).mean((1, 2))
        return F.cross_entropy(self.mlp(h), y) + tvo.sigmoid_focal_loss(
            self.mlp(h), F.one_hot(y, 5).float(), reduction="mean")


class _Pyramid(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 4, 3, 2, 1)
        self.c2 = nn.Conv2d(4, 8, 3, 2, 1)
        self.fpn = tvo.FeaturePyramidNetwork(
            [4, 8], 6, extra_blocks=tvo.feature_pyramid_network.LastLevelMaxPool())

    def forward(self, x):
        a = self.c1(x)
        levels = self.fpn({"a": a, "b": self.c2(a)})
        return sum(v.pow(2).mean() for v in levels.values())


def _image():
    return torch.randn(2, 3, 8, 8, generator=_g(1))


CASES = {
    "resnet18": _model(tvm.resnet18),
    "resnet18-train": _model(tvm.resnet18, size=64, train=True),
    "resnext50": _model(tvm.resnext50_32x4d),
    "mobilenet_v3_small": _model(tvm.mobilenet_v3_small),
    "efficientnet_b0": _model(tvm.efficientnet_b0),
    "regnet_y_400mf": _model(tvm.regnet_y_400mf),
    "shufflenet_v2": _model(tvm.shufflenet_v2_x0_5),
    "squeezenet1_1": _model(tvm.squeezenet1_1, size=64),
    "mnasnet0_5": _model(tvm.mnasnet0_5),
    "densenet121-checkpointed": _model(tvm.densenet121, memory_efficient=True),
    "googlenet": _model(tvm.googlenet, size=64, aux_logits=False, init_weights=True),
    "inception_v3": _model(tvm.inception_v3, size=80, aux_logits=False, init_weights=True),
    "vit": _model(vision_transformer.VisionTransformer, image_size=32, patch_size=8,
                  num_layers=2, num_heads=2, hidden_dim=32, mlp_dim=64),
    "swin_v2": _model(swin_transformer.SwinTransformer, patch_size=[4, 4], embed_dim=16,
                      depths=[2, 2], num_heads=[2, 2], window_size=[4, 4],
                      block=swin_transformer.SwinTransformerBlockV2,
                      downsample_layer=swin_transformer.PatchMergingV2),
    "convnext": _model(convnext.ConvNeXt, block_setting=[convnext.CNBlockConfig(16, 32, 2),
                                                         convnext.CNBlockConfig(32, None, 2)]),
    "maxvit": _model(maxvit.MaxVit, input_size=(32, 32), stem_channels=16, partition_size=2,
                     block_channels=[16, 32], block_layers=[1, 1], head_dim=8,
                     stochastic_depth_prob=0.0),
    "r2plus1d_18": _model(tvm.video.r2plus1d_18, video=True),
    "lraspp": _model(tvm.segmentation.lraspp_mobilenet_v3_large, weights_backbone=None),
    "box-losses": _boxes(lambda b, t: (tvo.generalized_box_iou_loss(b, t, reduction="mean")
                                       + tvo.distance_box_iou_loss(b, t, reduction="sum")
                                       + tvo.complete_box_iou_loss(b, t, reduction="mean")
                                       + tvo.box_iou(b, t).sum()
                                       + tvo.box_convert(b, "xyxy", "cxcywh").pow(2).mean())),
    "blocks": lambda: (_Blocks().eval(), (_image(), torch.tensor([1, 2]))),
    "feature-pyramid": lambda: (_Pyramid(), (_image(),)),
}


class _Deform(nn.Module):
    def __init__(self):
        super().__init__()
        self.offset = nn.Conv2d(3, 18, 3, padding=1)
        self.conv = tvo.DeformConv2d(3, 4, 3, padding=1)

    def forward(self, x):
        return self.conv(x, self.offset(x)).pow(2).mean()


class _RoiAlign(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x):
        rois = torch.tensor([[0, 1.0, 1.0, 5.0, 6.0], [1, 0.5, 2.0, 7.0, 7.5]])
        return tvo.roi_align(self.conv(x), rois, (2, 2), 1.0, 2, True).pow(2).mean()


REFUSED = {"deform-conv2d": (_Deform, "torchvision.deform_conv2d.default"),
           "roi-align": (_RoiAlign, "torchvision.roi_align.default")}


def _as_double(batch):
    return tuple(t.double() if t.is_floating_point() else t for t in batch)


def _distance(have, want):
    """max |have - want| over max |want| (float64)."""
    have, want = have.double(), want.double()
    return ((have - want).abs().max() / want.abs().max().clamp_min(1e-30)).item()


def check(name, factory, tfc_run, device, workdir):
    import tfc_torch
    model, batch = factory()
    stem = os.path.join(workdir, name)
    exported = tfc_torch.export(model, batch, stem + ".mlir")
    exported.save_feed(stem + "-in.safetensors")
    want_loss, want_grads = check_models.torch_loss_and_grads(model, batch, None)
    check_models.run_tfc(tfc_run, stem + ".mlir", stem + "-in.safetensors",
                         stem + "-out.safetensors", device, grad=True)
    got = tfc_torch.safetensors.load(stem + "-out.safetensors")
    have = [got["loss"]] + [got[f"grad.{p}"] for p in exported.params]
    want = [want_loss] + list(want_grads)
    close = torch.allclose(have[0].double(), want[0].double(), rtol=check_models.LOSS_RTOL,
                           atol=check_models.LOSS_ATOL) and all(
        check_models.grad_error(h, w)[2] for h, w in zip(have[1:], want[1:]))
    if close:
        return None
    # Not as torch's float32: as close to torch's float64 results?
    loss64, grads64 = check_models.torch_loss_and_grads(copy.deepcopy(model).double(),
                                                        _as_double(batch), None)
    exact = [loss64] + list(grads64)
    names = ["loss"] + list(exported.params)
    ours = max((_distance(h, e), n) for h, e, n in zip(have, exact, names))
    theirs = max((_distance(w, e), n) for w, e, n in zip(want, exact, names))
    print(f"  {name}: worst distance from torch's float64 results: tfc {ours[0]:.2e} "
          f"({ours[1]}), torch float32 {theirs[0]:.2e} ({theirs[1]})")
    if ours[0] > 4 * max(theirs[0], 1e-7):
        return (f"{ours[1]}: {ours[0]:.2e} from torch's float64 result; torch's float32 at "
                f"worst {theirs[0]:.2e}")
    return None


def check_refused(name, cls, op):
    import tfc_torch
    try:
        tfc_torch.import_module(cls(), (_image(),))
    except tfc_torch.UnsupportedOpError as e:
        return None if op in str(e) else f"the error does not name {op}: {e}"
    return "imported without an error"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tfc-run", required=True)
    parser.add_argument("--case", action="append", choices=sorted(CASES) + sorted(REFUSED))
    parser.add_argument("--device", default="host", choices=["host", "cuda"])
    args = parser.parse_args()
    if check_models.device_missing(args.tfc_run, args.device):
        return check_models.SKIP
    failures = 0
    with tempfile.TemporaryDirectory(prefix="tfc-torchvision-") as workdir:
        for name in args.case or list(CASES) + list(REFUSED):
            try:
                if name in REFUSED:
                    problem = check_refused(name, *REFUSED[name])
                else:
                    problem = check(name, CASES[name], args.tfc_run, args.device, workdir)
            except Exception as e:  # noqa: BLE001 - reported per case
                problem = f"{type(e).__name__}: {str(e)[:1500]}"
            print(("FAIL " if problem else "ok   ") + name + (f": {problem}" if problem else ""),
                  flush=True)
            failures += bool(problem)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
