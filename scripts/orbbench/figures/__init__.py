"""The figures (matplotlib, through orbbench.plot), one module per
figure. For the kinds with steps (a sweep, a fan-in): capacity, ratio and
latency set B against A (ab draws them), cost, fixed_n and strip show a
set of runs (run draws them), over the shared sides and layout; a module
of its own for each other kind that draws one (every kind module of
orbbench.kinds says which), hosts for a fleet's host axis, compare for
the figures of a comparison, metrics for a comparison of a kind weighed
by its own metrics. A kind module of orbbench.kinds imports its
figures when it draws them."""
