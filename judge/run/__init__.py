"""Running a submission: the launcher interface and the local launcher, the child's side, the
parent's session loop and budgets, CPU time, calibration, and judge_source, which ties them
together.
"""
