"""A learner's attempts: submissions stored and listed, drafts, diffs between two submissions,
and an admin's rejudge or hide.
"""
