"""The core's commands (list, show, init, run, check): argument parsing, their text output and
the problems' self-check.
"""
