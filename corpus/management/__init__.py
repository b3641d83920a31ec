"""Management commands of the synthetic corpus: generate_corpus, archive_summary."""
