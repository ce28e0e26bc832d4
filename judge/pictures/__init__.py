"""What a failing public case looks like: its input as the learner wrote it, a test that
reproduces it, and its picture (block pool, bars, roofline, memory).
"""
