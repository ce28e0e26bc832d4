"""Leaderboards: standings kept in step with verdicts, and the boards' queries."""
