"""The value theory of symmetric multi-suit whist (the multi-suit paper).

* :mod:`.values` — the semigroup V of values, its partial order, simplicity, ρ and ρ′ (§6);
* :mod:`.deals` — notation, canonical labels, integer keys, D̄, D₀, the reductions D_ij (docs/spec.md §2, §7.2);
* :mod:`.ranking` — numbering the deals of one level (combinatorial number system);
* :mod:`.labeled` — labeled values, maxmin and minmax (§7.1–7.2);
* :mod:`.definition` — val(D) by the literal recursion: L(D), R(D), I(D), the simplest element (§7);
* :mod:`.solution` — one deal's value and optimal moves (docs/spec.md §3);
* :mod:`.referee` — brute-force minimax of the card game itself, independent of the theory;
* :mod:`.multisuit` — Theorem 9.1 (outcome = ρ of the sum), the lead rule of §10.4, play;
* :mod:`.packed` — values of V packed in one integer, so that sums, ρ and the lead rule are integer work;
* :mod:`.small_suits` — every suit with n ≤ 8 (all a pack can deal two players), preloaded;
* :mod:`.moves` — every legal card with its exact result, one trick of look-ahead on Theorem 9.1.
* :mod:`.jit` — how every Numba kernel of the package is made: cached on disk, harmless when the cache fails,
  its first compile announced (no section of the papers: the machinery of the kernels).

The math core: imports nothing of the engine, the store or Qt.
"""
