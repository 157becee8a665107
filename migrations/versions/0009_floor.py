"""floor: the penalties table (R-PEN-1..3); on each entry its buy-ins (R-ENTRY-1..2) and a penalty's end

The penalties table records each warning and penalty; each entry gets the stacks its player bought
(1 plus re-entries and rebuys) and the estimated return time of a penalty in force.

Revision ID: 0009
Revises: 0008
"""
import sqlalchemy as sa
from alembic import op

revision = '0009'
down_revision = '0008'
branch_labels = None
depends_on = None

# Written out, not imported: a migration states the schema as it was at its revision.
PENALTY_KINDS = ("warning", "missed_hands", "missed_rounds", "disqualification")


def upgrade():
    op.create_table(
        "penalties",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("event_id", sa.Integer(), nullable=False),
        sa.Column("entry_id", sa.Integer(), nullable=False),
        sa.Column("member_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=True),
        sa.Column("at", sa.DateTime(), nullable=False),
        sa.Column("kind", sa.String(length=20), nullable=False),
        sa.Column("reason", sa.String(length=500), nullable=False),
        sa.Column("table_no", sa.Integer(), nullable=True),
        sa.Column("seat_no", sa.Integer(), nullable=True),
        sa.Column("table_size", sa.Integer(), nullable=True),
        sa.Column("rounds", sa.Integer(), nullable=True),
        sa.Column("hands", sa.Integer(), nullable=True),
        sa.Column("until", sa.DateTime(), nullable=True),
        sa.Column("ended_at", sa.DateTime(), nullable=True),
        sa.CheckConstraint(f"kind IN ({', '.join(repr(k) for k in PENALTY_KINDS)})", name=op.f("ck_penalties_kind")),
        sa.ForeignKeyConstraint(["entry_id"], ["entries.id"], name=op.f("fk_penalties_entry_id_entries"),
                                ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["event_id"], ["events.id"], name=op.f("fk_penalties_event_id_events"),
                                ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["member_id"], ["members.id"], name=op.f("fk_penalties_member_id_members")),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name=op.f("fk_penalties_user_id_users")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_penalties")),
    )
    op.create_index(op.f("ix_penalties_event_id"), "penalties", ["event_id"])
    op.create_index("ix_penalties_member", "penalties", ["member_id", "at"])
    with op.batch_alter_table("entries") as batch:
        batch.add_column(sa.Column("buy_ins", sa.Integer(), nullable=False, server_default="1"))
        batch.add_column(sa.Column("penalty_until", sa.DateTime(), nullable=True))
        batch.create_check_constraint("buy_ins", "buy_ins >= 1")


def downgrade():
    with op.batch_alter_table("entries") as batch:
        batch.drop_constraint(op.f("ck_entries_buy_ins"), type_="check")
        batch.drop_column("penalty_until")
        batch.drop_column("buy_ins")
    op.drop_index("ix_penalties_member", table_name="penalties")
    op.drop_index(op.f("ix_penalties_event_id"), table_name="penalties")
    op.drop_table("penalties")
