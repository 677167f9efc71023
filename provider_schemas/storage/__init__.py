"""Storage documents: read a location into plain data, render new content. No writing here:
``provider_schemas.transaction`` writes everything at once."""
