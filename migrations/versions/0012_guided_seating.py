"""guided seating and redo: the seat a draw moved each player from, until the host sees them sat down; what
Undo took back, kept for Redo

Revision ID: 0012
Revises: 0011
"""
import sqlalchemy as sa
from alembic import op

revision = '0012'
down_revision = '0011'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("entries") as batch:
        batch.add_column(sa.Column("moved_from_table", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("moved_from_seat", sa.Integer(), nullable=True))
    with op.batch_alter_table("actions") as batch:
        batch.add_column(sa.Column("redo", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("undone_turn", sa.Integer(), nullable=True))


def downgrade():
    with op.batch_alter_table("actions") as batch:
        batch.drop_column("undone_turn")
        batch.drop_column("redo")
    with op.batch_alter_table("entries") as batch:
        batch.drop_column("moved_from_seat")
        batch.drop_column("moved_from_table")
