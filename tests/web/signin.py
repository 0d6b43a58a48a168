"""Signing in through the login page, as a person does (the browser keeps the session)."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.web.conftest import Visit


def log_in(visit: Visit, name: str) -> None:
    """Sign in as ``name`` (made by ``make_user``: its password is NAME-password-1)."""
    page = visit.page
    visit.go("/accounts/login/")
    page.get_by_label("Username").fill(name)
    page.get_by_label("Password").fill(f"{name}-password-1")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("button", name=f"Log out {name}")).to_be_visible()
