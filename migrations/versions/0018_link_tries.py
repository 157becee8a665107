"""link tries: each one-time login link counts its own failed tries, so ten kill it whatever restarts
or however many processes serve it (services.logins.LINK_TRIES)

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
    with op.batch_alter_table("login_links") as batch:
        batch.add_column(sa.Column("failed_tries", sa.Integer(), nullable=False, server_default="0"))


def downgrade():
    with op.batch_alter_table("login_links") as batch:
        batch.drop_column("failed_tries")
