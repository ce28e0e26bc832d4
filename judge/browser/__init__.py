"""The judge Pyodide runs in the browser: a problem's public bundle and the in-process run on
it.
"""
