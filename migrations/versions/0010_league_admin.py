"""league admin: settings snapshots on events and their change record, member bans and merges, retired venues, hosts' venues

Revision ID: 0010
Revises: 0009
"""
import sqlalchemy as sa
from alembic import op

revision = '0010'
down_revision = '0009'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("events") as batch:
        batch.add_column(sa.Column("settings", sa.JSON(), nullable=True))
    with op.batch_alter_table("venues") as batch:
        batch.add_column(sa.Column("retired_at", sa.DateTime(), nullable=True))
    with op.batch_alter_table("members") as batch:
        batch.add_column(sa.Column("banned_at", sa.DateTime(), nullable=True))
        batch.add_column(sa.Column("ban_reason", sa.String(length=500), nullable=True))
        batch.add_column(sa.Column("merged_into_id", sa.Integer(), nullable=True))
        batch.create_foreign_key("fk_members_merged_into_id_members", "members", ["merged_into_id"], ["id"])
    op.create_table(
        "host_venues",
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("venue_id", sa.Integer(), sa.ForeignKey("venues.id", ondelete="CASCADE"), primary_key=True),
    )
    op.create_table(
        "setting_changes",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("league_id", sa.Integer(), sa.ForeignKey("leagues.id"), nullable=False),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True),
        sa.Column("at", sa.DateTime(), nullable=False),
        sa.Column("key", sa.String(length=60), nullable=False),
        sa.Column("old", sa.JSON(), nullable=True),
        sa.Column("new", sa.JSON(), nullable=True),
    )
    op.create_index("ix_setting_changes_league_id", "setting_changes", ["league_id"])
    op.create_table(
        "member_merges",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("league_id", sa.Integer(), sa.ForeignKey("leagues.id"), nullable=False),
        sa.Column("kept_id", sa.Integer(), sa.ForeignKey("members.id"), nullable=False),
        sa.Column("merged_id", sa.Integer(), sa.ForeignKey("members.id"), nullable=False),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True),
        sa.Column("at", sa.DateTime(), nullable=False),
        sa.Column("moved", sa.JSON(), nullable=False),
        sa.Column("undone_at", sa.DateTime(), nullable=True),
    )
    op.create_index("ix_member_merges_league_id", "member_merges", ["league_id"])


def downgrade():
    op.drop_index("ix_member_merges_league_id", table_name="member_merges")
    op.drop_table("member_merges")
    op.drop_index("ix_setting_changes_league_id", table_name="setting_changes")
    op.drop_table("setting_changes")
    op.drop_table("host_venues")
    with op.batch_alter_table("members") as batch:
        batch.drop_constraint("fk_members_merged_into_id_members", type_="foreignkey")
        batch.drop_column("merged_into_id")
        batch.drop_column("ban_reason")
        batch.drop_column("banned_at")
    with op.batch_alter_table("venues") as batch:
        batch.drop_column("retired_at")
    with op.batch_alter_table("events") as batch:
        batch.drop_column("settings")
