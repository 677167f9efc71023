"""Finding, loading and checking providers' config_schema.py files: discovery and the provider-name
guard, the by-path loader with its sandbox traps, the declaration checks, lint, the static evaluator,
field constraints and provider translations."""
