"""Stage 7: chunks, embeddings and the LanceDB store they are synced into."""
