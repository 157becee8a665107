"""status checks: the database refuses a status, deal state, league kind or role outside league/statuses.py

Revision ID: 0006
Revises: 0005
"""
from alembic import op

revision = '0006'
down_revision = '0005'
branch_labels = None
depends_on = None

# Written out, not imported: a migration states the schema as it was at its revision.
CHECKS = {
    "leagues": {"kind": ("free", "cash")},
    "users": {"role": ("organiser", "host")},
    "events": {"status": ("scheduled", "running", "settled"),
               "deal_status": ("none", "open", "agreed", "void"),
               "deal_method": ("chip_chop", "icm")},
    "entries": {"status": ("requested", "registered", "pending", "playing", "played", "dq", "no_show")},
}


def upgrade():
    for table, columns in CHECKS.items():
        with op.batch_alter_table(table) as batch:
            for column, allowed in columns.items():
                batch.create_check_constraint(column, f"{column} IN ({', '.join(repr(v) for v in allowed)})")


def downgrade():
    for table, columns in CHECKS.items():
        with op.batch_alter_table(table) as batch:
            for column in columns:
                batch.drop_constraint(op.f(f"ck_{table}_{column}"), type_="check")
