"""Marshaling alone (scenario kind "marshal", client/kinds/marshal.c): ns
per encode of each payload, orbbench's C codec and omniORB's C++. Its
results hold marshal; its table is one of the Miro tables, which
orbbench.kinds.latency registers for both."""
import orbbench.results as orbresults

orbresults.register(orbresults.Kind(
    "marshal", "marshal", fields=[("marshal.payloads", list)],
    refusal="a marshal result (kind marshal; scripts/miro-table shows it)"))
