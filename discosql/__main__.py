"""``python -m discosql`` is the same as the ``discosql`` command."""

from .cli.main import main

raise SystemExit(main())
