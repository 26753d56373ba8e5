"""``python -m whist_catalogue``: the same as the ``whist-catalogue`` command."""

from whist_catalogue.scripts.main import main

raise SystemExit(main())
