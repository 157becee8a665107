"""push subscriptions: each player's phone that asked to be told when they move (Web Push)

Revision ID: 0017
Revises: 0016
"""
import sqlalchemy as sa
from alembic import op

revision = '0017'
down_revision = '0016'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "push_subscriptions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("member_id", sa.Integer(), nullable=False),
        sa.Column("endpoint", sa.String(length=1024), nullable=False),
        sa.Column("p256dh", sa.String(length=100), nullable=False),
        sa.Column("auth", sa.String(length=40), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["member_id"], ["members.id"], name=op.f("fk_push_subscriptions_member_id_members"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_push_subscriptions")),
        sa.UniqueConstraint("endpoint", name=op.f("uq_push_subscriptions_endpoint")),
    )
    with op.batch_alter_table("push_subscriptions") as batch:
        batch.create_index(batch.f("ix_push_subscriptions_member_id"), ["member_id"], unique=False)


def downgrade():
    # The phones' subscriptions go: each phone asks again with the switch.
    with op.batch_alter_table("push_subscriptions") as batch:
        batch.drop_index(batch.f("ix_push_subscriptions_member_id"))
    op.drop_table("push_subscriptions")
