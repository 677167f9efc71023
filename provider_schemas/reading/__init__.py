"""Reading a provider's settings: each field's value and where it came from (state, values), the
stat-keyed read cache, and the JSON payloads of the API."""
