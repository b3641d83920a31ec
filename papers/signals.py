"""Signals the papers app sends, for the layers above it (the pipeline) to act on."""

from django.dispatch import Signal

# Sent when a harvest (OAI-PMH, recorded files or Kaggle) has ended, by the
# ``papers.harvest_arxiv`` task and the ``harvest_arxiv`` command, outside any transaction.
# Arguments: ``run`` (the :class:`papers.models.HarvestRun`) and ``inline``: False when the
# next stages must go to the workers, None when the receiver decides (a command: inline
# when no worker answers). Not sent for ``--no-pipeline`` nor when the harvest was busy.
harvest_finished = Signal()
