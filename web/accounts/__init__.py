"""Who is asking (sessions, tokens, CSRF) and what a user's profile shows."""
