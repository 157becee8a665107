"""finals: a final's qualifying month on the event, each entry's own starting stack, the final a ticket was presented at (R-QUAL-3..5, R-FIN)

Revision ID: 0007
Revises: 0006
"""
import sqlalchemy as sa
from alembic import op

revision = '0007'
down_revision = '0006'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("events") as batch:
        batch.add_column(sa.Column("final_month", sa.String(length=7), nullable=True))
    with op.batch_alter_table("entries") as batch:
        batch.add_column(sa.Column("starting_stack", sa.BigInteger(), nullable=True))
    with op.batch_alter_table("tickets") as batch:
        batch.add_column(sa.Column("presented_event_id", sa.Integer(), nullable=True))
        batch.create_foreign_key("fk_tickets_presented_event_id_events", "events", ["presented_event_id"], ["id"],
                                 ondelete="SET NULL")


def downgrade():
    with op.batch_alter_table("tickets") as batch:
        batch.drop_constraint("fk_tickets_presented_event_id_events", type_="foreignkey")
        batch.drop_column("presented_event_id")
    with op.batch_alter_table("entries") as batch:
        batch.drop_column("starting_stack")
    with op.batch_alter_table("events") as batch:
        batch.drop_column("final_month")
