"""Latency (scenario kind "latency", client/kinds/latency.c): every call's
time for one payload, the seed's Table 8.2. Its results hold latency; a
report shows the Miro tables (orbbench.miro), which set the marshal
results beside it, and scripts/miro-table prints them."""
import orbbench.miro as orbmiro
import orbbench.results as orbresults


def tables(results):
    """The Miro tables of the latency and marshal results, or nothing."""
    return orbmiro.markdown_blocks(orbmiro.table_data(results))


orbresults.register(orbresults.Kind(
    "latency", "latency", fields=[("latency.call_us", dict)],
    refusal="a latency result (kind latency; scripts/miro-table shows it)",
    tables=tables))
