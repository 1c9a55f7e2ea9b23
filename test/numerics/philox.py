"""Philox4x32-10 (Salmon et al., SC'11), the counter-based generator tfc's
dropout uses, transcribed from the paper for reference masks in tests.
Mask rule (TfcNNOps.td, tfc.dropout): element i uses key = (seed low 32
bits, seed high 32 bits), counter = (offset + i) as (low, high, 0, 0); keep
iff the first output word r >= floor(p * 2^32); kept values are x / (1 - p).
"""
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


def dropout_keep(seed: int, offset: int, count: int, p: float):
    threshold = int(p * 2**32)
    key = (seed & MASK, (seed >> 32) & MASK)
    keep = []
    for i in range(count):
        ctr = offset + i
        r = philox4x32_10((ctr & MASK, (ctr >> 32) & MASK, 0, 0), key)[0]
        keep.append(r >= threshold)
    return keep
