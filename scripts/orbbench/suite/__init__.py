"""orbbench suite: a folder of scenarios run as one suite (docs/suite.md).

plan: the settings, parsed once and frozen (SuitePlan, Variant,
UntilVerdict); settings: what the suite adds to a scenario's run, by its
kind; runner: the runs, repeats, paired runs and signals; rows and
summary: a run's summary row and the closing tables; looks: the
sequential test of --until-verdict; compare: the variants' comparison,
in-process. The front end is orbbench.commands.suite; this package
imports no command and no kind module."""
