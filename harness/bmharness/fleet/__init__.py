"""Fleet capture through the machines' BMCs (`baremetric fleet run`): the inventory
(inventory.py), ipmitool (ipmi.py), the console stop condition and progress (console.py), one
machine's boot and capture (machine.py), the pool and its live table (pool.py, table.py)."""
