"""Two-person whist in general: any suits, each split between the hands in any way, trumps or none.

* :mod:`.position` — a deal (docs/spec.md §2: uneven suits, voids, a trump suit) at the start of a trick
  or after the lead;
* :mod:`.bits` — a position's cards in one 64-bit word, and what a trick does to them;
* :mod:`.leaves` — the theory's exact leaves: a position whose suits are all even is answered by
  Theorem 9.1 of the multi-suit paper, ρ(Σ val), from the preloaded suits;
* :mod:`.endings` — every ending of k cards a hand in a pack's four suits, solved once by retrograde analysis,
  level by level, each position once (the side suits a multiset, four bits a value): shipped for k ≤ 8, stored
  in the catalogue for larger k (docs/two-hand.md);
* :mod:`.kernels` — the exact search (Numba): null-window alpha-beta trick by trick on canonical
  positions, a transposition table, sure-trick bounds, equivalent cards searched once;
* :mod:`.solver` — the API: :func:`~.solver.solve`, :func:`~.solver.solve_many`, the typed answer;
* :mod:`.play` — a deal played out card by card, every position answered by the theory or the search (the
  app's play).

Part of the math core, beside :mod:`whist_catalogue.single_suit`: uses :mod:`whist_catalogue.theory` only
(importing :mod:`.solver` loads Numba: a command line imports it only for a two-hand deal).
"""
