"""The engine: the value and best moves of every deal of a level at once.

* :mod:`.encoding` — values and labeled values as small exact integers;
* :mod:`.codes` — a level's values as 2-byte codes into a table of its distinct values;
* :mod:`.chunks` — a rank range of a level as a compressed, checksummed, self-contained chunk of codes
  (the level store's format, pure NumPy and zlib, shared by the store and the cluster's workers);
* :mod:`.kernels` — the Numba kernels (reduction ranks in O(1), §7.2's α matrix, the shortcuts);
* :mod:`.levels` — level n from level n − 1, the public API over the kernels;
* :mod:`.plan` — what the engine will compute beyond the catalogue and about how long, said before it
  starts; its progress and cancel (light: no NumPy, no Numba);
* :mod:`.statistics` — per-level counts shared by ``scan`` and ``stats``;
* :mod:`.scan` — the papers' conjectures checked over every deal (Conjectures 12.2–12.4,
  Theorem 8.10 of the multi-suit paper, Theorem 9.4 of the single-suit paper);
* :mod:`.cluster` — the same on a Dask cluster, level by level in rank ranges (``--cluster``).

Uses the math core; imports nothing of the store or Qt.
"""
