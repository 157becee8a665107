"""cancelled nights: a night cancelled before play stays listed, with who cancelled it, when and why

Revision ID: 0011
Revises: 0010
"""
import sqlalchemy as sa
from alembic import op

revision = '0011'
down_revision = '0010'
branch_labels = None
depends_on = None

# Written out, not imported: a migration states the schema as it was at its revision.
BEFORE = ("scheduled", "running", "settled")
AFTER = BEFORE + ("cancelled",)


def _status_check(batch, allowed):
    batch.drop_constraint(op.f("ck_events_status"), type_="check")
    batch.create_check_constraint("status", f"status IN ({', '.join(repr(v) for v in allowed)})")


def upgrade():
    with op.batch_alter_table("events") as batch:
        batch.add_column(sa.Column("cancelled_at", sa.DateTime(), nullable=True))
        batch.add_column(sa.Column("cancelled_by", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("cancel_reason", sa.String(length=500), nullable=True))
        batch.create_foreign_key(op.f("fk_events_cancelled_by_users"), "users", ["cancelled_by"], ["id"],
                                 ondelete="SET NULL")
        _status_check(batch, AFTER)


def downgrade():
    # A cancelled night can't be stored in the older schema: it goes, as cancelling did then.
    op.execute("DELETE FROM events WHERE status = 'cancelled'")
    with op.batch_alter_table("events") as batch:
        _status_check(batch, BEFORE)
        batch.drop_constraint(op.f("fk_events_cancelled_by_users"), type_="foreignkey")
        batch.drop_column("cancel_reason")
        batch.drop_column("cancelled_by")
        batch.drop_column("cancelled_at")
