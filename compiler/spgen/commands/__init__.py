"""CLI subcommands, one module per verb."""
