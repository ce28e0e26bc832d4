"""The Celery deployment end to end: real Redis, PostgreSQL 15 and `judge worker` processes
(tests/cluster/cluster_harness.py); skipped, saying why, only where a binary is missing."""
