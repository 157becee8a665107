"""hand-for-hand (R-HFH-1..3): whether a night plays hand-for-hand, the hand in play, and the hand each
bust-out happened in

Revision ID: 0016
Revises: 0015
"""
import sqlalchemy as sa
from alembic import op

revision = '0016'
down_revision = '0015'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("events") as batch:
        batch.add_column(sa.Column("hand_for_hand", sa.Boolean(), nullable=False, server_default=sa.false()))
        batch.add_column(sa.Column("hand_number", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("hands_dealt", sa.Integer(), nullable=False, server_default="0"))
    with op.batch_alter_table("entries") as batch:
        batch.add_column(sa.Column("hfh_hand", sa.Integer(), nullable=True))


def downgrade():
    # Shared hand-for-hand places stay as they were written (Entry.position); only the record of which
    # hand each bust-out was in goes.
    with op.batch_alter_table("entries") as batch:
        batch.drop_column("hfh_hand")
    with op.batch_alter_table("events") as batch:
        batch.drop_column("hands_dealt")
        batch.drop_column("hand_number")
        batch.drop_column("hand_for_hand")
