import json, glob, statistics as st, sys, os
d = sys.argv[1] if len(sys.argv) > 1 else '/tmp/mech/out'
def side(path):
    doc = json.load(open(path))
    steps = doc['steps']
    med = st.median([s['round_ms']['median'] for s in steps])
    scpu = st.median([s.get('cpu_per_call_us', {}).get('server', float('nan')) for s in steps])
    ccpu = st.median([s.get('cpu_per_call_us', {}).get('client_user', 0) + s.get('cpu_per_call_us', {}).get('client_sys', 0) for s in steps])
    share = [s['neighbour_cpu_ms'] / sum(s['rounds_ms']) for s in steps if s.get('neighbour_cpu_ms') is not None]
    nbpr = [s['neighbour_cpu_ms'] / len(s['rounds_ms']) for s in steps if s.get('neighbour_cpu_ms') is not None]
    # switch profile: untimed rounds / timed median
    prof = []
    for s in steps:
        u = s.get('untimed_ms') or []
        m = s['round_ms']['median']
        prof.append([x / m for x in u])
    k = max((len(p) for p in prof), default=0)
    profile = [st.median([p[i] for p in prof if len(p) > i]) for i in range(k)]
    halves = [st.median(s['rounds_ms'][:10]) / st.median(s['rounds_ms'][10:]) for s in steps]
    return dict(orb=doc['orb']['name'], med=med, scpu=scpu, ccpu=ccpu,
                share=st.median(share) if share else None,
                nb_ms_per_round=st.median(nbpr) if nbpr else None,
                profile=[round(x, 2) for x in profile], half=st.median(halves))
for f in sorted(glob.glob(d + '/*.json')):
    if f.endswith('.versus.json'): continue
    name = os.path.basename(f)[:-5]
    sides = [side(f)]
    if os.path.exists(f[:-5] + '.versus.json'):
        sides.append(side(f[:-5] + '.versus.json'))
    for i, s in enumerate(sides):
        print(f"{name:18s} {'AB'[i]} {s['orb'][:7]:7s} round {s['med']:6.1f} ms  srv {s['scpu']:5.1f} us  cli {s['ccpu']:5.1f} us  nbshare {s['share'] if s['share'] is None else round(s['share'],3)}  nb/round {s['nb_ms_per_round'] if s['nb_ms_per_round'] is None else round(s['nb_ms_per_round'],2)} ms  half {s['half']:.3f}  untimed {s['profile']}")
