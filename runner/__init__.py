"""Sandboxed, warm judging for the server: bubblewrap, seccomp, cgroups and a fork server."""
