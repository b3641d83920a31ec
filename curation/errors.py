"""The errors a curation check step raises (nothing is written when one is raised)."""


class CurationError(Exception):
    """A curation request that cannot be carried out as asked (the message says why)."""


class OrcidConflict(CurationError):
    """The records to merge hold different ORCID iDs and the editor did not override."""


class CurationConflict(CurationError):
    """The records changed since the editor looked (merged meanwhile, moved by a later action)."""
