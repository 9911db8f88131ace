"""The figures (matplotlib, through orbbench.plot): ab and run for the
kinds with steps (a sweep, a fan-in: A against B, and a set of runs), a
module of its own for each other kind that draws one (every kind module
of orbbench.kinds says which), hosts for a fleet's host axis, compare for
the figures of a comparison. A kind module of orbbench.kinds imports its
figures when it draws them."""
