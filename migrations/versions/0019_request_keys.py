"""request keys: one tap, one action (each state-changing request's idempotency key, whether its action
was committed, and its first answer); one bonus of each kind per player per game, and a member record
merged once at a time, held by the database (a double tap that reached it twice before: the earliest
claim is kept, the repeats go); R-PAY-2: which players have a phone of their own in tonight's game, and
which votes were cast on the host's phone handed to the player

Revision ID: 0019
Revises: 0018
"""
import sqlalchemy as sa
from alembic import op

revision = '0019'
down_revision = '0018'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "request_keys",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("who", sa.String(length=80), nullable=False),
        sa.Column("key", sa.String(length=64), nullable=False),
        sa.Column("owner", sa.String(length=32), nullable=False),
        sa.Column("path", sa.String(length=200), nullable=False),
        sa.Column("claimed_at", sa.DateTime(), nullable=False),
        sa.Column("applied", sa.Boolean(), nullable=False),
        sa.Column("status", sa.Integer(), nullable=True),
        sa.Column("body", sa.LargeBinary(), nullable=True),
        sa.Column("headers", sa.JSON(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_request_keys")),
        sa.UniqueConstraint("who", "key", name=op.f("uq_request_keys_who_key")),
    )
    with op.batch_alter_table("request_keys") as batch:
        batch.create_index(batch.f("ix_request_keys_claimed_at"), ["claimed_at"], unique=False)


    # R-CHIP-1: a double-tapped "Give the bonus anyway" could claim a kind twice; the first claim stands.
    op.execute("DELETE FROM bonus_claims WHERE id NOT IN (SELECT min(id) FROM bonus_claims GROUP BY entry_id, kind)")
    with op.batch_alter_table("bonus_claims") as batch:
        batch.create_unique_constraint(batch.f("uq_bonus_claims_entry_id_kind"), ["entry_id", "kind"])
    # A merge recorded twice (the second could not be undone): the later repeats are marked undone.
    op.execute("UPDATE member_merges SET undone_at = at WHERE undone_at IS NULL AND id NOT IN "
               "(SELECT min(id) FROM member_merges WHERE undone_at IS NULL GROUP BY merged_id)")
    op.create_index("uq_member_merges_merged_id_open", "member_merges", ["merged_id"], unique=True,
                    sqlite_where=sa.text("undone_at IS NULL"), postgresql_where=sa.text("undone_at IS NULL"))
    # Entries made before: a player who checked in on their own phone cannot be told apart, so none
    # counts as having one until their phone acts again (a vote, a check-in).
    with op.batch_alter_table("entries") as batch:
        batch.add_column(sa.Column("deal_vote_handed", sa.Boolean(), server_default=sa.false(), nullable=False))
        batch.add_column(sa.Column("own_phone", sa.Boolean(), server_default=sa.false(), nullable=False))


def downgrade():
    with op.batch_alter_table("entries") as batch:
        batch.drop_column("own_phone")
        batch.drop_column("deal_vote_handed")
    op.drop_index("uq_member_merges_merged_id_open", table_name="member_merges")
    with op.batch_alter_table("bonus_claims") as batch:
        batch.drop_constraint(batch.f("uq_bonus_claims_entry_id_kind"), type_="unique")
    op.drop_table("request_keys")
