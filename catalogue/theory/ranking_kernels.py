"""Numba kernels behind :func:`whist_catalogue.theory.ranking.level_masks`: West's masks of consecutive colex ranks.

A module of their own so that ranking one deal (a look-up) never pays Numba's import; it is imported the
first time a run of masks is filled.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from whist_catalogue.theory.jit import kernel


@kernel
def fill_masks(first, out):  # noqa: ANN001, ANN201 - NumPy in, Numba-compiled
    """``out[i]``: the i-th mask after ``first`` with as many set bits, by Gosper's hack."""
    x = np.int64(first)
    for i in range(out.shape[0]):
        out[i] = x
        if i + 1 < out.shape[0]:
            c = x & -x
            r = x + c
            x = (((r ^ x) >> 2) // c) | r


@kernel(parallel=True)
def fill_masks_in_parts(firsts, bounds, out):  # noqa: ANN001, ANN201 - NumPy in, Numba-compiled
    """:func:`fill_masks` on all cores: Gosper's step needs the mask before, so the run is cut into parts
    ``out[bounds[p]:bounds[p + 1]]``, each from its own unranked first mask ``firsts[p]``."""
    for part in prange(firsts.shape[0]):
        x = np.int64(firsts[part])
        for i in range(bounds[part], bounds[part + 1]):
            out[i] = x
            if i + 1 < bounds[part + 1]:
                c = x & -x
                r = x + c
                x = (((r ^ x) >> 2) // c) | r
