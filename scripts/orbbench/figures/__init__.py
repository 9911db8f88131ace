"""The figures (matplotlib, through orbbench.plot): ab and run for sweeps
(A against B, and a set of runs), one module for each other kind that
draws one (rate, scaling, clock, channel), hosts for a fleet's host axis,
compare for the figures of a comparison. A kind module of orbbench.kinds
imports its figures when it draws them."""
