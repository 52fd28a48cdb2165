"""Record field values as the analyses take them: `num`, a field as a float when it is a number.
The firmware may send anything in a field (parse.py keeps what does not look like a number as
text), so every computation goes through this check first. report/doc.py has the same one-line
check for its formatters: it imports nothing of the package."""


def num(x):
    """x as a float if it is a number (the firmware may send anything), else None."""
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else None
