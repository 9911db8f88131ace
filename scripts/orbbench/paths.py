"""Where orbbench's parts are, in a checkout or installed (make install,
the Debian package), found from where this package is: the only module
that knows the two layouts.

  checkout:  ROOT/scripts/orbbench/ (this package), ROOT/scripts/* (the
             executables), ROOT/bin/ (client and servers), ROOT/scenarios/;
             results and plots under ROOT/results/ and ROOT/plots/
  installed: PREFIX/libexec/orbbench/orbbench/ (this package),
             PREFIX/libexec/orbbench/* (executables and servers),
             PREFIX/bin/orbbench, PREFIX/share/orbbench/scenarios/;
             results and plots under the working folder (./results/,
             ./plots/), never in the install tree
ORBBENCH_BIN=DIR (a sanitized build's bin folder) names the client's
folder, DIR/orbbench, and in a checkout the servers' too."""
import os
from pathlib import Path

# The folder holding this package: ROOT/scripts or PREFIX/libexec/orbbench.
LIBEXEC = Path(__file__).resolve().parents[1]
INSTALLED = LIBEXEC.name != "scripts"
# The checkout (None when installed); the fleet works on checkouts only.
ROOT = None if INSTALLED else LIBEXEC.parent
PREFIX = LIBEXEC.parents[1] if INSTALLED else None


def _bin_env():
    d = os.environ.get("ORBBENCH_BIN")
    return Path(d) if d else None


def client():
    """The orbbench executable."""
    d = _bin_env()
    if d:
        return d / "orbbench"
    return (PREFIX if INSTALLED else ROOT) / "bin" / "orbbench"


def servers():
    """The folder of the server executables (omniorb-echo-server, …)."""
    if INSTALLED:
        return LIBEXEC
    return _bin_env() or ROOT / "bin"


def script(name):
    """One of the executables (run-suite, compare, …)."""
    return LIBEXEC / name


def scenarios():
    """The shipped scenarios' folder."""
    if INSTALLED:
        return PREFIX / "share" / "orbbench" / "scenarios"
    return ROOT / "scenarios"


def output(kind):
    """Where results (kind "results") and figures ("plots") go by
    default: the checkout's folder, or the working folder's when
    installed."""
    return (Path.cwd() if INSTALLED else ROOT) / kind
