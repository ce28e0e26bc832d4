"""Development tools used by make, the tests and the benchmarks, never by the platform: Redis
and PostgreSQL in a folder, the whole cluster on one machine, and the browser's public
bundles. Not part of the wheel.
"""
