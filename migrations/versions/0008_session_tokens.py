"""session tokens: a revocable token names each login in its session and remember-me cookie, new on logout and on a new password

Revision ID: 0008
Revises: 0007
"""
import secrets

import sqlalchemy as sa
from alembic import op

revision = '0008'
down_revision = '0007'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("users") as batch:
        batch.add_column(sa.Column("session_token", sa.String(length=43), nullable=True))
    # Every existing login gets its own token: the old id-based cookies stop logging in (one new login).
    bind = op.get_bind()
    for (user_id,) in bind.execute(sa.text("SELECT id FROM users")).all():
        bind.execute(sa.text("UPDATE users SET session_token = :token WHERE id = :id"),
                     {"token": secrets.token_urlsafe(32), "id": user_id})
    with op.batch_alter_table("users") as batch:
        batch.alter_column("session_token", existing_type=sa.String(length=43), nullable=False)
        batch.create_unique_constraint("uq_users_session_token", ["session_token"])


def downgrade():
    with op.batch_alter_table("users") as batch:
        batch.drop_constraint("uq_users_session_token", type_="unique")
        batch.drop_column("session_token")
