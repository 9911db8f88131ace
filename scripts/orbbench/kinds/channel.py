"""The event channel (scenario kind "channel", client/kinds/channel.c):
push to logged, straight to the consumer or through omniEvents. Its
results hold channel; its figure and table are orbbench.figures.channel's
(scripts/miro-channel-table prints the table)."""
import orbbench.results as orbresults


def figures(results, outdir, run, rounds, log):
    """Per payload, direct against through the channel."""
    import orbbench.figures.channel as figs_channel
    return figs_channel.channel_figures([r.doc for r in results], outdir,
                                        log=log)


orbresults.register(orbresults.Kind(
    "channel", "channel",
    fields=[(key, str) for key in ("channel.payload", "channel.via",
                                   "channel.transport")],
    figures=figures))
