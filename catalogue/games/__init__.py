"""Solved zero-sum matrix games, exactly (docs/spec.md §6).

* :mod:`.matrix_games` — an exact, certified solver for zero-sum matrix games;
* :mod:`.foster` — Foster's method for N×2 games (the upper envelope of the pay-off lines);
* :mod:`.chemin_de_fer` — chemin-de-fer after Foster (``papers/chemin-de-fer.md``);
* :mod:`.le_her` — N-card Le Her after Benjamin and Goldman (``papers/le-her.md``);
* :mod:`.solved_games` — the registry the command line, the catalogue and the app share.

Part of the math core: imports nothing of the engine, the store or Qt.
"""
