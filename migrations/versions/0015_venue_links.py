"""venue links: each venue's permanent link (its poster's QR), the old links a replaced poster leaves, when the
poster was printed, and when the league's settings were reviewed (a new league's checklist)

Revision ID: 0015
Revises: 0014
"""
import secrets

import sqlalchemy as sa
from alembic import op

revision = '0015'
down_revision = '0014'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("venues") as batch:
        batch.add_column(sa.Column("link_code", sa.String(length=43), nullable=True))
        batch.add_column(sa.Column("poster_printed_at", sa.DateTime(), nullable=True))
    # Every existing venue gets its own link: its first poster is printed from it.
    bind = op.get_bind()
    for (venue_id,) in bind.execute(sa.text("SELECT id FROM venues")).all():
        bind.execute(sa.text("UPDATE venues SET link_code = :code WHERE id = :id"),
                     {"code": secrets.token_urlsafe(16), "id": venue_id})
    with op.batch_alter_table("venues") as batch:
        batch.alter_column("link_code", existing_type=sa.String(length=43), nullable=False)
        batch.create_unique_constraint("uq_venues_link_code", ["link_code"])
    with op.batch_alter_table("leagues") as batch:
        batch.add_column(sa.Column("settings_reviewed_at", sa.DateTime(), nullable=True))
    op.create_table(
        "replaced_venue_links",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("venue_id", sa.Integer(), nullable=False),
        sa.Column("code", sa.String(length=43), nullable=False),
        sa.Column("replaced_at", sa.DateTime(), nullable=False),
        sa.Column("replaced_by", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(["replaced_by"], ["users.id"], name=op.f("fk_replaced_venue_links_replaced_by_users"),
                                ondelete="SET NULL"),
        sa.ForeignKeyConstraint(["venue_id"], ["venues.id"], name=op.f("fk_replaced_venue_links_venue_id_venues"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_replaced_venue_links")),
        sa.UniqueConstraint("code", name=op.f("uq_replaced_venue_links_code")),
    )
    with op.batch_alter_table("replaced_venue_links") as batch:
        batch.create_index(batch.f("ix_replaced_venue_links_venue_id"), ["venue_id"], unique=False)


def downgrade():
    # The old links and the two dates can't be kept in the older schema: they go (a printed poster's
    # link then opens nothing).
    with op.batch_alter_table("replaced_venue_links") as batch:
        batch.drop_index(batch.f("ix_replaced_venue_links_venue_id"))
    op.drop_table("replaced_venue_links")
    with op.batch_alter_table("leagues") as batch:
        batch.drop_column("settings_reviewed_at")
    with op.batch_alter_table("venues") as batch:
        batch.drop_constraint("uq_venues_link_code", type_="unique")
        batch.drop_column("poster_printed_at")
        batch.drop_column("link_code")
