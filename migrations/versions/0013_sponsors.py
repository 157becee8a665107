"""sponsors: a named sponsor's money in a night's or final's prize pool (R-PAY-3: every dollar a prize
pays has a source the ledger names)

Revision ID: 0013
Revises: 0012
"""
import sqlalchemy as sa
from alembic import op

revision = '0013'
down_revision = '0012'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("events") as batch:
        batch.add_column(sa.Column("sponsor", sa.String(length=120), nullable=True))
        batch.add_column(sa.Column("sponsor_money", sa.Integer(), nullable=False, server_default="0"))


def downgrade():
    with op.batch_alter_table("events") as batch:
        batch.drop_column("sponsor_money")
        batch.drop_column("sponsor")
