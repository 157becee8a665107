"""push sent: the messages a member is told once only (registration closing, once a night; a Top-10
Shoot-out place, once a month), claimed as each is sent

Revision ID: 0021
Revises: 0020
"""
import sqlalchemy as sa
from alembic import op

revision = '0021'
down_revision = '0020'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "push_sent",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("member_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=40), nullable=False),
        sa.Column("ref", sa.String(length=40), nullable=False),
        sa.Column("sent_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["member_id"], ["members.id"], name=op.f("fk_push_sent_member_id_members"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_push_sent")),
        sa.UniqueConstraint("member_id", "kind", "ref", name=op.f("uq_push_sent_member_id_kind_ref")),
    )


def downgrade():
    # What was told is forgotten: a night still running may tell its pre-registered again.
    op.drop_table("push_sent")
