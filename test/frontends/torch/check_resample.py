"""ops/resample.py's index and weight tables against PyTorch's own: for
every size pair in to out (1-24 -> 1-40) and 17 scale factors, the rows
torch's nearest and nearest-exact interpolation read (an upsampled iota)
and send the gradient to (one-hot output gradients) in 1-, 2- and 3-dim
resizes, contiguous and channels-last (whose kernels differ), linear
interpolation's weights both ways (an upsampled identity matrix; the
gradients of one-hot outputs) with align_corners off and on, and adaptive
pooling's windows (an adaptive average of an identity matrix), all
bit-exact; bicubic weights both ways within 2e-6 (ATen rounds its cubic
differently); antialiased bilinear weights both ways bit-exact, antialiased
bicubic ones within 1e-6 (ATen's differ in the last bits, which no
float / double assignment of its operations here reproduced). No tfc-run
needed: the tables are what the lowerings emit.

Usage: check_resample.py   (exit 0 pass, 1 failure)
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(ROOT, "frontends", "torch"))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from tfc_torch.ops.resample import (adaptive_windows, antialias_table, cubic_table,  # noqa: E402
                                    linear_table, nearest_table)

SCALES = [0.3, 1 / 3, 0.45, 0.5, 0.7, 0.9, 1.0, 1.1, 1.3, 1.5, 1.7, 2.0, 2.2, 2.5, 3.0, 3.3, 4.0]


def cases():
    """(in, scale factor or None, out) triples."""
    out = [(n, None, m) for n in range(1, 25) for m in range(1, 41)]
    out += [(n, s, int(n * s)) for n in range(1, 25) for s in SCALES if int(n * s) >= 1]
    return out


def gradient_rows(fn, n_in, n_out, spatial=1, layout=None):
    """[out, in]: row i is the input gradient of output i's one-hot gradient
    (the resized dim the last of `spatial`, the others of size 1; with a
    `layout`, two channels in that memory format)."""
    ones = (1,) * (spatial - 1)
    channels = 1 if layout is None else 2
    x = torch.zeros((1, channels) + ones + (n_in,))
    if layout is not None:
        x = x.contiguous(memory_format=layout)
    x.requires_grad_(True)
    y = fn(x)
    eye = torch.eye(n_out).view((n_out, 1, 1) + ones + (n_out,)).expand(
        (n_out,) + tuple(y.shape))
    return torch.stack([torch.autograd.grad(y, x, eye[i], retain_graph=True)[0][0, 0].flatten()
                        for i in range(n_out)])


def check_interpolation(n_in, scale, n_out):
    """nearest and nearest-exact along the last dim of a 1-d resize and of
    2-d and 3-d ones (the other dims of size 1) of two channels, contiguous
    and channels-last: torch 1.13's channels-last nearest kernel reads
    other rows than its other one where out is in or 2 * in but the scale
    factor is not 1 or 2. Linear along a 1-d resize."""
    problems = []
    configs = [(1, None)] + [(spatial, layout) for spatial, last in
                             ((2, torch.channels_last), (3, torch.channels_last_3d))
                             for layout in (torch.contiguous_format, last)]
    for spatial, layout in configs:
        ones = (1,) * (spatial - 1)
        size = dict(scale_factor=(1.0,) * (spatial - 1) + (scale,)) if scale else \
            dict(size=ones + (n_out,))
        channels_last = layout not in (None, torch.contiguous_format)
        what = f"{spatial}-d{', channels-last' if channels_last else ''}"
        iota = torch.arange(n_in, dtype=torch.float32).view((1, 1) + ones + (n_in,))
        if layout is not None:
            iota = iota.expand((1, 2) + ones + (n_in,)).contiguous(memory_format=layout)
        for mode in ("nearest", "nearest-exact"):
            fwd, bwd = nearest_table(n_in, n_out, scale, mode == "nearest-exact", channels_last)
            got = F.interpolate(iota, mode=mode, **size)[0, 0].flatten().long().tolist()
            if got != fwd:
                problems.append(f"{mode} ({what}) reads {got}, tfc {fwd}")
            rows = gradient_rows(lambda x: F.interpolate(x, mode=mode, **size), n_in, n_out,
                                 spatial, layout)
            if rows.argmax(1).tolist() != bwd or not torch.equal(rows.sum(1), torch.ones(n_out)):
                problems.append(f"{mode}'s ({what}) gradient goes to "
                                f"{rows.argmax(1).tolist()}, tfc's {bwd}")
    size = dict(scale_factor=scale) if scale else dict(size=n_out)
    if n_in == n_out:
        return problems  # linear: the identity with weights 1 and 0
    for align in (False, True):
        kw = dict(size, mode="linear", align_corners=align)
        i0, i1, w0, w1 = linear_table(n_in, n_out, align, scale)
        want = torch.zeros(n_out, n_in)
        for j in range(n_out):
            want[j, i0[j]] += w0[j]
            want[j, i1[j]] += w1[j]
        eye = torch.eye(n_in).view(n_in, 1, n_in)
        if not torch.equal(F.interpolate(eye, **kw)[:, 0, :].t(), want):
            problems.append(f"linear (align_corners={align}) weights differ")
        if not torch.equal(gradient_rows(lambda x: F.interpolate(x, **kw), n_in, n_out), want):
            problems.append(f"linear (align_corners={align}) gradient weights differ")
    return problems


def check_cubic(n_in, scale, n_out):
    """Bicubic weights along the width (the height kept at 1)."""
    problems = []
    size = dict(scale_factor=(1.0, scale)) if scale else dict(size=(1, n_out))
    for align in (False, True):
        kw = dict(size, mode="bicubic", align_corners=align)
        rows, weights = cubic_table(n_in, n_out, align, scale)
        want = torch.zeros(n_out, n_in)
        for ids, w in zip(rows, weights):
            want[range(n_out), ids] += torch.tensor(w)
        got = F.interpolate(torch.eye(n_in).view(n_in, 1, 1, n_in), **kw)[:, 0, 0, :].t()
        if not (got - want).abs().max() <= 2e-6:
            problems.append(f"bicubic (align_corners={align}) weights differ by "
                            f"{(got - want).abs().max():.1e}")
        x = torch.zeros(1, 1, 1, n_in, requires_grad=True)
        y = F.interpolate(x, **kw)
        eye = torch.eye(n_out).view(n_out, 1, 1, 1, n_out)
        grads = torch.stack([torch.autograd.grad(y, x, eye[i], retain_graph=True)[0][0, 0, 0]
                             for i in range(n_out)])
        if n_in == n_out:
            want = torch.eye(n_in)  # torch's backward copies when no size changes
        if not (grads - want).abs().max() <= 2e-6:
            problems.append(f"bicubic (align_corners={align}) gradient weights differ by "
                            f"{(grads - want).abs().max():.1e}")
    return problems


def check_antialias(n_in, scale, n_out):
    """Antialiased bilinear and bicubic weights along the width (the height
    kept at 1), forward and gradient (one backward: batch element i gets
    output i's one-hot gradient): bilinear bit-exact, bicubic within 1e-6."""
    problems = []
    size = dict(scale_factor=(1.0, scale)) if scale else dict(size=(1, n_out))
    for mode, tolerance in (("bilinear", 0.0), ("bicubic", 1e-6)):
        for align in (False, True):
            kw = dict(size, mode=mode, align_corners=align, antialias=True)
            starts, weights = antialias_table(n_in, n_out, align, scale, mode == "bicubic")
            want = torch.zeros(n_out, n_in)
            for i, (lo, ws) in enumerate(zip(starts, weights)):
                want[i, lo:lo + len(ws)] = torch.tensor(ws)
            got = F.interpolate(torch.eye(n_in).view(n_in, 1, 1, n_in), **kw)[:, 0, 0, :].t()
            x = torch.zeros(n_out, 1, 1, n_in, requires_grad=True)
            y = F.interpolate(x, **kw)
            grads, = torch.autograd.grad(y, x, torch.eye(n_out).view(n_out, 1, 1, n_out))
            for what, have in (("weights", got), ("gradient weights", grads[:, 0, 0, :])):
                if not (have - want).abs().max() <= tolerance:
                    problems.append(f"antialiased {mode} (align_corners={align}) {what} differ "
                                    f"by {(have - want).abs().max():.1e}")
    return problems


def check_adaptive(n_in, n_out):
    starts, ends = adaptive_windows(n_in, n_out)
    want = torch.zeros(n_out, n_in)
    for j, (s, e) in enumerate(zip(starts, ends)):
        want[j, s:e] = 1.0 / (e - s)
    got = F.adaptive_avg_pool1d(torch.eye(n_in).view(n_in, 1, n_in), n_out)[:, 0, :].t()
    return [] if torch.equal(got != 0, want != 0) else [f"windows {list(zip(starts, ends))}"]


def main():
    failures = 0
    for n_in, scale, n_out in cases():
        problems = check_interpolation(n_in, scale, n_out)
        if n_in <= 16 and n_out <= 24:
            problems += check_cubic(n_in, scale, n_out)
        problems += check_antialias(n_in, scale, n_out)
        for problem in problems:
            failures += 1
            print(f"FAIL {n_in} -> {n_out} (scale_factor {scale}): {problem}")
    for n_in in range(1, 41):
        for n_out in range(1, 41):
            for problem in check_adaptive(n_in, n_out):
                failures += 1
                print(f"FAIL adaptive pooling {n_in} -> {n_out}: {problem}")
    if not failures:
        print(f"ok   resample tables: {len(cases())} interpolation size pairs, "
              "1600 adaptive pooling ones")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
