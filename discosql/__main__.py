"""``python -m discosql`` is the same as the ``discosql`` command."""

from .cli import main

raise SystemExit(main())
