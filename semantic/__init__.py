"""Semantic search and similar papers: sentence embeddings stored with pgvector (issue 10)."""
