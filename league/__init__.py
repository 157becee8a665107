"""The league's rules, in plain Python: no Flask, no SQLAlchemy.

Each public function names the rule id (R-…) of the league's rules that it implements.
"""
