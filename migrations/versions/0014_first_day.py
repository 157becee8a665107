"""first day: the operator role (a login of no league), usernames unique whatever their case, suspended
and removed logins, and one-time login links (the set-up link, password links)

Revision ID: 0014
Revises: 0013
"""
from collections import defaultdict

import sqlalchemy as sa
from alembic import op

revision = '0014'
down_revision = '0013'
branch_labels = None
depends_on = None

# Written out, not imported: a migration states the schema as it was at its revision.
ROLES_BEFORE = ("organiser", "host")
ROLES_AFTER = ROLES_BEFORE + ("operator",)


class CaseDuplicates(RuntimeError):
    """Two logins whose usernames differ only in case: which one is meant is the owner's call, not the
    migration's (merging would join two people's nights and passwords), so it stops, changes nothing and
    says how to rename one."""


def _keys(bind) -> dict[int, str]:
    """Each login's key (league.logins.username_key as it was at this revision: trimmed, casefolded),
    refused whole if two logins share one."""
    rows = bind.execute(sa.text("SELECT id, username FROM users ORDER BY id")).all()
    by_key: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for user_id, username in rows:
        by_key[username.strip().casefold()].append((user_id, username))
    clashes = [names for names in by_key.values() if len(names) > 1]
    if clashes:
        listed = "; ".join(", ".join(f"{name!r} (id {user_id})" for user_id, name in names) for names in clashes)
        raise CaseDuplicates(
            "usernames are now one name whatever their case, and these logins differ only in case: "
            f"{listed}. Nothing was changed. Rename all but one of each, e.g. "
            "`flask --app app league rename-login OLD NEW`, then upgrade again.")
    return {user_id: username.strip().casefold() for user_id, username in rows}


def _role_check(batch, allowed):
    batch.drop_constraint(op.f("ck_users_role"), type_="check")
    batch.create_check_constraint("role", f"role IN ({', '.join(repr(v) for v in allowed)})")


def upgrade():
    bind = op.get_bind()
    keys = _keys(bind)
    with op.batch_alter_table("users") as batch:
        batch.add_column(sa.Column("username_key", sa.String(length=80), nullable=True))
        batch.add_column(sa.Column("suspended_at", sa.DateTime(), nullable=True))
        batch.add_column(sa.Column("removed_at", sa.DateTime(), nullable=True))
    for user_id, key in keys.items():
        bind.execute(sa.text("UPDATE users SET username_key = :key WHERE id = :id"), {"key": key, "id": user_id})
    with op.batch_alter_table("users") as batch:
        batch.drop_constraint(op.f("uq_users_username"), type_="unique")
        batch.create_unique_constraint(op.f("uq_users_username_key"), ["username_key"])
        batch.alter_column("league_id", existing_type=sa.Integer(), nullable=True)
        _role_check(batch, ROLES_AFTER)
    op.create_table(
        "login_links",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("purpose", sa.String(length=10), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=True),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("expires_at", sa.DateTime(), nullable=True),
        sa.Column("used_at", sa.DateTime(), nullable=True),
        sa.Column("issued_by", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.CheckConstraint("purpose IN ('setup', 'password')", name=op.f("ck_login_links_purpose")),
        sa.ForeignKeyConstraint(["issued_by"], ["users.id"], name=op.f("fk_login_links_issued_by_users"),
                                ondelete="SET NULL"),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name=op.f("fk_login_links_user_id_users"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_login_links")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_login_links_token_hash")),
    )
    op.create_index(op.f("ix_login_links_user_id"), "login_links", ["user_id"])


def downgrade():
    # The older schema has no operator and no removed logins: they go (a removed login's nights keep
    # their rows only if it ran none; otherwise the downgrade stops at its foreign keys, which is right).
    op.drop_index(op.f("ix_login_links_user_id"), table_name="login_links")
    op.drop_table("login_links")
    op.execute("DELETE FROM users WHERE role = 'operator' OR removed_at IS NOT NULL")
    with op.batch_alter_table("users") as batch:
        _role_check(batch, ROLES_BEFORE)
        batch.alter_column("league_id", existing_type=sa.Integer(), nullable=False)
        batch.drop_constraint(op.f("uq_users_username_key"), type_="unique")
        batch.create_unique_constraint(op.f("uq_users_username"), ["username"])
        batch.drop_column("removed_at")
        batch.drop_column("suspended_at")
        batch.drop_column("username_key")
