"""What the platform serves about problems beyond judging them: statements as HTML, hints and
editorials, the handbook's sections, quiz answer sheets.
"""
