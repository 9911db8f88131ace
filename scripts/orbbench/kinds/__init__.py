"""The measurement kinds (a scenario's "kind", every kind in
client/kinds/registry.c), one module each: importing this package imports
every module in it, which registers its kind in orbbench.results.KINDS.
A new kind is a new module here that calls orbbench.results.register;
nothing here names it.

The order of KINDS (of their figures in plots and of their tables in
reports): the default kind (orbbench.results.DEFAULT_KIND, the sweep)
first, then the others by module name.

Kind modules import no matplotlib at import time (run-suite and
fleet-host load results on hosts that may lack it): their figures are
imported when drawn."""
import importlib
import pkgutil

import orbbench.results as orbresults


def module_names(path=None):
    """The kind modules' names in this package (or in folder `path`), in
    the order they are imported: DEFAULT_KIND's first, then by name."""
    names = sorted(m.name for m in pkgutil.iter_modules(path or __path__)
                   if not m.ispkg and not m.name.startswith("_"))
    return sorted(names, key=lambda n: n != orbresults.DEFAULT_KIND)


MODULES = tuple(importlib.import_module(f"{__name__}.{name}")
                for name in module_names())
