"""The ``discosql`` command: argument parsing, one handler per subcommand, the demo."""
