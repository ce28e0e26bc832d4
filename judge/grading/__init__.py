"""From what happened to a verdict: outcomes, checkers, the closed verdict set, per-case
grading, speed scoring and the typed report.
"""
