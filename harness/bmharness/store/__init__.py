"""The results store (`baremetric store`): runs from many machines in one SQLite database, keyed
by machine identity (machine.py) and run; schema and migrations in db.py, the subcommands'
work in ops.py, removal in remove.py, what list and show print in text.py."""
