"""The club on PostgreSQL: its store, the registry of tables, LISTEN/NOTIFY (a real server)."""
