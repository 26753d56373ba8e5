"""The single-suit paper: single-suit Whist, Greedy Whist and Five-card.

* :mod:`.formulas` — the matrix A, diagonal sums T_k, H̄ and H̲, Theorem 9.1's exact H,
  the normal strategy, Greedy Whist (Theorem 7.2) and Five-card (Theorem 8.1);
* :mod:`.kernels` — the same formulas as Numba kernels over whole levels;
* :mod:`.linear_time` — Theorem 10.1's linear-time algorithm and Theorem 12.1;
* :mod:`.asymptotics` — Section 11: counts, the limit law of H_n/√n, the dealer's
  advantage and the value of the ace.

Part of the math core: uses :mod:`whist_catalogue.theory` only.
"""
