"""The JSON API under /api: one blueprint per resource, one error shape (web.errors)."""
