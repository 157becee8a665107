"""Plain checks on the numbers the rules take: whole counts, chips, positions."""


def is_whole(value: object) -> bool:
    """An int that is not a bool (True is 1 to Python, never a count of chips or players)."""
    return isinstance(value, int) and not isinstance(value, bool)
