"""The judging core: problem specs, cases, observations, checkers and verdicts.

Standard library only, so it imports unchanged under CPython and Pyodide.
"""

__all__ = ["__version__"]
__version__ = "0.1.0"
