"""Storage documents: read a location into plain data, render new content. No writing here:
``provider_schemas.saving.transaction`` writes everything at once."""
