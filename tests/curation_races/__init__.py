"""Curation races: transactional tests (each flushes the database when it ends), kept out of
``tests/curation``, whose package-scoped committed sample a flush in its midst would wipe for
the package's later tests on the same worker."""
