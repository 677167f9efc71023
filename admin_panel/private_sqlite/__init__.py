"""Django's SQLite engine, with the database file made private before SQLite first opens it."""
