#!/usr/bin/env python3
"""`python judge.py ...` from a checkout, as the handbook says; same as the `judge` command."""

from practice_judge import entry

if __name__ == "__main__":
    entry()
