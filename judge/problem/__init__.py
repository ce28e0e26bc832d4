"""What a problem is: its folder loaded and validated (spec, problem set), its cases, limits,
speed rules, hints and known-wrong solutions.
"""
