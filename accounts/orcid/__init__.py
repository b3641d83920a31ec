"""Sign in with ORCID: allauth's ORCID provider pointed at ``ORCID_BASE_URL`` (issue 31)."""
