"""What compare weighs of a kind's runs: a Metric, one row each, in the
kind's own module (orbbench.kinds.NAME: Kind(metrics=...)); compare
reads every kind's the same way (orbbench.comparison.readings)."""
import orbbench.results as orbresults

# How compare reads a Metric (orbbench.comparison.readings, one reader
# each): once per run, or from a kind's steps and probes.
READINGS = ("run", "crossing", "fit", "nearest", "memory")

# A Metric's primary beside True and False: tested only where the runs
# measured one N by design (no crossing), or only where they did not.
ONE_N, MANY_N = "one_n", "many_n"


class Metric:
    """One quantity compare weighs of a kind's runs:
      key      its name in compare's JSON ("per_s"); "{mem}" in it is
               compare's --mem ("{mem}_kb": "pss_kb")
      label    its name in tables and figures ("connections/s"); "{mem}"
               in it is the measure's label ("PSS", results.MEM_LABELS)
      read     read(doc, mem) -> the run's value (a number > 0) or None;
               mem is compare's --mem (pss, uss, mem_available)
      higher   True when more is better (a rate), False for a cost
      memory   True for a memory cost (its verdict says larger/smaller
               and has a family of its own, as memory per server's)
      primary  False for a quantity shown with its interval but not
               tested (one that asks a tested one's question again);
               ONE_N or MANY_N: tested only where the runs measured one
               N by design, or only where they did not
      at       how compare reads it, one of READINGS: "run", read once
               per run; of a kind with steps, "crossing" each run's
               crossing N, "fit" step at the N the costs are read at (a
               local fit), "nearest" step at the measurement nearest
               that N, "memory" step(measurement, mem) at the N every
               run's steps have it
      step     step(measurement) -> the value of one step or probe
      low      its cheapest rounds' value (a "fit"), read instead when
               every measurement has it
      weight   weight(measurement) in a fit
      says     what step's value per measurement is ("median round")
      when     when(docs) -> False leaves the metric out of a scenario;
               None: always there
      missing  the note when no run has a value"""

    def __init__(self, key, label, read=None, higher=False, memory=False,
                 primary=True, *, at="run", step=None, low=None,
                 weight=None, says=None, when=None,
                 missing="not in these results"):
        if at not in READINGS or (at == "run") != (read is not None):
            raise ValueError(f"metric {key!r}: read with at='run' alone")
        self.key, self.label, self.read = key, label, read
        self.higher, self.memory, self.primary = higher, memory, primary
        self.at, self.step, self.low, self.weight = at, step, low, weight
        self.says, self.when, self.missing = says, when, missing

    def key_for(self, mem):
        """Its key in a comparison of memory measure mem."""
        return self.key.replace("{mem}", mem)

    def label_for(self, mem):
        return self.label.replace("{mem}", orbresults.MEM_LABELS[mem])
