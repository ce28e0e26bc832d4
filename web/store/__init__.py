"""What the platform keeps: the database engine, tables, migrations, file modes of the instance
folder, a submission's status.
"""
