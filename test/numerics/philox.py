"""Philox4x32-10 (Salmon et al., SC'11), the counter-based generator of
tfc's dropout and random ops, transcribed from the paper for reference
masks and draws in tests. Element i uses key = (seed low 32 bits, seed high
32 bits), counter = (offset + i) as (low, high, 0, 0) (TfcNNOps.td).
Dropout keeps element i iff the first output word r >= floor(p * 2^32);
kept values are x / (1 - p). tfc.random maps the words to uniforms with the
result's significand bits and to normals by Box-Muller (random_values).
"""
import math
M0, M1 = 0xD2511F53, 0xCD9E8D57
W0, W1 = 0x9E3779B9, 0xBB67AE85
MASK = 0xFFFFFFFF


def philox4x32_10(counter, key):
    c0, c1, c2, c3 = counter
    k0, k1 = key
    for _ in range(10):
        p0, p1 = M0 * c0, M1 * c2
        c0, c1, c2, c3 = ((p1 >> 32) ^ c1 ^ k0) & MASK, p1 & MASK, \
                         ((p0 >> 32) ^ c3 ^ k1) & MASK, p0 & MASK
        k0, k1 = (k0 + W0) & MASK, (k1 + W1) & MASK
    return c0, c1, c2, c3


def _words(seed: int, offset: int, i: int):
    ctr = offset + i
    return philox4x32_10((ctr & MASK, (ctr >> 32) & MASK, 0, 0),
                         (seed & MASK, (seed >> 32) & MASK))


# Random significand bits of a uniform per result dtype (f64: 53).
UNIFORM_BITS = {"f32": 24, "f16": 11, "bf16": 8}


def random_values(seed: int, offset: int, count: int, distribution: str, dtype: str):
    """tfc.random's `count` values as Python floats, before rounding to
    `dtype`: uniforms exactly, normals by Box-Muller in double precision
    (tfc computes them in f32 for the non-f64 dtypes)."""
    out = []
    for i in range(count):
        r0, r1, r2, r3 = _words(seed, offset, i)
        if dtype == "f64":
            a, b = (r0 << 21) | (r1 >> 11), (r2 << 21) | (r3 >> 11)
            uniform, u1, u2 = a * 2.0 ** -53, (a + 1) * 2.0 ** -53, b * 2.0 ** -53
        else:
            bits = UNIFORM_BITS[dtype]
            uniform = (r0 >> (32 - bits)) * 2.0 ** -bits
            u1, u2 = ((r0 >> 8) + 1) * 2.0 ** -24, (r1 >> 8) * 2.0 ** -24
        out.append(uniform if distribution == "uniform"
                   else math.sqrt(-2 * math.log(u1)) * math.cos(2 * math.pi * u2))
    return out


def dropout_keep(seed: int, offset: int, count: int, p: float):
    threshold = int(p * 2**32)
    key = (seed & MASK, (seed >> 32) & MASK)
    keep = []
    for i in range(count):
        ctr = offset + i
        r = philox4x32_10((ctr & MASK, (ctr >> 32) & MASK, 0, 0), key)[0]
        keep.append(r >= threshold)
    return keep
