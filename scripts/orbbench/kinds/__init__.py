"""The measurement kinds (a scenario's "kind", client/kinds/*.c), one
module each: importing this package registers every kind in
orbbench.results.KINDS, in the order below, which is the order of their
figures in plots and of their tables in reports. A new kind is a new
module here that calls orbbench.results.register, imported below.

Kind modules import no matplotlib at import time (run-suite and
fleet-host load results on hosts that may lack it): their figures are
imported when drawn."""
import orbbench.kinds.sweep  # noqa: F401  (first: the default kind)
import orbbench.kinds.rate  # noqa: F401
import orbbench.kinds.scaling  # noqa: F401
import orbbench.kinds.clock  # noqa: F401
import orbbench.kinds.channel  # noqa: F401
import orbbench.kinds.latency  # noqa: F401
import orbbench.kinds.marshal  # noqa: F401
import orbbench.kinds.fanin  # noqa: F401
