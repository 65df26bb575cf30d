"""Bit tricks for the fast path: eight ASCII digits at a time (SWAR) and LLVM bit intrinsics."""
from __future__ import annotations

import numba
import numpy as np
from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic

@numba.njit(cache=True, nogil=True, inline="always")
def _digits(buf, k, v):
    """``v`` extended by the run of decimal digits at ``buf[k:]``, and the run's end (needs a
    non-digit sentinel; overflows wrap, so callers bound the run's length)."""
    while True:
        c = np.int64(buf[k]) - 48
        if c < 0 or c > 9:
            return v, k
        v = v * 10 + c
        k += 1


@intrinsic
def _load_u64(typingctx, arr, idx):
    """Eight bytes of a uint8 array from ``idx`` as one little-endian uint64 (unaligned load;
    the caller guarantees ``idx + 8 <= len``)."""
    sig = types.uint64(arr, types.intp)

    def codegen(context, builder, signature, args):
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        ptr = builder.bitcast(builder.gep(ary.data, [args[1]]), ir.IntType(64).as_pointer())
        return builder.load(ptr, align=1)
    return sig, codegen


def _bit_intrinsic(llvm_name: str, zero_is_poison: bool | None):
    """A numba intrinsic ``uint64 -> uint64`` calling the LLVM bit-counting intrinsic
    ``llvm_name`` (``llvm.cttz``/``llvm.ctpop``); ``zero_is_poison`` is cttz's flag."""
    @intrinsic
    def bit_op(typingctx, x):
        sig = types.uint64(types.uint64)

        def codegen(context, builder, signature, args):
            i64, i1 = ir.IntType(64), ir.IntType(1)
            extra = [] if zero_is_poison is None else [ir.Constant(i1, int(zero_is_poison))]
            fnty = ir.FunctionType(i64, [i64] + [i1] * len(extra))
            fn = cgutils.get_or_insert_function(builder.module, fnty, llvm_name + ".i64")
            return builder.call(fn, [args[0]] + extra)
        return sig, codegen
    return bit_op


_cttz64 = _bit_intrinsic("llvm.cttz", zero_is_poison=False)    # trailing zeros, 64 for 0
_popcount64 = _bit_intrinsic("llvm.ctpop", zero_is_poison=None)  # set bits


_P10_INT = np.array([10 ** i for i in range(9)], dtype=np.int64)


@numba.njit(cache=True, nogil=True, inline="always")
def _digits8(buf, k):
    """Value and length of the run of at most 8 digits at ``buf[k:k+8]``, branch-free
    (SWAR: flag non-digit bytes, count the leading digits, combine pairs, quads, octets)."""
    x = _load_u64(buf, k) ^ np.uint64(0x3030303030303030)
    bad = (x & np.uint64(0xF0F0F0F0F0F0F0F0)) | (((x & np.uint64(0x0F0F0F0F0F0F0F0F))
                                                 + np.uint64(0x0606060606060606))
                                                & np.uint64(0xF0F0F0F0F0F0F0F0))
    n = _cttz64(bad) >> np.uint64(3)
    if n == 0:
        return np.int64(0), np.int64(0)
    if n < 8:
        x = x << (np.uint64(64) - (n << np.uint64(3)))
    x = x * np.uint64(10) + (x >> np.uint64(8))
    x = (((x & np.uint64(0x000000FF000000FF)) * np.uint64(100 + (1000000 << 32)))
         + (((x >> np.uint64(16)) & np.uint64(0x000000FF000000FF)) * np.uint64(1 + (10000 << 32)))
         ) >> np.uint64(32)
    return np.int64(x), np.int64(n)


@numba.njit(cache=True, nogil=True, inline="always")
def _digits_swar(buf, k, hi, v):
    """:func:`_digits` eight bytes at a time while ``k + 8 <= hi``."""
    while k + 8 <= hi:
        x, n = _digits8(buf, k)
        v = v * _P10_INT[n] + x
        k += n
        if n < 8:
            return v, k
    return _digits(buf, k, v)


