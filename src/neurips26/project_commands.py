"""The names `python -m neurips26 <name>` reserves for project commands (cli.py); a paper id may not be one of them
(scaffold.py refuses it). A module of its own so that the CLI and the scaffold both read it without importing each other."""

PROJECT_COMMANDS = ("report", "data", "lock-data", "dvc-yaml", "dvc-pulled", "dvc-plots-offline", "papers", "verdicts",
                    "new-paper", "robustness")
