"""orbbench's Python side: reading, summing up, comparing, drawing and
reporting results, and running suites on one machine or a fleet.

Cores, shared by everything: results (loading and the shape checks common
to every kind, the kind registry), stats, plot (matplotlib: styles, Skip,
saving), cli, hosts, fleet, netns, miro; figures/ holds the figures. One
module per measurement kind in kinds/ registers what is its own; the
command-line front ends are commands/, one module per executable in scripts/.
Importing this package imports nothing else: fleet-host runs on hosts
that may lack matplotlib or have an older Python."""
import os

# The front door's subcommand that started this process (client/subcmd.c
# sets ORBBENCH_FRONT before it runs the command's script), taken out of
# the environment so that no child inherits it. A command's messages are
# then headed "orbbench SUB:", what the user typed, rather than its
# checkout script's name (orbbench.cli.prog).
FRONT = os.environ.pop("ORBBENCH_FRONT", None)

