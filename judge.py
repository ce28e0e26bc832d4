#!/usr/bin/env python3
"""`python judge.py ...` from a checkout, as the handbook says; same as the `judge` command."""

import sys

from practice_judge import main

if __name__ == "__main__":
    sys.exit(main())
