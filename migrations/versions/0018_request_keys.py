"""request keys: one tap, one action (each state-changing request's idempotency key, whether its action
was committed, and its first answer)

Revision ID: 0018
Revises: 0017
"""
import sqlalchemy as sa
from alembic import op

revision = '0018'
down_revision = '0017'
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


def downgrade():
    op.drop_table("request_keys")
