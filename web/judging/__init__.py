"""Judging on the platform: the catalog of problems served, the one seam to the judge core and
the runner, the queue (embedded or Celery), leased jobs, public runs, the Celery worker, the
sweeper and the fleet register.
"""
