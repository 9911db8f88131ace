"""orbbench's Python side: reading, summing up, comparing, drawing and
reporting results, and running suites on one machine or a fleet.

Cores, shared by everything: results (loading and the shape checks common
to every kind, the kind registry), stats, plot (matplotlib: styles, Skip,
saving), cli, hosts, fleet, netns, miro; figures/ holds the figures. One
module per measurement kind in kinds/ registers what is its own; the
command-line front ends are commands/, one module per executable in scripts/.
Importing this package imports nothing else: fleet-host runs on hosts
that may lack matplotlib or have an older Python."""
