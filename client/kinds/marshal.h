/* Marshaling alone (scenario kind "marshal", no servers): the cost of
 * encoding each payload of marshal.payloads, marshal.encodes times per
 * repeat, marshal.repeats times, in the client's C codec (payload_encode
 * into a reused buffer: the value's generation from its seed included,
 * one add per field) and, with marshal.omniorb, in omniORB's C++
 * marshaling (bin/omniorb-marshal-bench: the same bytes, unmarshaled into
 * the C++ type, marshaled into a cdrMemoryStream). Per payload and codec
 * the ns per encode of every repeat and their median; omniORB must
 * marshal the client's bytes exactly, and extract the client's event any
 * as its <Name>Event, or the run fails naming the payload. */
#ifndef ORBBENCH_MARSHAL_H
#define ORBBENCH_MARSHAL_H

#include <jansson.h>
#include <stddef.h>

#include "core/scenario.h"
#include "kinds/run.h"

/* The C++ benchmark's file name, beside orbbench. */
#define MARSHAL_OMNIORB_BENCH "omniorb-marshal-bench"

/* Run it (only sc, doc, interrupted and progress of sides[0] are used).
 * Fills o[0] (STOP_DONE, interrupted, time_limit, or call_failed when
 * the omniORB benchmark failed or disagreed) and the doc's `kind`,
 * `marshal` and `result`. */
void marshal_run(struct run *sides, struct run_outcome *o,
                 size_t nsides);

/* One paragraph on stdout: ns per encode per payload and codec. */
void marshal_summary(const struct scenario *sc, json_t *doc,
                     const struct run_outcome *o, const char *out);

#endif
