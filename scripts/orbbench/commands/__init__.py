"""The command-line front ends: one module per executable in scripts/
(scripts/run-suite calls orbbench.commands.suite.main), each with its
usage in its docstring."""
