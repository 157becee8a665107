"""guided seating and redo: the moves a draw gave, walked one at a time; what Undo took back, kept for Redo

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
    op.create_table(
        "seat_moves",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("event_id", sa.Integer(), nullable=False),
        sa.Column("entry_id", sa.Integer(), nullable=False),
        sa.Column("from_table", sa.Integer(), nullable=False),
        sa.Column("from_seat", sa.Integer(), nullable=False),
        sa.Column("to_table", sa.Integer(), nullable=False),
        sa.Column("to_seat", sa.Integer(), nullable=False),
        sa.Column("done_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(["entry_id"], ["entries.id"], name=op.f("fk_seat_moves_entry_id_entries"),
                                ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["event_id"], ["events.id"], name=op.f("fk_seat_moves_event_id_events"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_seat_moves")),
    )
    op.create_index(op.f("ix_seat_moves_event_id"), "seat_moves", ["event_id"], unique=False)
    with op.batch_alter_table("actions") as batch:
        batch.add_column(sa.Column("redo", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("undone_turn", sa.Integer(), nullable=True))


def downgrade():
    with op.batch_alter_table("actions") as batch:
        batch.drop_column("undone_turn")
        batch.drop_column("redo")
    op.drop_index(op.f("ix_seat_moves_event_id"), table_name="seat_moves")
    op.drop_table("seat_moves")
