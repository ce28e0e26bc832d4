"""Quiz problems: questions and their answer key, a submitted answer sheet, a learner's formula
as data, and judging the sheet.
"""
