"""R-CLOCK-3: when the clock last changed (server ms), the earliest a tap kept on the host's phone
while the signal was down can be applied at

Revision ID: 0020
Revises: 0019
"""
import sqlalchemy as sa
from alembic import op

revision = '0020'
down_revision = '0019'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("events") as batch:
        batch.add_column(sa.Column("clock_changed_ms", sa.BigInteger(), nullable=True))


def downgrade():
    with op.batch_alter_table("events") as batch:
        batch.drop_column("clock_changed_ms")
